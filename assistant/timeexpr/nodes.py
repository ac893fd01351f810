"""What the grammar builds: a parsed time expression before it becomes a :class:`TimeMatch`.

A node keeps its parts apart (the calendar part, the clock time, the day part) as well as the
series they make together, because combining two nodes needs the parts: "5" next to "tomorrow
afternoon" must read as 5 pm inside tomorrow's afternoon, which the bare series cannot tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time, tzinfo

from assistant.timeexpr.lexicon import DAY_PARTS, EXTRA_PARTS, PART_WINDOWS, Grain
from assistant.timeexpr.series import Intersect, PartOfDay, Series, Span, TimeOfDay

__all__ = [
    "ALL_FIELDS",
    "DATE_FIELDS",
    "DAY_FIELDS",
    "FIELDS_OF_UNIT",
    "HOLIDAY_FIELDS",
    "Node",
    "Tod",
    "compose",
    "part_bounds",
]

# The calendar slots an expression fixes. Two expressions combine only if they fix different
# slots: "Friday" (weekday) with "the 13th" (day), not "Friday" with "Monday".
YEAR, QUARTER, MONTH, WEEK, DAY, WEEKDAY, TIME, PART = "Y", "Q", "M", "W", "D", "WD", "T", "P"
DATE_FIELDS = frozenset({YEAR, QUARTER, MONTH, WEEK, DAY, WEEKDAY})
ALL_FIELDS = DATE_FIELDS | {TIME, PART}
DAY_FIELDS = frozenset({QUARTER, MONTH, WEEK, DAY})  # a day of the year: "March 13"
HOLIDAY_FIELDS = DAY_FIELDS | {WEEKDAY}
# What a span of one calendar unit fixes: "next month" leaves the day free ("the 20th of next month").
FIELDS_OF_UNIT: dict[Grain, frozenset[str]] = {
    "year": frozenset({YEAR}),
    "quarter": frozenset({YEAR, QUARTER}),
    "month": frozenset({YEAR, QUARTER, MONTH}),
    "week": frozenset({YEAR, QUARTER, MONTH, WEEK}),
    "day": DATE_FIELDS,
}


@dataclass(frozen=True, slots=True)
class Tod:
    """A clock time. ``ambiguous``: said without am/pm, so ``hour`` (1-12) may also be ``hour + 12``."""

    hour: int
    minute: int = 0
    second: int = 0
    grain: Grain = "hour"
    ambiguous: bool = False

    def hours(self) -> tuple[int, ...]:
        if self.ambiguous:
            return (self.hour % 12, self.hour % 12 + 12)
        return (self.hour,)

    def in_part(self, part: str) -> Tod:
        """This time read inside a day part: "5" in the afternoon is 17:00, "2" at night is 2 am."""
        if not self.ambiguous:
            return self
        h = self.hour % 12
        if part in (
            "afternoon",
            "early afternoon",
            "late afternoon",
            "after lunch",
            "evening",
            "early evening",
            "late evening",
            "after work",
            "after school",
        ):
            h += 12
        elif part == "lunch":
            h += 12 if h <= 5 else 0
        elif part in ("night", "late night", "tonight"):
            h += 12 if h >= 6 else 0
        return Tod(h, self.minute, self.second, self.grain, ambiguous=False)

    def series(self) -> TimeOfDay:
        return TimeOfDay(self.hours(), self.minute, self.second, self.grain)


def part_bounds(part: str) -> tuple[time, time]:
    return DAY_PARTS.get(part) or EXTRA_PARTS[part]


def compose(anchor: Series | None, tod: Tod | None, part: str | None) -> Series | None:
    """The series of a calendar part, a clock time and a day part taken together."""
    if part is not None:
        window = PART_WINDOWS.get(part, part_bounds(part)) if tod is not None else part_bounds(part)
        series: Series = PartOfDay(*window)
        if anchor is not None:
            series = Intersect(anchor, series)
        if tod is not None:
            series = Intersect(series, tod.in_part(part).series())
        return series
    if tod is not None:
        return tod.series() if anchor is None else Intersect(anchor, tod.series())
    return anchor


@dataclass(frozen=True, slots=True)
class Node:
    series: Series
    grain: Grain
    fields: frozenset[str]
    anchor: Series | None = None  # the calendar part alone (days, months...), if any
    tod: Tod | None = None
    part: str | None = None  # a day part: a key of DAY_PARTS or EXTRA_PARTS
    latent: bool = False  # needs another expression next to it to count ("9", "May", "the 24")
    has_date: bool = False
    has_time: bool = False
    day_part: str | None = None
    weekdays: frozenset[int] = frozenset()
    recurring: bool = False  # "on Mondays", "mornings": every such day or part, not one of them
    is_interval: bool = False
    loose_start: bool = False  # an interval from a clock time said without am/pm or a day part
    bare: int | None = None  # a bare number a range may read as an hour or as a day of the month
    alone: Span | None = None  # the value when the node stands alone ("in 3 years" is one instant)
    span: Span | None = None  # an already resolved interval (ranges, open intervals)
    open_end: bool = False  # "since 2014": no end
    # "after 3pm tomorrow": to the end of that day, which no word said (an event then takes its own length)
    rest_of_day: bool = False
    error: str | None = None
    tz: tzinfo | None = None  # the zone the text named ("4pm CET")
