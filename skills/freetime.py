"""Free-time arithmetic: busy intervals from events, people and protected preferences, and the gaps.

Pure functions over aware datetimes, days walked in the user's wall time so that a window such as
08:00-18:00 means 08:00-18:00 local on both sides of a daylight-saving change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

__all__ = ["WEEKDAY_CODES", "free_intervals", "merge", "parse_hhmm", "preference_blocks", "working_window"]

WEEKDAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")

Interval = tuple[datetime, datetime]


def parse_hhmm(value: str) -> time:
    hours, minutes = value.split(":")
    return time(int(hours), int(minutes))


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted, non-overlapping union of intervals (touching ones joined)."""
    merged: list[Interval] = []
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


def free_intervals(
    *,
    start: datetime,
    end: datetime,
    busy: Iterable[Interval],
    tz: ZoneInfo,
    min_minutes: int,
    daily_window: tuple[time, time] | None = None,
    weekdays: frozenset[int] | None = None,
    limit: int | None = None,
) -> list[Interval]:
    """Maximal free intervals of at least ``min_minutes`` inside [start, end).

    ``daily_window`` limits each day to local wall-clock hours (an end before the start wraps past
    midnight); ``weekdays`` keeps only those days.
    """
    need = timedelta(minutes=min_minutes)
    windows: list[Interval] = []
    for day in _days(start, end, tz):
        if weekdays is not None and day.weekday() not in weekdays:
            continue
        if daily_window is None:
            lo, hi = _at(day, time(0), tz), _at(day + timedelta(days=1), time(0), tz)
        else:
            lo = _at(day, daily_window[0], tz)
            hi_day = day if daily_window[1] > daily_window[0] else day + timedelta(days=1)
            hi = _at(hi_day, daily_window[1], tz)
        lo, hi = max(lo, start), min(hi, end)
        if hi - lo >= need:
            windows.append((lo, hi))
    if daily_window is None:
        windows = merge(windows)
    blocked = merge(b for b in busy if b[1] > start and b[0] < end)
    free: list[Interval] = []
    i = 0
    for lo, hi in windows:
        while i < len(blocked) and blocked[i][1] <= lo:
            i += 1
        cursor, j = lo, i
        while j < len(blocked) and blocked[j][0] < hi:
            b_start, b_end = blocked[j]
            if b_start - cursor >= need:
                free.append((cursor, b_start))
            cursor = max(cursor, b_end)
            j += 1
        if hi - cursor >= need:
            free.append((cursor, hi))
        if limit is not None and len(free) >= limit:
            return free[:limit]
    return free
