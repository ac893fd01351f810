""" "Let everyone know" on a Google calendar: Google sends the update (sendUpdates=all), the assistant
does not mail the same people a second time, and the reply says who Google told. "Let him know" is
about the person added only: Google, which can tell every attendee or none, is asked to tell nobody,
and the assistant mails that person alone. Without either, Google tells nobody and nobody is mailed.
Through the chat, against the loopback Google server, with a fixed clock."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.test import override_settings

from assistant.services import chat_turn, conversation_create
from tests.providers.google_fixtures import Connected, connect, google_server, google_settings
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["google_server", "google_settings"]

_users = itertools.count(1)
pytestmark = pytest.mark.django_db
NOW = datetime(2026, 3, 2, 14, tzinfo=UTC)


@pytest.fixture
def conn(db: None, google_server: GoogleCalendarServer, google_settings: None) -> Iterator[Connected]:
    with (
        time_machine.travel(NOW, tick=False),
        override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"),
    ):
        connected = connect(google_server, f"notify{next(_users)}", time_zone="UTC")
        start = NOW + timedelta(days=2)
        google_server.seed_event(
            {
                "summary": "Roadmap review",
                "start": {"dateTime": start.isoformat(), "timeZone": "UTC"},
                "end": {"dateTime": (start + timedelta(hours=1)).isoformat(), "timeZone": "UTC"},
                "attendees": [{"email": "priya@example.com"}],
            },
            calendar_id=connected.calendar.remote_id,
        )
        connected.sync()
        google_server.reset_log()
        mail.outbox = []
        yield connected


def _say(conn: Connected, text: str) -> str:
    """The reply to ``text``, approved if it asks first."""
    conversation = conversation_create(user=conn.user)
    reply = chat_turn(user=conn.user, conversation=conversation, text=text)
    assert reply is not None
    if reply.kind == "confirm":
        reply = chat_turn(user=conn.user, conversation=conversation, text="yes")
        assert reply is not None
    assert reply.kind == "done", reply.text
    return reply.text


def _send_updates(conn: Connected) -> set[str | None]:
    return {value for op, _, _, value in conn.server.sent_updates if op == "events.patch"}


def test_let_everyone_know_has_google_send_the_update_and_no_second_mail(conn: Connected) -> None:
    text = _say(conn, "Add lee@example.com to the roadmap review and let everyone know")

    assert "Google Calendar sent the update to lee@example.com, priya@example.com." in text
    assert _send_updates(conn) == {"all"}
    assert {to for to, _, _ in conn.server.emailed} == {"lee@example.com", "priya@example.com"}
    assert mail.outbox == []  # Google told them: no mail of ours besides


def test_let_him_know_mails_him_alone(conn: Connected) -> None:
    """The request is about Lee: Priya, who was on the event already, is not mailed by anyone."""
    text = _say(conn, "Add lee@example.com to the roadmap review and let him know")

    assert "sent the update" not in text
    assert _send_updates(conn) == {"none"}
    assert conn.server.emailed == []
    assert [m.to for m in mail.outbox] == [["lee@example.com"]]


def test_without_let_him_know_google_tells_nobody(conn: Connected) -> None:
    text = _say(conn, "Add lee@example.com to the roadmap review")

    assert "invite" in text.casefold()
    assert "sent the update" not in text
    assert _send_updates(conn) == {"none"}
    assert conn.server.emailed == []
    assert mail.outbox == []
