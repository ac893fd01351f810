"""Reads of the local calendar store, always through a user's own calendars.

Reading a window is two small queries (candidate rows, then overrides) plus cached expansions: SQL
keeps only rows whose span can meet the window, so a long-finished series is never expanded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import FloatField, Func, Q

from skills.hotsql import calendar_rows
from skills.models import Calendar, Event
from skills.providers.base import CalendarInfo, Occurrence
from skills.recurrence import Expansion, cached_expansion, expansion, occurrence_from_row, overlaps

__all__ = [
    "BusyIndex",
    "calendar_get",
    "calendar_info",
    "calendar_list",
    "event_get",
    "occurrence_get",
    "occurrences_between",
]


def calendar_info(calendar: Calendar) -> CalendarInfo:
    return CalendarInfo(
        id=str(calendar.pk),
        key=calendar.key,
        name=calendar.name,
        timezone=calendar.timezone,
        is_default=calendar.is_default,
        color=calendar.color,
        provider="local",
    )


def calendar_list(*, user: Any) -> list[CalendarInfo]:
    """The user's calendars, the default first so a bare "my calendar" means the expected one.

    Read on nearly every chat turn, hence plain SQL (see :mod:`skills.hotsql`).
    """
    return [
        CalendarInfo(
            id=str(pk), key=key, name=name, timezone=tz, is_default=default, color=color, provider="local"
        )
        for pk, key, name, tz, default, color in calendar_rows(user.pk)
    ]


def _pk(value: str) -> int | None:
    """A primary key from a contract id; a malformed id matches nothing, like an unknown one."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def calendar_get(*, user: Any, calendar_id: str) -> Calendar:
    """The user's calendar by id.

    Raises:
        Calendar.DoesNotExist: no such calendar, or it belongs to someone else.
    """
    pk = _pk(calendar_id)
    if pk is None:
        raise Calendar.DoesNotExist(f"No calendar {calendar_id!r}.")
    return Calendar.objects.get(owner=user, pk=pk)


def event_get(*, user: Any, event_id: str, for_update: bool = False) -> Event:
    """The user's event row by id (a master, a one-off or an override), locked when about to be written.

    Raises:
        Event.DoesNotExist: no such event, or it belongs to someone else.
    """
    pk = _pk(event_id)
    if pk is None:
        raise Event.DoesNotExist(f"No event {event_id!r}.")
    events = Event.objects.select_related("calendar").filter(calendar__owner=user)
    if for_update:
        events = events.select_for_update(of=("self",))
    return events.get(pk=pk)


def _overrides(
    by_id: dict[int, CalendarInfo], masters: list[int], start: datetime, end: datetime
) -> list[Event]:
    """Overrides of the candidate series, and any override moved into the window from a series that
    itself lies elsewhere.
    """
    return list(
        Event.objects.filter(
            calendar_id__in=by_id, series__isnull=False, series__status=Event.Status.CONFIRMED
        ).filter(Q(series_id__in=masters) | Q(start__lt=end, end__gte=start))
    )


def _replaced(overrides: list[Event]) -> defaultdict[int, set[float]]:
    """The original starts each series has overridden (moved, changed or cancelled)."""
    replaced: defaultdict[int, set[float]] = defaultdict(set)
    for override in overrides:
        assert override.series_id is not None
        assert override.recurrence_id is not None
        replaced[override.series_id].add(override.recurrence_id.timestamp())
    return replaced


def _candidates(by_id: dict[int, CalendarInfo], start: datetime, end: datetime) -> Any:
    """Confirmed one-off and master rows whose span can meet [start, end)."""
    return Event.objects.filter(
        calendar_id__in=by_id, series__isnull=True, status=Event.Status.CONFIRMED, start__lt=end
    ).filter(Q(series_end__isnull=True) | Q(series_end__gte=start))


def occurrences_between(
    *, calendars: Sequence[CalendarInfo], start: datetime, end: datetime
) -> list[Occurrence]:
    """Confirmed occurrences on these calendars that meet [start, end), sorted by start."""
    by_id = {int(info.id): info for info in calendars}
    rows = list(_candidates(by_id, start, end))
    overrides = _overrides(by_id, [row.pk for row in rows if row.rrule], start, end)
    replaced = _replaced(overrides)
    keys: list[float] = []
    found: list[Occurrence] = []
    for override in overrides:
        if override.status == Event.Status.CONFIRMED and overlaps(override.start, override.end, start, end):
            keys.append(override.start.timestamp())
            found.append(occurrence_from_row(override, by_id[override.calendar_id]))
    window = (start.timestamp(), end.timestamp())
    for row in rows:
        info = by_id[row.calendar_id]
        if not row.rrule:
            if overlaps(row.start, row.end, start, end):
                keys.append(row.start.timestamp())
                found.append(occurrence_from_row(row, info))
            continue
        starts, occurrences = expansion(row, info, until=end).window(*window)
        skip = replaced.get(row.pk)
        if skip:
            kept = [i for i, moment in enumerate(starts) if moment not in skip]
            starts = [starts[i] for i in kept]
            occurrences = [occurrences[i] for i in kept]
        keys.extend(starts)
        found.extend(occurrences)
    # Sorting on float keys, not on the datetimes: comparing datetimes of different zones calls
    # utcoffset() on every comparison, which dominated the cost of a year-long read.
    order = sorted(range(len(found)), key=keys.__getitem__)
    return [found[i] for i in order]


class Epoch(Func):
    """A datetime column as epoch seconds, computed by the database.

    Turning thousands of stored datetimes into Python datetimes only to take their timestamps was
    most of the cost of reading a range's busy times.  SQLite keeps datetimes as UTC text, read here
    to the second; PostgreSQL has the standard EXTRACT.
    """

    output_field = FloatField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        template = "CAST(strftime('%%%%s', %(expressions)s) AS REAL)"
        return self.as_sql(compiler, connection, template=template, **extra)

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        template = "EXTRACT(EPOCH FROM %(expressions)s)::double precision"
        return self.as_sql(compiler, connection, template=template, **extra)


class BusyIndex:
    """Busy spans of some calendars within a range, read piece by piece.

    Made once per search: the range's series and overrides are fetched on creation (a series whose
    expansion is cached is read as its id and etag alone), so each piece costs one query, for its
    one-off events read as bare times, plus slices of cached epoch lists.  No Occurrence is built
    but for overrides, which are few.  ``ignore`` holds occurrence keys not to count (the events a
    change is about to move).
    """

    def __init__(
        self,
        *,
        calendars: Sequence[CalendarInfo],
        start: datetime,
        end: datetime,
        ignore: frozenset[str] = frozenset(),
    ) -> None:
        by_id = {int(info.id): info for info in calendars}
        self._by_id = by_id
        self._ignore = ignore
        heads = (
            _candidates(by_id, start, end)
            .exclude(rrule="")
            .filter(all_day=False)
            .exclude(transparency=Event.Transparency.TRANSPARENT)
            .order_by()
            .values_list("pk", "etag", "calendar_id")
        )
        self._series: list[tuple[int, Expansion]] = []
        missing: list[int] = []
        for pk, etag, calendar_id in heads:
            cached = cached_expansion(pk, etag, by_id[calendar_id], until=end)
            if cached is None:
                missing.append(pk)
            else:
                self._series.append((pk, cached))
        for row in Event.objects.filter(pk__in=missing).order_by() if missing else ():
            self._series.append((row.pk, expansion(row, by_id[row.calendar_id], until=end)))
        self._overrides = _overrides(by_id, [pk for pk, _ in self._series], start, end)
        self._replaced = _replaced(self._overrides)
        # Built once: narrowing a built query per piece costs half of building it anew.
        self._one_offs = (
            Event.objects.filter(
                calendar_id__in=by_id,
                series__isnull=True,
                rrule="",
                status=Event.Status.CONFIRMED,
                all_day=False,
            )
            .exclude(transparency=Event.Transparency.TRANSPARENT)
            .order_by()
            .values_list("pk", Epoch("start"), Epoch("end"))
        )

    def spans(self, start: datetime, end: datetime) -> list[tuple[float, float]]:
        """Epoch-second spans of busy occurrences meeting [start, end), in no particular order."""
        ignore, by_id = self._ignore, self._by_id
        one_offs = self._one_offs.filter(start__lt=end, end__gt=start)
        spans = [(b, f) for pk, b, f in one_offs if str(pk) not in ignore]
        for override in self._overrides:
            if override.status == Event.Status.CONFIRMED and override.end > start and override.start < end:
                occurrence = occurrence_from_row(override, by_id[override.calendar_id])
                if occurrence.busy and occurrence.occurrence_key not in ignore:
                    spans.append((override.start.timestamp(), override.end.timestamp()))
        lo, hi = start.timestamp(), end.timestamp()
        for pk, expanded in self._series:
            early, inside, last = expanded.bounds(lo, hi)
            starts, ends = expanded.starts, expanded.ends
            skip = self._replaced.get(pk)
            if not skip and not ignore:
                spans.extend((starts[i], ends[i]) for i in early)
                spans.extend(zip(starts[inside:last], ends[inside:last], strict=True))
                continue
            for i in (*early, *range(inside, last)):
                if (skip and starts[i] in skip) or (
                    ignore and expanded.occurrences[i].occurrence_key in ignore
                ):
                    continue
                spans.append((starts[i], ends[i]))
        return spans


def occurrence_get(
    *, event: Event, calendar: CalendarInfo, recurrence_id: datetime | None
) -> Occurrence | None:
    """One occurrence of a master or one-off row, None when cancelled or never generated.

    Without ``recurrence_id`` a series answers with its first occurrence; a one-off ignores it,
    since it has only the one.
    """
    if event.status == Event.Status.CANCELLED:
        return None
    if not event.rrule:
        return occurrence_from_row(event, calendar)
    if recurrence_id is None:
        first = expansion(event, calendar, until=event.start + timedelta(days=1))
        if not first.occurrences:
            return None
        recurrence_id = first.occurrences[0].recurrence_id
        assert recurrence_id is not None
    override = event.overrides.filter(recurrence_id=recurrence_id).first()
    if override is not None:
        return None if override.status == Event.Status.CANCELLED else occurrence_from_row(override, calendar)
    moment = recurrence_id.astimezone(UTC)
    return expansion(event, calendar, until=moment + timedelta(seconds=1)).at(moment)
