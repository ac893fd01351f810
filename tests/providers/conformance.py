"""The calendar provider contract as tests: what every backend must do to serve conversations.

One set of tests, written only against :class:`skills.providers.base.CalendarProvider`, run against
every provider.  A backend proves itself with a module ``tests/providers/test_conformance_<kind>.py``
that subclasses :class:`ProviderConformance` and supplies the factory fixture::

    from tests.providers.conformance import ProviderConformance, ProviderFactory

    @pytest.fixture
    def provider_factory(db: None) -> ProviderFactory:
        ...  # a user, an empty writable calendar in ``ZONE``, and someone else to be busy

    class TestGoogleConformance(ProviderConformance):
        pass

What is checked: create and read back; reads by range, half-open, with recurrence expanded in the
calendar's zone (across a DST change); the three recurrence scopes (one occurrence, this and
following, the whole series) for update and delete; etag conflicts (a stale ``expected_etag`` is a
ConflictError and changes nothing); idempotent writes (one ``operation_id`` twice is one event, one
change); free/busy of someone else; and restore for undo (a write's ``restore_image`` puts back
exactly what it replaced, a restore's own image redoes, and a restore over a later edit is refused).

Nothing here depends on how a backend stores events: occurrences are compared by UID, title, times,
original start and place, never by event id, sequence or etag value (a backend may give a restored
series a new id).  The clock is fixed at February 20, 2026, before every event the tests write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from skills.providers.base import (
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

__all__ = ["ZONE", "ProviderConformance", "ProviderFactory"]

ZONE = "America/New_York"
NY = ZoneInfo(ZONE)
NOW = datetime(2026, 2, 20, 12, 0, tzinfo=NY)
# Six Monday team syncs at 10:00 New York time, March 2 to April 6 2026; clocks go forward on
# Sunday March 8, so the first is at 15:00 UTC and the others at 14:00 UTC.
MONDAYS = [date(2026, 3, 2) + timedelta(weeks=n) for n in range(6)]
SPRING = (datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 5, 1, tzinfo=NY))


@dataclass(frozen=True)
class ProviderFactory:
    """What a conformance module gives the suite for its backend.

    Attributes:
        new: a new provider instance for the test user (each call a fresh one, sharing the
            backend's state: what one instance wrote another must read).
        calendar_id: a calendar of that user the provider may write, in ``ZONE``, empty at the start.
        make_busy: makes someone who is not the user busy from ``start`` to ``end`` (in whatever way
            the backend learns of other people's time) and returns their email address.
    """

    new: Callable[[], CalendarProvider]
    calendar_id: str
    make_busy: Callable[[datetime, datetime], str]


def at(day: date, hour: int, minute: int = 0) -> datetime:
    """A New York wall time."""
    return datetime.combine(day, time(hour, minute), tzinfo=NY)


def _utc(moment: datetime | None) -> datetime | None:
    return moment.astimezone(UTC) if moment is not None else None


def state(occurrences: list[Occurrence]) -> list[tuple[Any, ...]]:
    """What a user sees of occurrences, independent of the backend's ids and versions."""
    return sorted(
        (o.uid, o.summary, _utc(o.start), _utc(o.end), _utc(o.recurrence_id), o.location, o.all_day)
        for o in occurrences
    )


class ProviderConformance:
    """The contract; subclass it as ``Test<Kind>Conformance`` next to a ``provider_factory`` fixture."""

    @pytest.fixture(autouse=True)
    def _fixed_clock(self) -> Iterator[None]:
        with time_machine.travel(NOW, tick=True):
            yield

    @pytest.fixture
    def provider(self, provider_factory: ProviderFactory) -> CalendarProvider:
        return provider_factory.new()

    @pytest.fixture
    def calendar_id(self, provider_factory: ProviderFactory) -> str:
        return provider_factory.calendar_id

    # -- helpers -----------------------------------------------------------------------------------------
    @staticmethod
    def listed(
        provider: CalendarProvider, calendar_id: str, window: tuple[datetime, datetime] = SPRING
    ) -> Any:
        return provider.list_occurrences(start=window[0], end=window[1], calendar_ids=[calendar_id])

    @staticmethod
    def one_off(
        provider: CalendarProvider,
        calendar_id: str,
        summary: str,
        start: datetime,
        minutes: int = 60,
        **extra: Any,
    ) -> Occurrence:
        data = EventData(
            summary=summary, start=start, end=start + timedelta(minutes=minutes), timezone=ZONE, **extra
        )
        return provider.create_event(calendar_id=calendar_id, data=data)

    @staticmethod
    def team_sync(provider: CalendarProvider, calendar_id: str) -> Occurrence:
        """The six Monday syncs (see ``MONDAYS``); returns the first occurrence."""
        data = EventData(
            summary="Team sync",
            start=at(MONDAYS[0], 10),
            end=at(MONDAYS[0], 11),
            timezone=ZONE,
            location="Room 4B",
            rrule="FREQ=WEEKLY;BYDAY=MO;COUNT=6",
        )
        return provider.create_event(calendar_id=calendar_id, data=data)

    def occurrence_on(self, provider: CalendarProvider, calendar_id: str, day: date) -> Occurrence:
        """The sync whose original start is on ``day``, as the calendar has it now."""
        found = [
            o
            for o in self.listed(provider, calendar_id)
            if o.recurrence_id is not None and o.recurrence_id.astimezone(NY).date() == day
        ]
        assert len(found) == 1, found
        return found[0]

    @staticmethod
    def walls(occurrences: list[Occurrence]) -> list[tuple[date, time, str]]:
        """Each occurrence's New York date, start time and title, in order."""
        return [
            (o.start.astimezone(NY).date(), o.start.astimezone(NY).time(), o.summary)
            for o in sorted(occurrences, key=lambda o: o.start)
        ]

    @staticmethod
    def restore(provider: CalendarProvider, written: Written, operation_id: str = "") -> Written:
        """Undo ``written`` as undo does: hand its restore image back, naming the occurrence before it."""
        assert written.restore_image is not None, (
            "a write of more than one occurrence reports a restore image"
        )
        shown = written.before or written.after
        assert shown is not None
        return provider.restore(
            image=written.restore_image,
            event_id=shown.event_id,
            recurrence_id=shown.recurrence_id,
            operation_id=operation_id,
        )

    # -- create and read ---------------------------------------------------------------------------------
    def test_a_created_event_is_read_back_as_written(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        created = self.one_off(
            provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9, 30), 45, location="17705 Hale Avenue"
        )

        assert created.summary == "Dentist"
        assert created.start == at(date(2026, 3, 3), 9, 30)
        assert created.end == at(date(2026, 3, 3), 10, 15)
        assert created.location == "17705 Hale Avenue"
        assert created.calendar_id == calendar_id
        assert created.recurrence_id is None
        assert not created.is_recurring
        assert created.etag
        assert provider.get_occurrence(event_id=created.event_id) == created
        assert self.listed(provider, calendar_id) == [created]

    def test_another_provider_instance_reads_what_one_wrote(
        self, provider_factory: ProviderFactory, calendar_id: str
    ) -> None:
        created = self.one_off(provider_factory.new(), calendar_id, "Dentist", at(date(2026, 3, 3), 9))

        assert state(self.listed(provider_factory.new(), calendar_id)) == state([created])

    def test_a_range_holds_what_overlaps_it_and_its_end_is_exclusive(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        day = date(2026, 3, 3)
        self.one_off(provider, calendar_id, "Dentist", at(day, 9), 60)

        def titles(start: datetime, end: datetime) -> list[str]:
            return [o.summary for o in self.listed(provider, calendar_id, (start, end))]

        assert titles(at(day, 9, 30), at(day, 11)) == ["Dentist"]  # started before the window
        assert titles(at(day, 8), at(day, 9, 1)) == ["Dentist"]
        assert titles(at(day, 10), at(day, 11)) == []  # ends as the window starts
        assert titles(at(day, 8), at(day, 9)) == []  # starts as the window ends

    def test_occurrences_come_sorted_by_start(self, provider: CalendarProvider, calendar_id: str) -> None:
        self.one_off(provider, calendar_id, "Late", at(date(2026, 3, 9), 15))
        self.team_sync(provider, calendar_id)
        self.one_off(provider, calendar_id, "Early", at(date(2026, 3, 9), 8))

        starts = [o.start for o in self.listed(provider, calendar_id)]

        assert starts == sorted(starts)
        assert len(starts) == 8

    def test_a_series_is_expanded_in_the_calendars_zone_across_a_clock_change(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        syncs = self.listed(provider, calendar_id)

        assert self.walls(syncs) == [(day, time(10), "Team sync") for day in MONDAYS]
        assert [o.start.astimezone(UTC).hour for o in syncs] == [15, 14, 14, 14, 14, 14]
        assert {o.event_id for o in syncs} == {first.event_id}
        assert all(o.is_recurring and o.recurrence_id == o.start for o in syncs)
        assert all(o.end - o.start == timedelta(hours=1) for o in syncs)

    def test_a_range_inside_a_series_holds_only_its_occurrences(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        self.team_sync(provider, calendar_id)

        middle = self.listed(provider, calendar_id, (at(MONDAYS[1], 0), at(MONDAYS[3], 0)))

        assert [o.start.astimezone(NY).date() for o in middle] == MONDAYS[1:3]

    def test_an_occurrence_is_read_by_its_original_start(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        third = provider.get_occurrence(event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10))

        assert third.start == at(MONDAYS[2], 10)
        assert third == self.occurrence_on(provider, calendar_id, MONDAYS[2])

    def test_an_all_day_event_is_on_its_own_date(self, provider: CalendarProvider, calendar_id: str) -> None:
        day = date(2026, 3, 10)
        data = EventData(
            summary="Conference",
            all_day=True,
            start_date=day,
            end_date=day + timedelta(days=1),
            timezone=ZONE,
        )

        created = provider.create_event(calendar_id=calendar_id, data=data)

        assert created.all_day
        assert created.start == at(day, 0)
        assert created.end == at(day + timedelta(days=1), 0)
        assert not created.busy
        assert [o.summary for o in self.listed(provider, calendar_id, (at(day, 0), at(day, 23)))] == [
            "Conference"
        ]
        assert self.listed(provider, calendar_id, (at(day - timedelta(days=1), 0), at(day, 0))) == []

    def test_an_event_ending_before_it_starts_is_refused(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        with pytest.raises(ProviderError):
            self.one_off(provider, calendar_id, "Backwards", at(date(2026, 3, 3), 16), minutes=-30)

        assert self.listed(provider, calendar_id) == []

    def test_an_unknown_event_is_not_found(self, provider: CalendarProvider, calendar_id: str) -> None:
        gone = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))
        provider.delete_event(event_id=gone.event_id)

        with pytest.raises(NotFoundError):
            provider.get_occurrence(event_id=gone.event_id)
        with pytest.raises(NotFoundError):
            provider.update_event(event_id=gone.event_id, data=EventData(summary="Again"))

    def test_the_calendar_is_listed_with_its_zone(self, provider: CalendarProvider, calendar_id: str) -> None:
        listed = {c.id: c for c in provider.list_calendars()}

        assert listed[calendar_id].timezone == ZONE
        assert provider.calendar_by_key(listed[calendar_id].key).id == calendar_id

    def test_many_occurrences_are_read_at_once_in_the_order_asked(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)
        dentist = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))
        gone = self.one_off(provider, calendar_id, "Cancelled", at(date(2026, 3, 4), 9))
        provider.delete_event(event_id=gone.event_id)

        found = provider.get_occurrences(
            [(first.event_id, at(MONDAYS[3], 10)), (gone.event_id, None), (dentist.event_id, None)]
        )

        assert found == [self.occurrence_on(provider, calendar_id, MONDAYS[3]), None, dentist]

    def test_busy_times_are_those_of_the_occurrences_that_block_time(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        day = date(2026, 3, 9)
        self.team_sync(provider, calendar_id)
        dentist = self.one_off(provider, calendar_id, "Dentist", at(day, 8))
        self.one_off(provider, calendar_id, "Reminder", at(day, 12), transparency="transparent")
        provider.create_event(
            calendar_id=calendar_id,
            data=EventData(summary="Holiday", all_day=True, start_date=day, end_date=day + timedelta(days=1)),
        )

        spans = provider.busy_reader(
            start=at(day, 0),
            end=at(day, 23),
            calendar_ids=[calendar_id],
            ignore=frozenset({dentist.occurrence_key}),
        )(at(day, 0), at(day, 23))

        assert sorted(spans) == [(at(day, 10).timestamp(), at(day, 11).timestamp())]

    def test_event_titles_name_what_is_in_the_range(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        self.team_sync(provider, calendar_id)
        self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))

        titles = provider.event_titles(start=at(date(2026, 3, 1), 0), end=at(date(2026, 3, 8), 0))

        assert {"Dentist", "Team sync"} <= set(titles)

    # -- updates in the three scopes ---------------------------------------------------------------------
    def test_updating_a_one_off_event(self, provider: CalendarProvider, calendar_id: str) -> None:
        created = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))

        updated = provider.update_event(
            event_id=created.event_id,
            data=EventData(
                summary="Dentist check-up", start=at(date(2026, 3, 3), 11), end=at(date(2026, 3, 3), 12)
            ),
        )

        assert self.walls([updated]) == [(date(2026, 3, 3), time(11), "Dentist check-up")]
        assert self.listed(provider, calendar_id) == [updated]

    def test_updating_one_occurrence_leaves_the_others(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        moved = provider.update_event(
            event_id=first.event_id,
            recurrence_id=at(MONDAYS[2], 10),
            data=EventData(start=at(MONDAYS[2], 14), end=at(MONDAYS[2], 15)),
            scope=Scope.OCCURRENCE,
        )

        assert moved.start == at(MONDAYS[2], 14)
        assert moved.recurrence_id == at(MONDAYS[2], 10)  # still named by its original start
        expected = [(day, time(14 if day == MONDAYS[2] else 10), "Team sync") for day in MONDAYS]
        assert self.walls(self.listed(provider, calendar_id)) == expected
        assert provider.get_occurrence(event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10)) == moved

    def test_updating_following_changes_that_occurrence_and_the_later_ones(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        provider.update_event(
            event_id=first.event_id,
            recurrence_id=at(MONDAYS[2], 10),
            data=EventData(summary="Team sync (new room)", start=at(MONDAYS[2], 11), end=at(MONDAYS[2], 12)),
            scope=Scope.FOLLOWING,
        )

        expected = [(day, time(10), "Team sync") for day in MONDAYS[:2]]
        expected += [(day, time(11), "Team sync (new room)") for day in MONDAYS[2:]]
        assert self.walls(self.listed(provider, calendar_id)) == expected

    def test_updating_the_series_changes_every_occurrence(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        provider.update_event(
            event_id=first.event_id,
            recurrence_id=at(MONDAYS[2], 10),
            data=EventData(summary="Weekly sync", start=at(MONDAYS[2], 11), end=at(MONDAYS[2], 12)),
            scope=Scope.SERIES,
        )

        assert self.walls(self.listed(provider, calendar_id)) == [
            (day, time(11), "Weekly sync") for day in MONDAYS
        ]

    # -- deletes in the three scopes ---------------------------------------------------------------------
    def test_deleting_a_one_off_event(self, provider: CalendarProvider, calendar_id: str) -> None:
        created = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))
        kept = self.one_off(provider, calendar_id, "Lunch", at(date(2026, 3, 3), 12))

        provider.delete_event(event_id=created.event_id)

        assert self.listed(provider, calendar_id) == [kept]

    def test_deleting_one_occurrence_leaves_the_others(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        provider.delete_event(
            event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10), scope=Scope.OCCURRENCE
        )

        remaining = [day for day in MONDAYS if day != MONDAYS[2]]
        assert self.walls(self.listed(provider, calendar_id)) == [
            (day, time(10), "Team sync") for day in remaining
        ]
        with pytest.raises(NotFoundError):
            provider.get_occurrence(event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10))

    def test_deleting_following_ends_the_series_before_that_occurrence(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        provider.delete_event(
            event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10), scope=Scope.FOLLOWING
        )

        assert self.walls(self.listed(provider, calendar_id)) == [
            (day, time(10), "Team sync") for day in MONDAYS[:2]
        ]

    def test_deleting_the_series_removes_every_occurrence(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)

        provider.delete_event(event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10), scope=Scope.SERIES)

        assert self.listed(provider, calendar_id) == []
        with pytest.raises(NotFoundError):
            provider.get_occurrence(event_id=first.event_id, recurrence_id=at(MONDAYS[0], 10))

    # -- etags -------------------------------------------------------------------------------------------
    def test_a_write_changes_the_etag_and_the_current_one_is_accepted(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        created = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))

        renamed = provider.update_event(
            event_id=created.event_id, data=EventData(summary="Dentist check-up"), expected_etag=created.etag
        )

        assert renamed.etag != created.etag
        assert provider.get_occurrence(event_id=created.event_id).etag == renamed.etag

    def test_a_stale_etag_refuses_an_update_and_changes_nothing(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        created = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))
        renamed = provider.update_event(event_id=created.event_id, data=EventData(summary="Dentist check-up"))

        with pytest.raises(ConflictError):
            provider.update_event(
                event_id=created.event_id,
                data=EventData(start=at(date(2026, 3, 3), 15), end=at(date(2026, 3, 3), 16)),
                expected_etag=created.etag,
            )

        assert self.listed(provider, calendar_id) == [renamed]

    def test_a_stale_etag_refuses_a_delete(self, provider: CalendarProvider, calendar_id: str) -> None:
        created = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))
        renamed = provider.update_event(event_id=created.event_id, data=EventData(summary="Dentist check-up"))

        with pytest.raises(ConflictError):
            provider.delete_event(event_id=created.event_id, expected_etag=created.etag)

        assert self.listed(provider, calendar_id) == [renamed]

    def test_a_stale_etag_refuses_a_change_to_an_occurrence_changed_since(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)
        third = self.occurrence_on(provider, calendar_id, MONDAYS[2])
        provider.update_event(
            event_id=first.event_id,
            recurrence_id=third.recurrence_id,
            data=EventData(start=at(MONDAYS[2], 14), end=at(MONDAYS[2], 15)),
        )
        before = state(self.listed(provider, calendar_id))

        with pytest.raises(ConflictError):
            provider.update_event(
                event_id=first.event_id,
                recurrence_id=third.recurrence_id,
                data=EventData(start=at(MONDAYS[2], 16), end=at(MONDAYS[2], 17)),
                expected_etag=third.etag,
            )

        assert state(self.listed(provider, calendar_id)) == before

    # -- idempotency -------------------------------------------------------------------------------------
    def test_creating_twice_with_one_operation_id_makes_one_event(
        self, provider_factory: ProviderFactory, calendar_id: str
    ) -> None:
        data = EventData(
            summary="Dentist", start=at(date(2026, 3, 3), 9), end=at(date(2026, 3, 3), 10), timezone=ZONE
        )

        first = provider_factory.new().create_event(
            calendar_id=calendar_id, data=data, operation_id="conf-op-1"
        )
        again = provider_factory.new().create_event(
            calendar_id=calendar_id, data=data, operation_id="conf-op-1"
        )

        assert again.event_id == first.event_id
        assert state(self.listed(provider_factory.new(), calendar_id)) == state([first])

    def test_a_replayed_batch_creates_nothing_twice(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        writes = [
            Write(
                action="create",
                calendar_id=calendar_id,
                data=EventData(
                    summary=title, start=at(date(2026, 3, 3), hour), end=at(date(2026, 3, 3), hour + 1)
                ),
                operation_id=f"conf-batch:{n}",
            )
            for n, (title, hour) in enumerate([("Dentist", 9), ("Lunch", 12)])
        ]

        first = provider.apply_writes(writes)
        again = provider.apply_writes(writes)

        assert [w.after.event_id for w in again if w.after] == [w.after.event_id for w in first if w.after]
        assert [o.summary for o in self.listed(provider, calendar_id)] == ["Dentist", "Lunch"]

    def test_an_update_replayed_applies_once(self, provider: CalendarProvider, calendar_id: str) -> None:
        created = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))
        provider.update_event(
            event_id=created.event_id, data=EventData(summary="A"), operation_id="conf-op-a"
        )
        provider.update_event(
            event_id=created.event_id, data=EventData(summary="B"), operation_id="conf-op-b"
        )

        provider.update_event(
            event_id=created.event_id, data=EventData(summary="A"), operation_id="conf-op-a"
        )

        assert [o.summary for o in self.listed(provider, calendar_id)] == ["B"]

    # -- what a write reports ----------------------------------------------------------------------------
    def test_a_write_reports_the_occurrence_before_and_after_it(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        created = self.one_off(provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9))
        move = Write(
            action="update",
            event_id=created.event_id,
            data=EventData(start=at(date(2026, 3, 3), 11), end=at(date(2026, 3, 3), 12)),
            expected_etag=created.etag,
        )

        [moved] = provider.apply_writes([move])
        now = provider.get_occurrence(event_id=created.event_id)
        [deleted] = provider.apply_writes([Write(action="delete", event_id=created.event_id)])

        assert moved.before == created
        assert moved.after == now
        assert now.start == at(date(2026, 3, 3), 11)
        assert deleted.before == now
        assert deleted.after is None

    # -- free/busy ---------------------------------------------------------------------------------------
    def test_free_busy_shows_when_someone_else_is_busy(
        self, provider: CalendarProvider, provider_factory: ProviderFactory
    ) -> None:
        day = date(2026, 3, 3)
        email = provider_factory.make_busy(at(day, 14), at(day, 15))

        busy = provider.free_busy(
            emails=[email, "nobody@example.invalid"], start=at(day, 0), end=at(day + timedelta(days=1), 0)
        )

        assert busy["nobody@example.invalid"] == []
        assert len(busy[email]) == 1
        assert busy[email][0].start <= at(day, 14)
        assert busy[email][0].end >= at(day, 15)
        assert busy[email][0].end - busy[email][0].start < timedelta(hours=2)

    def test_free_busy_outside_the_window_is_free(
        self, provider: CalendarProvider, provider_factory: ProviderFactory
    ) -> None:
        day = date(2026, 3, 3)
        email = provider_factory.make_busy(at(day, 14), at(day, 15))

        assert provider.free_busy(emails=[email], start=at(day, 15), end=at(day, 18)) == {email: []}

    # -- restore, for undo -------------------------------------------------------------------------------
    def test_restore_puts_back_a_series_changed_whole_and_its_own_image_redoes(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)
        original = state(self.listed(provider, calendar_id))
        written = provider.apply_writes(
            [
                Write(
                    action="update",
                    event_id=first.event_id,
                    recurrence_id=at(MONDAYS[2], 10),
                    scope=Scope.SERIES,
                    data=EventData(summary="Weekly sync", start=at(MONDAYS[2], 11), end=at(MONDAYS[2], 12)),
                )
            ]
        )[0]
        changed = state(self.listed(provider, calendar_id))

        undone = self.restore(provider, written)

        assert state(self.listed(provider, calendar_id)) == original
        self.restore(provider, undone)
        assert state(self.listed(provider, calendar_id)) == changed

    def test_restore_puts_back_a_change_of_following_occurrences(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)
        original = state(self.listed(provider, calendar_id))
        [written] = provider.apply_writes(
            [
                Write(
                    action="update",
                    event_id=first.event_id,
                    recurrence_id=at(MONDAYS[3], 10),
                    scope=Scope.FOLLOWING,
                    data=EventData(start=at(MONDAYS[3], 9), end=at(MONDAYS[3], 10)),
                )
            ]
        )

        self.restore(provider, written)

        assert state(self.listed(provider, calendar_id)) == original

    def test_restore_puts_back_a_cancelled_occurrence_as_it_was(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)
        provider.update_event(
            event_id=first.event_id,
            recurrence_id=at(MONDAYS[2], 10),
            data=EventData(summary="Team sync (moved)", start=at(MONDAYS[2], 14), end=at(MONDAYS[2], 15)),
        )
        original = state(self.listed(provider, calendar_id))
        [written] = provider.apply_writes(
            [Write(action="delete", event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10))]
        )

        self.restore(provider, written)

        assert state(self.listed(provider, calendar_id)) == original

    @pytest.mark.parametrize("scope", [Scope.SERIES, Scope.FOLLOWING])
    def test_restore_puts_back_deleted_occurrences_of_a_series(
        self, provider: CalendarProvider, calendar_id: str, scope: Scope
    ) -> None:
        first = self.team_sync(provider, calendar_id)
        original = state(self.listed(provider, calendar_id))
        [written] = provider.apply_writes(
            [Write(action="delete", event_id=first.event_id, recurrence_id=at(MONDAYS[2], 10), scope=scope)]
        )

        self.restore(provider, written)

        assert state(self.listed(provider, calendar_id)) == original

    def test_restore_puts_back_a_deleted_one_off_event(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        created = self.one_off(
            provider, calendar_id, "Dentist", at(date(2026, 3, 3), 9), location="Hale Avenue"
        )
        [written] = provider.apply_writes([Write(action="delete", event_id=created.event_id)])

        self.restore(provider, written)

        assert state(self.listed(provider, calendar_id)) == state([created])

    def test_restore_is_refused_over_a_later_edit_and_changes_nothing(
        self, provider: CalendarProvider, calendar_id: str
    ) -> None:
        first = self.team_sync(provider, calendar_id)
        [written] = provider.apply_writes(
            [
                Write(
                    action="update",
                    event_id=first.event_id,
                    recurrence_id=at(MONDAYS[0], 10),
                    scope=Scope.SERIES,
                    data=EventData(summary="Weekly sync"),
                )
            ]
        )
        provider.update_event(
            event_id=first.event_id,
            recurrence_id=at(MONDAYS[0], 10),
            scope=Scope.SERIES,
            data=EventData(summary="Weekly sync (edited since)"),
        )
        edited = state(self.listed(provider, calendar_id))

        with pytest.raises(ConflictError):
            self.restore(provider, written)

        assert state(self.listed(provider, calendar_id)) == edited

    def test_a_restore_replayed_applies_once(self, provider: CalendarProvider, calendar_id: str) -> None:
        first = self.team_sync(provider, calendar_id)
        original = state(self.listed(provider, calendar_id))
        [written] = provider.apply_writes(
            [
                Write(
                    action="delete",
                    event_id=first.event_id,
                    recurrence_id=at(MONDAYS[0], 10),
                    scope=Scope.SERIES,
                )
            ]
        )

        self.restore(provider, written, operation_id="conf-undo")
        self.restore(provider, written, operation_id="conf-undo")

        assert state(self.listed(provider, calendar_id)) == original
