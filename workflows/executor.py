"""Runs one task through the registry: resolve params, validate, call, retry, validate the output.

A failure is also classified: a step that failed because the plan is wrong rather than late (the event
it looked for is not there, the time it wanted is taken, the calendar refused the write) says so in
``TaskOutcome.failure``, which the engine may escalate to a replanner; a transient error is retried
here as its skill's policy says, and never escalated.

Tasks whose skill is ``concurrent`` (no ORM work: provider HTTP, LLM calls) run in a thread pool beside
the others of the same batch; the rest run in the calling thread, which keeps every database write of
a run on one connection (and inside the test transaction in tests).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from django.utils import timezone
from pydantic import ValidationError

from skills.context import Interrupt, SkillContext
from skills.errors import SkillError
from skills.providers.base import (
    ConflictError,
    NotFoundError,
    PartlyAppliedError,
    PermissionDeniedError,
    ProviderError,
)
from workflows.references import UnresolvedReferenceError, resolve_params
from workflows.scheduler import TaskStatus
from workflows.validation import CompiledWorkflow

__all__ = ["FailureKind", "TaskOutcome", "execute_batch", "execute_task", "failure_kind"]

logger = logging.getLogger("workflows")
_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="workflow-task")

ContextFactory = Callable[[str], SkillContext]

FailureKind = Literal["missing", "taken", "refused", ""]
"""Why a step failed when the plan, not the moment, is wrong: what it looked for is ``missing``, the
time it wanted is ``taken``, a calendar ``refused`` the write; empty for any other failure."""

# Most specific first: each provider error a skill let through, or raised its own error ``from``.
_PLAN_WRONG: tuple[tuple[type[Exception], FailureKind], ...] = (
    (NotFoundError, "missing"),
    (ConflictError, "taken"),
    (PermissionDeniedError, "refused"),
)


@dataclass(slots=True)
class TaskOutcome:
    task_id: str
    status: TaskStatus
    inputs: dict[str, Any] | None = None
    output: dict[str, Any] | None = None
    error: str = ""
    attempts: int = 0
    pause: dict[str, Any] | None = None
    failure: FailureKind = ""
    started_at: datetime = field(default_factory=timezone.now)
    finished_at: datetime | None = None


def execute_task(
    plan: CompiledWorkflow, task_id: str, outputs: Mapping[str, Any], make_context: ContextFactory
) -> TaskOutcome:
    """Run one task; never raises for a skill's failure, which becomes a FAILED outcome."""
    definition = plan.skills[task_id]
    outcome = TaskOutcome(task_id=task_id, status=TaskStatus.RUNNING)
    try:
        raw = resolve_params(plan.tasks[task_id].params, outputs)
        outcome.inputs = raw
        params = definition.input_model.model_validate(raw)
    except (UnresolvedReferenceError, ValidationError) as exc:
        return _finish(outcome, TaskStatus.FAILED, error=f"invalid params for {definition.name}: {exc}")

    ctx = make_context(task_id)
    policy = definition.retry
    while True:
        outcome.attempts += 1
        ctx.attempt = outcome.attempts
        try:
            result = definition.func(ctx, params)
            if definition.is_async:
                result = asyncio.run(result)
            output = definition.output_model.model_validate(result)
        except Interrupt as pause:
            outcome.pause = pause.payload
            return _finish(outcome, TaskStatus.PAUSED)
        except Exception as exc:
            if policy and isinstance(exc, policy.on) and outcome.attempts < policy.max_attempts:
                delay = policy.delay(outcome.attempts)
                ctx.log.warning("transient error (%s), retrying in %.2fs", type(exc).__name__, delay)
                time.sleep(delay)
                continue
            outcome.failure = failure_kind(exc)
            return _finish(outcome, TaskStatus.FAILED, error=_describe(exc, definition.name, ctx))
        return _finish(outcome, TaskStatus.SUCCEEDED, output=output.model_dump(mode="json"))


def execute_batch(
    plan: CompiledWorkflow, task_ids: list[str], outputs: Mapping[str, Any], make_context: ContextFactory
) -> list[TaskOutcome]:
    """Run independent ready tasks: concurrent skills in worker threads, the others here."""
    futures = [
        _POOL.submit(execute_task, plan, tid, outputs, make_context)
        for tid in task_ids
        if plan.skills[tid].concurrent
    ]
    inline = [
        execute_task(plan, tid, outputs, make_context) for tid in task_ids if not plan.skills[tid].concurrent
    ]
    return inline + [f.result() for f in futures]


def failure_kind(exc: BaseException) -> FailureKind:
    """The kind of a plan-wrong failure, from the exception or the ones it was raised ``from``.

    Skills turn provider errors into messages fit for the user (``raise SkillError(...) from exc``),
    so the cause chain is read, not only the exception.  A change that failed midway and left part of
    itself on a calendar (:class:`PartlyAppliedError`) is never plan-wrong: a new plan on top of half a
    change could apply the other half twice.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, PartlyAppliedError):
            return ""
        for kind_of, kind in _PLAN_WRONG:
            if isinstance(current, kind_of):
                return kind
        current = current.__cause__
    return ""


def _finish(
    outcome: TaskOutcome, status: TaskStatus, *, output: dict[str, Any] | None = None, error: str = ""
) -> TaskOutcome:
    outcome.status = status
    outcome.output = output
    outcome.error = error
    outcome.finished_at = timezone.now()
    return outcome


def _describe(exc: Exception, skill_name: str, ctx: SkillContext) -> str:
    if isinstance(exc, SkillError | ProviderError):
        return str(exc)
    if isinstance(exc, ValidationError):
        ctx.log.error("skill %s returned an invalid output: %s", skill_name, exc)
        return f"{skill_name} produced an invalid result"
    ctx.log.exception("skill %s crashed", skill_name)
    return f"{skill_name} failed unexpectedly ({type(exc).__name__})"
