"""The sweeper: runs that nobody is working on are handed to the workers again, or failed for good.

A run can be left behind in three ways: it was stored but never reached the broker (the broker was
down, the web process died between commit and send), its worker died (the lease expired), or the
broker lost the task.  None of these is visible to the process that caused it, so a periodic pass
finds them by their rows alone: a ``pending`` run untouched for a whole lease, a ``running`` one
whose lease expired.  Runs tried ``WORKFLOW_MAX_ATTEMPTS`` times are failed, and the user is told.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone

from skills import inflight
from skills.providers import provider_for
from skills.registry import REGISTRY, SkillRegistry
from workflows.engine import run_advance, run_settle
from workflows.models import RunStatus, WorkflowRun
from workflows.tasks import run_workflow, send_run

__all__ = ["GAVE_UP", "SweepReport", "sweep"]

logger = logging.getLogger("workflows")

GAVE_UP = (
    "the work on it was interrupted {attempts} times, so I stopped trying. Nothing was left half-done; "
    "you can ask again."
)
BATCH = 500


@dataclass(slots=True)
class SweepReport:
    dispatched: int = 0
    failed: int = 0
    undelivered: int = 0
    settled: int = 0  # change sets a dead worker left on remote calendars, put back

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def _abandoned(now: datetime) -> Q:
    """Runs nobody works on: pending for a whole lease, or running on a lease that expired."""
    lease = timedelta(seconds=settings.WORKFLOW_LEASE_SECONDS)
    return Q(status=RunStatus.PENDING, updated_at__lt=now - lease) | Q(
        status=RunStatus.RUNNING, lease_expires_at__lt=now
    )


def sweep(*, now: datetime | None = None, registry: SkillRegistry = REGISTRY) -> SweepReport:
    """One pass: fail the runs out of attempts, hand the others to the workers again (or, with no
    broker, run them here)."""
    now = now or timezone.now()
    report = SweepReport()
    limit = settings.WORKFLOW_MAX_ATTEMPTS
    for run in WorkflowRun.objects.filter(_abandoned(now), attempts__gte=limit).select_related("user")[
        :BATCH
    ]:
        if _give_up(run, now):
            report.failed += 1
            run_settle(run)
    eager = run_workflow.app.conf.task_always_eager
    for run_id in WorkflowRun.objects.filter(_abandoned(now), attempts__lt=limit).values_list(
        "pk", flat=True
    )[:BATCH]:
        # Released to pending and touched first: the next pass leaves it alone for a whole lease,
        # while a worker may take it at once.
        if not WorkflowRun.objects.filter(_abandoned(now), pk=run_id).update(
            status=RunStatus.PENDING, lease_owner="", lease_expires_at=None, updated_at=now
        ):
            continue  # taken meanwhile
        if eager:
            run_advance(run_id, registry=registry)
        elif not send_run(run_id):
            report.undelivered += 1
            break  # the broker is down: the rest wait for the next pass
        report.dispatched += 1
    report.settled = _settle_abandoned_sets(now)
    if report.dispatched or report.failed or report.undelivered or report.settled:
        logger.warning("sweeper: %s", report.as_dict())
    return report


def _settle_abandoned_sets(now: datetime) -> int:
    """Change sets whose worker died after sending remote writes and whose run will not try again
    (failed, out of attempts, cancelled, gone): what they left on a server is put back from the
    mirror, so the run's "nothing was left half-done" holds for remote calendars too (see
    ``skills.inflight``).  A set is left to its run while the run is pending or running."""
    settled = 0
    lease = timedelta(seconds=settings.WORKFLOW_LEASE_SECONDS)
    for intent in inflight.stale(now - lease)[:BATCH]:
        run_id = intent.operation_id.split(":", 1)[0]
        try:
            working = WorkflowRun.objects.filter(
                pk=run_id, status__in=(RunStatus.PENDING, RunStatus.RUNNING)
            ).exists()
        except (ValueError, ValidationError):  # not a run's id: nobody will try it again
            working = False
        if working:
            continue
        left = provider_for(intent.owner).take_back(intent.operation_id, intent.writes)
        inflight.forget(user=intent.owner, operation_id=intent.operation_id)
        if left:
            logger.warning(
                "run %s: %d remote writes of an abandoned set could not be taken back", run_id, len(left)
            )
        settled += 1
    return settled


def _give_up(run: WorkflowRun, now: datetime) -> bool:
    """Fail a run out of attempts, unless a worker took it meanwhile."""
    run.status, run.error, run.finished_at = (
        RunStatus.FAILED,
        GAVE_UP.format(attempts=run.attempts),
        now,
    )
    run.pause_payload = None
    return bool(
        WorkflowRun.objects.filter(_abandoned(now), pk=run.pk).update(
            status=run.status,
            error=run.error,
            finished_at=now,
            pause_payload=None,
            lease_owner="",
            lease_expires_at=None,
            updated_at=now,
        )
    )
