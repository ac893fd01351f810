"""RFC 5545 recurrence of local events: rule text, wall-time expansion and its in-process cache.

Rules expand from DTSTART localised in the event's own zone, so a 14:00 lecture stays at 14:00 wall
time when daylight saving starts (its UTC hour moves).  Expansion is the expensive part of reading a
calendar (dateutil walks every instance from DTSTART), so expanded series are kept in an LRU keyed by
``(event pk, etag)``: every write changes the etag, which makes a stale entry unreachable rather than
something to invalidate, and the key is equally right in every process that reads the same database.
"""

from __future__ import annotations

import hashlib
import threading
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, date, datetime, time, timedelta
from operator import attrgetter
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from dateutil.rrule import rrule, rrulestr

from skills.providers.base import CalendarInfo, Occurrence

if TYPE_CHECKING:
    from skills.models import Event

__all__ = [
    "ZONE_SPREAD",
    "Expansion",
    "as_local_midnight",
    "cached_expansion",
    "clear_cache",
    "count_before",
    "expansion",
    "normalise_rule",
    "occurrence_from_row",
    "overlaps",
    "read_in",
    "rule_count",
    "series_end",
    "shift_rule",
    "truncate_rule",
    "with_count",
]

CACHE_SIZE = 512
# How far apart the midnights of one date can be in two zones (UTC+14 to UTC-12): an all-day event is
# stored at midnights of its own zone and read at those of the reader's, at most this far off.
ZONE_SPREAD = timedelta(hours=26)
# Unbounded rules are expanded this far past the window asked for, so the next window a user pages to
# is usually already expanded.
INFINITE_LOOKAHEAD = timedelta(days=92)
_WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
# Parts that pin instances to calendar days or clock times: a series moved to another day or time
# cannot keep them as they are, and rewriting them is beyond a simple shift.
_DAY_PINNING = ("BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS")
_TIME_PINNING = ("BYHOUR", "BYMINUTE", "BYSECOND")


# -- rule text ------------------------------------------------------------------------------------------
def _parse(text: str) -> dict[str, str]:
    body = text.strip()
    if body.upper().startswith("RRULE:"):
        body = body[len("RRULE:") :]
    parts: dict[str, str] = {}
    for item in filter(None, body.split(";")):
        name, sep, value = item.partition("=")
        if not sep or not value:
            raise ValueError(f"Malformed recurrence rule part {item!r}.")
        parts[name.strip().upper()] = value.strip().upper()
    if "FREQ" not in parts:
        raise ValueError("A recurrence rule needs FREQ (e.g. FREQ=WEEKLY;BYDAY=MO).")
    if "COUNT" in parts and "UNTIL" in parts:
        raise ValueError("A recurrence rule may have COUNT or UNTIL, not both.")
    return parts


def _format(parts: dict[str, str]) -> str:
    return ";".join(f"{name}={value}" for name, value in parts.items())


def _until_bound(raw: str, zone: ZoneInfo, all_day: bool) -> datetime:
    """UNTIL as dateutil needs it: aware for timed series, naive local for all-day ones.

    A DATE UNTIL includes its whole day; a floating DATE-TIME is read in the event's zone.
    """
    if "T" not in raw:
        day = datetime.strptime(raw, "%Y%m%d").date()
        return datetime.combine(day, time()) if all_day else datetime.combine(day, time.max, zone)
    moment = datetime.strptime(raw.rstrip("Z"), "%Y%m%dT%H%M%S")
    aware = moment.replace(tzinfo=UTC) if raw.endswith("Z") else moment.replace(tzinfo=zone)
    return aware.astimezone(zone).replace(tzinfo=None) if all_day else aware


def _format_until(moment: datetime, zone: ZoneInfo, all_day: bool) -> str:
    """RFC 5545 wants UNTIL as a DATE for all-day series and in UTC for zoned DATE-TIME ones."""
    if all_day:
        return moment.astimezone(zone).strftime("%Y%m%d")
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _until_utc(raw: str, zone: ZoneInfo) -> datetime:
    bound = _until_bound(raw, zone, all_day=False)
    return bound.astimezone(UTC)


def normalise_rule(text: str, *, zone: ZoneInfo, all_day: bool, dtstart: datetime) -> str:
    """Validate a rule and write its UNTIL in the canonical form, so exports are valid RFC 5545.

    Raises:
        ValueError: the rule is not a recurrence rule dateutil can expand.
    """
    parts = _parse(text)
    try:
        if "UNTIL" in parts:
            parts["UNTIL"] = _format_until(_until_utc(parts["UNTIL"], zone), zone, all_day)
        rrulestr(_format({k: v for k, v in parts.items() if k != "UNTIL"}), dtstart=dtstart)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{text!r} is not a recurrence rule I can read: {exc}") from exc
    return _format(parts)


def shift_rule(text: str, *, zone: ZoneInfo, all_day: bool, delta: timedelta, days: int) -> str:
    """The rule of a series whose every occurrence moves by ``delta`` of wall time (``days`` whole days).

    Weekdays rotate with the move (MO,WE one day later is TU,TH) and UNTIL moves along, so the series
    keeps its number of occurrences.

    Raises:
        ValueError: the rule pins days or times in a way a shift cannot carry over.
    """
    parts = _parse(text)
    if days and any(name in parts for name in _DAY_PINNING):
        raise ValueError("This series is pinned to dates; move single occurrences instead.")
    if delta and any(name in parts for name in _TIME_PINNING):
        raise ValueError("This series is pinned to clock times; move single occurrences instead.")
    if days % 7 and "BYDAY" in parts:
        rotated = []
        for day in parts["BYDAY"].split(","):
            if day not in _WEEKDAYS:
                raise ValueError("This series is pinned to numbered weekdays; move single occurrences.")
            rotated.append(_WEEKDAYS[(_WEEKDAYS.index(day) + days) % 7])
        parts["BYDAY"] = ",".join(rotated)
    if "UNTIL" in parts:
        local = _until_utc(parts["UNTIL"], zone).astimezone(zone).replace(tzinfo=None) + delta
        parts["UNTIL"] = _format_until(local.replace(tzinfo=zone), zone, all_day)
    return _format(parts)


def truncate_rule(text: str, *, zone: ZoneInfo, all_day: bool, before: datetime) -> str:
    """The rule ending just before ``before`` (an original start): the first half of a split series."""
    parts = {k: v for k, v in _parse(text).items() if k != "COUNT"}
    parts["UNTIL"] = _format_until(before - timedelta(seconds=1), zone, all_day)
    return _format(parts)


def rule_count(text: str) -> int | None:
    count = _parse(text).get("COUNT")
    return None if count is None else int(count)


def with_count(text: str, count: int) -> str:
    parts = _parse(text)
    parts["COUNT"] = str(count)
    return _format(parts)


# -- expansion ------------------------------------------------------------------------------------------
def _dtstart(event: Event) -> datetime:
    """DTSTART in wall time: naive local midnight for all-day series, aware in the zone otherwise."""
    if event.all_day:
        assert event.start_date is not None
        return datetime.combine(event.start_date, time())
    return event.start.astimezone(event.zone)


def _rule(event: Event) -> rrule:
    parts = _parse(event.rrule)
    until = parts.pop("UNTIL", None)
    rule = rrulestr(_format(parts), dtstart=_dtstart(event), cache=False)
    assert isinstance(rule, rrule)
    if until is not None:
        rule = rule.replace(until=_until_bound(until, event.zone, event.all_day))
    return rule


def _instances(event: Event) -> Iterator[tuple[datetime, datetime]]:
    """Every (start, end) the rule generates, EXDATEs included, as aware local datetimes."""
    zone = event.zone
    if event.all_day:
        assert event.start_date is not None
        assert event.end_date is not None
        days = timedelta(days=(event.end_date - event.start_date).days)
        for naive in _rule(event):
            yield naive.replace(tzinfo=zone), (naive + days).replace(tzinfo=zone)
        return
    # Exact duration (RFC 5545 3.8.5.3): an occurrence spanning a DST change keeps its length.
    duration = event.end - event.start
    for local in _rule(event):
        yield local, (local.astimezone(UTC) + duration).astimezone(zone)


def series_end(event: Event) -> datetime | None:
    """The end of the last occurrence of a finite series (its own end for a one-off); None if endless."""
    if not event.rrule:
        return event.end
    parts = _parse(event.rrule)
    if "COUNT" not in parts and "UNTIL" not in parts:
        return None
    last = event.end
    for _, end in _instances(event):
        last = end
    return last


def count_before(event: Event, moment: datetime) -> int:
    """How many instances the rule generates before ``moment``; COUNT counts EXDATEd ones too."""
    total = 0
    for start, _ in _instances(event):
        if start >= moment:
            break
        total += 1
    return total


def overlaps(start: datetime, end: datetime, window_start: datetime, window_end: datetime) -> bool:
    """Whether [start, end) meets [window_start, window_end); a zero-length event counts at its start."""
    return start < window_end and (end > window_start or start >= window_start)


def _details(event: Event, calendar: CalendarInfo) -> dict[str, Any]:
    """What every occurrence of a row has in common: all but its times and etag."""
    is_override = event.series_id is not None
    return {
        "event_id": str(event.series_id if is_override else event.pk),
        "calendar_id": calendar.id,
        "calendar_key": calendar.key,
        "calendar_name": calendar.name,
        "uid": event.uid,
        "summary": event.summary,
        "timezone": event.timezone,
        "all_day": event.all_day,
        "is_recurring": is_override or bool(event.rrule),
        "description": event.description,
        "location": event.location,
        "attendees": tuple(event.attendees),
        "organizer": event.organizer,
        "visibility": event.visibility,
        "transparency": event.transparency,
        "sequence": event.sequence,
        "rrule": event.rrule,
    }


def occurrence_from_row(event: Event, calendar: CalendarInfo) -> Occurrence:
    """The one occurrence a one-off event or an override row stands for."""
    zone = event.zone
    return Occurrence(
        **_details(event, calendar),
        start=event.start.astimezone(zone),
        end=event.end.astimezone(zone),
        recurrence_id=event.recurrence_id.astimezone(UTC) if event.recurrence_id else None,
        etag=event.etag,
    )


def _content_tag(event: Event) -> str:
    """What an unmodified occurrence of the series looks like, as a short digest.

    An instance's etag is this tag plus its original start, so cancelling or moving *another*
    occurrence (which rewrites the master row) does not make a pending change to this one conflict,
    while renaming or moving the series does.
    """
    content = (
        event.pk,
        event.summary,
        event.description,
        event.location,
        event.attendees,
        event.organizer,
        event.visibility,
        event.transparency,
        event.timezone,
        event.all_day,
        (event.end - event.start).total_seconds(),
    )
    return hashlib.blake2b(repr(content).encode(), digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class Expansion:
    """A series' occurrences in start order, with their UTC epoch starts and ends for bisecting.

    ``spans`` pairs each start with its end, made once with the expansion: a free-time search reads
    thousands of them per call, and slicing this list allocates no tuple where zipping the two lists
    made one per occurrence (and the collections those allocations set off).
    ``horizon`` is how far an endless rule was expanded (epoch seconds); None means every occurrence.
    ``readings`` keeps, by zone, an all-day series as readers there see it (:meth:`read_in`).
    """

    starts: list[float]
    ends: list[float]
    occurrences: list[Occurrence]
    longest: float
    horizon: float | None
    spans: list[tuple[float, float]]
    readings: dict[str, tuple[list[float], list[float], list[Occurrence]]] = field(default_factory=dict)

    def bounds(self, start: float, end: float) -> tuple[list[int], int, int]:
        """Where the occurrences meeting [start, end) are: the positions of those starting before
        ``start`` but still running, then the slice ``[inside, last)`` of those starting inside.
        """
        first = bisect_left(self.starts, start - self.longest)
        inside = bisect_left(self.starts, start)
        early = [i for i in range(first, inside) if self.ends[i] > start]
        return early, inside, bisect_left(self.starts, end)

    def window(self, start: float, end: float) -> tuple[list[float], list[Occurrence]]:
        """The occurrences meeting [start, end) with their epoch starts, without scanning the rest."""
        early, inside, last = self.bounds(start, end)
        keys = [self.starts[i] for i in early] + self.starts[inside:last]
        return keys, [self.occurrences[i] for i in early] + self.occurrences[inside:last]

    def read_in(self, zone: ZoneInfo) -> tuple[list[float], list[float], list[Occurrence]]:
        """The occurrences as a reader in ``zone`` sees them (:func:`read_in`), in the same order,
        with their epoch starts and ends there.

        Made once per zone and kept with the expansion, which is cached and read again and again:
        made anew on every read, they added a third to a year's read of a calendar with one daily
        all-day series.  Two threads may both make them; either result is the same.
        """
        found = self.readings.get(zone.key)
        if found is None:
            seen = [read_in(occurrence, zone) for occurrence in self.occurrences]
            found = ([o.start.timestamp() for o in seen], [o.end.timestamp() for o in seen], seen)
            self.readings[zone.key] = found
        return found

    def at(self, recurrence_id: datetime) -> Occurrence | None:
        moment = recurrence_id.timestamp()
        index = bisect_left(self.starts, moment)
        if index < len(self.starts) and self.starts[index] == moment:
            return self.occurrences[index]
        return None


def _expand(event: Event, calendar: CalendarInfo, horizon: datetime | None) -> Expansion:
    excluded = {datetime.fromisoformat(value).timestamp() for value in event.exdates}
    tag = _content_tag(event)
    details = _details(event, calendar)
    starts: list[float] = []
    ends: list[float] = []
    occurrences: list[Occurrence] = []
    for start, end in _instances(event):
        if horizon is not None and start >= horizon:
            break
        original = start.astimezone(UTC)
        moment = original.timestamp()
        if moment in excluded:
            continue
        starts.append(moment)
        ends.append(end.timestamp())
        occurrences.append(
            Occurrence(**details, start=start, end=end, recurrence_id=original, etag=f"{tag}-{int(moment)}")
        )
    longest = max((e - s for s, e in zip(starts, ends, strict=True)), default=0.0)
    spans = list(zip(starts, ends, strict=True))
    return Expansion(starts, ends, occurrences, longest, horizon.timestamp() if horizon else None, spans)


class _LRU:
    """A small thread-safe LRU: daphne and the sync_to_async pool read calendars from many threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[tuple[object, ...], Expansion] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> Expansion | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[object, ...], value: Expansion) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_cache = _LRU(CACHE_SIZE)


def _key(pk: int, etag: str, calendar: CalendarInfo) -> tuple[object, ...]:
    # The calendar's key and name are part of the key because they are baked into each Occurrence.
    return (pk, etag, calendar.id, calendar.key, calendar.name)


def _fresh(found: Expansion | None, until: datetime) -> Expansion | None:
    return (
        found if found is not None and (found.horizon is None or found.horizon >= until.timestamp()) else None
    )


def cached_expansion(pk: int, etag: str, calendar: CalendarInfo, *, until: datetime) -> Expansion | None:
    """The expansion of series ``pk`` at version ``etag`` if already made: a reader that finds it
    need not load the whole row.
    """
    return _fresh(_cache.get(_key(pk, etag, calendar)), until)


def expansion(event: Event, calendar: CalendarInfo, *, until: datetime) -> Expansion:
    """The master's occurrences, at least those starting before ``until``, from the cache if expanded."""
    key = _key(event.pk, event.etag, calendar)
    cached = _fresh(_cache.get(key), until)
    if cached is not None:
        return cached
    horizon = None if event.series_end is not None else until + INFINITE_LOOKAHEAD
    expanded = _expand(event, calendar, horizon)
    _cache.put(key, expanded)
    return expanded


def clear_cache() -> None:
    """Forget every expansion; tests use it to measure and exercise the cold path."""
    _cache.clear()


def as_local_midnight(day: date, zone: ZoneInfo) -> datetime:
    """Midnight starting ``day`` in ``zone``: where an all-day event on ``day`` is stored (in the
    event's zone) and where a reader in ``zone`` sees it begin."""
    return datetime.combine(day, time(), zone)


def read_in(occurrence: Occurrence, zone: ZoneInfo) -> Occurrence:
    """``occurrence`` as a reader in ``zone`` sees it: an all-day one from midnight to midnight of its
    dates there, anything else as it is.

    An all-day event is a floating date (RFC 5545 VALUE=DATE, Google's ``date``), on its date in
    every zone; the store keeps it at midnights of the event's zone, which a New York reader of a
    London calendar would otherwise see begin at 7 PM the day before.  Only the times move: the
    ``recurrence_id`` stays the stored midnight, which is what names the occurrence in the store
    (overrides, EXDATEs) and on Google and CalDAV.  The store's occurrences are read in once: their
    dates are taken in the event's own zone.
    """
    if not occurrence.all_day or occurrence.timezone == zone.key:
        return occurrence
    own = ZoneInfo(occurrence.timezone)
    first, last = occurrence.start.astimezone(own).date(), occurrence.end.astimezone(own).date()
    # Built from its fields in order: half the cost of dataclasses.replace, which checks each one.
    values = list(_OCCURRENCE_FIELDS(occurrence))
    values[_START], values[_END] = as_local_midnight(first, zone), as_local_midnight(last, zone)
    return Occurrence(*values)


_OCCURRENCE_NAMES = [f.name for f in fields(Occurrence)]
_OCCURRENCE_FIELDS = attrgetter(*_OCCURRENCE_NAMES)
_START, _END = _OCCURRENCE_NAMES.index("start"), _OCCURRENCE_NAMES.index("end")
