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
    """Sorted, non-overlapping union of spans (touching ones joined)."""
    merged: list[Span] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _days(start: datetime, end: datetime, tz: ZoneInfo) -> Iterable[date]:
    day = start.astimezone(tz).date()
    last = end.astimezone(tz).date()
    while day <= last:
        yield day
        day += timedelta(days=1)


def _at(day: date, moment: time, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, moment, tzinfo=tz)


def preference_blocks(
    preferences: Mapping[str, Any], start: datetime, end: datetime, tz: ZoneInfo
) -> list[Interval]:
    """Time the user protects (lunch, gym, writing block) as busy intervals within [start, end)."""
    blocks: list[Interval] = []
    lunch = preferences.get("lunch_hours")
    gym = preferences.get("gym_schedule") or []
    writing = preferences.get("writing_block")
    for day in _days(start, end, tz):
        code = WEEKDAY_CODES[day.weekday()]
        if isinstance(lunch, Mapping) and lunch.get("start") and lunch.get("end"):
            blocks.append((_at(day, parse_hhmm(lunch["start"]), tz), _at(day, parse_hhmm(lunch["end"]), tz)))
        for session in gym if isinstance(gym, list) else []:
            if isinstance(session, Mapping) and session.get("day") == code:
                blocks.append(
                    (_at(day, parse_hhmm(session["start"]), tz), _at(day, parse_hhmm(session["end"]), tz))
                )
        if isinstance(writing, Mapping) and code in writing.get("days", []):
            blocks.append(
                (_at(day, parse_hhmm(writing["start"]), tz), _at(day, parse_hhmm(writing["end"]), tz))
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
    """Maximal free spans of positive length inside ``windows`` (sorted) around ``busy`` (merged)."""
    free: list[Span] = []
    i = 0
    for lo, hi in windows:
        while i < len(busy) and busy[i][1] <= lo:
            i += 1
        cursor, j = lo, i
        while j < len(busy) and busy[j][0] < hi:
            b_start, b_end = busy[j]
            if b_start > cursor:
                free.append((cursor, b_start))
            cursor = max(cursor, b_end)
            j += 1
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
        chunk = gaps(windows, merge(busy_between(lo, hi))) if windows else []
        if found and chunk and found[-1][1] == chunk[0][0]:
            found[-1] = (found[-1][0], chunk[0][1])
            chunk = chunk[1:]
        found.extend(chunk)
        if limit is not None and sum(1 for s, e in found if e - s >= need) >= limit:
            break
        lo, days = hi, days * 2
    long_enough = [(s, e) for s, e in found if e - s >= need]
    return long_enough[:limit] if limit is not None else long_enough
