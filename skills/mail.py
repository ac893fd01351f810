"""Mail to the other attendees of changed events: written down first, sent one recipient at a time.

A change is applied before its mail goes out, so a mail server that refuses must not undo the
truth of the reply ("done"), and a retry must know which attendees already have their copy.  Hence
one :class:`~skills.models.Notification` row per run and recipient, marked sent the moment the mail
backend took the message; :mod:`skills.tasks` retries the rest.

A backend that delivers nothing (Django's console backend, the default until ``EMAIL_URL`` names a
mail server, its file-writing subclass, or the dummy one) still gets each mail, so a developer sees
what would have gone out, but its row is marked failed with :data:`NOT_CONFIGURED`: nobody was told,
and the reply must not say otherwise.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.backends import console, dummy
from django.db.models import F, Q
from django.utils import timezone
from django.utils.module_loading import import_string

from skills.models import ChangeRecord, Notification

__all__ = [
    "CLAIM_TIMEOUT",
    "NOT_CONFIGURED",
    "mail_configured",
    "notification_send",
    "notifications_create",
    "notifications_give_up",
    "notifications_of",
    "notifications_send",
]

logger = logging.getLogger("skills")

CLAIM_TIMEOUT = timedelta(minutes=10)
"""Far longer than a send takes: a row claimed this long ago was left by a process that died mid-send."""

Status = Notification.Status

NOT_CONFIGURED = "not delivered: no mail server is configured (EMAIL_URL is not set)"
"""The error of a mail handed to a backend that delivers nothing."""


def mail_configured() -> bool:
    """Whether the mail backend delivers mail to people (SMTP, a provider's API, the tests' outbox).

    The console backend (and the file backend, its subclass) only writes the mail where the server's
    operator can read it; the dummy backend drops it.
    """
    backend = import_string(settings.EMAIL_BACKEND)
    return not (isinstance(backend, type) and issubclass(backend, (console.EmailBackend, dummy.EmailBackend)))


def notifications_create(
    *, owner: Any, run_id: str, drafts: Mapping[str, tuple[str, str]]
) -> list[Notification]:
    """Write down a run's mails (recipient -> subject and body), once.

    A workflow step run again finds the rows it wrote the first time, with what was sent already.
    """
    return [
        Notification.objects.get_or_create(
            run_id=run_id, recipient=recipient, defaults={"owner": owner, "subject": subject, "body": body}
        )[0]
        for recipient, (subject, body) in drafts.items()
    ]


def notifications_of(*, run_id: str) -> list[Notification]:
    """The run's mails in the order the reply names their recipients."""
    return sorted(Notification.objects.filter(run_id=run_id), key=lambda n: n.recipient.casefold())


def notification_send(*, notification: Notification) -> Notification:
    """Send one mail unless it went out or another process is sending it; the row as it is afterwards.

    Whatever the mail backend raises is caught and written on the row: the change the mail tells of
    stands either way, and whether to try again is the caller's decision.
    """
    now = timezone.now()
    claimable = Q(status=Status.PENDING) | Q(status=Status.SENDING, claimed_at__lt=now - CLAIM_TIMEOUT)
    claimed = Notification.objects.filter(claimable, pk=notification.pk).update(
        status=Status.SENDING, claimed_at=now, attempts=F("attempts") + 1
    )
    if claimed:
        message = EmailMessage(
            subject=notification.subject,
            body=notification.body,
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[notification.recipient],
        )
        try:
            error = "" if message.send() else "the mail backend accepted no message"
        except Exception as exc:  # SMTP, sockets, a provider's API: any backend, any way it fails
            error = f"{type(exc).__name__}: {exc}"
        if not error and not mail_configured():
            Notification.objects.filter(pk=notification.pk).update(status=Status.FAILED, error=NOT_CONFIGURED)
        elif error:
            logger.warning(
                "mail to %s about run %s did not go out: %s",
                notification.recipient,
                notification.run_id,
                error,
            )
            Notification.objects.filter(pk=notification.pk).update(status=Status.PENDING, error=error)
        else:
            Notification.objects.filter(pk=notification.pk).update(
                status=Status.SENT, sent_at=timezone.now(), error=""
            )
    notification.refresh_from_db()
    return notification


def notifications_send(*, run_id: str) -> list[Notification]:
    """Try every mail of the run that has not gone out; the run's mails as they are afterwards.

    Once every change of the run has been undone its news is no longer true, so what is still
    waiting is withdrawn instead of sent.
    """
    records = ChangeRecord.objects.filter(run_id=run_id)
    waiting = Notification.objects.filter(run_id=run_id, status__in=[Status.PENDING, Status.SENDING])
    if records.exists() and not records.filter(undone_by__isnull=True).exists():
        waiting.filter(status=Status.PENDING).update(status=Status.WITHDRAWN)
    else:
        for notification in waiting:
            notification_send(notification=notification)
    return notifications_of(run_id=run_id)


def notifications_give_up(*, run_id: str) -> list[str]:
    """Mark the run's mails still waiting as failed, when no retry will come; their recipients."""
    waiting = Notification.objects.filter(run_id=run_id, status=Status.PENDING)
    recipients = sorted(waiting.values_list("recipient", flat=True))
    waiting.filter(recipient__in=recipients).update(status=Status.FAILED)
    return recipients
