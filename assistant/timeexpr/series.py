"""Recurring sets of time spans ("series") and the calendar arithmetic under them.

A time expression denotes a set of spans (every Friday, every 13th of March, the mornings); the
resolver then picks one of them relative to the reference time. Keeping sets rather than single
values is what lets expressions compose by intersection ("Friday" and "the 13th", "9" and
"tomorrow morning") the way Duckling's grammar does, without a rule per combination.

Every datetime here is naive wall-clock time in the reference's zone: calendar phrases ("next
Tuesday at 1pm") mean wall time even across a daylight-saving change, and the zone is attached
only when a match is returned. Spans are half-open ``[start, end)``.

``forward(t)`` yields spans in increasing order starting with the first that ends after ``t``
(so the one under way counts, as "this morning" at 9 am does); ``backward(t)`` yields the spans
that ended by ``t``, latest first. Intersections follow Duckling: inside the coarse span under way
the fine spans are taken from its start, so "today at 2pm" asked at 3pm is today's 2pm.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterator, Sequence
from datetime import date, datetime, time, timedelta

from assistant.timeexpr.lexicon import GRAINS, Grain

__all__ = [
    "AnySeason",
    "CycleNthWithin",
    "DayOfMonth",
    "DayOfWeek",
    "DaySet",
    "Fixed",
    "Intersect",
    "Month",
    "NthWithin",
    "PartOfDay",
    "Season",
    "Series",
    "Shifted",
    "Span",
    "TimeOfDay",
    "Weekend",
    "Year",
    "Yearly",
    "add",
    "add_months",
    "finer",
    "first",
    "truncate",
]

Span = tuple[datetime, datetime]

# How far a search runs before giving up: enough for "the next Friday the 13th in February".
HORIZON = timedelta(days=366 * 40)
# How many spans of the driving series an intersection may find empty in a row before it gives up:
# "Friday the 18th of July" needs about a dozen years, an impossible mix would otherwise run on.
_BARREN_LIMIT = 1500
_RANK = {g: i for i, g in enumerate(GRAINS)}
_DAY = timedelta(days=1)
_FIXED_STEPS: dict[Grain, timedelta] = {
    "second": timedelta(seconds=1),
    "minute": timedelta(minutes=1),
    "hour": timedelta(hours=1),
    "day": _DAY,
    "week": timedelta(days=7),
}


def finer(a: Grain, b: Grain) -> Grain:
    """The finer of two grains: what a combination of two expressions is precise to."""
    return a if _RANK[a] <= _RANK[b] else b


def coarser_than(a: Grain, b: Grain) -> bool:
    return _RANK[a] > _RANK[b]


def truncate(dt: datetime, grain: Grain) -> datetime:
    """Start of the calendar unit of ``grain`` containing ``dt`` (weeks start on Monday)."""
    if grain == "second":
        return dt.replace(microsecond=0)
    if grain == "minute":
        return dt.replace(second=0, microsecond=0)
    if grain == "hour":
        return dt.replace(minute=0, second=0, microsecond=0)
    day = datetime(dt.year, dt.month, dt.day)
    if grain == "day":
        return day
    if grain == "week":
        return day - timedelta(days=day.weekday())
    if grain == "month":
        return day.replace(day=1)
    if grain == "quarter":
        return datetime(dt.year, 3 * ((dt.month - 1) // 3) + 1, 1)
    return datetime(dt.year, 1, 1)


def add_months(dt: datetime, n: int) -> datetime:
    """``dt`` moved by ``n`` calendar months, the day clamped to the target month's length."""
    index = dt.year * 12 + dt.month - 1 + n
    year, month = divmod(index, 12)
    day = min(dt.day, calendar.monthrange(year, month + 1)[1])
    return dt.replace(year=year, month=month + 1, day=day)


def add(dt: datetime, grain: Grain, n: int) -> datetime:
    """``dt`` moved by ``n`` units of ``grain`` in wall-clock time."""
    if grain in _FIXED_STEPS:
        return dt + _FIXED_STEPS[grain] * n
    return add_months(dt, n * {"month": 1, "quarter": 3, "year": 12}[grain])


class Series:
    """A set of spans, searchable forwards and backwards from an instant."""

    grain: Grain = "day"
    # How sparse the series is among series of the same grain: the sparser one drives an
    # intersection, so "Thursday the 15th" walks the 15ths and checks their weekday.
    sparsity: int = 0
    # Spans that belong whole to the unit they start in: "tomorrow night" is the night starting
    # tomorrow, not the small hours of tomorrow left over from tonight.
    keeps_shape: bool = False

    def forward(self, t: datetime) -> Iterator[Span]:
        raise NotImplementedError

    def backward(self, t: datetime) -> Iterator[Span]:
        raise NotImplementedError


def first(series: Series, t: datetime) -> Span | None:
    """The span an expression means at ``t``: the next one, else the latest past one."""
    for span in series.forward(t):
        return span
    for span in series.backward(t):
        return span
    return None


class Fixed(Series):
    """One known span: "tomorrow", "next week", "in 3 days"."""

    sparsity = 100

    def __init__(self, span: Span, grain: Grain) -> None:
        self.span = span
        self.grain = grain

    def forward(self, t: datetime) -> Iterator[Span]:
        if self.span[1] > t:
            yield self.span

    def backward(self, t: datetime) -> Iterator[Span]:
        if self.span[1] <= t:
            yield self.span


class _Daily(Series):
    """Whole days picked out of the calendar: weekdays, days of the month."""

    def day_spans(self, day: date) -> Sequence[Span]:
        raise NotImplementedError

    # Iterating day by day is slow for sparse series; subclasses jump with ``next_day``.
    def forward(self, t: datetime) -> Iterator[Span]:
        day = t.date() - _DAY
        limit = (t + HORIZON).date()
        while day <= limit:
            for span in self.day_spans(day):
                if span[1] > t:
                    yield span
            day = self.next_day(day, 1)

    def backward(self, t: datetime) -> Iterator[Span]:
        day = t.date()
        limit = (t - HORIZON).date()
        while day >= limit:
            for span in reversed(self.day_spans(day)):
                if span[1] <= t:
                    yield span
            day = self.next_day(day, -1)

    def next_day(self, day: date, step: int) -> date:
        return day + step * _DAY


def _day_span(day: date) -> Span:
    start = datetime(day.year, day.month, day.day)
    return start, start + _DAY


class DayOfWeek(_Daily):
    sparsity = 1

    def __init__(self, weekday: int) -> None:
        self.weekday = weekday

    def day_spans(self, day: date) -> Sequence[Span]:
        return (_day_span(day),) if day.weekday() == self.weekday else ()

    def next_day(self, day: date, step: int) -> date:
        gap = ((self.weekday - day.weekday()) * step) % 7 or 7
        return day + gap * step * _DAY


class DaySet(_Daily):
    """Several weekdays at once: "weekdays" is Monday to Friday."""

    sparsity = 0

    def __init__(self, weekdays: frozenset[int]) -> None:
        self.weekdays = weekdays

    def day_spans(self, day: date) -> Sequence[Span]:
        return (_day_span(day),) if day.weekday() in self.weekdays else ()


class DayOfMonth(_Daily):
    """The n-th of every month that has one."""

    sparsity = 2

    def __init__(self, day: int) -> None:
        self.day = day

    def day_spans(self, day: date) -> Sequence[Span]:
        return (_day_span(day),) if day.day == self.day else ()

    def next_day(self, day: date, step: int) -> date:
        year, month = day.year, day.month
        if not (day.day < self.day if step > 0 else day.day > self.day):
            year, month = _month_step(year, month, step)
        while self.day > calendar.monthrange(year, month)[1]:
            year, month = _month_step(year, month, step)
        return date(year, month, self.day)


def _month_step(year: int, month: int, step: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + step
    return index // 12, index % 12 + 1


class Yearly(Series):
    """Spans computed per year: holidays and seasons."""

    sparsity = 4
    keeps_shape = True

    def __init__(self, spans_of_year: Callable[[int], Sequence[tuple[date, date]]]) -> None:
        self.spans_of_year = spans_of_year

    def forward(self, t: datetime) -> Iterator[Span]:
        for year in range(t.year - 1, (t + HORIZON).year + 1):
            for start, end in self.spans_of_year(year):
                span = datetime(start.year, start.month, start.day), datetime(end.year, end.month, end.day)
                if span[1] > t:
                    yield span

    def backward(self, t: datetime) -> Iterator[Span]:
        for year in range(t.year + 1, (t - HORIZON).year - 1, -1):
            for start, end in reversed(self.spans_of_year(year)):
                span = datetime(start.year, start.month, start.day), datetime(end.year, end.month, end.day)
                if span[1] <= t:
                    yield span


class Month(Series):
    grain: Grain = "month"
    sparsity = 3

    def __init__(self, month: int) -> None:
        self.month = month

    def _span(self, year: int) -> Span:
        start = datetime(year, self.month, 1)
        return start, add_months(start, 1)

    def forward(self, t: datetime) -> Iterator[Span]:
        for year in range(t.year, (t + HORIZON).year + 1):
            span = self._span(year)
            if span[1] > t:
                yield span

    def backward(self, t: datetime) -> Iterator[Span]:
        for year in range(t.year, (t - HORIZON).year - 1, -1):
            span = self._span(year)
            if span[1] <= t:
                yield span


class Year(Fixed):
    """A calendar year: a fixed span, ranked as sparser than other fixed spans when intersecting."""

    sparsity = 50

    def __init__(self, year: int) -> None:
        super().__init__((datetime(year, 1, 1), datetime(year + 1, 1, 1)), "year")


class TimeOfDay(Series):
    """A clock time every day; an hour said without am/pm stands for both of its 12-hour readings.

    Going forward, a time counts while its hour is under way, as in Duckling: "at 4:23" asked at
    4:30 is today's 4:23, "at 3:15" asked then is 3:15 pm.
    """

    sparsity = 0

    def __init__(self, hours: tuple[int, ...], minute: int, second: int, grain: Grain) -> None:
        self.hours = hours
        self.minute = minute
        self.second = second
        self.grain = grain
        self._length = _FIXED_STEPS[grain]

    def _day(self, day: date) -> list[Span]:
        spans = []
        for hour in self.hours:
            start = datetime(day.year, day.month, day.day, hour, self.minute, self.second)
            spans.append((start, start + self._length))
        return spans

    def forward(self, t: datetime) -> Iterator[Span]:
        day = t.date() - _DAY
        while True:
            for span in self._day(day):
                if span[0].replace(minute=0, second=0) + _FIXED_STEPS["hour"] > t:
                    yield span
            day += _DAY

    def backward(self, t: datetime) -> Iterator[Span]:
        day = t.date()
        while True:
            for span in reversed(self._day(day)):
                if span[1] <= t:
                    yield span
            day -= _DAY


class PartOfDay(Series):
    """A daily span such as the afternoon; one that ends at or before its start ends next day."""

    grain: Grain = "hour"
    sparsity = 1
    keeps_shape = True

    def __init__(self, start: time, end: time) -> None:
        self.start = start
        self.end = end
        self.crosses_midnight = end <= start

    def _span(self, day: date) -> Span:
        start = datetime.combine(day, self.start)
        end_day = day + _DAY if self.crosses_midnight else day
        return start, datetime.combine(end_day, self.end)

    def forward(self, t: datetime) -> Iterator[Span]:
        day = t.date() - _DAY
        while True:
            span = self._span(day)
            if span[1] > t:
                yield span
            day += _DAY

    def backward(self, t: datetime) -> Iterator[Span]:
        day = t.date()
        while True:
            span = self._span(day)
            if span[1] <= t:
                yield span
            day -= _DAY


class Weekend(Series):
    """Friday evening to Monday 00:00: the weekend starts when the product's evening does."""

    grain: Grain = "hour"
    sparsity = 2
    keeps_shape = True

    def __init__(self, friday_start: time) -> None:
        self.friday_start = friday_start

    def _span(self, monday: datetime) -> Span:
        friday = monday + timedelta(days=4)
        return datetime.combine(friday.date(), self.friday_start), monday + timedelta(days=7)

    def forward(self, t: datetime) -> Iterator[Span]:
        monday = truncate(t, "week")
        while True:
            yield self._span(monday)
            monday += timedelta(days=7)

    def backward(self, t: datetime) -> Iterator[Span]:
        monday = truncate(t, "week") - timedelta(days=7)
        while True:
            yield self._span(monday)
            monday -= timedelta(days=7)


class Season(Yearly):
    """A season between two (month, day) boundaries; winter straddles the new year."""

    grain: Grain = "day"

    def __init__(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        def spans(year: int) -> Sequence[tuple[date, date]]:
            end_year = year + 1 if end < start else year
            return ((date(year, *start), date(end_year, *end)),)

        super().__init__(spans)


class AnySeason(Yearly):
    """Whichever season: "next season"."""

    def __init__(self, bounds: Sequence[tuple[tuple[int, int], tuple[int, int]]]) -> None:
        def spans(year: int) -> Sequence[tuple[date, date]]:
            out = [
                (date(year, *start), date(year + 1 if end < start else year, *end)) for start, end in bounds
            ]
            return sorted(out)

        super().__init__(spans)


class Intersect(Series):
    """Spans of one series inside spans of another: "Friday" ∩ "next week"."""

    def __init__(self, a: Series, b: Series) -> None:
        if coarser_than(a.grain, b.grain) or (a.grain == b.grain and a.sparsity >= b.sparsity):
            self.coarse, self.fine = a, b
        else:
            self.coarse, self.fine = b, a
        self.grain = self.fine.grain
        self.sparsity = max(a.sparsity, b.sparsity)

    def _within(self, coarse: Span, spans: Iterator[Span], forward: bool) -> Iterator[Span]:
        whole = self.fine.keeps_shape
        for start, end in spans:
            if (start >= coarse[1]) if forward else (end <= coarse[0]):
                return
            if whole:
                if start >= coarse[0]:
                    yield start, end
                continue
            lo, hi = max(start, coarse[0]), min(end, coarse[1])
            if lo < hi:
                yield lo, hi

    def forward(self, t: datetime) -> Iterator[Span]:
        barren = 0
        for coarse in self.coarse.forward(t):
            found = False
            for span in self._within(coarse, self.fine.forward(coarse[0]), True):
                found = True
                yield span
            barren = 0 if found else barren + 1
            if barren > _BARREN_LIMIT:
                return

    def backward(self, t: datetime) -> Iterator[Span]:
        # Within each coarse span the fine ones are listed forwards, as ``forward`` finds them, then
        # given latest first: "last night" is the night that started yesterday, though it ends today.
        for under_way in self.coarse.forward(t):
            if under_way[0] < t:
                found = [
                    s for s in self._within(under_way, self.fine.forward(under_way[0]), True) if s[1] <= t
                ]
                yield from reversed(found)
            break
        barren = 0
        for coarse in self.coarse.backward(t):
            found = list(self._within(coarse, self.fine.forward(coarse[0]), True))
            yield from reversed(found)
            barren = 0 if found else barren + 1
            if barren > _BARREN_LIMIT:
                return


class Shifted(Series):
    """A series moved by a duration: "a year after Christmas" is every Christmas plus a year."""

    def __init__(self, series: Series, move: Callable[[datetime, int], datetime]) -> None:
        self.series = series
        self.move = move
        self.grain = series.grain
        self.sparsity = series.sparsity

    def _shift(self, span: Span) -> Span:
        return self.move(span[0], 1), self.move(span[1], 1)

    def forward(self, t: datetime) -> Iterator[Span]:
        for span in self.series.forward(self.move(t, -1)):
            moved = self._shift(span)
            if moved[1] > t:
                yield moved

    def backward(self, t: datetime) -> Iterator[Span]:
        for span in self.series.backward(self.move(t, -1)):
            moved = self._shift(span)
            if moved[1] <= t:
                yield moved


class NthWithin(Series):
    """The n-th (or n-th last) span of ``inner`` inside each span of ``outer``.

    "the first Tuesday of October", "the last Sunday of March 2014", "the last weekend of July".
    A span counts as inside when it starts inside, so a weekend starting on July 26 belongs to July.
    """

    def __init__(self, outer: Series, inner: Series, n: int, from_end: bool) -> None:
        self.outer = outer
        self.inner = inner
        self.n = n
        self.from_end = from_end
        self.grain = inner.grain
        self.sparsity = max(outer.sparsity, 5)

    def _pick(self, outer: Span) -> Span | None:
        found: list[Span] = []
        for span in self.inner.forward(outer[0]):
            if span[0] >= outer[1]:
                break
            if span[0] >= outer[0]:
                found.append(span)
                if not self.from_end and len(found) > self.n:
                    break
        if self.n >= len(found):
            return None
        return found[-1 - self.n] if self.from_end else found[self.n]

    def forward(self, t: datetime) -> Iterator[Span]:
        for outer in self.outer.forward(t):
            span = self._pick(outer)
            if span is not None:
                yield span

    def backward(self, t: datetime) -> Iterator[Span]:
        for outer in self.outer.backward(t):
            span = self._pick(outer)
            if span is not None:
                yield span


class CycleNthWithin(Series):
    """The n-th calendar unit counted from the start (or back from the end) of each span.

    "the third day of October", "the fifth last day of May", "the second last week of October".
    From the end, the unit is the one holding the instant n units before the span ends.
    """

    def __init__(self, outer: Series, grain: Grain, n: int, from_end: bool) -> None:
        self.outer = outer
        self.grain = grain
        self.n = n
        self.from_end = from_end
        self.sparsity = max(outer.sparsity, 5)

    def _pick(self, outer: Span) -> Span:
        if self.from_end:
            start = truncate(add(outer[1], self.grain, -self.n), self.grain)
        else:
            start = add(truncate(outer[0], self.grain), self.grain, self.n)
        return start, add(start, self.grain, 1)

    def forward(self, t: datetime) -> Iterator[Span]:
        for outer in self.outer.forward(t):
            yield self._pick(outer)

    def backward(self, t: datetime) -> Iterator[Span]:
        for outer in self.outer.backward(t):
            yield self._pick(outer)
