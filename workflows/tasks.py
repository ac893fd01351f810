"""Celery entry points: they take a run id, re-fetch the run and call the engine."""

from __future__ import annotations

import uuid

from celery import shared_task
from django.db import transaction

__all__ = ["dispatch_run", "run_workflow"]


@shared_task(name="workflows.run_workflow", acks_late=True)
def run_workflow(run_id: str, resumed: bool = False) -> str:
    from workflows.engine import run_advance

    # A resumed run was already claimed by the compare-and-set that took the user's answer.
    return str(run_advance(run_id, claim=not resumed).status)


def dispatch_run(run_id: uuid.UUID | str, *, resumed: bool = False) -> None:
    """Hand a stored run to the workers once the transaction that created it has committed.

    In eager mode (no broker) the run is advanced right here, in this thread and on this connection,
    so that the caller sees its result when this returns.
    """
    if run_workflow.app.conf.task_always_eager:
        run_workflow.apply(args=[str(run_id), resumed])
    else:
        transaction.on_commit(lambda: run_workflow.delay(str(run_id), resumed))
