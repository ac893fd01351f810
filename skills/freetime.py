"""Free-time arithmetic: busy spans from events, people and protected preferences, and the gaps.

Days are walked in the user's wall time, so that a window such as 08:00-18:00 means 08:00-18:00
local on both sides of a daylight-saving change; the arithmetic itself is on epoch seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from preferences.schema import day_part_bounds

__all__ = [
    "BLOCK_NAMES",
    "END_OF_DAY",
    "WAKING_HOURS",
    "WEEKDAY_CODES",
    "Block",
    "MeetingHours",
    "Span",
    "clock_span",
    "clock_time",
    "closed_blocks",
    "day_part_window",
    "day_windows",
    "gaps",
    "meeting_hours",
    "merge",
    "named_blocks",
    "parse_hhmm",
    "preference_blocks",
    "protected_spans",
    "search",
    "within_meeting_hours",
    "within_working_hours",
    "working_window",
]

WEEKDAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
# The hours in which free time is worth showing a person who has set no working hours: from the
# start of a usual day to the end of the evening (the scenarios' day parts end the evening at 21:00).
WAKING_HOURS = (time(8), time(21))

Interval = tuple[datetime, datetime]
Span = tuple[float, float]  # epoch seconds: comparing aware datetimes of mixed zones is slow

# The first chunk of a free-time search, in days (two weeks hold the answer to most searches); each
# next chunk is twice as long.
CHUNK_DAYS = 14


def parse_hhmm(value: str) -> time:
    hours, minutes = value.split(":")
    return time(int(hours), int(minutes))


def merge(intervals: Iterable[Span]) -> list[Span]:
    """Sorted, non-overlapping union of spans (touching ones joined).

    A year of a busy calendar is some 10,000 spans: a span that joins nothing is kept as the very
    tuple given, and only a joined one is made anew, so that a merge allocates (and the garbage
    collector then walks) as little as it can.
    """
    merged: list[Span] = []
    last_end = 0.0
    for span in sorted(intervals):
        start, end = span
        if not merged or start > last_end:
            merged.append(span)
            last_end = end
        elif end > last_end:
            merged[-1] = (merged[-1][0], end)
            last_end = end
    return merged


def _days(start: datetime, end: datetime, tz: ZoneInfo) -> Iterable[date]:
    day = start.astimezone(tz).date()
    last = end.astimezone(tz).date()
    while day <= last:
        yield day
        day += timedelta(days=1)


def _at(day: date, moment: time, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, moment, tzinfo=tz)


# What each protected preference is called where a change would break it ("breaks your lunch").
BLOCK_NAMES = {"lunch_hours": "lunch", "gym_schedule": "gym session", "writing_block": "writing block"}

Rule = tuple[frozenset[str] | None, time, time, str]  # weekday codes (None: every day), start, end, key


def _protected_times(preferences: Mapping[str, Any]) -> list[Rule]:
    """The protected blocks as (weekday codes, None for every day; start; end; preference key), read
    once per call.

    Reading the preferences again for every day of a year (type checks, ``HH:MM`` parsing) was most
    of the cost of the blocks themselves.
    """
    rules: list[Rule] = []
    lunch = preferences.get("lunch_hours")
    if isinstance(lunch, Mapping) and lunch.get("start") and lunch.get("end"):
        rules.append((None, parse_hhmm(lunch["start"]), parse_hhmm(lunch["end"]), "lunch_hours"))
    gym = preferences.get("gym_schedule") or []
    for session in gym if isinstance(gym, list) else []:
        if isinstance(session, Mapping) and session.get("day") in WEEKDAY_CODES:
            rules.append(
                (
                    frozenset([session["day"]]),
                    parse_hhmm(session["start"]),
                    parse_hhmm(session["end"]),
                    "gym_schedule",
                )
            )
    writing = preferences.get("writing_block")
    if isinstance(writing, Mapping) and writing.get("days"):
        rules.append(
            (
                frozenset(writing["days"]),
                parse_hhmm(writing["start"]),
                parse_hhmm(writing["end"]),
                "writing_block",
            )
        )
    return rules


def preference_blocks(
    preferences: Mapping[str, Any], start: datetime, end: datetime, tz: ZoneInfo
) -> list[Interval]:
    """Time the user protects (lunch, gym, writing block) as busy intervals within [start, end).

    Read for every chunk of a free-time search, a year of them per search: made straight from the
    rules, without the :class:`Block` each would be for naming it.
    """
    return [(lo, hi) for lo, hi, _, _ in _block_times(preferences, start, end, tz)]


def _block_times(
    preferences: Mapping[str, Any], start: datetime, end: datetime, tz: ZoneInfo
) -> Iterator[tuple[datetime, datetime, str, bool]]:
    """Each protected block of each day of [start, end): its start and end, the preference key and
    whether it comes every day."""
    rules = _protected_times(preferences)
    if not rules:
        return
    for day in _days(start, end, tz):
        code = WEEKDAY_CODES[day.weekday()]
        for days, lo, hi, key in rules:
            if days is None or code in days:
                yield _at(day, lo, tz), _at(day, hi, tz), key, days is None


@dataclass(frozen=True, slots=True)
class Block:
    """One protected block on one day, and which preference protects it."""

    start: datetime
    end: datetime
    key: str  # lunch_hours, gym_schedule or writing_block
    every_day: bool

    @property
    def name(self) -> str:
        """How the preference is named to the user: 'lunch', 'gym session', 'writing block'."""
        return BLOCK_NAMES[self.key]

    def words(self, tz: ZoneInfo) -> str:
        """ "your writing block (Tuesday 9:00–11:00 AM)", "your lunch (12:00–1:00 PM)"."""
        lo, hi = self.start.astimezone(tz), self.end.astimezone(tz)
        day = "" if self.every_day else f"{lo:%A} "
        return f"your {self.name} ({day}{clock_span(lo.time(), hi.time())})"


def named_blocks(preferences: Mapping[str, Any], start: datetime, end: datetime, tz: ZoneInfo) -> list[Block]:
    """The protected blocks of each day of [start, end) with the preference each comes from."""
    return [Block(lo, hi, key, every) for lo, hi, key, every in _block_times(preferences, start, end, tz)]


def closed_blocks(
    preferences: Mapping[str, Any], start: datetime, end: datetime, tz: ZoneInfo
) -> list[Block]:
    """The protected blocks of [start, end) that nothing may be put in, even with approval: the writing
    block when its preference does not allow exceptions with approval.  (Lunch and gym sessions, like a
    writing block that allows exceptions, may be broken once the user approves.)"""
    writing = preferences.get("writing_block")
    if not isinstance(writing, Mapping) or writing.get("allow_exceptions_with_approval") is True:
        return []
    return [b for b in named_blocks(preferences, start, end, tz) if b.key == "writing_block"]


def _clock(moment: time) -> str:
    return f"{moment.hour % 12 or 12}:{moment.minute:02d}"


def clock_span(lo: time, hi: time) -> str:
    """ "9:00–11:00 AM", "11:30 AM–1:00 PM": a span of wall-clock times, its half of the day said once."""
    lo_half, hi_half = ("AM" if t.hour < 12 else "PM" for t in (lo, hi))
    if lo_half == hi_half:
        return f"{_clock(lo)}–{_clock(hi)} {hi_half}"
    return f"{_clock(lo)} {lo_half}–{_clock(hi)} {hi_half}"


def working_window(preferences: Mapping[str, Any]) -> tuple[frozenset[int], time, time] | None:
    """Working days (0=Monday) and hours, if the user set them."""
    hours = preferences.get("working_hours")
    if not isinstance(hours, Mapping) or not hours.get("start") or not hours.get("end"):
        return None
    days = frozenset(
        WEEKDAY_CODES.index(d) for d in hours.get("days", WEEKDAY_CODES[:5]) if d in WEEKDAY_CODES
    )
    return days, parse_hhmm(hours["start"]), parse_hhmm(hours["end"])


def within_working_hours(
    preferences: Mapping[str, Any], window: tuple[time, time] | None, weekdays: frozenset[int] | None
) -> tuple[tuple[time, time] | None, frozenset[int] | None]:
    """A daily window and weekdays narrowed to the user's working hours and days, if they set them.

    A window the user named that lies wholly outside working hours ("this evening", "tonight", which
    wraps past midnight) is kept as it is: their words beat their defaults, and a time found there
    is flagged as outside working hours where a change is planned, so it is asked about first.
    """
    working = working_window(preferences)
    if working is None:
        return window, weekdays
    days, lo, hi = working
    if window is None:
        return (lo, hi), days if weekdays is None else weekdays & days
    narrowed = (max(window[0], lo), min(window[1], hi))
    if window[1] <= window[0] or narrowed[1] <= narrowed[0]:
        return window, weekdays
    return narrowed, days if weekdays is None else weekdays & days


END_OF_DAY = time.max
"""The end of a daily window that runs to midnight (a window ending at 00:00 would wrap past it)."""


@dataclass(frozen=True, slots=True)
class MeetingHours:
    """When meetings (events with other people) may happen: the ``meeting_hours`` preference read."""

    earliest: time | None
    latest: time | None
    no_days: frozenset[int]  # 0=Monday

    def allows(self, start: datetime, end: datetime, tz: ZoneInfo) -> str:
        """Empty when [start, end) is inside meeting hours, else what it breaks, in words."""
        lo, hi = start.astimezone(tz), end.astimezone(tz)
        if lo.weekday() in self.no_days:
            return f"outside your meeting hours (no meetings on {lo:%A}s)"
        if self.earliest is not None and lo.time() < self.earliest:
            return f"outside your meeting hours (no meetings before {clock_time(self.earliest)})"
        if self.latest is not None and (hi.time() > self.latest or hi.date() != lo.date()):
            return f"outside your meeting hours (no meetings after {clock_time(self.latest)})"
        return ""


def clock_time(moment: time) -> str:
    """ "8:00 AM", "5:30 PM": a wall-clock time as the chat writes it."""
    return f"{_clock(moment)} {'AM' if moment.hour < 12 else 'PM'}"


def meeting_hours(preferences: Mapping[str, Any]) -> MeetingHours | None:
    """The user's meeting hours, if they set any."""
    value = preferences.get("meeting_hours")
    if not isinstance(value, Mapping):
        return None
    earliest, latest = value.get("earliest"), value.get("latest")
    days = value.get("no_meeting_days") or []
    limits = MeetingHours(
        earliest=parse_hhmm(earliest) if earliest else None,
        latest=parse_hhmm(latest) if latest else None,
        no_days=frozenset(WEEKDAY_CODES.index(d) for d in days if d in WEEKDAY_CODES),
    )
    if limits.earliest is None and limits.latest is None and not limits.no_days:
        return None
    return limits


def within_meeting_hours(
    preferences: Mapping[str, Any], window: tuple[time, time] | None, weekdays: frozenset[int] | None
) -> tuple[tuple[time, time] | None, frozenset[int] | None]:
    """A daily window and weekdays narrowed to the user's meeting hours, for a search of a time to
    meet other people: not before ``earliest``, ending by ``latest``, never on a day without meetings.

    As with working hours, a window the user named that lies wholly outside them is kept (their
    words beat their defaults; a change planned there is flagged and asked about).
    """
    limits = meeting_hours(preferences)
    if limits is None:
        return window, weekdays
    if limits.no_days:
        weekdays = (frozenset(range(7)) if weekdays is None else weekdays) - limits.no_days
    if limits.earliest is None and limits.latest is None:
        return window, weekdays
    lo, hi = limits.earliest or time(0), limits.latest or END_OF_DAY
    if window is None:
        return (lo, hi), weekdays
    if window[1] <= window[0]:  # a window past midnight ("tonight"): the user's words
        return window, weekdays
    narrowed = (max(window[0], lo), min(window[1], hi))
    if narrowed[1] <= narrowed[0]:
        return window, weekdays
    return narrowed, weekdays


def day_part_window(preferences: Mapping[str, Any], part: str) -> tuple[time, time]:
    """What ``part`` ("morning", ...) means to this user: their ``day_parts`` if set, else the product's."""
    return day_part_bounds(preferences)[part]


def protected_spans(
    preferences: Mapping[str, Any], start: datetime, end: datetime, tz: ZoneInfo
) -> list[Span]:
    """The preference blocks (lunch, gym, writing) within [start, end) as epoch-second spans."""
    return [(lo.timestamp(), hi.timestamp()) for lo, hi in preference_blocks(preferences, start, end, tz)]


def day_windows(
    start: datetime,
    end: datetime,
    tz: ZoneInfo,
    *,
    daily_window: tuple[time, time] | None = None,
    weekdays: frozenset[int] | None = None,
) -> list[Span]:
    """The searchable time of each day inside [start, end), as epoch-second spans.

    ``daily_window`` limits each day to local wall-clock hours (an end before the start wraps past
    midnight, so the day before ``start`` may contribute its late hours); ``weekdays`` keeps only
    those days (0=Monday).  Without a window, whole days join into one span.
    """
    lo_bound, hi_bound = start.timestamp(), end.timestamp()
    wraps = daily_window is not None and daily_window[1] <= daily_window[0]
    first = start.astimezone(tz).date() - timedelta(days=1 if wraps else 0)
    windows: list[Span] = []
    for day in _days(datetime.combine(first, time(), tz), end, tz):
        if weekdays is not None and day.weekday() not in weekdays:
            continue
        if daily_window is None:
            lo, hi = _at(day, time(0), tz), _at(day + timedelta(days=1), time(0), tz)
        else:
            lo = _at(day, daily_window[0], tz)
            hi = _at(day + timedelta(days=1) if wraps else day, daily_window[1], tz)
        span = (max(lo.timestamp(), lo_bound), min(hi.timestamp(), hi_bound))
        if span[1] > span[0]:
            windows.append(span)
    return merge(windows) if daily_window is None else windows


def gaps(windows: list[Span], busy: list[Span]) -> list[Span]:
    """Maximal free spans of positive length inside ``windows`` (sorted, disjoint) around ``busy``
    (sorted by start; overlapping and touching spans allowed).

    Taking the busy spans unmerged spares merging them first, another pass over a year's ten
    thousand of them: the spans before a window count only through the latest end among them, and
    those inside it are walked once either way.
    """
    free: list[Span] = []
    i, count = 0, len(busy)
    reach = float("-inf")  # the latest end of the spans passed so far
    for lo, hi in windows:
        while i < count and busy[i][0] < lo:
            if busy[i][1] > reach:
                reach = busy[i][1]
            i += 1
        cursor = max(lo, reach)
        while i < count and busy[i][0] < hi:
            b_start, b_end = busy[i]
            if b_start > cursor:
                free.append((cursor, b_start))
            if b_end > cursor:
                cursor = b_end
            i += 1
        # Every span passed ends by ``cursor`` or before ``lo``, and the next window starts after ``lo``.
        reach = cursor
        if hi > cursor:
            free.append((cursor, hi))
    return free


def search(
    *,
    start: datetime,
    end: datetime,
    tz: ZoneInfo,
    min_minutes: int,
    busy_between: Callable[[datetime, datetime], Iterable[Span]],
    daily_window: tuple[time, time] | None = None,
    weekdays: frozenset[int] | None = None,
    limit: int | None = None,
) -> list[Span]:
    """The first ``limit`` free spans of at least ``min_minutes`` in [start, end), in time order.

    The range is searched in chunks cut at local midnights, the horizon doubling from two weeks
    (two weeks, four, eight...), and ``busy_between`` is asked only for the chunks searched: the
    first free hours of a year are usually in its first weeks, and reading a whole year of events to
    find them was most of the cost.
    A free span that runs across a chunk's end is joined with its continuation before it is measured.
    """
    need = min_minutes * 60
    found: list[Span] = []
    first_day = start.astimezone(tz).date()
    lo, days = start, CHUNK_DAYS
    while lo < end:
        hi = min(end, _at(first_day + timedelta(days=days), time(0), tz))
        windows = day_windows(lo, hi, tz, daily_window=daily_window, weekdays=weekdays)
        chunk = gaps(windows, sorted(busy_between(lo, hi))) if windows else []
        if found and chunk and found[-1][1] == chunk[0][0]:
            found[-1] = (found[-1][0], chunk[0][1])
            chunk = chunk[1:]
        found.extend(chunk)
        if limit is not None and sum(1 for s, e in found if e - s >= need) >= limit:
            break
        lo, days = hi, days * 2
    long_enough = [(s, e) for s, e in found if e - s >= need]
    return long_enough[:limit] if limit is not None else long_enough
