"""Reads of the local calendar store, always through a user's own calendars.

Reading a window is two small queries (candidate rows, then overrides) plus cached expansions: SQL
keeps only rows whose span can meet the window, so a long-finished series is never expanded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Q

from skills.models import Calendar, Event
from skills.providers.base import CalendarInfo, Occurrence
from skills.recurrence import expansion, occurrence_from_row, overlaps

__all__ = [
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
    """The user's calendars, the default first so a bare "my calendar" means the expected one."""
    calendars = Calendar.objects.filter(owner=user).order_by("-is_default", "name", "pk")
    return [calendar_info(calendar) for calendar in calendars]


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


def occurrences_between(
    *, calendars: Sequence[CalendarInfo], start: datetime, end: datetime
) -> list[Occurrence]:
    """Confirmed occurrences on these calendars that meet [start, end), sorted by start."""
    by_id = {int(info.id): info for info in calendars}
    rows = list(
        Event.objects.filter(
            calendar_id__in=by_id, series__isnull=True, status=Event.Status.CONFIRMED, start__lt=end
        ).filter(Q(series_end__isnull=True) | Q(series_end__gte=start))
    )
    masters = [row.pk for row in rows if row.rrule]
    # Overrides of the candidate series, and any override moved into the window from a series that
    # itself lies elsewhere.
    overrides = Event.objects.filter(
        calendar_id__in=by_id, series__isnull=False, series__status=Event.Status.CONFIRMED
    ).filter(Q(series_id__in=masters) | Q(start__lt=end, end__gte=start))
    replaced: defaultdict[int, set[float]] = defaultdict(set)
    keys: list[float] = []
    found: list[Occurrence] = []
    for override in overrides:
        assert override.series_id is not None
        assert override.recurrence_id is not None
        replaced[override.series_id].add(override.recurrence_id.timestamp())
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
