"""The CalDAV provider against a real Radicale server: discovery, sync into the mirror (overrides,
EXDATEs, all-day dates, incremental sync), every kind of write as the server sees it (etags,
If-None-Match, If-Match), an idempotent create after a lost answer, 412, compensation, free/busy,
and the HTTP requests a bulk change costs."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import niquests
import pytest
import time_machine
from django.contrib.auth import get_user_model

from skills.models import Calendar, CalendarAccount, Event
from skills.providers.base import (
    ConflictError,
    EventData,
    PermissionDeniedError,
    Scope,
    TransientProviderError,
    Write,
)
from skills.providers.caldav import connect_account, sync_account
from skills.providers.caldav.client import DavConnection
from skills.providers.caldav.provider import resource_name, uid_for_operation
from tests.providers.caldav_fixtures import Connected, caldav_settings, connect
from tests.providers.conformance import state
from tests.providers.radicale_server import DavUser, RadicaleServer, dav_user, radicale_server

__all__ = ["caldav_settings", "dav_user", "radicale_server"]

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("caldav_settings")]

ZONE = "America/New_York"
NY = ZoneInfo(ZONE)
NOW = datetime(2026, 2, 20, 12, 0, tzinfo=NY)
WINDOW = (datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 6, 1, tzinfo=NY))


@pytest.fixture(autouse=True)
def _clock() -> Any:
    with time_machine.travel(NOW, tick=True):
        yield


def put(dav: DavUser, slug: str, name: str, text: str) -> niquests.Response:
    """Someone else's client writing to the server."""
    response = niquests.put(
        dav.calendars[slug] + name,
        data=text.replace("\n", "\r\n").encode(),
        auth=(dav.name, dav.password),
        headers={"Content-Type": "text/calendar"},
    )
    assert response.status_code in (201, 204), response.text
    return response


def get(dav: DavUser, path: str) -> icalendar.Calendar:
    url = dav.server.url.rstrip("/") + path if path.startswith("/") else path
    response = niquests.get(url, auth=(dav.name, dav.password))
    assert response.status_code == 200, path
    return icalendar.Calendar.from_ical(response.content or b"")


def resources(connected: Connected) -> dict[str, list[str]]:
    account = CalendarAccount.objects.get(pk=connected.account.pk)
    return account.sync_state["calendars"][str(connected.calendar.pk)]["resources"]


def listed(connected: Connected, calendar: Calendar | None = None) -> list[Any]:
    calendar = calendar or connected.calendar
    return connected.provider().list_occurrences(
        start=WINDOW[0], end=WINDOW[1], calendar_ids=[str(calendar.pk)]
    )


SERIES = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//someone else//EN
BEGIN:VEVENT
UID:seminar@example.org
DTSTAMP:20260201T000000Z
DTSTART;TZID=America/New_York:20260302T100000
DTEND;TZID=America/New_York:20260302T110000
RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6
EXDATE;TZID=America/New_York:20260316T100000
SUMMARY:Seminar
LOCATION:Room 1
END:VEVENT
BEGIN:VEVENT
UID:seminar@example.org
DTSTAMP:20260201T000000Z
RECURRENCE-ID;TZID=America/New_York:20260309T100000
DTSTART;TZID=America/New_York:20260309T140000
DTEND;TZID=America/New_York:20260309T150000
SUMMARY:Seminar (moved)
END:VEVENT
END:VCALENDAR
"""

ALL_DAY = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//someone else//EN
BEGIN:VEVENT
UID:holiday@example.org
DTSTAMP:20260201T000000Z
DTSTART;VALUE=DATE:20260403
DTEND;VALUE=DATE:20260404
SUMMARY:Day off
END:VEVENT
END:VCALENDAR
"""


# -- connecting ------------------------------------------------------------------------------------------
def test_connecting_discovers_the_calendars_and_keeps_the_password_encrypted(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    account = connected.account

    calendars = {c.name: c for c in account.calendars.all()}
    assert set(calendars) == {"Work", "Home"}
    assert calendars["Work"].remote_id == dav_user.calendars["work"]
    assert calendars["Home"].remote_id == dav_user.calendars["home"]
    assert account.kind == "caldav"
    assert dav_user.password not in account.encrypted_credentials
    assert account.credentials["password"] == dav_user.password
    assert dav_user.password not in repr(account.credentials)


def test_a_wrong_password_is_refused_and_nothing_is_stored(dav_user: DavUser) -> None:
    user = get_user_model().objects.create_user("mallory", "m@example.com")

    with pytest.raises(PermissionDeniedError):
        connect_account(owner=user, url=dav_user.server.url, username=dav_user.name, password="wrong")

    assert not CalendarAccount.objects.filter(owner=user).exists()


def test_only_the_calendars_chosen_are_kept(dav_user: DavUser) -> None:
    user = get_user_model().objects.create_user("chooser", "c@example.com")
    account = connect_account(
        owner=user,
        url=dav_user.server.url,
        username=dav_user.name,
        password=dav_user.password,
        calendars=[dav_user.calendars["home"]],
    )
    assert [c.name for c in account.calendars.all()] == ["Home"]


# -- sync ------------------------------------------------------------------------------------------------
def test_sync_mirrors_a_series_with_its_override_and_exdate_and_an_all_day_event(dav_user: DavUser) -> None:
    put(dav_user, "work", "seminar.ics", SERIES)
    put(dav_user, "work", "holiday.ics", ALL_DAY)
    connected = connect(dav_user)

    report = sync_account(connected.account)

    assert report.fetched == 2
    assert report.full
    seen = [(o.start.astimezone(NY).replace(tzinfo=None), o.summary) for o in listed(connected)]
    assert seen == [
        (datetime(2026, 3, 2, 10), "Seminar"),
        (datetime(2026, 3, 9, 14), "Seminar (moved)"),  # the override, at its own time
        # March 16 cancelled by its EXDATE
        (datetime(2026, 3, 23, 10), "Seminar"),  # 14:00 UTC after the clocks changed
        (datetime(2026, 3, 30, 10), "Seminar"),
        (datetime(2026, 4, 3, 0), "Day off"),
        (datetime(2026, 4, 6, 10), "Seminar"),
    ]
    day_off = next(o for o in listed(connected) if o.summary == "Day off")
    assert day_off.all_day
    assert day_off.start.astimezone(NY).date() == date(2026, 4, 3)
    moved = next(o for o in listed(connected) if o.summary == "Seminar (moved)")
    assert moved.recurrence_id == datetime(2026, 3, 9, 10, tzinfo=NY)
    assert moved.uid == "seminar@example.org"


def test_a_later_sync_asks_only_for_what_changed(dav_user: DavUser, radicale_server: RadicaleServer) -> None:
    put(dav_user, "work", "seminar.ics", SERIES)
    put(dav_user, "work", "holiday.ics", ALL_DAY)
    connected = connect(dav_user)
    sync_account(connected.account, calendars=[connected.calendar])
    master = Event.objects.get(calendar=connected.calendar, uid="seminar@example.org", series=None)

    put(dav_user, "work", "seminar.ics", SERIES.replace("LOCATION:Room 1", "LOCATION:Room 2"))
    niquests.delete(dav_user.calendars["work"] + "holiday.ics", auth=(dav_user.name, dav_user.password))
    radicale_server.reset_log()
    report = sync_account(connected.account, calendars=[connected.calendar])

    assert not report.full
    assert (report.fetched, report.deleted) == (1, 1)
    assert [r.method for r in radicale_server.requests] == ["REPORT", "REPORT"]  # sync-collection, multiget
    assert {o.location for o in listed(connected) if o.summary == "Seminar"} == {"Room 2"}
    assert not any(o.summary == "Day off" for o in listed(connected))
    # The series kept its row: a conversation pointing at it still finds it.
    assert (
        Event.objects.get(calendar=connected.calendar, uid="seminar@example.org", series=None).pk == master.pk
    )

    radicale_server.reset_log()
    assert sync_account(connected.account, calendars=[connected.calendar]).fetched == 0
    assert radicale_server.count() == 1  # nothing changed: one sync-collection REPORT


def test_an_expired_sync_token_means_a_sync_from_none(dav_user: DavUser) -> None:
    put(dav_user, "work", "holiday.ics", ALL_DAY)
    connected = connect(dav_user)
    sync_account(connected.account, calendars=[connected.calendar])
    account = CalendarAccount.objects.get(pk=connected.account.pk)
    account.sync_state["calendars"][str(connected.calendar.pk)]["token"] = "http://radicale.org/ns/sync/0000"
    account.save()

    report = sync_account(account, calendars=[connected.calendar])

    assert report.full
    assert [o.summary for o in listed(connected)] == ["Day off"]


def test_without_sync_collection_the_etags_say_what_changed(
    dav_user: DavUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skills.providers.base import ProviderError

    def no_sync(self: DavConnection, url: str, token: str) -> Any:
        raise ProviderError("no sync-collection here")

    monkeypatch.setattr(DavConnection, "sync_collection", no_sync)
    put(dav_user, "work", "seminar.ics", SERIES)
    connected = connect(dav_user)
    assert sync_account(connected.account, calendars=[connected.calendar]).fetched == 1
    assert sync_account(connected.account, calendars=[connected.calendar]).fetched == 0  # same ctag

    put(dav_user, "work", "holiday.ics", ALL_DAY)
    report = sync_account(connected.account, calendars=[connected.calendar])

    assert report.fetched == 1  # only the new resource: the series' etag is unchanged
    assert "Day off" in [o.summary for o in listed(connected)]


# -- writes as the server sees them -------------------------------------------------------------------------
def _series(connected: Connected, weeks: int = 6, op: str = "") -> Any:
    data = EventData(
        summary="Team sync",
        start=datetime(2026, 3, 2, 10, tzinfo=NY),
        end=datetime(2026, 3, 2, 11, tzinfo=NY),
        timezone=ZONE,
        rrule=f"FREQ=WEEKLY;BYDAY=MO;COUNT={weeks}",
    )
    return connected.provider().create_event(
        calendar_id=str(connected.calendar.pk), data=data, operation_id=op
    )


def _components(dav: DavUser, connected: Connected, uid: str) -> list[Any]:
    path = next(p for p, (_, u) in resources(connected).items() if u == uid)
    return list(get(dav, path).walk("VEVENT"))


def test_a_create_is_a_put_with_if_none_match_under_a_name_from_its_operation_id(
    dav_user: DavUser, radicale_server: RadicaleServer
) -> None:
    connected = connect(dav_user)
    radicale_server.reset_log()

    created = _series(connected, op="run-1:task-1")

    uid = uid_for_operation("run-1:task-1")
    assert created.uid == uid
    assert [(r.method, r.status) for r in radicale_server.requests] == [("PUT", 201)]
    assert radicale_server.requests[0].path.endswith("/work/" + resource_name(uid))
    (master,) = _components(dav_user, connected, uid)
    assert master["rrule"].to_ical() == b"FREQ=WEEKLY;COUNT=6;BYDAY=MO"
    assert master["dtstart"].params["TZID"] == ZONE
    etag = resources(connected)[radicale_server.requests[0].path][0]
    assert etag.startswith('"')


def test_an_all_day_event_is_a_date_on_the_server(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    data = EventData(summary="Offsite", all_day=True, start_date=date(2026, 4, 3), end_date=date(2026, 4, 4))
    created = connected.provider().create_event(calendar_id=str(connected.calendar.pk), data=data)

    (component,) = _components(dav_user, connected, created.uid)
    assert component.decoded("dtstart") == date(2026, 4, 3)
    assert component.decoded("dtend") == date(2026, 4, 4)


def test_one_occurrence_changed_is_a_recurrence_id_inside_the_same_resource(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    first = _series(connected)
    provider = connected.provider()
    third = provider.list_occurrences(
        start=datetime(2026, 3, 16, tzinfo=NY), end=datetime(2026, 3, 17, tzinfo=NY)
    )[0]
    provider.update_event(
        event_id=third.event_id,
        recurrence_id=third.recurrence_id,
        data=EventData(start=datetime(2026, 3, 16, 15, tzinfo=NY), end=datetime(2026, 3, 16, 16, tzinfo=NY)),
        expected_etag=third.etag,
    )

    master, override = _components(dav_user, connected, first.uid)
    assert len(resources(connected)) == 1
    assert "recurrence-id" not in master
    assert override.decoded("recurrence-id") == datetime(2026, 3, 16, 10, tzinfo=NY)
    assert override.decoded("dtstart") == datetime(2026, 3, 16, 15, tzinfo=NY)


def test_one_occurrence_deleted_is_an_exdate(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    first = _series(connected)
    provider = connected.provider()
    second = provider.list_occurrences(
        start=datetime(2026, 3, 9, tzinfo=NY), end=datetime(2026, 3, 10, tzinfo=NY)
    )[0]

    provider.delete_event(
        event_id=second.event_id, recurrence_id=second.recurrence_id, expected_etag=second.etag
    )

    (master,) = _components(dav_user, connected, first.uid)
    assert [d.dt for d in master["exdate"].dts] == [datetime(2026, 3, 9, 10, tzinfo=NY)]


def test_this_and_following_is_until_on_the_master_and_a_new_resource(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    first = _series(connected)
    provider = connected.provider()
    fourth = provider.list_occurrences(
        start=datetime(2026, 3, 23, tzinfo=NY), end=datetime(2026, 3, 24, tzinfo=NY)
    )[0]

    after = provider.update_event(
        event_id=fourth.event_id,
        recurrence_id=fourth.recurrence_id,
        scope=Scope.FOLLOWING,
        data=EventData(start=datetime(2026, 3, 23, 11, tzinfo=NY), end=datetime(2026, 3, 23, 12, tzinfo=NY)),
    )

    (master,) = _components(dav_user, connected, first.uid)
    assert master["rrule"]["UNTIL"][0] < datetime(2026, 3, 23, 14, tzinfo=UTC)
    assert after.uid != first.uid
    (tail,) = _components(dav_user, connected, after.uid)
    assert tail.decoded("dtstart") == datetime(2026, 3, 23, 11, tzinfo=NY)
    assert len(resources(connected)) == 2


def test_deleting_a_series_deletes_the_resource_with_if_match(
    dav_user: DavUser, radicale_server: RadicaleServer
) -> None:
    connected = connect(dav_user)
    first = _series(connected)
    radicale_server.reset_log()

    connected.provider().delete_event(event_id=first.event_id, scope=Scope.SERIES)

    assert [(r.method, r.status) for r in radicale_server.requests] == [("DELETE", 200)]
    assert resources(connected) == {}


def test_what_the_writes_left_on_the_server_reads_the_same_from_a_fresh_mirror(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    provider = connected.provider()
    first = _series(connected, weeks=8)
    occurrences = provider.list_occurrences(start=WINDOW[0], end=WINDOW[1])
    provider.update_event(
        event_id=first.event_id,
        recurrence_id=occurrences[1].recurrence_id,
        data=EventData(summary="Team sync (long)", end=occurrences[1].end + timedelta(minutes=30)),
    )
    provider.delete_event(event_id=first.event_id, recurrence_id=occurrences[2].recurrence_id)
    provider.update_event(
        event_id=first.event_id,
        recurrence_id=occurrences[5].recurrence_id,
        scope=Scope.FOLLOWING,
        data=EventData(location="Room 9"),
    )
    data = EventData(summary="Offsite", all_day=True, start_date=date(2026, 4, 3), end_date=date(2026, 4, 5))
    provider.create_event(calendar_id=str(connected.calendar.pk), data=data)
    provider.create_event(
        calendar_id=str(connected.calendar.pk),
        data=EventData(
            summary="Dentist",
            start=datetime(2026, 3, 12, 9, 30, tzinfo=NY),
            end=datetime(2026, 3, 12, 10, tzinfo=NY),
            timezone=ZONE,
            location="17705 Hale Avenue",
        ),
    )

    fresh = connect(dav_user)  # a second instance of the same server account
    sync_account(fresh.account)

    assert state(listed(fresh)) == state(listed(connected))
    assert len(listed(fresh)) == 9


# -- idempotency, conflicts, compensation -----------------------------------------------------------------
def test_a_create_retried_after_a_lost_answer_finds_its_resource(
    dav_user: DavUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    connected = connect(dav_user)
    real = DavConnection.create

    def lost(self: DavConnection, path: str, ics: str) -> tuple[bool, str]:
        real(self, path, ics)  # the server makes it; the answer never arrives
        raise TransientProviderError("connection reset")

    monkeypatch.setattr(DavConnection, "create", lost)
    with pytest.raises(TransientProviderError):
        _series(connected, op="run-7:task-2")
    monkeypatch.setattr(DavConnection, "create", real)
    # The write's own rows were rolled back; the sync after the failure brought the server's copy.
    assert Event.objects.filter(calendar=connected.calendar, series=None).count() == 1

    created = _series(connected, op="run-7:task-2")

    listing = DavConnection(dav_user.server.url, dav_user.name, dav_user.password).etags(
        dav_user.calendars["work"]
    )
    assert len(listing) == 1  # one resource on the server, never a second
    assert created.uid == uid_for_operation("run-7:task-2")
    assert Event.objects.filter(calendar=connected.calendar, series=None).count() == 1
    again = _series(connected, op="run-7:task-2")  # replayed: nothing sent, the same event
    assert again.event_id == created.event_id


def test_a_change_made_elsewhere_is_a_412_and_the_mirror_then_shows_it(
    dav_user: DavUser, radicale_server: RadicaleServer
) -> None:
    connected = connect(dav_user)
    first = _series(connected)
    (path,) = resources(connected)
    changed = get(dav_user, path)
    for component in changed.walk("VEVENT"):
        component["summary"] = icalendar.vText("Team sync (their title)")
    put(dav_user, "work", path.rsplit("/", 1)[1], changed.to_ical().decode())
    radicale_server.reset_log()

    with pytest.raises(ConflictError):
        connected.provider().update_event(
            event_id=first.event_id,
            scope=Scope.SERIES,
            recurrence_id=first.recurrence_id,
            data=EventData(location="Room 5"),
            expected_etag=first.etag,
        )

    assert radicale_server.requests[0].method == "PUT"
    assert radicale_server.requests[0].status == 412
    summaries = {o.summary for o in listed(connected)}
    assert summaries == {"Team sync (their title)"}  # synced at once: a fresh preview sees it
    assert {o.location for o in listed(connected)} == {""}


def test_a_batch_refused_midway_puts_back_what_it_had_changed(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    provider = connected.provider()
    a = _series(connected)
    b = provider.create_event(
        calendar_id=str(connected.calendar.pk),
        data=EventData(
            summary="Dentist",
            start=datetime(2026, 3, 12, 9, tzinfo=NY),
            end=datetime(2026, 3, 12, 10, tzinfo=NY),
        ),
    )
    paths = {u: p for p, (_, u) in resources(connected).items()}
    before_a = get(dav_user, paths[a.uid]).walk("VEVENT")[0]["summary"]
    # Someone else changes b behind the mirror's back: the batch's second PUT will get a 412.
    other = get(dav_user, paths[b.uid])
    other.walk("VEVENT")[0]["location"] = icalendar.vText("Elsewhere")
    put(dav_user, "work", paths[b.uid].rsplit("/", 1)[1], other.to_ical().decode())
    writes = [
        Write(
            action="update",
            event_id=a.event_id,
            recurrence_id=a.recurrence_id,
            scope=Scope.SERIES,
            data=EventData(summary="Renamed"),
        ),
        Write(action="update", event_id=b.event_id, data=EventData(summary="Renamed too")),
    ]

    with pytest.raises(ConflictError):
        provider.apply_writes(writes)

    assert get(dav_user, paths[a.uid]).walk("VEVENT")[0]["summary"] == before_a
    assert "Renamed" not in {o.summary for o in listed(connected)}
    # The mirror holds the server's versions again, so the next write goes through.
    provider.update_event(
        event_id=a.event_id,
        recurrence_id=a.recurrence_id,
        scope=Scope.SERIES,
        data=EventData(summary="Renamed"),
    )
    assert get(dav_user, paths[a.uid]).walk("VEVENT")[0]["summary"] == "Renamed"


# -- free/busy and cost -------------------------------------------------------------------------------
def test_free_busy_of_a_calendar_from_the_mirror_and_from_the_server(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    _series(connected, weeks=3)
    provider = connected.provider()
    calendar_id = str(connected.calendar.pk)
    window = (datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 3, 15, tzinfo=NY))

    mirror = provider.calendar_free_busy(calendar_id=calendar_id, start=window[0], end=window[1])
    remote = provider.calendar_free_busy(
        calendar_id=calendar_id, start=window[0], end=window[1], from_server=True
    )

    assert [(b.start, b.end) for b in mirror] == [
        (datetime(2026, 3, 2, 15, tzinfo=UTC), datetime(2026, 3, 2, 16, tzinfo=UTC)),
        (datetime(2026, 3, 9, 14, tzinfo=UTC), datetime(2026, 3, 9, 15, tzinfo=UTC)),  # after the change
    ]
    # The server's free-busy-query agrees before the clocks change; Radicale 3.9 expands the series
    # in UTC, so after it the server says 15:00 UTC (11 am) where the event is at 10 am New York.
    assert (remote[0].start, remote[0].end) == (mirror[0].start, mirror[0].end)
    assert len(remote) == 2


def test_a_bulk_change_of_50_occurrences_of_a_series_is_one_put(
    dav_user: DavUser, radicale_server: RadicaleServer
) -> None:
    connected = connect(dav_user)
    first = _series(connected, weeks=60)
    provider = connected.provider()
    occurrences = provider.list_occurrences(start=WINDOW[0], end=WINDOW[0] + timedelta(weeks=60))[:50]
    writes = [
        Write(
            action="update",
            event_id=o.event_id,
            recurrence_id=o.recurrence_id,
            expected_etag=o.etag,
            data=EventData(start=o.start + timedelta(hours=1), end=o.end + timedelta(hours=1)),
            operation_id=f"bulk:{n}",
        )
        for n, o in enumerate(occurrences)
    ]
    radicale_server.reset_log()

    provider.apply_writes(writes)

    assert [(r.method, r.status) for r in radicale_server.requests] == [("PUT", 204)]
    components = _components(dav_user, connected, first.uid)
    assert len(components) == 51  # the master and 50 RECURRENCE-ID overrides


def test_a_bulk_change_of_50_one_off_events_is_one_put_each(
    dav_user: DavUser, radicale_server: RadicaleServer
) -> None:
    connected = connect(dav_user)
    provider = connected.provider()
    start = datetime(2026, 3, 2, 9, tzinfo=NY)
    creates = [
        Write(
            action="create",
            calendar_id=str(connected.calendar.pk),
            data=EventData(
                summary=f"Class {n}", start=start + timedelta(days=n), end=start + timedelta(days=n, hours=1)
            ),
        )
        for n in range(50)
    ]
    made = [w.after for w in provider.apply_writes(creates)]
    radicale_server.reset_log()

    provider.apply_writes(
        [Write(action="update", event_id=o.event_id, data=EventData(location="Hall")) for o in made if o]
    )

    assert radicale_server.count() == 50
    assert radicale_server.count("PUT") == 50
