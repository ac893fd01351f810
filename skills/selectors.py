"""Reads of the local calendar store, always through a user's own calendars.

Reading a window is two small queries (candidate rows, then overrides) plus cached expansions: SQL
keeps only rows whose span can meet the window, so a long-finished series is never expanded.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from operator import itemgetter
from typing import Any
from zoneinfo import ZoneInfo

from django.db import connection

from skills.hotsql import calendar_rows
from skills.models import Calendar, Event
from skills.providers.base import CalendarInfo, Occurrence
from skills.recurrence import (
    ZONE_SPREAD,
    Expansion,
    cached_expansion,
    expansion,
    occurrence_from_row,
    overlaps,
    read_in,
)

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
        provider=calendar.account.kind if calendar.account is not None else "local",
    )


def calendar_list(*, user: Any) -> list[CalendarInfo]:
    """The user's calendars, the default first so a bare "my calendar" means the expected one.

    Read on nearly every chat turn, hence plain SQL (see :mod:`skills.hotsql`).
    """
    return [
        CalendarInfo(
            id=str(pk), key=key, name=name, timezone=tz, is_default=default, color=color, provider=kind
        )
        for pk, key, name, tz, default, color, kind in calendar_rows(user.pk)
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
    itself lies elsewhere (of confirmed series only).

    Read on every calendar read and free-time search, mostly to find none: building this query in
    the ORM cost more than running it, so it is plain SQL (see :func:`_overrides_sql`).
    """
    if not by_id:
        return []
    adapt = connection.ops.adapt_datetimefield_value
    params = [*by_id, Event.Status.CONFIRMED.value, *masters, adapt(end), adapt(start)]
    return list(Event.objects.raw(_overrides_sql(connection.vendor, len(by_id), len(masters)), params))


def _replaced(overrides: list[Event]) -> defaultdict[int, set[float]]:
    """The original starts each series has overridden (moved, changed or cancelled)."""
    replaced: defaultdict[int, set[float]] = defaultdict(set)
    for override in overrides:
        assert override.series_id is not None
        assert override.recurrence_id is not None
        replaced[override.series_id].add(override.recurrence_id.timestamp())
    return replaced


def _candidates(by_id: dict[int, CalendarInfo], start: datetime, end: datetime) -> list[Event]:
    """Confirmed one-off and master rows whose span can meet [start, end), by start.

    An all-day row is stored at midnights of its own zone, up to ``ZONE_SPREAD`` from where the
    reader sees it, so it is looked for that much wider.  Plain SQL (see :func:`_candidates_sql`):
    the ORM took longer to build this query than the database took to run it for a day's read.
    """
    if not by_id:
        return []
    adapt = connection.ops.adapt_datetimefield_value
    wide = (adapt(end + ZONE_SPREAD), adapt(start - ZONE_SPREAD))
    params = [*by_id, Event.Status.CONFIRMED.value, *wide, adapt(end), adapt(start)]
    return list(Event.objects.raw(_candidates_sql(connection.vendor, len(by_id)), params))


def _unreplaced(
    starts: list[float], occurrences: list[Occurrence], skip: set[float] | None
) -> tuple[list[float], list[Occurrence]]:
    """A series' occurrences (with their original starts) but those an override stands for."""
    if not skip:
        return starts, occurrences
    kept = [i for i, moment in enumerate(starts) if moment not in skip]
    return [starts[i] for i in kept], [occurrences[i] for i in kept]


def occurrences_between(
    *, calendars: Sequence[CalendarInfo], start: datetime, end: datetime, reader: Callable[[], ZoneInfo]
) -> list[Occurrence]:
    """Confirmed occurrences on these calendars that meet [start, end), sorted by start.

    All-day occurrences are placed and compared as ``reader`` sees them (:func:`read_in`): a zone
    asked for only when one is met, since finding it may cost the caller a query.
    """
    by_id = {int(info.id): info for info in calendars}
    rows = _candidates(by_id, start, end)
    wide = (start - ZONE_SPREAD, end + ZONE_SPREAD)  # where an all-day one can be stored
    overrides = _overrides(by_id, [row.pk for row in rows if row.rrule], *wide)
    replaced = _replaced(overrides)
    keys: list[float] = []
    found: list[Occurrence] = []
    dated = _Dated(start, end)
    for override in overrides:
        if override.status != Event.Status.CONFIRMED:
            continue
        if override.all_day:
            dated.one_offs.append(occurrence_from_row(override, by_id[override.calendar_id]))
        elif overlaps(override.start, override.end, start, end):
            keys.append(override.start.timestamp())
            found.append(occurrence_from_row(override, by_id[override.calendar_id]))
    window = (start.timestamp(), end.timestamp())
    for row in rows:
        info = by_id[row.calendar_id]
        if not row.rrule:
            if row.all_day:
                dated.one_offs.append(occurrence_from_row(row, info))
            elif overlaps(row.start, row.end, start, end):
                keys.append(row.start.timestamp())
                found.append(occurrence_from_row(row, info))
            continue
        if row.all_day:
            dated.series.append((expansion(row, info, until=wide[1]), replaced.get(row.pk) or set()))
            continue
        expanded = expansion(row, info, until=end).window(*window)
        starts, occurrences = _unreplaced(*expanded, replaced.get(row.pk))
        keys.extend(starts)
        found.extend(occurrences)
    if dated.one_offs or dated.series:
        dated.read_in(reader(), keys, found)
    # Sorting on float keys, not on the datetimes: comparing datetimes of different zones calls
    # utcoffset() on every comparison, which dominated the cost of a year-long read.
    order = sorted(range(len(found)), key=keys.__getitem__)
    return [found[i] for i in order]


class _Dated:
    """The all-day occurrences a read met, kept until the reader's zone says which meet its window."""

    def __init__(self, start: datetime, end: datetime) -> None:
        self.window = (start.timestamp(), end.timestamp())
        self.one_offs: list[Occurrence] = []  # and overrides, in the store's times
        self.series: list[tuple[Expansion, set[float]]] = []  # with the original starts overridden

    def read_in(self, zone: ZoneInfo, keys: list[float], found: list[Occurrence]) -> None:
        """Add those meeting the window as ``zone`` sees them to ``found``, their starts to ``keys``."""
        lo, hi = self.window
        for occurrence in self.one_offs:
            seen = read_in(occurrence, zone)
            begin = seen.start.timestamp()
            if begin < hi and seen.end.timestamp() > lo:
                keys.append(begin)
                found.append(seen)
        spread = ZONE_SPREAD.total_seconds()
        for expanded, skip in self.series:
            early, inside, last = expanded.bounds(lo - spread, hi + spread)
            begins, ends, seen_all = expanded.read_in(zone)
            for i in (*early, *range(inside, last)):
                if begins[i] < hi and ends[i] > lo and expanded.starts[i] not in skip:
                    keys.append(begins[i])
                    found.append(seen_all[i])


# -- plain SQL of the hot reads (as :mod:`skills.hotsql`: built once per vendor from the models' _meta) ---
def _columns(*names: str) -> list[str]:
    """Event's columns by field name, quoted for the database."""
    columns = {field.name: field.column for field in Event._meta.concrete_fields if field.column}
    return [connection.ops.quote_name(columns[name]) for name in names]


def _epoch(column: str) -> str:
    """A datetime column as epoch seconds, computed by the database.

    Turning thousands of stored datetimes into Python datetimes only to take their timestamps was
    most of the cost of reading a range's busy times.  SQLite keeps datetimes as UTC text, read here
    to the second (``unixepoch`` where the library has it, since 3.38, is a third cheaper than
    ``strftime``); PostgreSQL has the standard EXTRACT.
    """
    if connection.vendor == "postgresql":
        return f"EXTRACT(EPOCH FROM {column})::double precision"
    if connection.vendor == "sqlite" and sqlite3.sqlite_version_info >= (3, 38):
        return f"unixepoch({column})"
    return f"CAST(strftime('%%s', {column}) AS REAL)"


@cache
def _busy_rows_sql(vendor: str, calendars: int) -> str:
    names = ("id", "etag", "calendar", "rrule", "start", "end", "series", "status", "all_day")
    pk, etag, calendar, rrule, start, end, series, status, all_day = _columns(*names)
    transparency, series_end = _columns("transparency", "series_end")
    holes = ", ".join(["%s"] * calendars)
    table = connection.ops.quote_name(Event._meta.db_table)
    if vendor == "sqlite":
        # SQLite's planner takes "series_id IS NULL" for a selective equality and, from about five
        # calendars on, walks the series index: every top-level event of the instance.  The unary
        # plus keeps that term out of any index, so the (calendar, start) index serves the range.
        series = f"+{series}"
    return (
        f"SELECT {pk}, {etag}, {calendar}, {rrule}, {_epoch(start)}, {_epoch(end)} FROM {table} "
        f"WHERE {calendar} IN ({holes}) AND {series} IS NULL AND {status} = %s AND NOT {all_day} "
        f"AND {transparency} <> %s AND {start} < %s AND (({rrule} = '' AND {end} > %s) "
        f"OR ({rrule} <> '' AND ({series_end} IS NULL OR {series_end} >= %s)))"
    )


@cache
def _candidates_sql(vendor: str, calendars: int) -> str:
    names = ("id", "calendar", "series", "status", "start", "series_end", "all_day")
    pk, calendar, series, status, start, series_end, all_day = _columns(*names)
    table = connection.ops.quote_name(Event._meta.db_table)
    # The outer bounds (wide enough for all-day rows) let the (calendar, start) index serve the
    # range; the exact window then holds for timed rows.
    return (
        f"SELECT * FROM {table} WHERE {calendar} IN ({', '.join(['%s'] * calendars)}) "
        f"AND {series} IS NULL AND {status} = %s "
        f"AND {start} < %s AND ({series_end} IS NULL OR {series_end} >= %s) "
        f"AND ({all_day} OR ({start} < %s AND ({series_end} IS NULL OR {series_end} >= %s))) "
        f"ORDER BY {start}, {pk}"
    )


@cache
def _overrides_sql(vendor: str, calendars: int, masters: int) -> str:
    pk, calendar, series, status, start, end = _columns("id", "calendar", "series", "status", "start", "end")
    table = connection.ops.quote_name(Event._meta.db_table)
    theirs = f"e.{series} IN ({', '.join(['%s'] * masters)}) OR " if masters else ""
    return (
        f"SELECT e.* FROM {table} e JOIN {table} m ON m.{pk} = e.{series} "
        f"WHERE e.{calendar} IN ({', '.join(['%s'] * calendars)}) AND m.{status} = %s "
        f"AND ({theirs}(e.{start} < %s AND e.{end} >= %s)) ORDER BY e.{start}, e.{pk}"
    )


class BusyIndex:
    """Busy spans of some calendars within a range, read piece by piece.

    Made once per search, in two queries whatever the number of pieces: the range's series and
    one-off events in one (a series whose expansion is cached is read as its id and etag alone, a
    one-off as its bare times), then the overrides.  Finding the series already walks every one-off
    row of the range (no index tells a series from a one-off), so returning their times there costs
    little, where a query per piece cost more to build than to run.  A piece is then slices of
    sorted epoch lists.  No Occurrence is built but for overrides, which are few.  ``ignore`` holds
    occurrence keys not to count (the events a change is about to move).
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
        self._ignore = ignore
        self._series: list[tuple[int, Expansion]] = []
        heads, one_offs = _busy_rows(by_id, start, end)
        self._one_offs = _OneOffs(one_offs, ignore)
        missing: list[int] = []
        for pk, etag, calendar_id in heads:
            cached = cached_expansion(pk, etag, by_id[calendar_id], until=end)
            if cached is None:
                missing.append(pk)
            else:
                self._series.append((pk, cached))
        for row in Event.objects.filter(pk__in=missing).order_by() if missing else ():
            self._series.append((row.pk, expansion(row, by_id[row.calendar_id], until=end)))
        overrides = _overrides(by_id, [pk for pk, _ in self._series], start, end)
        self._replaced = _replaced(overrides)
        self._moved = _moved(overrides, by_id)

    def spans(self, start: datetime, end: datetime) -> list[tuple[float, float]]:
        """Epoch-second spans of busy occurrences meeting [start, end), in no particular order."""
        ignore = self._ignore
        lo, hi = start.timestamp(), end.timestamp()
        spans = self._one_offs.meeting(lo, hi)
        spans.extend((b, f) for b, f, key in self._moved if f > lo and b < hi and key not in ignore)
        for pk, expanded in self._series:
            early, inside, last = expanded.bounds(lo, hi)
            pairs, starts = expanded.spans, expanded.starts
            skip = self._replaced.get(pk)
            if not skip and not ignore:
                spans.extend(pairs[i] for i in early)
                spans.extend(pairs[inside:last])
                continue
            for i in (*early, *range(inside, last)):
                if (skip and starts[i] in skip) or (
                    ignore and expanded.occurrences[i].occurrence_key in ignore
                ):
                    continue
                spans.append(pairs[i])
        return spans


Head = tuple[int, str, int]  # a series' pk, etag and calendar id
OneOff = tuple[int, float, float]  # a one-off event's pk and epoch start and end


def _busy_rows(
    by_id: dict[int, CalendarInfo], start: datetime, end: datetime
) -> tuple[list[Head], list[OneOff]]:
    """The timed, opaque, confirmed series and one-off events of these calendars that can meet
    [start, end), in one query: series as (pk, etag, calendar id), one-offs as (pk, start, end).

    Plain SQL read straight from the cursor (see :func:`_busy_rows_sql`): every column comes as the
    value it stands for, the epochs as numbers, and the ORM's building of the query and its
    per-value converters over a year of one-offs cost more than the query itself.
    """
    heads: list[Head] = []
    one_offs: list[OneOff] = []
    if not by_id:
        return heads, one_offs
    adapt = connection.ops.adapt_datetimefield_value
    params = [
        *by_id,
        Event.Status.CONFIRMED.value,
        Event.Transparency.TRANSPARENT.value,
        adapt(end),
        adapt(start),
        adapt(start),
    ]
    with connection.cursor() as cursor:
        cursor.execute(_busy_rows_sql(connection.vendor, len(by_id)), params)
        for pk, etag, calendar_id, rrule, begin, finish in cursor.fetchall():
            if rrule:
                heads.append((pk, etag, calendar_id))
            else:
                one_offs.append((pk, float(begin), float(finish)))
    return heads, one_offs


def _moved(overrides: list[Event], by_id: dict[int, CalendarInfo]) -> list[tuple[float, float, str]]:
    """The busy confirmed overrides as epoch start, end and occurrence key, worked out once per
    search rather than once per piece."""
    moved: list[tuple[float, float, str]] = []
    for override in overrides:
        if override.status != Event.Status.CONFIRMED:
            continue
        occurrence = occurrence_from_row(override, by_id[override.calendar_id])
        if occurrence.busy:
            moved.append((override.start.timestamp(), override.end.timestamp(), occurrence.occurrence_key))
    return moved


class _OneOffs:
    """One-off events' epoch spans sorted by start, for the pieces of a search to slice; those
    ``ignore`` names are left out once, here."""

    def __init__(self, rows: list[OneOff], ignore: frozenset[str]) -> None:
        kept = sorted(
            (row for row in rows if str(row[0]) not in ignore) if ignore else rows, key=itemgetter(1)
        )
        self._starts = [begin for _, begin, _ in kept]
        self._spans = [(begin, finish) for _, begin, finish in kept]
        self._longest = max((finish - begin for _, begin, finish in kept), default=0.0)

    def meeting(self, lo: float, hi: float) -> list[tuple[float, float]]:
        """The spans with ``end > lo`` and ``start < hi``."""
        first = bisect_left(self._starts, lo - self._longest)
        last = bisect_left(self._starts, hi)
        spans = self._spans
        return [spans[i] for i in range(first, last) if spans[i][1] > lo]


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
