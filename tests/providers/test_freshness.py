"""A chat turn brings a stale mirror of remote calendars up to date first (skills/freshness.py).

Against the loopback Google server: an event another device changed is seen by the next turn once the
last sync is older than FRESH_FOR, not within it (no request at all), always when the turn answers a
pending question, and a sync that fails is recorded on the account, never raised into the turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from assistant.services import chat_turn, conversation_create
from skills.accounts import sync
from skills.freshness import FRESH_FOR, refresh_stale_accounts
from skills.models import Calendar, CalendarAccount, Event
from tests.providers.google_fixtures import Connected, connect, google_server, google_settings
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["google_server", "google_settings"]

_users = itertools.count(1)
pytestmark = pytest.mark.django_db
NOW = datetime(2026, 3, 2, 14, tzinfo=UTC)


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


@pytest.fixture
def conn(
    db: None, google_server: GoogleCalendarServer, google_settings: None, clock: time_machine.Traveller
) -> Connected:
    connected = connect(google_server, f"fresh{next(_users)}")
    sync(connected.account)  # the product's sync: records when
    return connected


def _seed_elsewhere(conn: Connected, summary: str) -> None:
    start = NOW + timedelta(days=1)
    conn.server.seed_event(
        {
            "summary": summary,
            "start": {"dateTime": start.isoformat(), "timeZone": "UTC"},
            "end": {"dateTime": (start + timedelta(hours=1)).isoformat(), "timeZone": "UTC"},
        },
        calendar_id=conn.calendar.remote_id,
    )


def _mirrored(conn: Connected, summary: str) -> bool:
    return Event.objects.filter(calendar=conn.calendar, summary=summary).exists()


def test_a_stale_mirror_is_synced_before_the_turn(conn: Connected, clock: time_machine.Traveller) -> None:
    _seed_elsewhere(conn, "Added on the phone")
    clock.shift(FRESH_FOR + timedelta(seconds=1))
    assert refresh_stale_accounts(conn.user) == 1
    assert _mirrored(conn, "Added on the phone")


def test_a_fresh_mirror_costs_no_request(conn: Connected, clock: time_machine.Traveller) -> None:
    _seed_elsewhere(conn, "Added on the phone")
    clock.shift(FRESH_FOR - timedelta(seconds=1))
    conn.server.reset_log()
    assert refresh_stale_accounts(conn.user) == 0
    assert conn.server.api_http_requests == 0
    assert not _mirrored(conn, "Added on the phone")


def test_an_answer_to_a_pending_question_always_syncs(conn: Connected) -> None:
    _seed_elsewhere(conn, "Added on the phone")
    assert refresh_stale_accounts(conn.user, answering=True) == 1
    assert _mirrored(conn, "Added on the phone")


def test_a_failed_sync_is_recorded_not_raised(conn: Connected, clock: time_machine.Traveller) -> None:
    conn.server.revoke_refresh_token(conn.refresh_token)
    conn.server.expire_access_tokens()
    clock.shift(FRESH_FOR * 2)
    assert refresh_stale_accounts(conn.user) == 0
    conn.account.refresh_from_db()
    assert conn.account.status == CalendarAccount.Status.NEEDS_RECONNECT
    assert refresh_stale_accounts(conn.user) == 0  # not tried again until reconnected


def test_the_chat_turn_reads_what_another_device_added(
    conn: Connected, clock: time_machine.Traveller
) -> None:
    Calendar.objects.filter(pk=conn.calendar.pk).update(is_default=True, timezone="UTC")
    _seed_elsewhere(conn, "Added on the phone")
    clock.shift(FRESH_FOR * 2)
    conversation = conversation_create(user=conn.user)
    reply = chat_turn(user=conn.user, conversation=conversation, text="What's on my calendar tomorrow?")
    assert reply is not None
    assert "Added on the phone" in reply.text, reply.text
