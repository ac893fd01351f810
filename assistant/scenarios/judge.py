"""The scenario judge's own view of a calendar: store rows expanded with python-dateutil.

A scenario passes only if the calendars are right, so what the checks read must not be the product's
own reading of them: a bug in the provider's recurrence expansion, in the preference blocks or in the
people's free/busy would otherwise judge itself correct.  This module therefore reads the calendar
store's rows directly (the ``Event`` table, with no provider or service in between), expands
recurrence with dateutil (RFC 5545 wall-time semantics from an aware DTSTART in the event's zone),
takes other people's busy times from the scenario file's ``people`` and interprets preferences in the
canonical form of the scenarios README by itself.  It shares nothing with ``skills/`` but the table.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

from preferences.models import Preference
from skills.models import Event

__all__ = [
    "WEEKDAYS",
    "Occ",
    "SeriesRow",
    "continuations",
    "expand",
    "people_busy",
    "protected_blocks",
    "store_preferences",
    "store_snapshot",
    "stored_preferences",
    "working_hours",
]

WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
# Originals are generated this far beyond the window, so that an occurrence moved into the window
# from outside it (an override) is still found.
_MARGIN = timedelta(days=31)


@dataclass(frozen=True, slots=True)
class Occ:
    """One occurrence as the judge sees it (what checks read and ``unchanged`` compares)."""

    event_id: str
    recurrence_id: datetime | None
    summary: str
    calendar: str
    start: datetime
    end: datetime
    all_day: bool
    transparent: bool
    attendees: tuple[str, ...]
    location: str
    visibility: str = "default"
    description: str = ""

    @property
    def key(self) -> str:
        """The event plus its original start in UTC: the same occurrence across snapshots."""
        if self.recurrence_id is None:
            return self.event_id
        return f"{self.event_id}@{self.recurrence_id.astimezone(UTC).isoformat()}"

    def same_as(self, other: Occ) -> bool:
        return (self.start, self.end, self.summary, self.calendar) == (
            other.start,
            other.end,
            other.summary,
            other.calendar,
        )


@dataclass(frozen=True, slots=True)
class SeriesRow:
    """What expansion needs of an event: its first span, zone, rule and cancelled original starts."""

    start: datetime
    end: datetime
    zone: ZoneInfo
    all_day: bool = False
    rrule: str = ""
    exdates: frozenset[datetime] = frozenset()


def _as_local(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone)


def expand(row: SeriesRow, lo: datetime, hi: datetime) -> Iterator[tuple[datetime, datetime]]:
    """(original start, end) of each instance of ``row`` that overlaps [lo, hi).

    Instances keep the wall time of DTSTART in the row's zone across daylight-saving changes (dateutil
    builds each instance from the aware DTSTART's wall fields), and keep the first instance's length
    in wall time for all-day events and in elapsed time for timed ones, as RFC 5545 defines.
    """
    first = _as_local(row.start, row.zone)
    if not row.rrule:
        if row.start < hi and lo < row.end:
            yield row.start, row.end
        return
    instances = _instances(row.rrule, first, lo - (row.end - row.start) - timedelta(days=1), hi)
    if row.all_day:
        days = (_as_local(row.end, row.zone).date() - first.date()).days
    span = row.end - row.start
    for instance in instances:
        if instance.astimezone(UTC) in row.exdates:
            continue
        if row.all_day:
            end = datetime.combine(instance.date() + timedelta(days=days), time(0), tzinfo=row.zone)
        else:
            end = instance + span
        if instance < hi and lo < end:
            yield instance, end


def _instances(rule_text: str, first: datetime, lo: datetime, hi: datetime) -> list[datetime]:
    """Instance starts of an RRULE between lo and hi, aware in ``first``'s zone.

    RFC 5545 wants a UTC UNTIL with a zoned DTSTART but a floating or DATE UNTIL with an all-day one;
    dateutil refuses a mix, so a rule whose UNTIL is not UTC is expanded on naive wall times instead.
    """
    try:
        return list(rrulestr(rule_text, dtstart=first).between(lo, hi, inc=True))
    except ValueError:
        zone = first.tzinfo
        naive = rrulestr(rule_text, dtstart=first.replace(tzinfo=None))
        lo_wall, hi_wall = (m.astimezone(zone).replace(tzinfo=None) for m in (lo, hi))
        return [m.replace(tzinfo=zone) for m in naive.between(lo_wall, hi_wall, inc=True)]


def _exdates(values: Iterable[str]) -> frozenset[datetime]:
    return frozenset(datetime.fromisoformat(v).astimezone(UTC) for v in values)


def _occ(row: Event, calendar: str, start: datetime, end: datetime, rid: datetime | None) -> Occ:
    return Occ(
        event_id=str(row.series_id or row.pk),
        recurrence_id=rid,
        summary=row.summary,
        calendar=calendar,
        start=start,
        end=end,
        all_day=row.all_day,
        transparent=row.transparency == "transparent",
        attendees=tuple(row.attendees or ()),
        location=row.location or "",
        visibility=row.visibility,
        description=row.description or "",
    )


def store_snapshot(user: Any, lo: datetime, hi: datetime) -> dict[str, Occ]:
    """Every occurrence of ``user``'s calendars overlapping [lo, hi), read from the store's rows."""
    rows = list(Event.objects.filter(calendar__owner=user).select_related("calendar").order_by("pk"))
    overrides: dict[int, dict[datetime, Event]] = {}
    for row in rows:
        if row.series_id is not None and row.recurrence_id is not None:
            overrides.setdefault(row.series_id, {})[row.recurrence_id.astimezone(UTC)] = row
    found: dict[str, Occ] = {}
    for row in rows:
        if row.series_id is not None or row.status == "cancelled":
            continue
        series = SeriesRow(
            start=row.start,
            end=row.end,
            zone=ZoneInfo(row.timezone),
            all_day=row.all_day,
            rrule=row.rrule,
            exdates=_exdates(row.exdates or ()),
        )
        if not row.rrule:
            for start, end in expand(series, lo, hi):
                occ = _occ(row, row.calendar.key, start, end, None)
                found[occ.key] = occ
            continue
        own = overrides.get(row.pk, {})
        for original, end in expand(series, lo - _MARGIN, hi + _MARGIN):
            rid = original.astimezone(UTC)
            override = own.get(rid)
            if override is None:
                occ = _occ(row, row.calendar.key, original, end, rid)
            elif override.status == "cancelled":
                continue
            else:
                occ = _occ(override, row.calendar.key, override.start, override.end, rid)
            if occ.start < hi and lo < occ.end:
                found[occ.key] = occ
    return found


def continuations(initial: dict[str, Occ], final: dict[str, Occ]) -> dict[str, Occ]:
    """Initial occurrence key -> the occurrence that continues it in a series split off its own.

    A change "from now on" ends a series before the occurrence it starts at and continues it as a new
    series (a new event with its own UID, as RFC 5545 clients split one); nothing in the store links the
    two, so the judge pairs them itself: a series whose occurrences vanished from some date on is
    continued by a series new since the start on the same calendar, with the same title or the same
    length, people and place, whose first occurrence lies within a month of the first one that
    vanished.  The vanished occurrences and the new series' occurrences are paired in order (the
    i-th from the split on is the i-th of the continuation), which holds whether the change moved the
    time, the weekday or renamed it.
    """
    initial_ids = {occ.event_id for occ in initial.values()}
    vanished: dict[str, list[Occ]] = {}
    for key, occ in initial.items():
        if occ.recurrence_id is not None and key not in final:
            vanished.setdefault(occ.event_id, []).append(occ)
    new_series: dict[str, list[Occ]] = {}
    for occ in final.values():
        if occ.recurrence_id is not None and occ.event_id not in initial_ids:
            new_series.setdefault(occ.event_id, []).append(occ)
    by_rid = operator.attrgetter("recurrence_id")
    taken: set[str] = set()
    found: dict[str, Occ] = {}
    for event_id, gone in sorted(vanished.items()):
        gone.sort(key=by_rid)
        first = gone[0]
        remaining = [o for o in initial.values() if o.event_id == event_id and o.recurrence_id is not None]
        if any(o.recurrence_id >= first.recurrence_id and o.key in final for o in remaining):  # type: ignore[operator]
            continue  # occurrences after the first that vanished are still there: no split at it
        candidates = []
        for series_id, occs in new_series.items():
            occs.sort(key=by_rid)
            head = occs[0]
            gap = abs(head.recurrence_id - first.recurrence_id)  # type: ignore[operator]
            same_kind = head.summary == first.summary or (
                head.end - head.start == first.end - first.start
                and set(head.attendees) == set(first.attendees)
                and head.location == first.location
            )
            if series_id not in taken and head.calendar == first.calendar and same_kind and gap <= _MARGIN:
                candidates.append((head.summary != first.summary, gap, series_id))
        if not candidates:
            continue
        series_id = min(candidates)[2]
        taken.add(series_id)
        for before, after in zip(gone, new_series[series_id], strict=False):
            found[before.key] = after
    return found


def people_busy(
    people: dict[str, Any], default_zone: ZoneInfo, lo: datetime, hi: datetime
) -> dict[str, list]:
    """Busy spans of each scenario person over [lo, hi), from the scenario file's own event list.

    People's calendars are not the user's to change, so the file says what they hold; all-day and
    transparent events do not make a person busy (as the scenarios README says of conflicts).
    """
    busy: dict[str, list[tuple[datetime, datetime]]] = {}
    for email, person in people.items():
        zone = ZoneInfo(person.timezone) if person.timezone else default_zone
        spans: list[tuple[datetime, datetime]] = []
        for ev in person.events:
            if "T" not in ev.start or ev.transparency == "transparent":
                continue
            start = datetime.fromisoformat(ev.start).replace(tzinfo=zone)
            end = (
                datetime.fromisoformat(ev.end).replace(tzinfo=zone) if ev.end else start + timedelta(hours=1)
            )
            spans.extend(expand(SeriesRow(start=start, end=end, zone=zone, rrule=ev.rrule), lo, hi))
        busy[email.casefold()] = spans
    return busy


def store_preferences(user: Any, initial: dict[str, Any]) -> dict[str, Any]:
    """The scenario file's preferences, overlaid with the values stored for the user now.

    A conversation may change a preference ("my gym is Monday..."); the stored row is then what the
    user asked for, and the judge interprets it itself (canonical form only).
    """
    return {**initial, **stored_preferences(user)}


def stored_preferences(user: Any) -> dict[str, Any]:
    """The user's stored preference values by key, straight from the table."""
    return dict(Preference.objects.filter(user=user).values_list("key", "value"))


def _hhmm(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def _daily(day: date, start: str, end: str, zone: ZoneInfo) -> tuple[datetime, datetime]:
    lo = datetime.combine(day, _hhmm(start), tzinfo=zone)
    hi = datetime.combine(day, _hhmm(end), tzinfo=zone)
    return lo, hi if hi > lo else hi + timedelta(days=1)


def protected_blocks(
    prefs: dict[str, Any], day: date, zone: ZoneInfo
) -> list[tuple[str, datetime, datetime]]:
    """The lunch, gym and writing blocks of one local day, named, from canonical preference values."""
    code = WEEKDAYS[day.weekday()]
    blocks: list[tuple[str, datetime, datetime]] = []
    lunch = prefs.get("lunch_hours")
    if lunch:
        blocks.append(("lunch", *_daily(day, lunch["start"], lunch["end"], zone)))
    for entry in prefs.get("gym_schedule") or ():
        if entry["day"] == code:
            blocks.append(("gym", *_daily(day, entry["start"], entry["end"], zone)))
    writing = prefs.get("writing_block")
    if writing and code in writing.get("days", ()):
        blocks.append(("writing block", *_daily(day, writing["start"], writing["end"], zone)))
    return blocks


def working_hours(prefs: dict[str, Any]) -> tuple[frozenset[str], time, time] | None:
    """(day codes, start, end) of ``working_hours``, or None when it is not set."""
    value = prefs.get("working_hours")
    if not value:
        return None
    return frozenset(value["days"]), _hhmm(value["start"]), _hhmm(value["end"])
