"""The plan builder: references and dependencies come from the handles, never from strings typed."""

from __future__ import annotations

import pytest

from workflows.builder import Plan, Ref
from workflows.validation import compile_workflow


def test_references_become_strings_and_dependencies() -> None:
    plan = Plan()
    window = {"start": "2026-03-02T00:00:00+00:00", "end": "2026-03-03T00:00:00+00:00"}
    find = plan.add("find_events", window, id="find", summary="Find")
    chose = plan.add("choose_event", {"events": find["events"], "action": "Move"}, id="choose")
    moved = plan.add("plan_move", {"events": chose["events"], "at_time": "15:00"}, id="plan")
    apply = plan.add("apply_changes", {"changes": moved.output, "approved": chose["chosen"]}, id="apply")
    definition = plan.build("move-events", summary="Move", output=apply)

    tasks = {t.id: t for t in definition.tasks}
    assert tasks["choose"].params["events"] == "{{find.output.events}}"
    assert tasks["choose"].depends_on == ("find",)
    assert tasks["apply"].params == {"changes": "{{plan.output}}", "approved": "{{choose.output.chosen}}"}
    assert tasks["apply"].depends_on == ("plan", "choose")
    assert tasks["find"].depends_on == ()
    assert definition.output == "apply"
    compiled = compile_workflow(definition).definition
    assert [t.id for t in compiled.tasks] == ["find", "choose", "plan", "apply"]


def test_references_inside_lists_and_dicts_count_once() -> None:
    plan = Plan()
    one = plan.add("plan_delete", {}, id="plan")
    two = plan.add("plan_create", {}, id="plan")  # the same id asked for twice: a part of its own
    sets = {"sets": [one.output, two.output], "by": {"first": one["n"]}}
    combined = plan.add("combine_changes", sets, id="c")
    assert two.id == "plan-2"
    task = plan.build("x").task(combined.id)
    assert task.params["sets"] == ["{{plan.output}}", "{{plan-2.output}}"]
    assert task.params["by"] == {"first": "{{plan.output.n}}"}
    assert task.depends_on == ("plan", "plan-2")


def test_a_task_can_wait_for_another_it_does_not_read() -> None:
    plan = Plan()
    first = plan.add("find_events", {}, id="find")
    later = plan.add("compose_reply", {"text": "done"}, id="reply", after=[first])
    assert plan.build("x").task(later.id).depends_on == ("find",)


def test_a_reference_to_a_task_of_another_plan_is_refused() -> None:
    plan = Plan()
    with pytest.raises(ValueError, match="refers to elsewhere"):
        plan.add("compose_reply", {"events": Ref("elsewhere", "events")}, id="reply")
    assert len(plan) == 0
