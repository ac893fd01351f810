"""Which tasks can run next: pure functions over a compiled workflow and the tasks' states.

No I/O and no clock here, so the rules (what is ready, what a failure or a skip takes down with it)
are tested exhaustively without a database.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from workflows.validation import CompiledWorkflow

__all__ = ["SKIPPED_BECAUSE", "TaskStatus", "blocked_tasks", "is_finished", "ready_tasks"]

# The error of a task that never ran because one it depends on failed (the failure is told elsewhere).
SKIPPED_BECAUSE = "not run because task "


class TaskStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    PAUSED = "paused"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


TERMINAL = frozenset({TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.SKIPPED})


def ready_tasks(plan: CompiledWorkflow, states: Mapping[str, TaskStatus]) -> list[str]:
    """Pending tasks whose dependencies all succeeded, in topological order."""
    return [
        tid
        for tid in plan.order
        if states[tid] is TaskStatus.PENDING
        and all(states[dep] is TaskStatus.SUCCEEDED for dep in plan.depends_on[tid])
    ]


def blocked_tasks(
    plan: CompiledWorkflow, states: Mapping[str, TaskStatus]
) -> dict[str, tuple[TaskStatus, str]]:
    """Pending tasks that can never run, with the status they take and why.

    A failed dependency fails its dependants (with a message naming it), a skipped one skips them:
    the rest of the DAG goes on.
    """
    out: dict[str, tuple[TaskStatus, str]] = {}
    effective = dict(states)
    for tid in plan.order:  # topological, so a cascade resolves in one pass
        if effective[tid] is not TaskStatus.PENDING:
            continue
        for dep in plan.depends_on[tid]:
            if effective[dep] is TaskStatus.FAILED:
                out[tid] = (TaskStatus.FAILED, f"{SKIPPED_BECAUSE}{dep} failed")
                break
            if effective[dep] is TaskStatus.SKIPPED:
                out[tid] = (TaskStatus.SKIPPED, f"skipped because task {dep} was skipped")
                break
        if tid in out:
            effective[tid] = out[tid][0]
    return out


def is_finished(states: Mapping[str, TaskStatus]) -> bool:
    return all(s in TERMINAL for s in states.values())
