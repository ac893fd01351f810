"""``manage.py bench``: it runs every measurement, prints one table with numbers, and leaves no data.

No timing is asserted here: the bench measures, the tests only check that it works.
"""

from __future__ import annotations

import fcntl
import json
import re
from dataclasses import dataclass, field
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from assistant.bench import ROW_NAMES, Row, Target, Timing, as_json, render, verdict
from assistant.bench.engine import engine_per_task_committed
from assistant.bench.runner import (
    BULK_MOVE,
    ENGINE_COMMITTED,
    ENGINE_LANGGRAPH,
    ENGINE_SAVEPOINTS,
    FREE_SLOTS,
    FREE_SLOTS_EVERY,
    PROMPT_PHASE1,
    PROMPT_ROWS,
    PROMPT_SINGLE,
    TURN_ROWS,
)
from assistant.bench.turnmix import decision_writes, request_without_state, scenario_folders
from skills.models import Event
from workflows.definition import Decision, TaskSpec, WorkflowDefinition
from workflows.models import TaskRun, WorkflowRun


def _counts() -> tuple[int, ...]:
    return (
        get_user_model().objects.count(),
        Event.objects.count(),
        WorkflowRun.objects.count(),
        TaskRun.objects.count(),
    )


@pytest.fixture(scope="session")
def quick_run(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> dict[str, Any]:
    """One ``bench --quick`` for the whole suite (it takes about 45 s), outside any test transaction,
    so that its own rollback is what keeps the database clean.  Under xdist the first worker to ask
    runs it and any other reads its table from a file beside their temporary folders (CI's
    ``--dist loadscope`` keeps this module on one worker, so the other never waits)."""
    if worker_id == "master":
        return _quick_run(django_db_blocker)
    shared = tmp_path_factory.getbasetemp().parent / "quick-bench.json"
    with open(shared.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if shared.exists():
            found: dict[str, Any] = json.loads(shared.read_text())
            return found
        ran = _quick_run(django_db_blocker)
        shared.write_text(json.dumps(ran))
        return ran


def _quick_run(django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        before = _counts()
        out = StringIO()
        call_command("bench", "--quick", stdout=out)
        after = _counts()
    return {"lines": out.getvalue().splitlines(), "before": list(before), "after": list(after)}


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


@pytest.mark.parametrize("kind", TURN_ROWS)
def test_every_class_of_scenario_turn_has_its_row_with_turns_and_the_p95_target(
    quick_run: dict[str, Any], kind: str
) -> None:
    cells = _cells(quick_run["lines"], TURN_ROWS[kind])
    assert cells[4] == "p95 <= 5 ms"
    turns = re.search(r"\b(\d+) turns of (\d+) conversations", cells[5])
    assert turns is not None, cells[5]
    assert int(turns.group(1)) >= 1
    played = sum(len(list(folder.glob("*.yaml"))) for folder in scenario_folders())
    assert int(turns.group(2)) == played  # the SGD dialogues too


def test_the_recording_puts_the_chat_functions_back(quick_run: dict[str, Any]) -> None:
    # Imported here: a chat stack being rewritten should fail its own tests, not this whole module.
    from assistant import planning, services
    from assistant.answers import answer_for

    assert services.decompose is planning.decompose
    assert services.answer_for is answer_for


def test_both_engine_rows_show_their_ratio_to_langgraph_and_the_committing_one_the_target(
    quick_run: dict[str, Any],
) -> None:
    committed = _cells(quick_run["lines"], ENGINE_COMMITTED)
    assert committed[4] == "ratio <= 0.5"
    assert re.match(r"\d+\.\d\d; (met|MISSED); ", committed[5])
    savepoints = _cells(quick_run["lines"], ENGINE_SAVEPOINTS)
    assert savepoints[4] == "-"
    assert re.match(r"\d+\.\d\d; the same, but its commits are savepoints", savepoints[5])
    assert _cells(quick_run["lines"], ENGINE_LANGGRAPH)[4] == "-"


def test_the_every_slot_row_says_how_many_slots_it_found(quick_run: dict[str, Any]) -> None:
    every = re.search(
        r"found (\d+) slots, every one in the year", _cells(quick_run["lines"], FREE_SLOTS_EVERY)[5]
    )
    first = re.search(r"found (\d+) slots", _cells(quick_run["lines"], FREE_SLOTS)[5])
    assert every is not None
    assert first is not None
    assert int(every.group(1)) > int(first.group(1)) == 10


def test_the_bulk_move_row_shows_the_same_queries_per_changed_event_at_both_sizes(
    quick_run: dict[str, Any],
) -> None:
    notes = _cells(quick_run["lines"], BULK_MOVE)[5]
    found = re.search(r"SQL queries per changed event (\d+\.\d\d) and (\d+\.\d\d) with", notes)
    assert found is not None, notes
    assert found.group(1) == found.group(2)


def test_the_llm_prompt_rows_are_in_estimated_tokens_with_their_targets(quick_run: dict[str, Any]) -> None:
    for name in PROMPT_ROWS:
        cells = _cells(quick_run["lines"], name)
        assert re.fullmatch(r"\d+ tok", cells[2]), cells
        assert re.fullmatch(r"\d+ tok", cells[3]), cells
    assert _cells(quick_run["lines"], PROMPT_PHASE1)[4] == "max <= 700 est. tokens"
    single = _cells(quick_run["lines"], PROMPT_SINGLE)
    assert single[4] == "ratio <= 0.1"
    assert re.match(r"\d+\.\d\d; (met|MISSED); the largest ratio of the \d+ utterances", single[5])


def test_the_last_line_says_which_targets_were_met(quick_run: dict[str, Any]) -> None:
    assert re.match(r"Targets met: \d+/16", quick_run["lines"][-1])


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


@pytest.mark.django_db
def test_the_committing_engine_row_refuses_to_run_inside_a_transaction() -> None:
    with pytest.raises(RuntimeError, match="outside any transaction"):
        engine_per_task_committed(repeat=1)


@dataclass
class _Request:
    """Shaped like ``DecomposeRequest``, with one more field of conversation state, as it may gain."""

    text: str
    user: Any
    timezone: str
    history: list[tuple[str, str]] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    asked: str = ""


def test_a_request_without_its_conversation_keeps_the_turn_and_drops_every_state_field() -> None:
    user = object()
    request = _Request(
        text="move it to 3pm",
        user=user,
        timezone="Europe/London",
        history=[("user", "book lunch tomorrow"), ("assistant", "Done")],
        context={"last_events": [{"summary": "Lunch"}]},
        asked="when",
    )
    bare = request_without_state(request)
    assert (bare.text, bare.user, bare.timezone) == ("move it to 3pm", user, "Europe/London")
    assert (bare.history, bare.context, bare.asked) == ([], {}, "")
    assert request.history  # the recorded request is left as the chat passed it


def test_a_decision_writes_when_its_workflow_holds_a_write_skill() -> None:
    def decision(*skills: str) -> Decision:
        tasks = tuple(TaskSpec(id=f"t{i}", skill=s) for i, s in enumerate(skills))
        return Decision(kind="workflow", workflow=WorkflowDefinition(name="w", tasks=tasks))

    assert decision_writes(decision("find_events", "apply_changes"))
    assert not decision_writes(decision("find_events", "compose_reply"))
    assert not decision_writes(Decision(kind="clarify", text="When?"))
