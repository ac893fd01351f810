"""Drives runs: start, advance until done or paused, resume with an answer, cancel.

The loop is: ask the scheduler what is ready, evaluate ``when`` conditions, run the batch through the
executor, store the batch's results in one transaction, publish progress, repeat.  A pause stops the
loop with the run stored; a resume continues it from the database alone, so the process that resumes
need not be the one that paused (days and restarts may lie between).

A step that fails because the plan is wrong rather than late (the executor's ``failure``: the event
is not there, the time is taken, the calendar refused the write) is escalated to the replanner of
:mod:`workflows.replanning`, at most ``WORKFLOW_MAX_REPLANS`` times a run, each time recorded in the
run's ``replans``: a revised plan replaces the run's definition and task rows and the run goes on, a
question ends the run with it.  A run in which a write already succeeded is replanned only if the new
plan keeps that write as it was (carried over, not run again) and adds no write of its own: nothing
is written twice, and no change is left half made.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from skills.context import NO_ANSWER, SkillContext
from skills.providers import provider_for
from skills.registry import REGISTRY, SkillRegistry
from workflows import events
from workflows.definition import WorkflowDefinition
from workflows.executor import TaskOutcome, execute_batch
from workflows.models import RunStatus, WorkflowRun
from workflows.persistence import (
    LeaseLostError,
    RunState,
    lease_owner,
    lease_renew,
    run_claim,
    run_create,
    run_finish,
    run_load,
    run_pause,
    run_resume_claim,
    task_rows_save,
)
from workflows.references import UnresolvedReferenceError, evaluate_condition
from workflows.replanning import escalate
from workflows.scheduler import TaskStatus, blocked_tasks, is_finished, ready_tasks
from workflows.validation import compile_workflow

__all__ = ["run_advance", "run_cancel", "run_resume", "run_settle", "run_start"]

logger = logging.getLogger("workflows")


def run_start(
    *,
    user: Any,
    definition: WorkflowDefinition,
    timezone_name: str,
    channel_group: str = "",
    trace_id: str = "",
    registry: SkillRegistry = REGISTRY,
) -> WorkflowRun:
    """Validate and store a new run (raises WorkflowValidationError listing every problem)."""
    plan = compile_workflow(definition, registry=registry)
    return run_create(
        user=user, plan=plan, timezone_name=timezone_name, channel_group=channel_group, trace_id=trace_id
    )


def run_advance(run_id: uuid.UUID | str, *, registry: SkillRegistry = REGISTRY) -> WorkflowRun:
    """Run a pending run (or take over one whose worker died) until it finishes or pauses.

    A run someone else holds is left alone.  So is one this worker loses midway (it was presumed
    dead and taken over): the new holder pauses or finishes it and tells the user, once.
    """
    owner = lease_owner()
    if not run_claim(run_id, owner=owner):
        return WorkflowRun.objects.get(pk=run_id)
    state = run_load(run_id, registry=registry)
    try:
        _drive(state, owner, registry)
    except LeaseLostError:
        logger.warning("run %s was taken over by another worker; this one stops", run_id)
        return WorkflowRun.objects.get(pk=run_id)
    run = state.run
    run_settle(run)
    return run


def run_settle(run: WorkflowRun) -> None:
    """Tell the listeners (the chat) and the run's channel group that a run paused or settled."""
    _notify(run)
    # Announced after the listeners, so whoever reacts finds the reply they wrote already stored.
    if run.status == RunStatus.PAUSED:
        events.publish(run.channel_group, {"type": "workflow.paused", "run_id": str(run.pk)})
    else:
        events.publish(
            run.channel_group, {"type": "workflow.finished", "run_id": str(run.pk), "status": str(run.status)}
        )


def run_resume(
    *,
    run_id: uuid.UUID | str,
    pause_id: uuid.UUID | str | None,
    user: Any,
    answer: Any,
    registry: SkillRegistry = REGISTRY,
) -> WorkflowRun | None:
    """Continue a paused run with the user's answer; None if this pause was already answered."""
    if pause_id is None or not run_resume_claim(run_id=run_id, pause_id=pause_id, user=user, answer=answer):
        return None
    return run_advance(run_id, registry=registry)


def run_cancel(*, run_id: uuid.UUID | str, user: Any) -> bool:
    """Set a paused or pending run aside; True if it was waiting and now is not."""
    return bool(
        WorkflowRun.objects.filter(
            pk=run_id, user=user, status__in=[RunStatus.PAUSED, RunStatus.PENDING]
        ).update(status=RunStatus.CANCELLED, pause_id=None, finished_at=timezone.now())
    )


def _drive(state: RunState, owner: str, registry: SkillRegistry) -> None:
    run, plan = state.run, state.plan
    # Renewed a third of the way into the lease: a worker that dies is noticed within one lease,
    # and a healthy one pays one UPDATE per that many seconds, not one per step.
    renew_every = settings.WORKFLOW_LEASE_SECONDS / 3
    renew_at = time.monotonic() + renew_every
    tz = ZoneInfo(run.timezone)
    provider = provider_for(run.user)  # one client for the whole run, never stored with it

    def make_context(task_id: str) -> SkillContext:
        row = state.rows[task_id]
        return SkillContext(
            user=run.user,
            tz=tz,
            run_id=str(run.pk),
            task_id=task_id,
            trace_id=run.trace_id,
            answer=row.answer if row.has_answer else NO_ANSWER,
            _provider=provider,
        )

    while True:
        if time.monotonic() >= renew_at:
            lease_renew(run.pk, owner=owner)
            renew_at = time.monotonic() + renew_every
        statuses = state.statuses()
        changed = []
        for tid, (status, why) in blocked_tasks(plan, statuses).items():
            row = state.rows[tid]
            row.status, row.error, row.finished_at = status, why, timezone.now()
            changed.append(row)
        statuses = state.statuses()
        outputs = state.outputs()
        batch: list[str] = []
        for tid in ready_tasks(plan, statuses):
            condition = plan.conditions.get(tid)
            try:
                run_it = condition is None or evaluate_condition(condition, outputs)
            except UnresolvedReferenceError as exc:
                row = state.rows[tid]
                row.status, row.error, row.finished_at = TaskStatus.FAILED, str(exc), timezone.now()
                changed.append(row)
                continue
            if run_it:
                batch.append(tid)
            else:
                row = state.rows[tid]
                row.status, row.error, row.finished_at = (
                    TaskStatus.SKIPPED,
                    "condition was false",
                    timezone.now(),
                )
                changed.append(row)
        if changed:
            task_rows_save(changed)
        if not batch:
            if changed:
                continue
            break
        for tid in batch:
            events.publish(run.channel_group, _task_event("task.started", run, tid, plan.tasks[tid].summary))
        outcomes = execute_batch(plan, batch, outputs, make_context)
        paused = _store_outcomes(state, outcomes)
        for outcome in outcomes:
            event = _task_event("task.finished", run, outcome.task_id, plan.tasks[outcome.task_id].summary)
            event.update(status=str(outcome.status), error=outcome.error)
            events.publish(run.channel_group, event)
        if paused is not None:
            run_pause(run=run, owner=owner, task_id=paused.task_id, payload=paused.pause or {})
            return
        wrong = next((o for o in outcomes if o.status is TaskStatus.FAILED and o.failure), None)
        if wrong is not None:
            escalated = escalate(state, owner, wrong, registry)
            if escalated == "asked":
                _finish_asking(state, owner)
                return
            plan = state.plan  # the revised one, if the run was replanned
    _finish(state, owner)


def _finish_asking(state: RunState, owner: str) -> None:
    """End a run whose failure the replanner answered with a question: what did not run is set aside,
    and the run fails with the error it had; the question (in ``replans``) is what the user is told."""
    now = timezone.now()
    waiting = [row for row in state.rows.values() if row.status == TaskStatus.PENDING]
    for row in waiting:
        row.status, row.error, row.finished_at = TaskStatus.SKIPPED, "set aside for a question", now
    task_rows_save(waiting)
    run = state.run
    failed = [row for row in state.rows.values() if row.status == TaskStatus.FAILED]
    run.status = RunStatus.FAILED
    run.result = None
    run.error = "; ".join(f"{row.task_id}: {row.error}" for row in failed)
    run_finish(run=run, owner=owner)


def _store_outcomes(state: RunState, outcomes: list[TaskOutcome]) -> TaskOutcome | None:
    """Write a batch's results in one transaction; returns the outcome that pauses the run, if any.

    Only one question waits at a time: a second task that paused in the same batch goes back to
    pending and asks again after the first is answered.
    """
    paused: TaskOutcome | None = None
    rows = []
    for outcome in outcomes:
        row = state.rows[outcome.task_id]
        status = outcome.status
        if status is TaskStatus.PAUSED:
            if paused is None:
                paused = outcome
            else:
                status = TaskStatus.PENDING
        row.status = status
        row.inputs = outcome.inputs
        row.output = outcome.output
        row.error = outcome.error
        row.attempts += outcome.attempts
        row.started_at = row.started_at or outcome.started_at
        row.finished_at = outcome.finished_at if status in (TaskStatus.SUCCEEDED, TaskStatus.FAILED) else None
        if status is TaskStatus.SUCCEEDED:
            row.has_answer, row.answer = False, None
        rows.append(row)
    with transaction.atomic():
        task_rows_save(rows)
    return paused


def _finish(state: RunState, owner: str) -> None:
    run, plan = state.run, state.plan
    statuses = state.statuses()
    if not is_finished(statuses):  # nothing ready yet unfinished: a bug in the scheduler, never silent
        logger.error("run %s stalled with states %s", run.pk, statuses)
    out = state.rows[plan.output_task]
    failed = [row for row in state.rows.values() if row.status == TaskStatus.FAILED]
    run.status = RunStatus.SUCCEEDED if out.status == TaskStatus.SUCCEEDED else RunStatus.FAILED
    run.result = out.output
    run.error = "; ".join(f"{row.task_id}: {row.error}" for row in failed)
    run_finish(run=run, owner=owner)


def _task_event(kind: str, run: WorkflowRun, task_id: str, summary: str) -> dict[str, Any]:
    return {"type": kind, "run_id": str(run.pk), "task_id": task_id, "summary": summary}


def _listeners() -> list[Callable[[WorkflowRun], None]]:
    return [import_string(path) for path in getattr(settings, "WORKFLOW_RUN_LISTENERS", [])]


def _notify(run: WorkflowRun) -> None:
    """Tell the configured listeners (the chat) that a run paused or settled."""
    for listener in _listeners():
        listener(run)
