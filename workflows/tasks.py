"""Celery entry points: they take a run id, re-fetch the run and call the engine.

Handing a run to the broker may fail (the broker is down): the run is stored already, so nothing is
lost; the caller is told (the chat says it will get back to the user) and the sweeper dispatches the
run once the broker is back.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from celery import Task, shared_task
from django.db import transaction
from django.utils import timezone

__all__ = ["dispatch_run", "run_workflow", "send_run", "sweep_runs"]

logger = logging.getLogger("workflows")


@shared_task(name="workflows.run_workflow", bind=True, acks_late=True, max_retries=None)
def run_workflow(self: Task, run_id: str, resumed: bool = False) -> str:
    """Advance a run; ``resumed`` is ignored (messages queued by earlier versions carry it).

    A run held under a live lease by another worker is usually a redelivery of a task whose worker
    died (RabbitMQ gives it back at once): it is tried again when that lease expires, so the run
    resumes within one lease even without the sweeper.
    """
    from workflows.engine import run_advance
    from workflows.models import RunStatus

    run = run_advance(run_id)
    expires, now = run.lease_expires_at, timezone.now()
    if (
        run.status == RunStatus.RUNNING
        and expires is not None
        and expires > now
        and not self.request.is_eager
    ):
        raise self.retry(countdown=(expires - now).total_seconds() + 1)
    return str(run.status)


def send_run(run_id: uuid.UUID | str) -> bool:
    """Hand a run to the broker now; False (logged, never raised) if the broker cannot be reached."""
    try:
        run_workflow.apply_async(args=[str(run_id)])
    except Exception as exc:  # kombu's OperationalError, a socket error: whatever the transport raises
        logger.warning("run %s could not be handed to the broker (%s); the sweeper will", run_id, exc)
        return False
    return True


def dispatch_run(run_id: uuid.UUID | str, *, undelivered: Callable[[], Any] | None = None) -> None:
    """Hand a stored run to the workers once the transaction that created it has committed.

    In eager mode (no broker) the run is advanced right here, in this thread and on this connection,
    so that the caller sees its result when this returns.  ``undelivered`` is called if the broker
    cannot take the run (after commit, so what it writes is its own transaction).
    """
    if run_workflow.app.conf.task_always_eager:
        run_workflow.apply(args=[str(run_id)])
        return

    def send() -> None:
        if not send_run(run_id) and undelivered is not None:
            undelivered()

    transaction.on_commit(send)


@shared_task(name="workflows.sweep_runs")
def sweep_runs() -> dict[str, int]:
    """The periodic sweeper (celery beat); ``manage.py sweep_runs`` is the same for cron."""
    from workflows.sweeper import sweep

    return sweep().as_dict()
