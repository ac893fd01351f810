"""The values :func:`find_times` and :func:`find_durations` return, as the rest of the app sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["DurationMatch", "TimeMatch"]


@dataclass(frozen=True, slots=True)
class TimeMatch:
    """A time expression found in a text, resolved against a reference time.

    ``start``/``end`` are aware datetimes in the reference's zone; ``end`` is exclusive (a point
    value ends one grain after it starts) and ``None`` for an open end ("since 2014"). Both are
    ``None`` only when ``error`` says why the text names no real date ("February has no 30th day.").
    """

    text: str
    span: tuple[int, int]
    start: datetime | None
    end: datetime | None
    grain: str
    is_interval: bool
    has_date: bool
    has_time: bool
    day_part: str | None
    weekdays: frozenset[int]
    error: str | None
    # The clock time (of a point, or an interval's start) was said without am/pm or a day part: "at 8"
    # could be either half of the day, and a caller that knows the event ("dinner") may take the other.
    loose: bool = False
    # An interval from a time to the end of its day only because no word ended it sooner ("after 3pm
    # tomorrow"): what it says is a start, and a new event there takes its own length.
    rest_of_day: bool = False


@dataclass(frozen=True, slots=True)
class DurationMatch:
    """A length of time found in a text ("for an hour", "90 minutes"), in whole minutes."""

    text: str
    span: tuple[int, int]
    minutes: int
