"""An all-day event is on its date for whoever reads it, whatever its calendar's zone ("never a day early").

A New York user has all-day events on a London calendar (a weekly Monday offsite), a Tokyo one (a
Tuesday holiday) and a Los Angeles one (a Wednesday retreat).  Stored at midnights of their own zones,
the London and Tokyo ones began the evening or morning before in New York, so they were listed,
found, previewed and moved a day early; the Los Angeles one, a day late for a reader further east.
Each must be on its own date in listings, day searches, previews and writes, and undo must put it back.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills.catalog import REGISTRY
from skills.change_skills import MoveTo, moved_start
from skills.changes import Change, describe_change, undo_run
from skills.context import SkillContext
from skills.models import Event
from skills.providers import provider_for
from skills.providers.base import EventData
from skills.providers.local import LocalProvider
from skills.recurrence import clear_cache, expansion, read_in
from skills.schemas import EventItem
from skills.selectors import calendar_info
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar
from tests.providers.changesets import approve

NY = ZoneInfo("America/New_York")
LONDON = ZoneInfo("Europe/London")
TOKYO = ZoneInfo("Asia/Tokyo")
LA = ZoneInfo("America/Los_Angeles")
NOW = datetime(2026, 3, 6, 9, tzinfo=NY)  # a Friday; New York goes to daylight time on Sunday the 8th
SUNDAY, MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY = (date(2026, 3, d) for d in range(8, 14))

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clock() -> Any:
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def world() -> dict[str, Any]:
    user, personal = user_with_calendar("reader")
    uk = calendar_create(owner=user, key="uk", name="London Office", timezone="Europe/London")
    japan = calendar_create(owner=user, key="japan", name="Tokyo Office", timezone="Asia/Tokyo")
    west = calendar_create(owner=user, key="west", name="LA Office", timezone="America/Los_Angeles")
    event_create(
        calendar=personal,
        summary="Dentist",
        start=datetime.combine(MONDAY, time(10), NY),
        end=datetime.combine(MONDAY, time(11), NY),
    )
    offsite = event_create(
        calendar=uk, summary="Offsite", start=MONDAY, end=None, all_day=True, rrule="FREQ=WEEKLY;COUNT=3"
    )
    holiday = event_create(calendar=japan, summary="Spring holiday", start=TUESDAY, end=None, all_day=True)
    retreat = event_create(calendar=west, summary="Retreat", start=WEDNESDAY, end=None, all_day=True)
    return {"user": user, "offsite": offsite, "holiday": holiday, "retreat": retreat}


def _day(day: date) -> tuple[datetime, datetime]:
    return datetime.combine(day, time(), NY), datetime.combine(day + timedelta(days=1), time(), NY)


def _listed(user: Any, day: date) -> list[str]:
    lo, hi = _day(day)
    return [o.summary for o in provider_for(user).list_occurrences(start=lo, end=hi)]


def _run(user: Any, name: str, **params: Any) -> Any:
    definition = REGISTRY.get(name)
    return definition.func(SkillContext(user=user, tz=NY), definition.input_model.model_validate(params))


def _found(user: Any, day: date, text: str = "") -> list[EventItem]:
    lo, hi = _day(day)
    criteria = {"text": text} if text else {}
    found = _run(user, "find_events", start=lo.isoformat(), end=hi.isoformat(), **criteria)
    return list(found.events)


def _row(event: Event) -> Event:
    return Event.objects.get(pk=event.pk)


# -- reads ---------------------------------------------------------------------------------------------
def test_each_all_day_event_is_listed_on_its_own_date_only(world: dict[str, Any]) -> None:
    user = world["user"]

    assert _listed(user, SUNDAY) == []
    assert _listed(user, MONDAY) == ["Offsite", "Dentist"]  # the all-day one first, from midnight
    assert _listed(user, TUESDAY) == ["Spring holiday"]
    assert _listed(user, WEDNESDAY) == ["Retreat"]
    assert _listed(user, THURSDAY) == []


def test_an_all_day_occurrence_spans_the_readers_midnights_and_keeps_its_own_recurrence_id(
    world: dict[str, Any],
) -> None:
    week = provider_for(world["user"]).list_occurrences(
        start=datetime.combine(SUNDAY, time(), NY), end=datetime.combine(FRIDAY, time(), NY)
    )
    by_title = {o.summary: o for o in week}

    for title, day in (("Offsite", MONDAY), ("Spring holiday", TUESDAY), ("Retreat", WEDNESDAY)):
        assert (by_title[title].start, by_title[title].end) == _day(day), title
        assert by_title[title].start.tzinfo == NY
    offsite = by_title["Offsite"]
    # What names the occurrence in the store, on Google and on CalDAV is still the London midnight.
    assert offsite.recurrence_id == datetime.combine(MONDAY, time(), LONDON).astimezone(UTC)
    assert offsite.timezone == "Europe/London"


def test_reading_one_occurrence_gives_the_same_times_as_listing(world: dict[str, Any]) -> None:
    provider = provider_for(world["user"])
    lo, hi = _day(date(2026, 3, 16))
    [listed] = provider.list_occurrences(start=lo, end=hi)

    read = provider.get_occurrence(event_id=listed.event_id, recurrence_id=listed.recurrence_id)
    [many] = provider.get_occurrences([(listed.event_id, listed.recurrence_id)])

    assert read == many == listed
    assert (read.start, read.end) == (lo, hi)


def test_find_events_for_a_day_finds_that_days_all_day_event_and_not_its_neighbours(
    world: dict[str, Any],
) -> None:
    user = world["user"]

    assert [e.summary for e in _found(user, SUNDAY)] == []
    assert [e.summary for e in _found(user, MONDAY)] == ["Offsite", "Dentist"]
    assert [e.summary for e in _found(user, TUESDAY)] == ["Spring holiday"]
    assert [e.summary for e in _found(user, WEDNESDAY)] == ["Retreat"]
    assert [e.summary for e in _found(user, THURSDAY)] == []


def test_weekday_filters_see_an_all_day_event_on_its_own_weekday(world: dict[str, Any]) -> None:
    user = world["user"]
    lo, hi = datetime.combine(SUNDAY, time(), NY), datetime.combine(FRIDAY, time(), NY)

    found = _run(user, "find_events", start=lo.isoformat(), end=hi.isoformat(), weekdays=[1])

    assert [e.summary for e in found.events] == ["Spring holiday"]  # Tuesday, not the Monday offsite


def test_the_agenda_names_each_all_day_event_under_its_own_date(world: dict[str, Any]) -> None:
    user = world["user"]
    lo, hi = datetime.combine(SUNDAY, time(), NY), datetime.combine(THURSDAY, time(), NY)
    events = _run(user, "find_events", start=lo.isoformat(), end=hi.isoformat()).events

    reply = _run(
        user,
        "compose_reply",
        style="agenda",
        start=lo.isoformat(),
        end=hi.isoformat(),
        events=[e.model_dump(mode="json") for e in events],
    )

    lines = reply.text.splitlines()
    assert "Sunday, March 8" not in lines
    for heading, title in (
        ("Monday, March 9", "Offsite"),
        ("Tuesday, March 10", "Spring holiday"),
        ("Wednesday, March 11", "Retreat"),
    ):
        assert title in lines[lines.index(heading) + 1], reply.text


def test_free_time_is_blocked_by_the_timed_events_only(world: dict[str, Any]) -> None:
    """All-day events block no time (the product's rule, and the providers' contract), so a wrong
    date could not block the wrong hours either; the day's free time is the dentist's gaps."""
    user = world["user"]
    for day in (SUNDAY, MONDAY, TUESDAY, WEDNESDAY, THURSDAY):
        lo, hi = (datetime.combine(day, time(h), NY) for h in (8, 18))
        found = _run(
            user,
            "free_slots",
            start=lo.isoformat(),
            end=hi.isoformat(),
            duration_minutes=60,
            respect_preferences=False,
            limit=50,
        )
        covered = sum(slot.minutes for slot in found.slots)
        assert covered == (9 if day == MONDAY else 10) * 60, day


# -- previews and writes -------------------------------------------------------------------------------
def test_a_delete_preview_names_the_occurrences_own_date_and_undo_puts_it_back(
    world: dict[str, Any],
) -> None:
    user = world["user"]
    [item] = _found(user, date(2026, 3, 16), "offsite")
    plan = _run(user, "plan_delete", events=[item.model_dump(mode="json")])

    assert describe_change(plan.changes[0], NY) == "Delete 'Offsite' (Monday, March 16 all day)"

    run_id = str(uuid.uuid4())
    approve(user, plan.changes, run_id=run_id)
    assert _listed(user, date(2026, 3, 16)) == []
    assert _listed(user, date(2026, 3, 23)) == ["Offsite"]

    _undo(user, run_id)
    assert _listed(user, date(2026, 3, 15)) == []
    assert _listed(user, date(2026, 3, 16)) == ["Offsite"]


@pytest.mark.parametrize(
    ("title", "day", "to", "before"),
    [
        ("Offsite", MONDAY, THURSDAY, "Monday, March 9 all day"),  # one occurrence of a London series
        ("Spring holiday", TUESDAY, FRIDAY, "Tuesday, March 10 all day"),  # a Tokyo one-off
        ("Retreat", WEDNESDAY, FRIDAY, "Wednesday, March 11 all day"),  # west of the reader
    ],
)
def test_a_move_lands_on_the_date_asked_stays_all_day_and_undo_restores_it(
    world: dict[str, Any], title: str, day: date, to: date, before: str
) -> None:
    user = world["user"]
    [item] = _found(user, day, title)
    start = moved_start(item, MoveTo(to_date=to), NY)
    change = Change(
        action="update",
        summary=item.summary,
        calendar=item.calendar,
        event_id=item.event_id,
        recurrence_id=item.recurrence_id,
        etag=item.etag,
        before_start=item.start,
        before_end=item.end,
        start=start,
        end=start + (item.end - item.start),
        all_day=True,
    )
    assert describe_change(change, NY).endswith(f": {before} → {to:%A}, March {to.day} all day")

    run_id = str(uuid.uuid4())
    approve(user, [change], run_id=run_id)

    assert title not in _listed(user, day)
    assert title in _listed(user, to)
    assert title not in _listed(user, to - timedelta(days=1)) + _listed(user, to + timedelta(days=1))
    [moved] = _found(user, to, title)
    assert moved.all_day
    assert (moved.start, moved.end) == _day(to)

    _undo(user, run_id)
    assert title in _listed(user, day)
    assert title not in _listed(user, to)


def test_a_moved_one_off_keeps_its_dates_in_its_own_zone(world: dict[str, Any]) -> None:
    """The store keeps the dates (what Google's ``date`` and CalDAV's VALUE=DATE are written from)."""
    user = world["user"]
    [item] = _found(user, WEDNESDAY, "retreat")
    start = datetime.combine(FRIDAY, time(), NY)
    provider_for(user).update_event(
        event_id=item.event_id, data=EventData(start=start, end=start + timedelta(days=1))
    )

    row = _row(world["retreat"])
    assert (row.all_day, row.start_date, row.end_date) == (True, FRIDAY, FRIDAY + timedelta(days=1))
    assert row.start == datetime.combine(FRIDAY, time(), LA)


def test_an_event_made_all_day_by_a_reader_is_on_the_readers_date(world: dict[str, Any]) -> None:
    user = world["user"]
    west = provider_for(user).calendar_by_key("west")
    start = datetime.combine(THURSDAY, time(), NY)

    created = provider_for(user).create_event(
        calendar_id=west.id,
        data=EventData(summary="Packing", start=start, end=start + timedelta(days=1), all_day=True),
    )

    assert (created.start, created.end) == _day(THURSDAY)
    assert _listed(user, THURSDAY) == ["Packing"]


# -- cost ----------------------------------------------------------------------------------------------
def test_a_read_without_all_day_events_does_not_look_up_the_users_zone() -> None:
    user, personal = user_with_calendar("timed")
    event_create(
        calendar=personal,
        summary="Standup",
        start=datetime.combine(MONDAY, time(9), NY),
        end=datetime.combine(MONDAY, time(9, 15), NY),
    )
    lo, hi = _day(MONDAY)

    with CaptureQueriesContext(connection) as captured:
        LocalProvider(user).list_occurrences(start=lo, end=hi)

    assert not [q for q in captured.captured_queries if "preferences_" in q["sql"]]


def test_an_all_day_series_is_read_in_a_zone_once_per_expansion(world: dict[str, Any]) -> None:
    clear_cache()
    master = world["offsite"]
    info = calendar_info(master.calendar)
    expanded = expansion(master, info, until=datetime(2026, 4, 1, tzinfo=UTC))

    first = expanded.read_in(NY)

    assert expanded.read_in(NY) is first
    assert first[2] == [read_in(o, NY) for o in expanded.occurrences]
    assert expanded.read_in(LONDON)[2] == expanded.occurrences  # its own zone: as stored


def test_read_in_leaves_timed_and_same_zone_occurrences_as_they_are(world: dict[str, Any]) -> None:
    lo, hi = _day(MONDAY)
    [timed] = [o for o in LocalProvider(world["user"]).list_occurrences(start=lo, end=hi) if not o.all_day]
    stored = expansion(world["offsite"], calendar_info(world["offsite"].calendar), until=hi).occurrences[0]

    assert read_in(timed, TOKYO) is timed
    assert read_in(stored, LONDON) is stored


# -- helpers -------------------------------------------------------------------------------------------
def _undo(user: Any, run_id: str) -> None:
    records, skipped = undo_run(
        provider=provider_for(user),
        user=user,
        run_id=run_id,
        undo_run_id=str(uuid.uuid4()),
        operation_id=f"undo-{run_id}",
    )
    assert records
    assert not skipped, skipped
