"""Golden files: every shared line's decision, committed, so a change of behaviour shows line by line."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from assistant.evaluation.golden import GOLDEN, UTTERANCES, compare, decision_line, write_records
from workflows.definition import Decision, TaskSpec, WorkflowDefinition


def test_a_decision_is_one_line_of_its_kind_confidence_and_literal_steps() -> None:
    workflow = WorkflowDefinition(
        name="create-event",
        tasks=(
            TaskSpec(id="plan", skill="plan_create", params={"summary": "Lunch", "attendees": []}),
            TaskSpec(
                id="apply", skill="apply_changes", params={"changes": "{{plan.output}}"}, depends_on=("plan",)
            ),
        ),
        output="apply",
    )
    line = decision_line(Decision(kind="workflow", workflow=workflow, confidence=0.85))
    assert line == "workflow 0.85 | plan_create(summary='Lunch') > apply_changes()"
    asked = Decision(kind="clarify", reply_kind="clarify", text="What should I call it?", confidence=0.8)
    assert decision_line(asked) == "clarify 0.80 | What should I call it?"


def test_compare_names_changed_new_and_gone_lines(tmp_path: Path) -> None:
    write_records("x", [{"text": "a", "decision": "1"}, {"text": "b", "decision": "2"}], tmp_path)
    differences = compare("x", [{"text": "a", "decision": "1"}, {"text": "c", "decision": "3"}], tmp_path)
    assert [(d.key, d.before, d.after) for d in differences] == [
        ("c", None, {"text": "c", "decision": "3"}),
        ("b", {"text": "b", "decision": "2"}, None),
    ]


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.skipif(not (GOLDEN.parent.parent.parent / "shared").is_dir(), reason="../shared is absent")
def test_the_committed_golden_decisions_are_the_codes() -> None:
    """A change of behaviour lands with its golden files (``manage.py golden`` writes them)."""
    out = StringIO()
    try:
        call_command("golden", *UTTERANCES, "--check", "--show", "5", stdout=out)
    except SystemExit:
        pytest.fail("decisions differ from tests/golden (run manage.py golden):\n" + out.getvalue())
    assert all(" 0 differ" in line for line in out.getvalue().splitlines() if "records" in line)
