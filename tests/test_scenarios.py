"""Every shared scenario runs through the real chat path; those that need later issues are strict xfails.

The xfail list shrinks as work lands: a scenario that starts passing while still listed fails the suite
(strict), so it is never forgotten there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from assistant.scenarios import run_scenario, scenario_files

SCENARIOS = settings.BASE_DIR.parent / "shared" / "scenarios"

# Scenarios whose features come with open issues; each names its issue (none left open today).
LATER: dict[str, str] = {}


def _params() -> list[Any]:
    if not SCENARIOS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{SCENARIOS} is absent"))]
    params: list[Any] = []
    for path in scenario_files([SCENARIOS]):
        marks = [pytest.mark.xfail(reason=LATER[path.stem], strict=True)] if path.stem in LATER else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


@pytest.mark.django_db
@pytest.mark.parametrize("path", _params())
def test_shared_scenario(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, "\n".join(result.failures)
