"""The Google provider against the loopback Calendar v3 server: sync into the mirror, writes with
their idempotency and etag rules, and the faults the real service has (lost answers, 412, 410,
429 with Retry-After, a revoked grant), plus how many HTTP requests a bulk change costs."""

from __future__ import annotations

import itertools
import time
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from skills.models import CalendarAccount, Event
from skills.providers import provider_for
from skills.providers.base import (
    ConflictError,
    EventData,
    Occurrence,
    PermissionDeniedError,
    Scope,
    Write,
)
from skills.providers.google.provider import event_id_for
from skills.selectors import calendar_info
from skills.services import calendar_create
from tests.providers.google_fixtures import Connected, connect, google_server, google_settings
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["google_server", "google_settings"]

NY = ZoneInfo("America/New_York")
ZONE = "America/New_York"
_users = itertools.count(1)
pytestmark = pytest.mark.django_db


@pytest.fixture
def conn(db: None, google_server: GoogleCalendarServer, google_settings: None) -> Connected:
    return connect(google_server, f"gp{next(_users)}")


def timed(summary: str, start: datetime, minutes: int = 60, **extra: object) -> dict[str, object]:
    end = start + timedelta(minutes=minutes)
    return {
        "summary": summary,
        "start": {"dateTime": start.isoformat(), "timeZone": ZONE},
        "end": {"dateTime": end.isoformat(), "timeZone": ZONE},
        **extra,
    }


def window(conn: Connected, start: datetime, end: datetime) -> list[Occurrence]:
    return conn.provider().list_occurrences(start=start, end=end, calendar_ids=[str(conn.calendar.pk)])


def test_sync_mirrors_singles_series_exceptions_cancellations_and_all_day_dates(conn: Connected) -> None:
    server, cal = conn.server, conn.calendar.remote_id
    server.seed_event(timed("Dentist", datetime(2026, 3, 3, 9, 30, tzinfo=NY)), calendar_id=cal)
    master = server.seed_event(
        timed("Standup", datetime(2026, 3, 2, 10, tzinfo=NY), 15, recurrence=["RRULE:FREQ=DAILY;COUNT=5"]),
        calendar_id=cal,
    )
    moved = f"{master['id']}_20260303T150000Z"
    server.edit_event(
        moved,
        {
            "start": {"dateTime": "2026-03-03T11:00:00-05:00"},
            "end": {"dateTime": "2026-03-03T11:15:00-05:00"},
        },
        calendar_id=cal,
    )
    server.edit_event(f"{master['id']}_20260304T150000Z", {"status": "cancelled"}, calendar_id=cal)
    server.seed_event(
        {"summary": "Holiday", "start": {"date": "2026-03-06"}, "end": {"date": "2026-03-07"}},
        calendar_id=cal,
    )

    conn.sync()
    got = window(conn, datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 3, 8, tzinfo=NY))

    standups = [o for o in got if o.summary == "Standup"]
    assert [o.start.astimezone(NY).strftime("%d %H:%M") for o in standups] == [
        "02 10:00",
        "03 11:00",
        "05 10:00",
        "06 10:00",
    ]
    holiday = next(o for o in got if o.summary == "Holiday")
    assert holiday.all_day
    assert holiday.start.astimezone(NY).date() == date(2026, 3, 6)
    assert any(o.summary == "Dentist" for o in got)

    # Incremental: the sync token alone, no time bounds; only the change is rewritten.
    dentist = next(e for e in server.stored_events(cal) if e["summary"] == "Dentist")
    server.edit_event(dentist["id"], {"summary": "Dentist check-up"}, calendar_id=cal)
    server.reset_log()
    result = conn.sync()
    lists = server.requests(op="events.list")
    assert lists
    assert all("syncToken" in r.query and "timeMin" not in r.query for r in lists)
    assert result.changed == 1
    assert not result.full
    assert Event.objects.filter(calendar=conn.calendar, summary="Dentist check-up").exists()


def test_a_sync_token_google_expired_is_a_full_resync(conn: Connected) -> None:
    server, cal = conn.server, conn.calendar.remote_id
    first = server.seed_event(timed("Keep", datetime(2026, 3, 3, 9, tzinfo=NY)), calendar_id=cal)
    conn.sync()
    gone = server.seed_event(timed("Gone", datetime(2026, 3, 4, 9, tzinfo=NY)), calendar_id=cal)
    conn.sync()
    server.remove_event(gone["id"], calendar_id=cal)
    server.expire_next_sync_token()

    result = conn.sync()

    assert result.full == [cal]
    summaries = set(Event.objects.filter(calendar=conn.calendar).values_list("summary", flat=True))
    assert summaries == {"Keep"}
    assert first["id"] in set(Event.objects.filter(calendar=conn.calendar).values_list("uid", flat=True))


def test_writes_go_to_google_with_ids_if_match_and_send_updates(conn: Connected) -> None:
    server, cal = conn.server, conn.calendar.remote_id
    provider = conn.provider()
    start = datetime(2026, 3, 10, 14, tzinfo=NY)
    data = EventData(
        summary="Review",
        start=start,
        end=start + timedelta(hours=1),
        timezone=ZONE,
        attendees=["lee@example.com"],
        extra={"send_updates": "all"},
    )
    created = provider.create_event(calendar_id=str(conn.calendar.pk), data=data, operation_id="run1:t1")

    stored = server.stored_event(cal, event_id_for("run1:t1"))
    assert stored is not None
    assert stored["summary"] == "Review"
    assert created.uid == event_id_for("run1:t1")
    assert server.sent_updates[-1][-1] == "all"

    server.reset_log()
    updated = provider.update_event(
        event_id=created.event_id, data=EventData(summary="Design review"), expected_etag=created.etag
    )
    patch = server.requests(op="events.patch")[-1]
    assert patch.if_match == stored["etag"]
    assert server.sent_updates[-1][-1] == "none"
    assert server.stored_event(cal, created.uid)["summary"] == "Design review"  # type: ignore[index]

    provider.delete_event(event_id=updated.event_id, expected_etag=updated.etag)
    assert server.stored_event(cal, created.uid)["status"] == "cancelled"  # type: ignore[index]
    assert server.requests(op="events.delete")[-1].if_match


def test_one_occurrence_is_cancelled_by_patching_its_instance(conn: Connected) -> None:
    server, _cal = conn.server, conn.calendar.remote_id
    provider = conn.provider()
    start = datetime(2026, 3, 2, 10, tzinfo=NY)
    first = provider.create_event(
        calendar_id=str(conn.calendar.pk),
        data=EventData(
            summary="Sync",
            start=start,
            end=start + timedelta(hours=1),
            timezone=ZONE,
            rrule="FREQ=WEEKLY;COUNT=4",
        ),
        operation_id="series:1",
    )
    second = start + timedelta(weeks=1)
    server.reset_log()
    provider.delete_event(event_id=first.event_id, recurrence_id=second, scope=Scope.OCCURRENCE)

    patches = server.requests(op="events.patch")
    assert [p.body for p in patches] == [{"status": "cancelled"}]
    assert patches[0].path.endswith(f"{first.uid}_20260309T140000Z")
    conn.sync()
    left = window(conn, datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 4, 1, tzinfo=NY))
    assert len(left) == 3


def test_a_create_whose_answer_was_lost_is_made_once(conn: Connected) -> None:
    server, cal = conn.server, conn.calendar.remote_id
    before = len(server.stored_events(cal))
    server.lose_response(on="events.insert", times=2)  # httplib2's silent resend is lost as well
    start = datetime(2026, 3, 11, 9, tzinfo=NY)

    created = conn.provider().create_event(
        calendar_id=str(conn.calendar.pk),
        data=EventData(summary="Once", start=start, end=start + timedelta(hours=1), timezone=ZONE),
        operation_id="run2:t1",
    )

    assert len(server.stored_events(cal)) == before + 1
    assert created.uid == event_id_for("run2:t1")
    assert [r.status for r in server.requests(op="events.insert")][-1] == 409
    assert Event.objects.filter(calendar=conn.calendar, summary="Once").count() == 1


def test_an_event_changed_on_another_device_is_a_conflict_never_an_overwrite(conn: Connected) -> None:
    server, cal = conn.server, conn.calendar.remote_id
    provider = conn.provider()
    start = datetime(2026, 3, 12, 9, tzinfo=NY)
    created = provider.create_event(
        calendar_id=str(conn.calendar.pk),
        data=EventData(summary="Plan", start=start, end=start + timedelta(hours=1), timezone=ZONE),
        operation_id="run3:t1",
    )
    server.edit_event(created.uid, {"summary": "Plan (moved by Ann)"}, calendar_id=cal)

    with pytest.raises(ConflictError):
        provider.update_event(
            event_id=created.event_id, data=EventData(location="4B"), expected_etag=created.etag
        )

    assert server.requests(op="events.patch")[-1].status == 412
    assert server.stored_event(cal, created.uid)["summary"] == "Plan (moved by Ann)"  # type: ignore[index]
    # The mirror was synced after the refusal: a fresh read shows Google's version.
    fresh = conn.provider().get_occurrence(event_id=created.event_id)
    assert fresh.summary == "Plan (moved by Ann)"


def test_a_rate_limit_waits_what_retry_after_says(conn: Connected) -> None:
    server = conn.server
    server.rate_limit(retry_after=1, on="events.insert")
    start = datetime(2026, 3, 13, 9, tzinfo=NY)

    began = time.monotonic()
    conn.provider().create_event(
        calendar_id=str(conn.calendar.pk),
        data=EventData(summary="Later", start=start, end=start + timedelta(hours=1), timezone=ZONE),
        operation_id="run4:t1",
    )
    waited = time.monotonic() - began

    assert waited >= 1.0
    assert [r.status for r in server.requests(op="events.insert")][-2:] == [429, 200]


def test_a_revoked_grant_asks_to_reconnect_and_writes_nothing(conn: Connected) -> None:
    server = conn.server
    server.revoke_refresh_token(conn.refresh_token)
    server.expire_access_tokens()
    start = datetime(2026, 3, 14, 9, tzinfo=NY)

    with pytest.raises(PermissionDeniedError, match="Reconnect"):
        conn.provider().create_event(
            calendar_id=str(conn.calendar.pk),
            data=EventData(summary="Nope", start=start, end=start + timedelta(hours=1), timezone=ZONE),
            operation_id="run5:t1",
        )

    conn.account.refresh_from_db()
    assert conn.account.status == CalendarAccount.Status.NEEDS_RECONNECT
    assert "Reconnect" in conn.account.last_error
    assert not Event.objects.filter(calendar=conn.calendar, summary="Nope").exists()


def test_refreshed_tokens_are_stored_back_encrypted(conn: Connected) -> None:
    conn.account.refresh_from_db()
    stored = conn.account.credentials
    assert stored["token"].startswith("ya29.")
    assert "ya29." not in conn.account.encrypted_credentials


def test_moving_fifty_occurrences_takes_at_most_five_http_requests(conn: Connected) -> None:
    server = conn.server
    provider = conn.provider()
    start = datetime(2026, 3, 2, 13, tzinfo=NY)
    first = provider.create_event(
        calendar_id=str(conn.calendar.pk),
        data=EventData(
            summary="Class",
            start=start,
            end=start + timedelta(hours=1),
            timezone=ZONE,
            rrule="FREQ=DAILY;COUNT=50",
        ),
        operation_id="run6:series",
    )
    occurrences = provider.list_occurrences(
        start=start - timedelta(hours=1), end=start + timedelta(days=51), calendar_ids=[str(conn.calendar.pk)]
    )
    assert len(occurrences) == 50
    writes = [
        Write(
            action="update",
            event_id=first.event_id,
            recurrence_id=o.recurrence_id,
            scope=Scope.OCCURRENCE,
            data=EventData(start=o.start - timedelta(hours=4), end=o.end - timedelta(hours=4)),
            expected_etag=o.etag,
            operation_id=f"run7:{n}",
        )
        for n, o in enumerate(occurrences)
    ]
    server.reset_log()

    provider.apply_writes(writes)

    assert server.api_http_requests <= 5
    assert len(server.requests(op="events.patch", in_batch=True)) == 50
    instances = [e for e in server.stored_events(conn.calendar.remote_id) if e.get("recurringEventId")]
    assert len(instances) == 50
    assert all(e["start"]["dateTime"].startswith(e["originalStartTime"]["dateTime"][:11]) for e in instances)
    conn.sync()
    moved = provider.list_occurrences(
        start=start - timedelta(hours=6), end=start + timedelta(days=51), calendar_ids=[str(conn.calendar.pk)]
    )
    assert {o.start.astimezone(NY).hour for o in moved} == {9}


def test_this_and_following_is_until_on_the_master_plus_a_new_series_and_undo_puts_it_back(
    conn: Connected,
) -> None:
    server, cal = conn.server, conn.calendar.remote_id
    provider = conn.provider()
    start = datetime(2026, 3, 2, 10, tzinfo=NY)
    first = provider.create_event(
        calendar_id=str(conn.calendar.pk),
        data=EventData(
            summary="Seminar",
            start=start,
            end=start + timedelta(hours=1),
            timezone=ZONE,
            rrule="FREQ=WEEKLY;COUNT=6",
        ),
        operation_id="run8:series",
    )
    third = start + timedelta(weeks=2)
    [written] = provider.apply_writes(
        [
            Write(
                action="update",
                event_id=first.event_id,
                recurrence_id=third,
                scope=Scope.FOLLOWING,
                data=EventData(start=third + timedelta(hours=1), end=third + timedelta(hours=2)),
                operation_id="run8:following",
            )
        ]
    )

    live = [e for e in server.stored_events(cal) if e["summary"] == "Seminar"]
    master = next(e for e in live if e["id"] == first.uid)
    assert "UNTIL=" in master["recurrence"][0]
    tail = next(e for e in live if e["id"] != first.uid)
    assert tail["start"]["dateTime"].startswith("2026-03-16T11:00")
    assert written.restore_image is not None

    provider.restore(image=written.restore_image, event_id=first.event_id, operation_id="run8:undo")

    live = [e for e in server.stored_events(cal) if e["summary"] == "Seminar"]
    assert [e["id"] for e in live] == [first.uid]
    assert live[0]["recurrence"] == ["RRULE:FREQ=WEEKLY;COUNT=6"]
    conn.sync()
    seminars = window(conn, datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 5, 1, tzinfo=NY))
    assert [o.start.astimezone(NY).hour for o in seminars] == [10] * 6


def test_a_mirrored_calendar_says_it_is_google_s_and_a_built_in_one_local(conn: Connected) -> None:
    calendar_create(owner=conn.user, key="notes", name="Notes", timezone="America/New_York")
    kinds = {c.name: c.provider for c in provider_for(conn.user).list_calendars()}
    assert kinds[conn.calendar.name] == "google"
    assert kinds["Notes"] == "local"
    assert calendar_info(conn.calendar).provider == "google"
