"""Telling the other attendees: a mail that does not go out never hides a change that was applied.

The mail server here is a real Django mail backend that refuses chosen addresses the way an SMTP
server does (``SMTPRecipientsRefused``) and delivers the rest to ``mail.outbox``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from smtplib import SMTPRecipientsRefused
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core import mail
from django.core.mail.backends import locmem
from django.core.mail.message import EmailMessage
from django.test import override_settings

from assistant.models import Message
from assistant.services import chat_turn, conversation_create
from skills.change_skills import NotifyInput, notify_attendees
from skills.changes import Change
from skills.context import SkillContext
from skills.models import Event, Notification
from skills.reply_skills import Reply
from skills.services import event_create
from skills.tasks import notifications_send
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday
ANN, BO = "ann@example.com", "bo@example.com"
pytestmark = pytest.mark.django_db

Callbacks = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


class RefusingBackend(locmem.EmailBackend):
    """A mail server that refuses the addresses in ``refused`` and delivers the rest to the outbox."""

    refused: ClassVar[set[str]] = set()

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        for message in email_messages:
            refused = {
                to: (550, b"5.2.1 Mailbox unavailable") for to in message.to if to.casefold() in self.refused
            }
            if refused:
                raise SMTPRecipientsRefused(refused)
        return super().send_messages(email_messages)


@pytest.fixture
def refuse(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Mail goes through :class:`RefusingBackend`; ``refuse(*addresses)`` says whom it turns away."""

    def set_refused(*addresses: str) -> None:
        monkeypatch.setattr(RefusingBackend, "refused", set(addresses))

    with override_settings(EMAIL_BACKEND=f"{__name__}.RefusingBackend"):
        yield set_refused


def meetings_tomorrow() -> tuple[Any, Any]:
    """Sam's Tuesday: a standup with Ann and Bo, a design sync with Ann; and a new conversation."""
    user, cal = user_with_calendar("sam")
    for name, hour, attendees in (("Standup", 9, [ANN, BO]), ("Design sync", 10, [ANN])):
        event_create(
            calendar=cal,
            summary=name,
            start=datetime(2026, 3, 3, hour, tzinfo=NY),
            end=datetime(2026, 3, 3, hour, 45, tzinfo=NY),
            attendees=attendees,
        )
    return user, conversation_create(user=user)


def clear_tomorrow(user: Any, conversation: Any) -> Message:
    """Ask to clear Tuesday and tell the others, approve the preview; the approval's reply."""
    ask = chat_turn(user=user, conversation=conversation, text="Clear my calendar tomorrow and notify them")
    assert ask is not None
    assert ask.kind == "confirm"
    done = chat_turn(user=user, conversation=conversation, text="yes")
    assert done is not None
    return done


def mails(run_id: Any) -> dict[str, str]:
    return dict(Notification.objects.filter(run_id=run_id).values_list("recipient", "status"))


def test_a_refused_mail_after_an_approved_change_says_done_and_undo_that_restores_the_calendar(
    refuse: Callable[..., None], django_capture_on_commit_callbacks: Callbacks
) -> None:
    refuse(ANN, BO)
    with time_machine.travel(NOW, tick=False):
        user, conversation = meetings_tomorrow()
        with django_capture_on_commit_callbacks() as retries:
            done = clear_tomorrow(user, conversation)

        assert done.kind == "done"
        assert done.text.startswith("Done: 2 changes.")
        assert f"The mail to {ANN}, {BO} did not go out; I will try again." in done.text
        assert "know" not in done.text  # nobody was told
        assert not Event.objects.filter(calendar__owner=user).exists()  # the calendar did change
        assert done.run is not None
        assert done.data["undo"] == {"run_id": str(done.run.pk)}  # what the Undo button names
        assert (done.data["notified"], done.data["mail_retrying"]) == ([], [ANN, BO])
        assert mails(done.run.pk) == {ANN: "pending", BO: "pending"}
        assert mail.outbox == []

        undone = chat_turn(user=user, conversation=conversation, text="undo that")

    assert undone is not None
    assert undone.kind == "done"
    assert undone.text.startswith("Undone: 2 changes.")
    assert sorted(Event.objects.filter(calendar__owner=user).values_list("summary", flat=True)) == [
        "Design sync",
        "Standup",
    ]
    # The retry comes after the undo: news of a cancellation that was taken back is not sent.
    refuse()
    for retry in retries:
        retry()
    assert mails(done.run.pk) == {ANN: "withdrawn", BO: "withdrawn"}
    assert mail.outbox == []


def test_a_retry_after_a_partial_send_mails_each_person_exactly_once(
    refuse: Callable[..., None], django_capture_on_commit_callbacks: Callbacks
) -> None:
    refuse(BO)
    with time_machine.travel(NOW, tick=False):
        user, conversation = meetings_tomorrow()
        with django_capture_on_commit_callbacks() as retries:
            done = clear_tomorrow(user, conversation)

    assert done.kind == "done"
    assert f"I let {ANN} know." in done.text
    assert f"The mail to {BO} did not go out; I will try again." in done.text
    assert done.run is not None
    assert [m.to for m in mail.outbox] == [[ANN]]
    assert "Standup" in mail.outbox[0].body
    assert "Design sync" in mail.outbox[0].body

    refuse()  # the mail server is back
    for callback in retries:  # the commit of the approval: its retry runs (eagerly) with the rest
        callback()
    notifications_send.apply(args=[str(done.run.pk)])  # a retry delivered twice sends nothing more

    assert sorted(m.to for m in mail.outbox) == [[ANN], [BO]]
    assert "Standup" in mail.outbox[1].body
    assert "Design sync" not in mail.outbox[1].body
    assert mails(done.run.pk) == {ANN: "sent", BO: "sent"}
    assert Notification.objects.get(recipient=BO).attempts == 2


def test_a_retry_that_fails_again_in_eager_mode_gives_up_without_breaking_the_turn(
    refuse: Callable[..., None],
    django_capture_on_commit_callbacks: Callbacks,
    caplog: pytest.LogCaptureFixture,
) -> None:
    refuse(ANN, BO)
    with time_machine.travel(NOW, tick=False):
        user, conversation = meetings_tomorrow()
        with (
            caplog.at_level(logging.ERROR, logger="skills"),
            django_capture_on_commit_callbacks(execute=True),
        ):
            done = clear_tomorrow(user, conversation)

    assert done.kind == "done"
    assert done.run is not None
    # No worker comes back later in eager mode: the one retry was the last, and the log says so.
    assert mails(done.run.pk) == {ANN: "failed", BO: "failed"}
    assert f"gave up mailing {ANN}, {BO} about run {done.run.pk}" in caplog.text
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_offline_the_retry_runs_within_the_turn_and_the_reply_tells_how_it_went(
    refuse: Callable[..., None],
) -> None:
    """Without a transaction around the turn (the offline default) the eager retry runs at once."""
    refuse(BO)
    with time_machine.travel(NOW, tick=False):
        user, conversation = meetings_tomorrow()
        done = clear_tomorrow(user, conversation)

    assert done.kind == "done"
    assert f"I let {ANN} know." in done.text
    assert (
        f"The mail to {BO} did not go out, and trying again did not help; you may want to tell them yourself."
        in done.text
    )
    assert "I will try again" not in done.text
    assert done.data["mail_failed"] == [BO]
    assert [m.to for m in mail.outbox] == [[ANN]]


def test_a_notify_step_run_again_sends_nobody_a_second_mail(refuse: Callable[..., None]) -> None:
    refuse(BO)
    user, _ = user_with_calendar("sam")
    start = datetime(2026, 3, 3, 9, tzinfo=NY)
    applied = Reply(
        kind="done",
        text="Done: 1 change.",
        data={
            "undo": {"run_id": "any"},
            "changed": [
                Change(
                    action="update",
                    summary="Standup",
                    before_start=start,
                    start=start.replace(hour=10),
                    attendees=[ANN, "Bo@Example.com", BO, user.email],
                ).model_dump(mode="json")
            ],
        },
    )
    ctx = SkillContext(user=user, tz=NY, run_id=str(uuid.uuid4()), task_id="notify")
    first = notify_attendees(ctx, NotifyInput(result=applied, note="travel"))
    refuse()
    again = notify_attendees(ctx, NotifyInput(result=applied, note="travel"))

    assert first.data["notified"] == [ANN]
    assert first.data["mail_retrying"] == ["Bo@Example.com"]  # one person, however the address is cased
    assert again.data["notified"] == [ANN, "Bo@Example.com"]
    assert again.data["undo"] == {"run_id": "any"}
    assert [m.to for m in mail.outbox] == [[ANN], ["Bo@Example.com"]]
    assert "Standup (Tuesday, March 3 9:00 AM) is moved" in mail.outbox[0].body
    assert "because of travel" in mail.outbox[0].body


def test_the_console_backend_is_not_called_telling_anyone() -> None:
    with (
        time_machine.travel(NOW, tick=False),
        override_settings(EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend"),
    ):
        user, conversation = meetings_tomorrow()
        done = clear_tomorrow(user, conversation)

    assert done.kind == "done"
    assert "know" not in done.text
    assert "Mail is not configured on this server, so nobody was emailed" in done.text
    assert f"you may want to tell {ANN}, {BO} yourself" in done.text
