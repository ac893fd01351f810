"""Celery entry points of the skills app: they take a run id (or nothing) and re-read everything else."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.db import transaction

__all__ = ["notifications_dispatch", "notifications_send", "sync_accounts"]

logger = logging.getLogger("skills")

RETRY_MAX_SECONDS = 3600
"""The longest wait between two rounds; with the task's defaults its rounds span about four hours."""


@shared_task(
    name="skills.notifications_send", bind=True, acks_late=True, max_retries=8, default_retry_delay=60
)
def notifications_send(self: Any, run_id: str) -> int:
    """Send the run's mails that have not gone out, again and again with growing pauses, then give up.

    Returns how many are still unsent.  Run eagerly (no broker) nothing could come back later, and
    Celery would replay a retry at once, in the turn that asked: that one round is the last, and a
    mail still refused is marked failed and logged, never raised into the turn.
    """
    from skills.mail import notifications_give_up
    from skills.mail import notifications_send as send

    unsent = [n for n in send(run_id=run_id) if n.status not in (n.Status.SENT, n.Status.WITHDRAWN)]
    if not unsent:
        return 0
    retries = self.request.retries
    if self.request.is_eager or retries >= self.max_retries:
        if failed := notifications_give_up(run_id=run_id):
            logger.error("gave up mailing %s about run %s", ", ".join(failed), run_id)
        return len(unsent)
    raise self.retry(countdown=min(self.default_retry_delay * 2 ** (retries + 1), RETRY_MAX_SECONDS))


def notifications_dispatch(run_id: str) -> None:
    """Have a worker retry the run's unsent mails once the transaction that wrote them has committed.

    ``robust``: a broker that cannot be reached is logged, not raised into the reply of a change
    that was applied.
    """
    transaction.on_commit(
        lambda: notifications_send.apply_async(
            args=[run_id], countdown=notifications_send.default_retry_delay
        ),
        robust=True,
    )


@shared_task(name="skills.sync_accounts", acks_late=True)
def sync_accounts() -> dict[str, int]:
    """Mirror every connected calendar account (celery beat runs it every CALENDAR_SYNC_SECONDS).

    An account that fails is recorded on the account (its last error, or *Needs reconnecting*) and
    the others still sync; nothing is retried here, the next round is the retry.
    """
    from skills.accounts import sync_all

    summary = sync_all()
    return {"synced": summary.synced, "failed": summary.failed}
