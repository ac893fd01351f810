"""Runs one task through the registry: resolve params, validate, call, retry, validate the output.

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
from typing import Any

from django.utils import timezone
from pydantic import ValidationError

from skills.context import Interrupt, SkillContext
from skills.errors import SkillError
from skills.providers.base import ProviderError
from workflows.references import UnresolvedReferenceError, resolve_params
from workflows.scheduler import TaskStatus
from workflows.validation import CompiledWorkflow

__all__ = ["TaskOutcome", "execute_batch", "execute_task"]

logger = logging.getLogger("workflows")
_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="workflow-task")

ContextFactory = Callable[[str], SkillContext]


@dataclass(slots=True)
class TaskOutcome:
    task_id: str
    status: TaskStatus
    inputs: dict[str, Any] | None = None
    output: dict[str, Any] | None = None
    error: str = ""
    attempts: int = 0
    pause: dict[str, Any] | None = None
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
