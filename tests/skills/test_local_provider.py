"""The local provider honours the CalendarProvider contract: scopes, isolation, etags, idempotency."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills import services
from skills.models import AppliedOperation, Calendar, Event
from skills.providers.base import (
    BusyInterval,
    CalendarProvider,
    ConflictError,
    EventData,
    NotFoundError,
    Occurrence,
    ProviderError,
    Scope,
    Write,
    Written,
)
from skills.providers.local import LocalProvider

NY = ZoneInfo("America/New_York")
SPRING = (datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 5, 1, tzinfo=NY))
MAR_4 = datetime(2026, 3, 4, 19, 0, tzinfo=UTC)  # original start of Wednesday's lecture
MAR_16 = datetime(2026, 3, 16, 18, 0, tzinfo=UTC)


@pytest.fixture
def user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("sam", "sam@example.com", first_name="Sam")


@pytest.fixture
def ann(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("ann", "ann@example.com", first_name="Ann", last_name="Lee")


@pytest.fixture
def school(user: Any) -> Calendar:
    return services.calendar_create(owner=user, key="school", name="School", timezone="America/New_York")


@pytest.fixture
def personal(user: Any) -> Calendar:
    return services.calendar_create(
        owner=user, key="personal", name="Personal", timezone="America/New_York", is_default=True
    )


@pytest.fixture
def calc(school: Calendar) -> Event:
    return services.event_create(
        calendar=school,
        summary="Calculus II Lecture",
        start=datetime(2026, 3, 2, 14, 0, tzinfo=NY),
        end=datetime(2026, 3, 2, 15, 15, tzinfo=NY),
        timezone="America/New_York",
        rrule="FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260430T235959Z",
    )


@pytest.fixture
def provider(user: Any) -> LocalProvider:
    return LocalProvider(user)


def _spring(provider: LocalProvider) -> list[Occurrence]:
    return provider.list_occurrences(start=SPRING[0], end=SPRING[1])


def _one_off(calendar: Calendar, summary: str, start: datetime, minutes: int = 60, **extra: Any) -> Event:
    return services.event_create(
        calendar=calendar,
        summary=summary,
        start=start,
        end=start + timedelta(minutes=minutes),
        timezone=calendar.timezone,
        **extra,
    )


# -- calendars and reads ------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_calendars_list_the_default_first(
    provider: LocalProvider, school: Calendar, personal: Calendar
) -> None:
    calendars = provider.list_calendars()

    assert [c.key for c in calendars] == ["personal", "school"]
    assert provider.default_calendar().key == "personal"
    assert calendars[0].provider == "local"


@pytest.mark.django_db
def test_listing_can_be_limited_to_one_calendar(
    provider: LocalProvider, school: Calendar, personal: Calendar, calc: Event
) -> None:
    _one_off(personal, "Dentist", datetime(2026, 3, 3, 9, 0, tzinfo=NY))

    listed = provider.list_occurrences(start=SPRING[0], end=SPRING[1], calendar_ids=[str(personal.pk)])

    assert [o.summary for o in listed] == ["Dentist"]


@pytest.mark.django_db
def test_occurrences_of_all_calendars_come_sorted_by_start(
    provider: LocalProvider, personal: Calendar, calc: Event
) -> None:
    _one_off(personal, "Dentist", datetime(2026, 3, 3, 9, 0, tzinfo=NY))

    listed = provider.list_occurrences(start=SPRING[0], end=datetime(2026, 3, 5, tzinfo=NY))

    assert [o.summary for o in listed] == ["Calculus II Lecture", "Dentist", "Calculus II Lecture"]


@pytest.mark.django_db
def test_naive_window_is_refused(provider: LocalProvider, school: Calendar) -> None:
    with pytest.raises(ProviderError, match="time zone"):
        provider.list_occurrences(start=datetime(2026, 3, 1), end=datetime(2026, 4, 1))


# -- creating -----------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_create_timed_event(provider: LocalProvider, personal: Calendar) -> None:
    created = provider.create_event(
        calendar_id=str(personal.pk),
        data=EventData(
            summary="Lunch with Ann",
            start=datetime(2026, 3, 10, 13, 0, tzinfo=NY),
            end=datetime(2026, 3, 10, 14, 0, tzinfo=NY),
            attendees=["ann@example.com"],
        ),
    )

    assert created.start == datetime(2026, 3, 10, 13, 0, tzinfo=NY)
    assert created.attendees == ("ann@example.com",)
    assert created.organizer == "sam@example.com"
    assert created.timezone == "America/New_York"
    assert [o.summary for o in _spring(provider)] == ["Lunch with Ann"]


@pytest.mark.django_db
def test_create_all_day_event(provider: LocalProvider, personal: Calendar) -> None:
    created = provider.create_event(
        calendar_id=str(personal.pk), data=EventData(summary="Conference", start_date=date(2026, 3, 6))
    )

    assert created.all_day
    assert (created.start, created.end) == (datetime(2026, 3, 6, tzinfo=NY), datetime(2026, 3, 7, tzinfo=NY))
    assert not created.busy
    listed = provider.list_occurrences(
        start=datetime(2026, 3, 6, 12, 0, tzinfo=NY), end=datetime(2026, 3, 6, 13, 0, tzinfo=NY)
    )
    assert [o.summary for o in listed] == ["Conference"]


@pytest.mark.django_db
def test_create_with_end_before_start_is_refused(provider: LocalProvider, personal: Calendar) -> None:
    with pytest.raises(ProviderError, match="end"):
        provider.create_event(
            calendar_id=str(personal.pk),
            data=EventData(
                summary="Backwards",
                start=datetime(2026, 3, 10, 13, 0, tzinfo=NY),
                end=datetime(2026, 3, 10, 12, 0, tzinfo=NY),
            ),
        )
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_create_replayed_with_the_same_operation_id_creates_once(
    provider: LocalProvider, personal: Calendar
) -> None:
    data = EventData(
        summary="Gym",
        start=datetime(2026, 3, 3, 18, 0, tzinfo=NY),
        end=datetime(2026, 3, 3, 19, 0, tzinfo=NY),
    )

    first = provider.create_event(calendar_id=str(personal.pk), data=data, operation_id="run-1:step-2")
    again = provider.create_event(calendar_id=str(personal.pk), data=data, operation_id="run-1:step-2")

    assert again.event_id == first.event_id
    assert Event.objects.count() == 1


# -- one occurrence ---------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_moving_one_occurrence_leaves_the_others(provider: LocalProvider, calc: Event) -> None:
    moved = provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        data=EventData(start=datetime(2026, 3, 4, 9, 0, tzinfo=NY)),
    )

    listed = _spring(provider)
    assert moved.start == datetime(2026, 3, 4, 9, 0, tzinfo=NY)
    assert moved.end == datetime(2026, 3, 4, 10, 15, tzinfo=NY)
    assert len(listed) == 18
    wednesday = next(o for o in listed if o.recurrence_id == MAR_4)
    assert (wednesday.event_id, wednesday.start) == (str(calc.pk), datetime(2026, 3, 4, 9, 0, tzinfo=NY))
    others = [o for o in listed if o.recurrence_id != MAR_4]
    assert {o.start.astimezone(NY).hour for o in others} == {14}


@pytest.mark.django_db
def test_moved_occurrence_is_found_by_its_original_start(provider: LocalProvider, calc: Event) -> None:
    provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        data=EventData(start=datetime(2026, 3, 5, 8, 0, tzinfo=NY)),
    )

    found = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)

    assert found.start == datetime(2026, 3, 5, 8, 0, tzinfo=NY)
    assert found.recurrence_id == MAR_4


@pytest.mark.django_db
def test_moving_a_moved_occurrence_again_updates_its_override(provider: LocalProvider, calc: Event) -> None:
    for hour in (9, 10):
        provider.update_event(
            event_id=str(calc.pk),
            recurrence_id=MAR_4,
            data=EventData(start=datetime(2026, 3, 4, hour, 0, tzinfo=NY)),
        )

    assert calc.overrides.count() == 1
    assert provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4).start.hour == 10


@pytest.mark.django_db
def test_deleting_one_occurrence_leaves_the_others(provider: LocalProvider, calc: Event) -> None:
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_4)

    listed = _spring(provider)
    assert len(listed) == 17
    assert MAR_4 not in {o.recurrence_id for o in listed}
    with pytest.raises(NotFoundError):
        provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)
    calc.refresh_from_db()
    assert calc.rrule == "FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260430T235959Z"


@pytest.mark.django_db
def test_deleting_a_moved_occurrence_removes_it(provider: LocalProvider, calc: Event) -> None:
    provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        data=EventData(start=datetime(2026, 3, 6, 9, 0, tzinfo=NY)),
    )

    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_4)

    assert len(_spring(provider)) == 17
    assert not calc.overrides.exists()


@pytest.mark.django_db
def test_an_occurrence_change_must_name_the_occurrence(provider: LocalProvider, calc: Event) -> None:
    with pytest.raises(ProviderError, match="recurrence_id"):
        provider.update_event(event_id=str(calc.pk), data=EventData(summary="Calc"))


@pytest.mark.django_db
def test_an_occurrence_the_rule_never_generates_is_not_found(provider: LocalProvider, calc: Event) -> None:
    with pytest.raises(NotFoundError):
        provider.get_occurrence(event_id=str(calc.pk), recurrence_id=datetime(2026, 3, 3, 19, 0, tzinfo=UTC))


# -- following and series ---------------------------------------------------------------------------------
@pytest.mark.django_db
def test_changing_following_occurrences_splits_the_series(provider: LocalProvider, calc: Event) -> None:
    changed = provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_16,
        scope=Scope.FOLLOWING,
        data=EventData(start=datetime(2026, 3, 16, 10, 0, tzinfo=NY)),
    )

    listed = _spring(provider)
    early = [o for o in listed if o.start < datetime(2026, 3, 16, tzinfo=NY)]
    late = [o for o in listed if o.start >= datetime(2026, 3, 16, tzinfo=NY)]
    assert len(listed) == 18
    assert {(o.event_id, o.start.hour) for o in early} == {(str(calc.pk), 14)}
    assert {(o.event_id, o.start.hour) for o in late} == {(changed.event_id, 10)}
    assert changed.event_id != str(calc.pk)
    assert changed.uid != calc.uid


@pytest.mark.django_db
def test_splitting_a_counted_series_keeps_its_total(provider: LocalProvider, school: Calendar) -> None:
    sync = services.event_create(
        calendar=school,
        summary="Team sync",
        start=datetime(2026, 3, 2, 10, 0, tzinfo=NY),
        end=datetime(2026, 3, 2, 10, 30, tzinfo=NY),
        rrule="FREQ=WEEKLY;BYDAY=MO;COUNT=8",
    )

    provider.update_event(
        event_id=str(sync.pk),
        recurrence_id=datetime(2026, 3, 23, 14, 0, tzinfo=UTC),
        scope=Scope.FOLLOWING,
        data=EventData(summary="Team sync (new room)"),
    )

    summaries = [o.summary for o in _spring(provider)]
    assert summaries == ["Team sync"] * 3 + ["Team sync (new room)"] * 5


@pytest.mark.django_db
def test_split_takes_later_overrides_along(provider: LocalProvider, calc: Event) -> None:
    late = datetime(2026, 4, 1, 18, 0, tzinfo=UTC)
    provider.update_event(event_id=str(calc.pk), recurrence_id=late, data=EventData(summary="Midterm"))

    tail = provider.update_event(
        event_id=str(calc.pk), recurrence_id=MAR_16, scope=Scope.FOLLOWING, data=EventData(location="Room 9")
    )

    midterm = provider.get_occurrence(event_id=tail.event_id, recurrence_id=late)
    assert midterm.summary == "Midterm"
    assert len(_spring(provider)) == 18


@pytest.mark.django_db
def test_deleting_following_occurrences_ends_the_series(provider: LocalProvider, calc: Event) -> None:
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_16, scope=Scope.FOLLOWING)

    listed = _spring(provider)
    assert [o.start.date() for o in listed] == [
        date(2026, 3, 2),
        date(2026, 3, 4),
        date(2026, 3, 9),
        date(2026, 3, 11),
    ]


@pytest.mark.django_db
def test_moving_the_series_shifts_every_wall_time(provider: LocalProvider, calc: Event) -> None:
    provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        scope=Scope.SERIES,
        data=EventData(start=datetime(2026, 3, 4, 9, 30, tzinfo=NY)),
    )

    listed = _spring(provider)
    assert len(listed) == 18
    assert {(o.start.astimezone(NY).hour, o.start.astimezone(NY).minute) for o in listed} == {(9, 30)}
    assert {o.end - o.start for o in listed} == {timedelta(minutes=75)}


@pytest.mark.django_db
def test_moving_the_series_a_day_later_moves_its_weekdays(provider: LocalProvider, calc: Event) -> None:
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_4)

    provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=datetime(2026, 3, 2, 19, 0, tzinfo=UTC),
        scope=Scope.SERIES,
        data=EventData(start=datetime(2026, 3, 3, 14, 0, tzinfo=NY)),
    )

    listed = _spring(provider)
    assert {o.start.strftime("%a") for o in listed} == {"Tue", "Thu"}
    assert date(2026, 3, 5) not in {o.start.date() for o in listed}
    assert len(listed) == 17


@pytest.mark.django_db
def test_renaming_the_series_keeps_changed_occurrences(provider: LocalProvider, calc: Event) -> None:
    provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        data=EventData(start=datetime(2026, 3, 4, 9, 0, tzinfo=NY)),
    )

    provider.update_event(event_id=str(calc.pk), scope=Scope.SERIES, data=EventData(summary="Calculus II"))

    listed = _spring(provider)
    assert {o.summary for o in listed if o.recurrence_id != MAR_4} == {"Calculus II"}
    assert next(o for o in listed if o.recurrence_id == MAR_4).start.hour == 9


@pytest.mark.django_db
def test_deleting_the_series_removes_every_occurrence(provider: LocalProvider, calc: Event) -> None:
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_4, scope=Scope.SERIES)

    assert _spring(provider) == []


# -- isolation and free/busy ------------------------------------------------------------------------------
@pytest.mark.django_db
def test_another_users_event_is_not_found(provider: LocalProvider, ann: Any) -> None:
    theirs = services.calendar_create(owner=ann, key="work", name="Work", timezone="America/New_York")
    secret = _one_off(theirs, "Offsite", datetime(2026, 3, 9, 9, 0, tzinfo=NY))

    with pytest.raises(NotFoundError):
        provider.get_occurrence(event_id=str(secret.pk))
    with pytest.raises(NotFoundError):
        provider.update_event(event_id=str(secret.pk), data=EventData(summary="Mine now"))
    with pytest.raises(NotFoundError):
        provider.delete_event(event_id=str(secret.pk))
    with pytest.raises(NotFoundError):
        provider.create_event(calendar_id=str(theirs.pk), data=EventData(summary="x", start=SPRING[0]))
    with pytest.raises(NotFoundError):
        provider.list_occurrences(start=SPRING[0], end=SPRING[1], calendar_ids=[str(theirs.pk)])
    secret.refresh_from_db()
    assert secret.summary == "Offsite"


@pytest.mark.django_db
def test_free_busy_gives_only_merged_intervals(provider: LocalProvider, ann: Any) -> None:
    work = services.calendar_create(owner=ann, key="work", name="Work", timezone="America/New_York")
    _one_off(work, "Secret offsite", datetime(2026, 3, 9, 9, 0, tzinfo=NY), minutes=120, visibility="private")
    _one_off(work, "Prep", datetime(2026, 3, 9, 10, 30, tzinfo=NY), minutes=60)
    _one_off(work, "Focus (free)", datetime(2026, 3, 9, 14, 0, tzinfo=NY), transparency="transparent")
    services.event_create(calendar=work, summary="Holiday", start=date(2026, 3, 10), end=None, all_day=True)

    busy = provider.free_busy(
        emails=["ANN@example.com", "nobody@example.com"],
        start=datetime(2026, 3, 9, tzinfo=NY),
        end=datetime(2026, 3, 11, tzinfo=NY),
    )

    assert busy == {
        "ANN@example.com": [
            BusyInterval(
                start=datetime(2026, 3, 9, 13, 0, tzinfo=UTC), end=datetime(2026, 3, 9, 15, 30, tzinfo=UTC)
            )
        ],
        "nobody@example.com": [],
    }


@pytest.mark.django_db
def test_busy_times_read_piece_by_piece_are_those_of_the_occurrences(
    provider: LocalProvider, calc: Event, personal: Calendar
) -> None:
    """The busy reader (one read for the whole range, then slices) against the occurrences listed for
    each piece: moved, cancelled, long, free and all-day events, and events asked to be ignored."""
    provider.update_event(
        event_id=str(calc.pk), recurrence_id=MAR_4, data=EventData(start=datetime(2026, 3, 20, 8, tzinfo=NY))
    )
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_16)
    _one_off(personal, "Dentist", datetime(2026, 3, 3, 9, 0, tzinfo=NY))
    _one_off(personal, "Trip", datetime(2026, 3, 13, 18, 0, tzinfo=NY), minutes=3 * 24 * 60)
    _one_off(personal, "Overnight", datetime(2026, 3, 9, 23, 30, tzinfo=NY), minutes=90)
    _one_off(personal, "Focus (free)", datetime(2026, 3, 11, 14, 0, tzinfo=NY), transparency="transparent")
    services.event_create(
        calendar=personal, summary="Holiday", start=date(2026, 3, 12), end=None, all_day=True
    )
    listed = _spring(provider)
    moved = next(o for o in listed if o.recurrence_id == MAR_4)
    dentist = next(o for o in listed if o.summary == "Dentist")
    cuts = [datetime(2026, 3, day, tzinfo=NY) for day in (1, 2, 10, 14, 15, 16, 21, 31)]
    for ignore in (frozenset(), frozenset({moved.occurrence_key, dentist.occurrence_key})):
        reader = provider.busy_reader(start=cuts[0], end=cuts[-1], ignore=ignore)
        listing = CalendarProvider.busy_reader(provider, start=cuts[0], end=cuts[-1], ignore=ignore)
        for lo, hi in itertools.pairwise(cuts):
            assert sorted(reader(lo, hi)) == sorted(listing(lo, hi)), (lo, hi, ignore)
    assert provider.busy_reader(start=cuts[0], end=cuts[-1], calendar_ids=[])(cuts[0], cuts[-1]) == []


# -- etags and idempotency --------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_stale_etag_is_a_conflict(provider: LocalProvider, personal: Calendar) -> None:
    event = _one_off(personal, "Dentist", datetime(2026, 3, 3, 9, 0, tzinfo=NY))
    read = provider.get_occurrence(event_id=str(event.pk))
    provider.update_event(event_id=str(event.pk), data=EventData(location="Main St"))

    with pytest.raises(ConflictError):
        provider.update_event(
            event_id=str(event.pk),
            data=EventData(start=datetime(2026, 3, 3, 11, 0, tzinfo=NY)),
            expected_etag=read.etag,
        )
    assert provider.get_occurrence(event_id=str(event.pk)).start.hour == 9


@pytest.mark.django_db
def test_every_write_changes_the_etag_and_sequence(provider: LocalProvider, personal: Calendar) -> None:
    event = _one_off(personal, "Dentist", datetime(2026, 3, 3, 9, 0, tzinfo=NY))
    read = provider.get_occurrence(event_id=str(event.pk))

    written = provider.update_event(
        event_id=str(event.pk), data=EventData(location="Main St"), expected_etag=read.etag
    )

    assert written.etag != read.etag
    assert written.sequence == read.sequence + 1


@pytest.mark.django_db
def test_cancelling_one_occurrence_does_not_stale_a_read_of_another(
    provider: LocalProvider, calc: Event
) -> None:
    monday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_16)
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_4)

    moved = provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_16,
        data=EventData(start=datetime(2026, 3, 16, 9, 0, tzinfo=NY)),
        expected_etag=monday.etag,
    )

    assert moved.start.hour == 9


@pytest.mark.django_db
def test_renaming_the_series_stales_a_read_of_an_occurrence(provider: LocalProvider, calc: Event) -> None:
    monday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_16)
    provider.update_event(event_id=str(calc.pk), scope=Scope.SERIES, data=EventData(summary="Calc"))

    with pytest.raises(ConflictError):
        provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_16, expected_etag=monday.etag)


@pytest.mark.django_db
def test_update_replayed_with_the_same_operation_id_applies_once(
    provider: LocalProvider, personal: Calendar
) -> None:
    event = _one_off(personal, "Standup", datetime(2026, 3, 3, 9, 0, tzinfo=NY))
    read = provider.get_occurrence(event_id=str(event.pk))
    move = EventData(start=datetime(2026, 3, 3, 10, 0, tzinfo=NY))

    first = provider.update_event(
        event_id=str(event.pk), data=move, expected_etag=read.etag, operation_id="op-7"
    )
    again = provider.update_event(
        event_id=str(event.pk), data=move, expected_etag=read.etag, operation_id="op-7"
    )

    assert again == first
    assert again.sequence == read.sequence + 1


@pytest.mark.django_db
def test_delete_replayed_with_the_same_operation_id_is_a_no_op(provider: LocalProvider, calc: Event) -> None:
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_4, operation_id="op-9")

    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_4, operation_id="op-9")

    assert len(_spring(provider)) == 17


# -- batches ---------------------------------------------------------------------------------------------
def _queries(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        result = call()
    return result, [q["sql"] for q in captured.captured_queries]


def _move_by_an_hour(occurrence: Occurrence, operation_id: str = "") -> Write:
    return Write(
        action="update",
        data=EventData(start=occurrence.start + timedelta(hours=1), end=occurrence.end + timedelta(hours=1)),
        event_id=occurrence.event_id,
        recurrence_id=occurrence.recurrence_id,
        expected_etag=occurrence.etag,
        operation_id=operation_id,
    )


@pytest.mark.django_db
def test_many_occurrences_are_read_in_a_few_queries_as_single_reads_find_them(
    provider: LocalProvider, calc: Event, personal: Calendar, ann: Any
) -> None:
    provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        data=EventData(start=datetime(2026, 3, 4, 9, 0, tzinfo=NY)),
    )
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_16)
    dentist = _one_off(personal, "Dentist", datetime(2026, 3, 3, 9, 0, tzinfo=NY))
    theirs = services.calendar_create(owner=ann, key="work", name="Work", timezone="America/New_York")
    secret = _one_off(theirs, "Offsite", datetime(2026, 3, 9, 9, 0, tzinfo=NY))
    override = calc.overrides.get()
    refs: list[tuple[str, datetime | None]] = [
        *((o.event_id, o.recurrence_id) for o in _spring(provider)),
        (str(override.pk), None),  # a moved occurrence named by its own row
        (str(calc.pk), MAR_16),  # cancelled
        (str(calc.pk), datetime(2026, 3, 3, 19, 0, tzinfo=UTC)),  # never generated
        (str(dentist.pk), None),
        (str(secret.pk), None),  # someone else's
        ("not-an-id", None),
    ]

    found, sql = _queries(lambda: provider.get_occurrences(refs))

    assert found == CalendarProvider.get_occurrences(provider, refs)  # the one-by-one default
    assert found[-6].start == datetime(2026, 3, 4, 9, 0, tzinfo=NY)
    assert found[-5:-3] == [None, None]
    assert found[-2:] == [None, None]
    assert len(sql) <= 3


@pytest.mark.django_db
def test_a_batch_of_moves_costs_the_same_few_queries_per_move(provider: LocalProvider, calc: Event) -> None:
    spring = _spring(provider)

    def apply(occurrences: list[Occurrence], tag: str) -> int:
        writes = [_move_by_an_hour(o, f"{tag}:{i}") for i, o in enumerate(occurrences)]
        written, sql = _queries(lambda: provider.apply_writes(writes))
        assert [w.before for w in written] == occurrences
        assert [w.after.start for w in written if w.after] == [
            o.start + timedelta(hours=1) for o in occurrences
        ]
        return len(sql)

    four, eight = apply(spring[:4], "a"), apply(spring[4:12], "b")

    assert eight == four  # the new overrides are inserted together, however many there are
    assert four <= 8  # receipts read and written, targets read, overrides inserted, a savepoint
    assert AppliedOperation.objects.count() == 12
    assert {o.start.astimezone(NY).hour for o in _spring(provider)[:12]} == {15}


@pytest.mark.django_db
def test_a_write_in_a_batch_is_checked_against_what_the_batch_wrote_before(
    provider: LocalProvider, calc: Event
) -> None:
    read = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)

    with pytest.raises(ConflictError):
        provider.apply_writes([_move_by_an_hour(read, "op-1"), _move_by_an_hour(read, "op-2")])

    assert not calc.overrides.exists()
    assert not AppliedOperation.objects.exists()


@pytest.mark.django_db
def test_a_batch_reads_a_series_again_once_a_write_changed_it_whole(
    provider: LocalProvider, calc: Event
) -> None:
    wednesday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)
    rename = Write(
        action="update",
        data=EventData(summary="Calc"),
        event_id=str(calc.pk),
        recurrence_id=MAR_16,
        scope=Scope.SERIES,
    )

    with pytest.raises(ConflictError):
        provider.apply_writes([rename, _move_by_an_hour(wednesday)])

    calc.refresh_from_db()
    assert calc.summary == "Calculus II Lecture"
    written = provider.apply_writes([rename, replace(_move_by_an_hour(wednesday), expected_etag="")])
    assert [w.after.summary for w in written if w.after] == ["Calc", "Calc"]


@pytest.mark.django_db
def test_a_batch_finds_nothing_left_of_a_series_it_deleted(provider: LocalProvider, calc: Event) -> None:
    wednesday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)
    delete = Write(action="delete", event_id=str(calc.pk), recurrence_id=MAR_16, scope=Scope.SERIES)

    with pytest.raises(NotFoundError):
        provider.apply_writes([delete, _move_by_an_hour(wednesday)])

    assert len(_spring(provider)) == 18


@pytest.mark.django_db
def test_cancelling_one_occurrence_and_moving_another_in_one_batch(
    provider: LocalProvider, calc: Event
) -> None:
    wednesday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)
    monday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_16)
    cancel = Write(action="delete", event_id=str(calc.pk), recurrence_id=MAR_4, expected_etag=wednesday.etag)

    written = provider.apply_writes([cancel, _move_by_an_hour(monday)])

    assert (written[0].before, written[0].after) == (wednesday, None)
    assert written[1].before == replace(monday, sequence=1)  # the cancellation revised the series
    listed = _spring(provider)
    assert len(listed) == 17
    assert next(o for o in listed if o.recurrence_id == MAR_16).start == monday.start + timedelta(hours=1)


@pytest.mark.django_db
def test_a_replayed_batch_writes_nothing_twice(provider: LocalProvider, calc: Event) -> None:
    writes = [_move_by_an_hour(o, f"op-{i}") for i, o in enumerate(_spring(provider)[:5])]
    first = provider.apply_writes(writes)

    again, sql = _queries(lambda: provider.apply_writes(writes))

    assert [w.after for w in again] == [w.after for w in first]
    assert not [q for q in sql if q.startswith(("INSERT", "UPDATE", "DELETE"))]
    assert calc.overrides.count() == 5


@pytest.mark.django_db
def test_the_one_by_one_default_reads_and_writes_as_the_batch_does(
    provider: LocalProvider, calc: Event
) -> None:
    wednesday, monday = (
        provider.get_occurrence(event_id=str(calc.pk), recurrence_id=rid) for rid in (MAR_4, MAR_16)
    )
    cancel = Write(action="delete", event_id=str(calc.pk), recurrence_id=MAR_4, expected_etag=wednesday.etag)

    written = CalendarProvider.apply_writes(provider, [cancel, _move_by_an_hour(monday, "op-1")])

    assert written[0] == Written(before=wednesday, after=None)
    assert written[1].before == replace(monday, sequence=1)  # the cancellation revised the series
    assert written[1].after == provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_16)
    assert len(_spring(provider)) == 17


def _after_one_by_one(provider: LocalProvider, writes: list[Write]) -> tuple[list[Written], list[Occurrence]]:
    """What the one-by-one default writes and leaves, undone afterwards (the test's transaction
    stays open), to compare a batch with."""
    from django.db import transaction

    with transaction.atomic():
        written = CalendarProvider.apply_writes(provider, writes)
        left = _spring(provider)
        transaction.set_rollback(True)
    return written, left


def _same(a: list[Any], b: list[Any]) -> bool:
    """Equal but for etags, which every write makes anew."""
    return [replace(x, etag="") if x else x for x in a] == [replace(x, etag="") if x else x for x in b]


@pytest.mark.django_db
def test_an_occurrence_moved_twice_in_one_batch_is_one_override_revised_once(
    provider: LocalProvider, calc: Event
) -> None:
    wednesday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)
    first = _move_by_an_hour(wednesday)
    later = Write(
        action="update",
        data=EventData(start=wednesday.start + timedelta(hours=3), end=wednesday.end + timedelta(hours=3)),
        event_id=wednesday.event_id,
        recurrence_id=MAR_4,
    )
    expected, left = _after_one_by_one(provider, [first, later])

    written = provider.apply_writes([first, later])

    assert [w.after.start for w in written if w.after] == [
        wednesday.start + timedelta(hours=1),
        wednesday.start + timedelta(hours=3),
    ]
    assert _same([w.after for w in written], [w.after for w in expected])
    override = calc.overrides.get()
    assert (override.sequence, override.start) == (1, wednesday.start + timedelta(hours=3))
    assert _same(_spring(provider), left)


@pytest.mark.django_db
def test_moves_then_a_series_change_in_one_batch_carry_the_moved_occurrences_along(
    provider: LocalProvider, calc: Event
) -> None:
    spring = _spring(provider)
    moves = [_move_by_an_hour(o) for o in spring[:3]]
    later = Write(
        action="update",
        data=EventData(start=spring[5].start + timedelta(days=1), end=spring[5].end + timedelta(days=1)),
        event_id=spring[5].event_id,
        recurrence_id=spring[5].recurrence_id,
        scope=Scope.SERIES,
    )
    cancel = Write(action="delete", event_id=spring[4].event_id, recurrence_id=spring[4].recurrence_id)
    writes = [*moves, cancel, later]
    expected, left = _after_one_by_one(provider, writes)

    written = provider.apply_writes(writes)

    assert _same([w.after for w in written], [w.after for w in expected])
    assert _same(_spring(provider), left)
    assert len(left) == len(spring) - 1
    assert calc.overrides.count() == 3  # the moves, a day later with the series


# -- restores (what undo writes) ----------------------------------------------------------------------------
def _delete_series(provider: LocalProvider, calc: Event) -> Written:
    delete = Write(action="delete", event_id=str(calc.pk), recurrence_id=MAR_4, scope=Scope.SERIES)
    return provider.apply_writes([delete])[0]


@pytest.mark.django_db
def test_a_restore_replayed_with_the_same_operation_id_applies_once(
    provider: LocalProvider, calc: Event
) -> None:
    before = _spring(provider)
    image = _delete_series(provider, calc).restore_image
    assert image is not None

    first = provider.restore(image=image, event_id=str(calc.pk), recurrence_id=MAR_4, operation_id="op-r")
    again = provider.restore(image=image, event_id=str(calc.pk), recurrence_id=MAR_4, operation_id="op-r")

    assert first.after is not None
    assert again.after == first.after
    assert (first.after.recurrence_id, first.after.uid) == (MAR_4, calc.uid)
    assert [(o.start, o.uid) for o in _spring(provider)] == [(o.start, o.uid) for o in before]
    assert AppliedOperation.objects.filter(operation_id="op-r").count() == 1


@pytest.mark.django_db
def test_a_write_after_a_restore_in_one_batch_sees_the_restored_occurrence(
    provider: LocalProvider, calc: Event
) -> None:
    wednesday = provider.get_occurrence(event_id=str(calc.pk), recurrence_id=MAR_4)
    cancel = Write(action="delete", event_id=str(calc.pk), recurrence_id=MAR_4, expected_etag=wednesday.etag)
    image = provider.apply_writes([cancel])[0].restore_image
    assert image is not None
    assert image["kind"] == "occurrence"

    written = provider.apply_writes(
        [
            Write(
                action="restore", image=image, event_id=str(calc.pk), recurrence_id=MAR_4, operation_id="op-1"
            ),
            _move_by_an_hour(wednesday, "op-2"),
        ]
    )

    assert written[0].after == replace(wednesday, sequence=2)  # the cancellation and its restore revised it
    assert written[1].after is not None
    assert written[1].after.start == wednesday.start + timedelta(hours=1)
    assert len(_spring(provider)) == 18


@pytest.mark.django_db
def test_a_restore_is_refused_once_what_the_write_left_has_changed(
    provider: LocalProvider, calc: Event
) -> None:
    rename = Write(
        action="update",
        data=EventData(summary="Calc"),
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        scope=Scope.SERIES,
    )
    image = provider.apply_writes([rename])[0].restore_image
    assert image is not None
    provider.delete_event(event_id=str(calc.pk), recurrence_id=MAR_16)

    with pytest.raises(ConflictError):
        provider.restore(image=image, event_id=str(calc.pk), recurrence_id=MAR_4)

    assert {o.summary for o in _spring(provider)} == {"Calc"}
    assert len(_spring(provider)) == 17


@pytest.mark.django_db
def test_another_user_cannot_restore_a_series_into_a_calendar_not_theirs(
    provider: LocalProvider, calc: Event, ann: Any
) -> None:
    image = _delete_series(provider, calc).restore_image
    assert image is not None

    with pytest.raises(NotFoundError):
        LocalProvider(ann).restore(image=image, event_id=str(calc.pk), recurrence_id=MAR_4)

    assert not Event.objects.exists()


@pytest.mark.django_db
def test_the_base_provider_leaves_restoring_to_each_backend(
    provider: LocalProvider, calc: Event, user: Any
) -> None:
    image = _delete_series(provider, calc).restore_image
    assert image is not None
    restore = Write(action="restore", image=image, event_id=str(calc.pk), recurrence_id=MAR_4)

    with pytest.raises(NotImplementedError):
        CalendarProvider(user).apply_writes([restore])
    # The one-by-one default hands a restore to the backend's own restore().
    [written] = CalendarProvider.apply_writes(provider, [restore])

    assert written.after is not None
    assert written.after.uid == calc.uid
    assert len(_spring(provider)) == 18
