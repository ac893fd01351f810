"""``manage.py bench``: it runs every measurement, prints one table with numbers, and leaves no data.

No timing is asserted here: the bench measures, the tests only check that it works.
"""

from __future__ import annotations

import json
import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from assistant.bench import ROW_NAMES, Row, Target, Timing, as_json, render, verdict
from assistant.bench.runner import BULK_MOVE
from skills.models import Event
from workflows.models import WorkflowRun


def _counts() -> tuple[int, int, int]:
    return get_user_model().objects.count(), Event.objects.count(), WorkflowRun.objects.count()


@pytest.fixture(scope="module")
def quick_run(django_db_setup: Any, django_db_blocker: Any) -> dict[str, Any]:
    """One ``bench --quick`` for the whole module (it takes seconds), outside any test transaction,
    so that its own rollback is what keeps the database clean."""
    with django_db_blocker.unblock():
        before = _counts()
        out = StringIO()
        call_command("bench", "--quick", stdout=out)
        after = _counts()
    return {"lines": out.getvalue().splitlines(), "before": before, "after": after}


def _cells(lines: list[str], name: str) -> list[str]:
    line = next((line for line in lines if line.startswith(name + "  ")), None)
    assert line is not None, f"no row {name!r} in:\n" + "\n".join(lines)
    return re.split(r"\s{2,}", line)


def test_the_table_has_the_announced_columns(quick_run: dict[str, Any]) -> None:
    assert re.split(r"\s{2,}", quick_run["lines"][0]) == [
        "measurement",
        "n",
        "median ms",
        "p95 ms",
        "target",
        "ratio/notes",
    ]


@pytest.mark.parametrize("name", ROW_NAMES)
def test_every_row_has_a_numeric_median_and_p95(quick_run: dict[str, Any], name: str) -> None:
    cells = _cells(quick_run["lines"], name)
    assert int(cells[1]) >= 1
    assert float(cells[2]) >= 0
    assert float(cells[3]) >= float(cells[2])


def test_the_engine_row_shows_its_ratio_to_langgraph(quick_run: dict[str, Any]) -> None:
    notes = _cells(quick_run["lines"], "engine per task (ours, persisted)")[5]
    assert re.match(r"\d+\.\d\d; (met|MISSED)", notes)


def test_the_bulk_move_row_shows_the_same_queries_per_changed_event_at_both_sizes(
    quick_run: dict[str, Any],
) -> None:
    notes = _cells(quick_run["lines"], BULK_MOVE)[5]
    found = re.search(r"SQL queries per changed event (\d+\.\d\d) and (\d+\.\d\d) with", notes)
    assert found is not None, notes
    assert found.group(1) == found.group(2)


def test_the_last_line_says_which_targets_were_met(quick_run: dict[str, Any]) -> None:
    assert re.match(r"Targets met: \d/6", quick_run["lines"][-1])


def test_the_table_says_how_busy_the_machine_was(quick_run: dict[str, Any]) -> None:
    assert quick_run["lines"][-2].startswith("Machine: ")


def test_the_bench_leaves_the_database_as_it_was(quick_run: dict[str, Any]) -> None:
    assert quick_run["after"] == quick_run["before"]


def test_a_row_that_could_not_be_measured_prints_na_and_counts_as_not_measured() -> None:
    rows = [
        Row(name="measured", timing=Timing((1.0, 2.0, 3.0)), target=Target("median", 5)),
        Row(name="missing", target=Target("p95", 5), unavailable="cannot import: x"),
    ]
    lines = render(rows)
    assert re.split(r"\s{2,}", lines[2])[2:4] == ["n/a", "n/a"]
    assert verdict(rows) == "Targets met: 1/2; not measured: missing."


def test_json_output_carries_the_numbers_and_the_verdict() -> None:
    rows = [Row(name="slow", timing=Timing((10.0, 30.0)), target=Target("median", 5))]
    data = json.loads(json.dumps(as_json(rows)))
    assert data["rows"][0]["median_ms"] == 20.0
    assert data["rows"][0]["met"] is False
    assert data["targets_missed"] == ["slow"]
