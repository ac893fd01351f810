"""What the engine hands a replanner when a step fails because the plan is wrong rather than late.

The replanner is named by a dotted path in ``WORKFLOW_REPLANNER`` (as listeners are in
``WORKFLOW_RUN_LISTENERS``), so the engine never imports whoever plans turns: the chat sets it to
its own, and a run without one fails as it always did.  It gets an :class:`Escalation` and answers
with a revised :class:`~workflows.definition.WorkflowDefinition` (the run goes on with it), a question
for the user (the run ends with it), or None (the run fails as it would have).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.conf import settings
from django.utils import timezone
from django.utils.module_loading import import_string

from skills.registry import SkillRegistry
from workflows.definition import WorkflowDefinition
from workflows.executor import FailureKind, TaskOutcome
from workflows.models import WorkflowRun
from workflows.persistence import RunState, run_replan, run_replans_record
from workflows.scheduler import TaskStatus
from workflows.validation import CompiledWorkflow, WorkflowValidationError, compile_workflow

__all__ = ["Escalation", "Replanner", "escalate", "replanner"]

logger = logging.getLogger("workflows")


@dataclass(frozen=True, slots=True)
class Escalation:
    """A plan-wrong failure of one task of a run, with what the run knows so far.

    ``outputs`` are those of the tasks that succeeded; ``inputs`` are the params every task that ran
    was given, as resolved (what a failed search looked for, the change a refused write carried).
    ``previous`` is how many times this run escalated before.
    """

    run: WorkflowRun
    definition: WorkflowDefinition
    task_id: str
    skill: str
    error: str
    failure: FailureKind
    outputs: Mapping[str, Any]
    inputs: Mapping[str, Any]
    previous: int = 0


Replanner = Callable[[Escalation], WorkflowDefinition | str | None]


def replanner() -> Replanner | None:
    """The configured replanner, or None when there is none (runs then fail as they always did)."""
    path = getattr(settings, "WORKFLOW_REPLANNER", "")
    return import_string(path) if path else None


def escalate(
    state: RunState, owner: str, outcome: TaskOutcome, registry: SkillRegistry
) -> Literal["replanned", "asked"] | None:
    """Hand a plan-wrong failure to the replanner, if there is one and the run may still ask it; what
    came back is recorded on the run, and a valid revised plan is put in place (see the module doc)."""
    run, plan = state.run, state.plan
    replan = replanner()
    if replan is None or len(run.replans) >= settings.WORKFLOW_MAX_REPLANS:
        return None
    task_id = outcome.task_id
    entry: dict[str, Any] = {
        "at": timezone.now().isoformat(),
        "task": task_id,
        "skill": plan.tasks[task_id].skill,
        "failure": outcome.failure,
        "error": outcome.error,
    }
    escalation = Escalation(
        run=run,
        definition=plan.definition,
        task_id=task_id,
        skill=plan.tasks[task_id].skill,
        error=outcome.error,
        failure=outcome.failure,
        outputs=state.outputs(),
        inputs={tid: row.inputs for tid, row in state.rows.items() if row.inputs is not None},
        previous=len(run.replans),
    )
    try:
        answer = replan(escalation)
    except Exception:  # a replanner's bug must not turn a failed step into a crashed run
        logger.exception("run %s: the replanner failed on task %s", run.pk, task_id)
        answer = None
        entry["reason"] = "the replanner failed"
    if isinstance(answer, WorkflowDefinition):
        try:
            revised = compile_workflow(answer, registry=registry)
        except WorkflowValidationError as exc:
            _record(state, owner, entry, outcome="invalid", reason=str(exc))
            return None
        carried = _carried(state, revised)
        repeated = _repeated_write(state, revised, carried)
        if repeated:
            _record(state, owner, entry, outcome="refused", reason=repeated)
            return None
        entry.update(outcome="plan", plan=answer.to_json(), replaced=plan.definition.to_json())
        run_replan(state=state, owner=owner, plan=revised, carried=carried, entry=entry)
        logger.info("run %s: task %s failed (%s); replanned", run.pk, task_id, outcome.failure)
        return "replanned"
    if isinstance(answer, str) and answer.strip():
        if _writes_done(state):
            # Asking instead of saying what was written would hide a change the user may want undone.
            reason = "a write already succeeded; the run fails as it would have"
            _record(state, owner, entry, outcome="refused", question=answer, reason=reason)
            return None
        _record(state, owner, entry, outcome="question", question=answer)
        return "asked"
    _record(state, owner, entry, outcome="nothing")
    return None


def _record(state: RunState, owner: str, entry: dict[str, Any], **outcome: str) -> None:
    """Add an escalation that changed no plan to the run's trace."""
    run_replans_record(run=state.run, owner=owner, entry={**entry, **outcome})


def _carried(state: RunState, revised: CompiledWorkflow) -> set[str]:
    """Tasks of the revised plan that are tasks of the old one, unchanged, that succeeded, and whose
    dependencies are carried too: their rows (and outputs) are kept, and they are not run again."""
    old = state.plan.tasks
    carried: set[str] = set()
    for tid in revised.order:  # topological: a task's dependencies are decided before it
        row = state.rows.get(tid)
        if (
            row is not None
            and row.status == TaskStatus.SUCCEEDED
            and tid in old
            and old[tid] == revised.tasks[tid]
            and all(dep in carried for dep in revised.depends_on[tid])
        ):
            carried.add(tid)
    return carried


def _repeated_write(state: RunState, revised: CompiledWorkflow, carried: set[str]) -> str:
    """Why the revised plan could repeat a write this run already made (empty if it cannot).

    Writes are keyed by run and task, but a new task is a new key: only a write carried over is
    known not to happen twice, so once one succeeded the new plan may add no write of its own.
    """
    done = _writes_done(state)
    if not done:
        return ""
    dropped = [tid for tid in done if tid not in carried]
    if dropped:
        return f"{', '.join(dropped)} already wrote, and the revised plan does not keep it as it was"
    added = [tid for tid in revised.order if tid not in carried and revised.skills[tid].kind == "write"]
    if added:
        return f"{', '.join(done)} already wrote, and the revised plan writes again ({', '.join(added)})"
    return ""


def _writes_done(state: RunState) -> list[str]:
    """The tasks of the run's plan that write and succeeded."""
    return [
        tid
        for tid, row in state.rows.items()
        if row.status == TaskStatus.SUCCEEDED and state.plan.skills[tid].kind == "write"
    ]
