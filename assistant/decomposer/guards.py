"""Never write what was not understood: dates, times and lengths the resolver could not read.

A write request is only planned from words that were understood.  A token that looks like a date, a
time or a length but resolved to nothing ("2026-13-45", "27:00", "0 minute") would otherwise end up in
the new event's title, or be dropped while a default took its place; the turn is asked about instead,
naming the token.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from assistant.decomposer.frame import READS, RequestFrame
from assistant.timeexpr import TimeMatch, find_durations

__all__ = [
    "before_standard_time",
    "bounded",
    "ends_before",
    "long_ago",
    "missing_wall_time",
    "odd_length",
    "out_of_reach",
    "too_long_overnight",
    "unread_time",
]

_TIMEISH = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b"  # an ISO date
    r"|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"  # 3/14, 3/14/2026
    r"|\b\d{1,3}[:.]\d{2}\b"  # a clock time
    r"|\b\d+(?:\.\d+)? ?(?:minutes?|mins?|hours?|hrs?)\b"  # a length
    r"|\b(?:zero|no) (?:minutes?|mins?|hours?|hrs?)\b"  # a length of nothing
    r"|\b(?:on|to|for|until|till|by) (?:the )?(?P<day>\d{1,3}(?:st|nd|rd|th))\b"  # a day of the month
)
# A clock time past 23:59 ("24:30", "9:75", "13pm"), which a resolver may still read by rolling it over.
_NO_CLOCK = re.compile(
    r"\b(?:2[4-9]|[3-9]\d)[:.]\d{2}\b|\b\d{1,2}[:.][6-9]\d\b|(?<![\d:.])\b(?:1[3-9]|[2-9]\d|0) ?(?:am|pm)\b"
)
# Longer than this, an interval that runs past midnight to an earlier clock time ("from 6pm to 5pm")
# is a slip, not a night out: "from 10pm to 2am" is fine.
_LONGEST_OVERNIGHT = timedelta(hours=12)
# The longest stretch one request reads or changes, and how far ahead it may be: every occurrence of
# every series up to its end is expanded, so "what do I have in the next 600 years" or "in 626040970
# minutes" would keep a worker busy for minutes.
LONGEST_RANGE = timedelta(days=2 * 366)
FARTHEST_AHEAD = timedelta(days=10 * 366)
# The lengths an event may have, in minutes (the planners refuse others).
SHORTEST_EVENT, LONGEST_EVENT = 5, 14 * 24 * 60


def unread_time(text: str, times: list[TimeMatch]) -> str | None:
    """A question naming the first date, time or length in ``text`` that could not be read, if any;
    ``times`` are the expressions the resolver read in ``text`` (the caller has them already)."""
    lowered = text.casefold()
    impossible = _NO_CLOCK.search(lowered)
    if impossible:
        said = text[impossible.start() : impossible.end()]
        return f'"{said}" is not a time of day (a day has 00:00 to 23:59). What time did you mean?'
    read = [m.span for m in times if not m.error]
    read += [d.span for d in find_durations(lowered) if d.minutes > 0]
    for token in _TIMEISH.finditer(lowered):
        start, end = token.span("day") if token["day"] else token.span()
        if not any(lo <= start and end <= hi for lo, hi in read):
            said = text[start:end]
            return f'I couldn\'t read "{said}" as a date, a time or a length. What did you mean?'
    return None


def out_of_reach(start: datetime | None, end: datetime | None, now: datetime) -> str | None:
    """A question when a request would read or change more than two years at once, reach more than
    ten years ahead, or go back to before its zone kept standard time."""
    if start is None or end is None:
        return None
    if before_standard_time(start):
        return f"{_day(start)} is further back than I look."
    if end - start > LONGEST_RANGE:
        return f"From {_day(start)} to {_day(end)} is more than I look through at once (two years at most)."
    if end > now + FARTHEST_AHEAD:
        return f"{_day(max(start, now))} is further ahead than I look (ten years at most)."
    return None


# Requests that read or change every event of a range, which must not be unbounded (a creation's range
# is the day it goes on, and a repeat's end is read apart).
_RANGED = (*READS, "move", "delete")


def bounded(frame: RequestFrame, now: datetime) -> RequestFrame:
    """The frame, asked about (its ``error``) when it would read or change too long or too far a range."""
    if frame.operation in _RANGED and not frame.error:
        frame.error = out_of_reach(frame.start, frame.end, now)
    return frame


def before_standard_time(moment: datetime | date, tz: ZoneInfo | None = None) -> bool:
    """Whether ``moment`` (a day: its noon in ``tz``) is from before its zone kept standard time: local
    mean time has offsets in seconds ("-04:56:02"), which no ISO 8601 reader of the planners takes."""
    if not isinstance(moment, datetime):
        moment = datetime.combine(moment, time(12), tz)
    offset = moment.utcoffset()
    return offset is not None and offset.seconds % 60 != 0


def long_ago(day: date | None, tz: ZoneInfo) -> str | None:
    """A question when ``day`` is from before ``tz`` kept standard time."""
    return f"{_day(day)} is further back than I look." if day and before_standard_time(day, tz) else None


def odd_length(minutes: int | None) -> str | None:
    """A question when a length said is one no event can have (shorter than 5 minutes, longer than
    two weeks)."""
    if minutes is None or SHORTEST_EVENT <= minutes <= LONGEST_EVENT:
        return None
    return "An event can last from 5 minutes to two weeks. How long should it be?"


def _day(moment: date) -> str:
    return f"{moment:%B} {moment.day}, {moment.year}"


def too_long_overnight(match: TimeMatch) -> str | None:
    """A question when an interval ends at an earlier clock time the next day, long after it starts,
    or ends when it starts ("3pm to 3pm")."""
    if not (match.is_interval and match.has_time and match.start and match.end):
        return None
    if match.end <= match.start:
        return f'"{match.text}" ends as soon as it starts. When should it end?'

    if match.end.date() != match.start.date() and match.end - match.start > _LONGEST_OVERNIGHT:
        return (
            f'"{match.text}" would end before it starts (or almost a day later). '
            "When should it start and end?"
        )
    return None


def missing_wall_time(match: TimeMatch, tz: ZoneInfo) -> str | None:
    """A question when the clock time said does not exist that day (the hour the clocks skip when
    they go forward): "2:30 am" on such a day would silently become 3:30."""
    if not match.has_time or match.start is None:
        return None
    said = match.start.astimezone(tz) if match.start.tzinfo is not tz else match.start
    real = said.astimezone(UTC).astimezone(tz)
    if (real.hour, real.minute) == (said.hour, said.minute):
        return None
    return (
        f"{said:%-I:%M %p} doesn't exist on {said:%A, %B} {said.day}: the clocks go forward then. "
        f"Should it be at {real:%-I:%M %p}, or another time?"
    )


def ends_before(start: datetime, end: datetime) -> str | None:
    """A question when an end said apart ("at 4pm that ends at 3:30", "3pm to 3pm") is not after
    the start."""
    if end > start:
        return None
    if end == start:
        return f"It would end at {start:%-I:%M %p}, as soon as it starts. When should it end?"
    return (
        f"It would start at {start:%-I:%M %p} and end at {end:%-I:%M %p}, before it starts. "
        "When should it end?"
    )
