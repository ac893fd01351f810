"""SMCalFlow's first requests (real users, nobody on this project wrote them), each a conversation of
its own: the pass count is held to a floor, so the rate can only rise, and none may end with a write
the judge finds unexpected (the judge compares the calendars with how they began, so a wrong title, a
second event moved or a stranger mailed is named).  A held-in half of the dataset: the floor guards
against slipping; it is not a target to tune to.  It plays 374 conversations (about a minute), so it
is marked ``slow``."""

from __future__ import annotations

import pytest
from django.conf import settings

from assistant.scenarios import run_scenario, scenario_files

SMCALFLOW = settings.BASE_DIR.parent / "shared" / "scenarios" / "smcalflow"
FLOOR = 349


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.skipif(not SMCALFLOW.is_dir(), reason=f"{SMCALFLOW} is absent")
def test_at_least_the_floor_of_smcalflow_requests_pass_and_none_writes_unexpectedly() -> None:
    results = [run_scenario(path) for path in scenario_files([SMCALFLOW])]
    failing = [result for result in results if not result.passed]
    passed = len(results) - len(failing)
    details = "\n".join(
        f"{result.name}: {result.failures[:1]} {result.unexpected_writes}" for result in failing
    )
    assert passed >= FLOOR, f"{passed} of {len(results)} SMCalFlow requests pass (floor {FLOOR}):\n{details}"
    assert {r.name: r.unexpected_writes for r in results if r.unexpected_writes} == {}
