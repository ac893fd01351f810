"""Times placed relative to others: "in 3 days", "2 weeks ago", "the first Tuesday of October",
"the closest Monday to October 5th", "early March", "the end of the year"."""

from __future__ import annotations

from collections.abc import Iterator

from assistant.timeexpr.durations import dur_of, grain_rank
from assistant.timeexpr.holidays import holiday_spans
from assistant.timeexpr.lexicon import (
    PERIOD_SHORTHANDS,
    ROUGHLY,
    UNITS,
    WEEKDAY_PLURALS,
    WEEKDAYS,
    WEEKEND_START,
    Grain,
)
from assistant.timeexpr.nodes import (
    ALL_FIELDS,
    DATE_FIELDS,
    DAY,
    FIELDS_OF_UNIT,
    MONTH,
    PART,
    TIME,
    Node,
    compose,
)
from assistant.timeexpr.parser import Parse, Parser, calendar_target
from assistant.timeexpr.series import (
    CycleNthWithin,
    DayOfMonth,
    DayOfWeek,
    Fixed,
    NthWithin,
    Series,
    Shifted,
    Span,
    Weekend,
    Yearly,
    add,
    first,
    truncate,
)

__all__ = ["RelativeRules"]

# Parts of a period, in its sub-units from its start: "early March" is March 1-10, "the end of the year"
# September to December, "the beginning of the week" Monday to Wednesday (None: to the period's end).
_PORTIONS: dict[str, dict[str, tuple[int, int | None]]] = {
    "month": {
        "early": (0, 10),
        "beginning": (0, 10),
        "start": (0, 10),
        "mid": (10, 20),
        "middle": (10, 20),
        "late": (20, None),
        "end": (20, None),
    },
    "year": {
        "early": (0, 3),
        "beginning": (0, 3),
        "start": (0, 3),
        "mid": (4, 8),
        "middle": (4, 8),
        "late": (8, None),
        "end": (8, None),
    },
    "week": {
        "early": (0, 3),
        "beginning": (0, 3),
        "start": (0, 3),
        "mid": (2, 4),
        "middle": (2, 4),
        "late": (4, None),
        "end": (4, None),
    },
}
# The unit a part of a period is counted in, and the calendar slots such a part fixes.
_PORTION_UNITS: dict[str, tuple[Grain, frozenset[str]]] = {
    "month": ("day", FIELDS_OF_UNIT["week"]),
    "year": ("month", FIELDS_OF_UNIT["quarter"]),
    "week": ("day", FIELDS_OF_UNIT["week"]),
}


class RelativeRules(Parser):
    """Rules for offsets, counting inside periods and parts of periods."""

    def offset(self, i: int) -> Parse | None:
        """Durations from now or from another time: "in 3 days", "2 weeks ago", "a year after Christmas"."""
        if self.words[i] == "in":
            j = i + 2 if self.words[i + 1] in ROUGHLY else i + 1
            found = self.duration(j)
            if found is not None:
                return found[0], self.from_now(found[1], 1)
            minutes = self.integers[j]
            if (
                minutes is not None
                and 0 <= minutes <= 60
                and self.words[j + 1] not in UNITS
                and self.kinds[j + 1] != "word"
            ):
                return j + 1, self.from_now(dur_of(minutes, "minute"), 1)
            return None
        counted = self._counted_weekdays(i)
        if counted is not None:
            return counted
        found = self.duration(i)
        if found is None:
            return None
        j, dur = found
        for words, sign in (
            (("from", "now"), 1),
            (("hence",), 1),
            (("later",), 1),
            (("from", "today"), 1),
            (("ago",), -1),
            (("back",), -1),
            (("before", "now"), -1),
            (("earlier",), -1),
        ):
            k = self.phrase(j, words)
            if k > 0:
                return k, self.from_now(dur, sign)
        if self.words[j] in ("after", "from", "before", "past"):
            target = self.point(j + 1)
            if target is None or target[1].latent or (target[1].anchor is None and target[1].alone is None):
                return None
            base = target[1]
            sign = -1 if self.words[j] == "before" else 1
            # "2 weeks from Monday" is the coming Monday moved on; a holiday moves as a whole series,
            # so "a year after Christmas" said in February is the coming Christmas (Duckling's reading).
            series: Series
            if isinstance(base.anchor, Yearly):
                series = base.series
            else:
                span = self.resolve(base)
                if span is None:
                    return None
                series = Fixed(span, base.grain)
            moved = Shifted(series, lambda dt, s: self.shift(dt, dur, s * sign))
            if first(moved, self.now) is None:
                return None
            fields = ALL_FIELDS if base.has_time else DATE_FIELDS
            node = Node(moved, base.grain, fields, anchor=moved, has_date=True, has_time=base.has_time)
            return target[0], node
        return None

    def _counted_weekdays(self, i: int) -> Parse | None:
        """A counted weekday: "3 fridays from now" is the third Friday after today, "two sundays ago"."""
        count = self.cardinal(i)
        if count is None or count[1] < 1:
            return None
        j = count[0]
        word = self.words[j]
        number = WEEKDAY_PLURALS.get(word, WEEKDAYS.get(word) if count[1] == 1 else None)
        if number is None:
            return None
        series = DayOfWeek(number)
        n = count[1]
        for words, forward in (
            (("from", "now"), True),
            (("hence",), True),
            (("ago",), False),
            (("back",), False),
        ):
            k = self.phrase(j + 1, words)
            if k > 0:
                spans: Iterator[Span]
                if forward:
                    spans = (s for s in series.forward(self.now) if s[0] > self.now)
                else:
                    spans = series.backward(self.today)
                for index, span in enumerate(spans):
                    if index == n - 1:
                        return k, self.fixed(span, "day", DATE_FIELDS)
        return None

    def nth(self, i: int) -> Parse | None:
        """Counting inside a period: "the first Tuesday of October", "last day of October 2015", "the 2nd
        last week of October 2018", "20th of next month", "the day after Christmas", "the week of the 6th"."""
        j = self.skip(self.skip(i, "on"), "the")  # "on the second Tuesday of April"
        candidates: list[Parse] = []
        last = self.words[j] == "last"
        count = self.ordinal(j)
        n, k = (count[1], count[0]) if count is not None else (1, j + 1 if last else -1)
        if k < 0:
            k = j
        if count is not None and self.words[k] == "last":
            last, k = True, k + 1
        if count is not None or last:
            inner, unit, k2 = self._nth_inner(k)
            if k2 > 0 and self.words[k2] in ("of", "in", "from"):
                target = self.point(k2 + 1)
                outer = target[1].anchor if target is not None and calendar_target(target[1]) else None
                if target is not None and outer is not None:
                    series: Series
                    if unit is not None:
                        series = CycleNthWithin(outer, unit, n if last else n - 1, last)
                        grain = unit
                    else:
                        assert inner is not None
                        series = NthWithin(outer, inner, n - 1, last)
                        grain = "hour" if isinstance(inner, Weekend) else "day"
                    # "the first Monday of May at 9am": the time said with the month is the day's
                    tod, part = target[1].tod, target[1].part
                    timed = compose(series, tod, part) if tod is not None or part is not None else series
                    if timed is not None and first(timed, self.now) is not None:
                        node = Node(
                            timed,
                            tod.grain if tod is not None else grain,
                            DATE_FIELDS | (target[1].fields & {TIME, PART}),
                            anchor=series,
                            tod=tod,
                            part=part,
                            has_date=True,
                            has_time=target[1].has_time,
                            day_part=target[1].day_part,
                            is_interval=tod is None and (part is not None or grain != "day"),
                        )
                        candidates.append((target[0], node))
            if count is not None and inner is not None and k2 > 0 and self.words[k2] == "after":
                target = self.point(k2 + 1)
                if target is not None and not target[1].latent:
                    base = self.resolve(target[1])
                    if base is not None:
                        spans = (s for s in inner.forward(base[1]) if s[0] >= base[1])
                        for index, span in enumerate(spans):
                            if index == n - 1:
                                candidates.append((target[0], self.fixed(span, "day", DATE_FIELDS)))
                                break
        dom = self.day_of_month(j)
        if dom is not None:
            k = self.phrase(dom[0], ("day", "of"))
            k = k if k > 0 else dom[0] + 1 if self.words[dom[0]] in ("of", "in") else -1
            if k > 0:
                k = self.skip(k, "the")
                target = self.point(k)
                if target is not None and MONTH in target[1].fields and DAY not in target[1].fields:
                    merged = self.merge(
                        Node(
                            DayOfMonth(dom[1]),
                            "day",
                            frozenset({DAY}),
                            anchor=DayOfMonth(dom[1]),
                            has_date=True,
                        ),
                        target[1],
                    )
                    if merged is not None:
                        candidates.append((target[0], merged))
        unit_word = self.words[j]
        relation = self.words[j + 1]
        if (
            unit_word in UNITS
            and UNITS[unit_word] in ("day", "week", "month", "year")
            and relation in ("after", "before", "of")
        ):
            # "the day after Christmas", "the week before last", "the week of October 6th"
            target = self.point(j + 2)
            if target is not None and TIME in target[1].fields:
                target = self.atom(j + 2)
            grain = UNITS[unit_word]
            if (
                target is not None
                and not target[1].latent
                and TIME not in target[1].fields
                and (relation != "of" or grain_rank(target[1].grain) < grain_rank(grain))
            ):
                base = self.resolve(target[1])
                if base is not None:
                    sign = {"after": 1, "before": -1, "of": 0}[relation]
                    start = add(truncate(base[0], grain), grain, sign)
                    fields = FIELDS_OF_UNIT[grain]
                    node = self.fixed(
                        (start, add(start, grain, 1)), grain, fields, is_interval=grain != "day"
                    )
                    candidates.append((target[0], node))
        return max(candidates, key=lambda c: c[0]) if candidates else None

    def closest(self, i: int) -> Parse | None:
        """The occurrence nearest a date: "the closest Monday to October 5th", "the second closest ..."."""
        j = self.skip(i, "the")
        count = self.ordinal(j)
        n, k = (count[1], count[0]) if count is not None else (1, j)
        if self.words[k] not in ("closest", "nearest"):
            return None
        inner: Series
        if self.words[k + 1] in WEEKDAYS:
            inner = DayOfWeek(WEEKDAYS[self.words[k + 1]])
        elif self.kinds[k + 1] == "hol":
            key = self.toks[k + 1].key
            inner = Yearly(lambda year: holiday_spans(key, year))
        else:
            return None
        if self.words[k + 2] != "to":
            return None
        target = self.point(k + 3)
        base = self.resolve(target[1]) if target is not None and not target[1].latent else None
        if target is None or base is None:
            return None
        near = [s for _, s in zip(range(n + 1), inner.forward(base[0]), strict=False)]
        near += [s for _, s in zip(range(n + 1), inner.backward(base[0]), strict=False)]
        near.sort(key=lambda s: (abs(s[0] - base[0]), s[0]))
        if len(near) < n:
            return None
        return target[0], self.fixed(near[n - 1], "day", DATE_FIELDS)

    def _nth_inner(self, k: int) -> tuple[Series | None, Grain | None, int]:
        """What is counted in "the first <Tuesday|day|week|weekend> of ...": (series, unit, end)."""
        word = self.words[k]
        if word in WEEKDAYS:
            return DayOfWeek(WEEKDAYS[word]), None, k + 1
        end = self._weekend_word(k)
        if end > 0:
            return Weekend(WEEKEND_START), None, end
        if word in UNITS and UNITS[word] in ("day", "week", "month", "quarter"):
            return None, UNITS[word], k + 1
        return None, None, -1

    def part_of(self, i: int) -> Parse | None:
        """Part of a month, year or week: "early March", "the end of the month", "beginning of 2017"."""
        at_the = self.phrase(i, ("at", "the"))
        j = self.skip(at_the if at_the > 0 else i, "the")
        word = self.words[j]
        if word in PERIOD_SHORTHANDS:
            which, grain = PERIOD_SHORTHANDS[word]
            return j + 1, self._portion(which, self.cycle(grain, 0), grain)
        if word not in _PORTIONS["month"]:
            return None
        k = j + 2 if self.puncts[j + 1] == "-" else j + 1
        if self.words[k] == "of":
            k += 1
        elif word not in ("early", "mid", "late"):
            return None
        k = self.skip(k, "the")
        if self.words[k] in ("month", "year", "week") and self.kinds[k + 1] != "num":
            grain = UNITS[self.words[k]]
            return k + 1, self._portion(word, self.cycle(grain, 0), grain)
        target = self.point(k)
        if target is None or not calendar_target(target[1]) or target[1].grain not in _PORTIONS:
            return None
        span = self.resolve(target[1])
        if span is None:
            return None
        return target[0], self._portion(word, span, target[1].grain)

    def _portion(self, which: str, span: Span, grain: Grain) -> Node:
        """The early, middle or late part of a month, year or week (see ``_PORTIONS``)."""
        start = truncate(span[0], grain)
        unit, fields = _PORTION_UNITS[grain]
        lo, hi = _PORTIONS[grain][which]
        end = add(start, unit, hi) if hi is not None else add(start, grain, 1)
        return self.fixed((add(start, unit, lo), end), unit, fields, is_interval=True)
