"""Free-time arithmetic: busy spans from events, people and protected preferences, and the gaps.

Days are walked in the user's wall time, so that a window such as 08:00-18:00 means 08:00-18:00
local on both sides of a daylight-saving change; the arithmetic itself is on epoch seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

__all__ = [
    "WAKING_HOURS",
    "WEEKDAY_CODES",
    "Span",
    "day_windows",
    "gaps",
    "merge",
    "parse_hhmm",
    "preference_blocks",
    "protected_spans",
    "search",
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


def _protected_times(preferences: Mapping[str, Any]) -> list[tuple[frozenset[str] | None, time, time]]:
    """The protected blocks as (weekday codes, None for every day; start; end), read once per call.

    Reading the preferences again for every day of a year (type checks, ``HH:MM`` parsing) was most
    of the cost of the blocks themselves.
    """
    rules: list[tuple[frozenset[str] | None, time, time]] = []
    lunch = preferences.get("lunch_hours")
    if isinstance(lunch, Mapping) and lunch.get("start") and lunch.get("end"):
        rules.append((None, parse_hhmm(lunch["start"]), parse_hhmm(lunch["end"])))
    gym = preferences.get("gym_schedule") or []
    for session in gym if isinstance(gym, list) else []:
        if isinstance(session, Mapping) and session.get("day") in WEEKDAY_CODES:
            rules.append(
                (frozenset([session["day"]]), parse_hhmm(session["start"]), parse_hhmm(session["end"]))
            )
    writing = preferences.get("writing_block")
    if isinstance(writing, Mapping) and writing.get("days"):
        rules.append((frozenset(writing["days"]), parse_hhmm(writing["start"]), parse_hhmm(writing["end"])))
    return rules


def preference_blocks(
    preferences: Mapping[str, Any], start: datetime, end: datetime, tz: ZoneInfo
) -> list[Interval]:
    """Time the user protects (lunch, gym, writing block) as busy intervals within [start, end)."""
    rules = _protected_times(preferences)
    if not rules:
        return []
    blocks: list[Interval] = []
    for day in _days(start, end, tz):
        code = WEEKDAY_CODES[day.weekday()]
        blocks.extend(
            (_at(day, lo, tz), _at(day, hi, tz)) for days, lo, hi in rules if days is None or code in days
        )
    return blocks


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
