"""Mail honesty: "…and notify them" never says someone was told when no mail server could tell them.

The console backend (Django's, the default until ``EMAIL_URL`` is set), its file-writing subclass and
the dummy backend deliver nothing: the change still happens, and the reply says mail is not configured,
so nobody was emailed, and how the operator sets it up.  With a backend that delivers, the mail goes out
after the change was committed, and a mail the server refused is retried by a Celery task with growing
pauses, dispatched when the turn's transaction commits.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from smtplib import SMTPServerDisconnected
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import environ
import pytest
import time_machine
from celery.exceptions import Retry
from django.core import mail
from django.core.mail.backends import locmem
from django.core.mail.message import EmailMessage
from django.db import connection
from django.test import override_settings

from assistant.models import Message
from assistant.services import chat_turn, conversation_create
from skills import tasks
from skills.mail import NOT_CONFIGURED, mail_configured
from skills.models import ChangeRecord, Event, Notification
from skills.services import event_create
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday
ANN, BO = "ann@example.com", "bo@example.com"
CONSOLE = "django.core.mail.backends.console.EmailBackend"
DUMMY = "django.core.mail.backends.dummy.EmailBackend"
FILES = "django.core.mail.backends.filebased.EmailBackend"
SMTP = "django.core.mail.backends.smtp.EmailBackend"
LOCMEM = "django.core.mail.backends.locmem.EmailBackend"

Callbacks = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


def meetings_tomorrow(name: str = "sam") -> tuple[Any, Any]:
    """Sam's Tuesday: a standup with Ann and Bo, a design sync with Ann; and a new conversation."""
    user, cal = user_with_calendar(name)
    for summary, hour, attendees in (("Standup", 9, [ANN, BO]), ("Design sync", 10, [ANN])):
        event_create(
            calendar=cal,
            summary=summary,
            start=datetime(2026, 3, 3, hour, tzinfo=NY),
            end=datetime(2026, 3, 3, hour, 45, tzinfo=NY),
            attendees=attendees,
        )
    return user, conversation_create(user=user)


def clear_tomorrow_and_notify(user: Any, conversation: Any) -> Message:
    ask = chat_turn(user=user, conversation=conversation, text="Clear my calendar tomorrow and notify them")
    assert ask is not None
    assert ask.kind == "confirm"
    done = chat_turn(user=user, conversation=conversation, text="yes")
    assert done is not None
    return done


def statuses(run_id: Any) -> dict[str, tuple[str, str]]:
    return {n.recipient: (n.status, n.error) for n in Notification.objects.filter(run_id=run_id)}


@pytest.mark.parametrize(
    ("backend", "configured"),
    [(CONSOLE, False), (DUMMY, False), (FILES, False), (SMTP, True), (LOCMEM, True)],
)
def test_which_backends_deliver_mail(backend: str, configured: bool) -> None:
    with override_settings(EMAIL_BACKEND=backend):
        assert mail_configured() is configured


def test_the_email_url_of_a_console_is_not_a_mail_server() -> None:
    """``EMAIL_URL=consolemail://`` is how django-environ spells the console backend: still no mail."""
    backend = environ.Env.email_url_config("consolemail://")["EMAIL_BACKEND"]
    with override_settings(EMAIL_BACKEND=backend):
        assert not mail_configured()


@pytest.mark.django_db
@pytest.mark.parametrize("backend", [CONSOLE, DUMMY])
def test_without_a_mail_server_the_change_happens_and_the_reply_says_nobody_was_emailed(
    backend: str,
    django_capture_on_commit_callbacks: Callbacks,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with time_machine.travel(NOW, tick=False), override_settings(EMAIL_BACKEND=backend):
        user, conversation = meetings_tomorrow()
        with django_capture_on_commit_callbacks() as callbacks:
            done = clear_tomorrow_and_notify(user, conversation)

    assert done.kind == "done"
    assert not Event.objects.filter(calendar__owner=user).exists()  # the calendar did change
    assert done.text.startswith("Done: 2 changes.")
    assert "Mail is not configured on this server, so nobody was emailed" in done.text
    assert f"you may want to tell {ANN}, {BO} yourself" in done.text
    assert "EMAIL_URL" in done.text  # how whoever runs the server sets it up
    assert "know" not in done.text  # never "I let … know"
    assert "try again" not in done.text  # nothing is retried: no retry would reach anyone either
    assert done.data["notified"] == []
    assert done.data["mail_not_configured"] == [ANN, BO]
    assert done.data["mail_failed"] == []
    assert done.run is not None
    assert done.data["undo"] == {"run_id": str(done.run.pk)}
    assert statuses(done.run.pk) == {ANN: ("failed", NOT_CONFIGURED), BO: ("failed", NOT_CONFIGURED)}
    # No mail retry was queued for when the turn commits.
    queued = [getattr(c, "__qualname__", "") for c in callbacks]
    assert not [q for q in queued if "notifications_dispatch" in q], queued
    if backend == CONSOLE:  # the developer still sees what would have gone out
        assert "Subject: " in capsys.readouterr().out


@pytest.mark.django_db
def test_with_a_mail_server_the_reply_says_who_was_told(
    django_capture_on_commit_callbacks: Callbacks,
) -> None:
    with time_machine.travel(NOW, tick=False), override_settings(EMAIL_BACKEND=LOCMEM):
        user, conversation = meetings_tomorrow()
        with django_capture_on_commit_callbacks() as callbacks:
            done = clear_tomorrow_and_notify(user, conversation)

    assert f"I let {ANN}, {BO} know." in done.text
    assert "not configured" not in done.text
    assert sorted(m.to[0] for m in mail.outbox) == [ANN, BO]
    assert done.run is not None
    assert {s for s, _ in statuses(done.run.pk).values()} == {"sent"}
    queued = [getattr(c, "__qualname__", "") for c in callbacks]
    assert not [q for q in queued if "notifications_dispatch" in q], queued  # nothing left to retry


class WitnessBackend(locmem.EmailBackend):
    """Delivers to the outbox, noting for each mail whether a transaction was open when it was sent."""

    seen: ClassVar[list[tuple[bool, int]]] = []

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        WitnessBackend.seen.append((connection.in_atomic_block, ChangeRecord.objects.count()))
        return super().send_messages(email_messages)


@pytest.mark.django_db(transaction=True)
def test_mail_goes_out_after_the_change_is_committed(monkeypatch: pytest.MonkeyPatch) -> None:
    """No transaction is open when the backend is called, and the change it tells of is written."""
    monkeypatch.setattr(WitnessBackend, "seen", [])
    with (
        time_machine.travel(NOW, tick=False),
        override_settings(EMAIL_BACKEND=f"{__name__}.WitnessBackend"),
    ):
        user, conversation = meetings_tomorrow("committed")
        done = clear_tomorrow_and_notify(user, conversation)

    assert f"I let {ANN}, {BO} know." in done.text
    assert WitnessBackend.seen == [(False, 2), (False, 2)]


class HangingUpBackend(locmem.EmailBackend):
    """A mail server that drops the connection while it is ``down``."""

    down: ClassVar[bool] = True

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        if HangingUpBackend.down:
            raise SMTPServerDisconnected("Connection unexpectedly closed")
        return super().send_messages(email_messages)


@pytest.mark.django_db
def test_a_refused_mail_is_retried_by_a_task_queued_on_commit_with_growing_pauses(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Callbacks
) -> None:
    monkeypatch.setattr(HangingUpBackend, "down", True)
    queued: list[dict[str, Any]] = []
    monkeypatch.setattr(
        tasks.notifications_send, "apply_async", lambda args, countdown: queued.append({args[0]: countdown})
    )
    with (
        time_machine.travel(NOW, tick=False),
        override_settings(EMAIL_BACKEND=f"{__name__}.HangingUpBackend"),
    ):
        user, conversation = meetings_tomorrow("retry")
        with django_capture_on_commit_callbacks() as callbacks:
            done = clear_tomorrow_and_notify(user, conversation)
            assert queued == []  # nothing is queued before the turn's transaction commits
        for callback in callbacks:
            callback()

        assert done.run is not None
        run_id = str(done.run.pk)
        assert f"The mail to {ANN}, {BO} did not go out; I will try again." in done.text
        assert queued == [{run_id: 60}]  # the first retry, a minute later

        # A worker's later rounds: each failure asks Celery to retry after twice the pause, at most an hour.
        pauses = []

        def retry(countdown: int) -> Retry:
            pauses.append(countdown)
            return Retry("retry", when=countdown)

        monkeypatch.setattr(tasks.notifications_send, "retry", retry)
        for round_ in range(6):
            tasks.notifications_send.push_request(id=str(uuid.uuid4()), retries=round_, is_eager=False)
            try:
                with pytest.raises(Retry):
                    tasks.notifications_send.run(run_id)
            finally:
                tasks.notifications_send.pop_request()
        assert pauses == [120, 240, 480, 960, 1920, 3600]

        # The server is back: the next round sends both, and a round delivered twice sends nothing more.
        monkeypatch.setattr(HangingUpBackend, "down", False)
        for _ in range(2):
            tasks.notifications_send.push_request(id=str(uuid.uuid4()), retries=6, is_eager=False)
            try:
                assert tasks.notifications_send.run(run_id) == 0
            finally:
                tasks.notifications_send.pop_request()
    assert sorted(m.to[0] for m in mail.outbox) == [ANN, BO]
    assert {s for s, _ in statuses(run_id).values()} == {"sent"}
