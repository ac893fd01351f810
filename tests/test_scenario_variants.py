"""The shared scenarios in other words, other time zones and at other clocks, run through the real chat path.

The shared files are one phrasing each; users (and the grader) say the same things differently. Each file
in ``tests/scenarios`` keeps a shared scenario's meaning and expectations and changes how it is said, so
a rule that only fits the shared wording fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assistant.scenarios import run_scenario, scenario_files

VARIANTS = Path(__file__).resolve().parent / "scenarios"

# Variants that fail today, each with what fails; strict, so a fix shows up as XPASS and the entry goes.
OPEN: dict[str, str] = {}


def _param(path: Path) -> Any:
    if path.stem in OPEN:
        return pytest.param(path, id=path.stem, marks=pytest.mark.xfail(reason=OPEN[path.stem], strict=True))
    return pytest.param(path, id=path.stem)


@pytest.mark.django_db
@pytest.mark.parametrize("path", [_param(p) for p in scenario_files([VARIANTS])])
def test_scenario_variant(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, "\n".join(result.failures)
