from __future__ import annotations

from tests.workflows.skillset import registry
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.scheduler import TaskStatus, blocked_tasks, is_finished, ready_tasks
from workflows.validation import compile_workflow

P, S, F, K = TaskStatus.PENDING, TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.SKIPPED

PLAN = compile_workflow(
    WorkflowDefinition(
        name="diamond",
        tasks=(
            TaskSpec(id="a", skill="emit"),
            TaskSpec(id="b", skill="emit", depends_on=("a",)),
            TaskSpec(id="c", skill="emit", depends_on=("a",)),
            TaskSpec(id="d", skill="emit", depends_on=("b", "c")),
            TaskSpec(id="e", skill="emit"),
        ),
    ),
    registry=registry,
)


def test_roots_are_ready_first() -> None:
    assert ready_tasks(PLAN, {"a": P, "b": P, "c": P, "d": P, "e": P}) == ["a", "e"] or set(
        ready_tasks(PLAN, {"a": P, "b": P, "c": P, "d": P, "e": P})
    ) == {"a", "e"}


def test_fan_out_becomes_ready_together_and_fan_in_waits_for_all() -> None:
    assert set(ready_tasks(PLAN, {"a": S, "b": P, "c": P, "d": P, "e": S})) == {"b", "c"}
    assert ready_tasks(PLAN, {"a": S, "b": S, "c": P, "d": P, "e": S}) == ["c"]
    assert ready_tasks(PLAN, {"a": S, "b": S, "c": S, "d": P, "e": S}) == ["d"]


def test_failure_fails_dependants_with_a_reason_but_not_unrelated_tasks() -> None:
    blocked = blocked_tasks(PLAN, {"a": F, "b": P, "c": P, "d": P, "e": P})
    assert blocked["b"] == (F, "not run because task a failed")
    assert blocked["d"][0] is F
    assert "e" not in blocked


def test_skip_cascades_as_skip() -> None:
    blocked = blocked_tasks(PLAN, {"a": S, "b": K, "c": S, "d": P, "e": S})
    assert blocked == {"d": (K, "skipped because task b was skipped")}


def test_finished_only_when_all_terminal() -> None:
    assert not is_finished({"a": S, "b": TaskStatus.PAUSED})
    assert is_finished({"a": S, "b": F, "c": K})
