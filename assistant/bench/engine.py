"""Our workflow engine: validating a 1,000-task DAG, and running a 100-task one with its rows stored.

The runs go through the public entry points (``run_start`` then ``run_advance``), so each includes
what a real run pays: validation, the run and task rows written, the claim, loading and
re-validating the stored definition, every batch's results saved, the run finished.  Only the
chat's run listeners are switched off: they belong to the chat, not the engine, and LangGraph has
no counterpart to them.

A run is timed two ways.  Committed, outside any transaction, as a worker runs it: each of the
engine's ``atomic`` blocks is a real commit, as each LangGraph checkpoint is, so this is the like
for like comparison.  And inside the bench's one rolled-back transaction, where those blocks are
savepoints: what the engine costs without its commits.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.test.utils import override_settings

from assistant.bench.dags import LAYER_WIDTH, LAYERS, fan_out_fan_in, layered
from assistant.bench.skillset import BENCH_REGISTRY
from assistant.bench.timing import Timing, measure
from workflows.engine import run_advance, run_start
from workflows.models import RunStatus
from workflows.references import find_references
from workflows.validation import compile_workflow

__all__ = ["ENGINE_TASKS", "engine_per_task", "engine_per_task_committed", "engine_user", "validate_1000"]

ENGINE_TASKS = 100


def validate_1000(*, repeat: int) -> tuple[Timing, str]:
    """``compile_workflow`` on the layered 1,000-task DAG (the definition is built once, untimed)."""
    definition = layered()
    plan = compile_workflow(definition, registry=BENCH_REGISTRY, max_tasks=1000)
    references = sum(len(list(find_references(t.params))) for t in definition.tasks)
    edges = sum(len(deps) for deps in plan.depends_on.values())

    def compile_it() -> None:
        compile_workflow(definition, registry=BENCH_REGISTRY, max_tasks=1000)

    timing = measure(compile_it, repeat=repeat, warmup=2)
    shape = f"{len(plan.order):,} tasks in {LAYERS} layers of {LAYER_WIDTH} + a join"
    return timing, f"{shape}, {edges:,} edges, {references:,} references"


def engine_user() -> Any:
    """The user the engine's runs belong to (a run needs one; the no-op skills never read it)."""
    return get_user_model().objects.create_user(
        username=f"bench-{uuid.uuid4().hex[:8]}-engine", password=None
    )


def engine_per_task_committed(*, repeat: int) -> Timing:
    """:func:`engine_per_task` with every commit real; its user, runs and task runs are deleted after."""
    if transaction.get_connection().in_atomic_block:
        raise RuntimeError(
            "the committed engine row must run outside any transaction: there commits are savepoints"
        )
    user = engine_user()
    try:
        return engine_per_task(user=user, repeat=repeat)
    finally:
        user.delete()  # cascades to its runs and their task runs


def engine_per_task(*, user: Any, repeat: int) -> Timing:
    """A 100-task fan-out/fan-in run from start to finish, reported per task (run time / 100)."""
    definition = fan_out_fan_in(ENGINE_TASKS - 2)
    expected = ENGINE_TASKS - 2  # the sink sums one 1 from every parallel task

    def run_once() -> None:
        run = run_start(user=user, definition=definition, timezone_name="UTC", registry=BENCH_REGISTRY)
        run = run_advance(run.pk, registry=BENCH_REGISTRY)
        if run.status != RunStatus.SUCCEEDED or run.result != {"value": expected}:
            raise RuntimeError(f"the bench run did not succeed: {run.status} {run.error} {run.result}")

    with override_settings(WORKFLOW_RUN_LISTENERS=[]):
        return measure(run_once, repeat=repeat, warmup=2).scaled(ENGINE_TASKS)
