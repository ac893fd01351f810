"""Calendar dates, months, years and the calendar units around now ("next month", "Q4 2018")."""

from __future__ import annotations

import calendar
from dataclasses import replace
from datetime import datetime

from assistant.timeexpr.durations import grain_rank
from assistant.timeexpr.lexicon import (
    MONTH_NAMES,
    PART_WORDS,
    UNITS,
    WEEKDAYS,
)
from assistant.timeexpr.nodes import (
    DATE_FIELDS,
    DAY,
    DAY_FIELDS,
    FIELDS_OF_UNIT,
    MONTH,
    QUARTER,
    YEAR,
    Node,
)
from assistant.timeexpr.numbers import ordinal_suffix
from assistant.timeexpr.parser import Parse, Parser, by_first_word
from assistant.timeexpr.series import (
    DayOfMonth,
    Fixed,
    Intersect,
    Month,
    Series,
    Span,
    Year,
    add_months,
)

__all__ = ["DateRules"]

# What may follow a date ("December 32 at 7pm"), as opposed to what a number counts ("50 people").
_AFTER_A_DATE = frozenset(
    ["at", "on", "in", "from", "to", "until", "till", "and", "or", "for", "by", "this", "next"]
)
# A day said next to "10-11" makes it that day's hours, not a second date.
_DAY_WORDS = frozenset(WEEKDAYS) | {"today", "tomorrow", "tonight"}
# ... and a part of the day: "Tuesday mornings 9-11" are hours of those mornings, never September 11th
_RANGE_BEFORE = _DAY_WORDS | {"from", "between"} | frozenset(PART_WORDS)
_WHOLE = by_first_word((("all",), ("the", "whole"), ("the", "entire"), ("whole",), ("entire",)))


class DateRules(Parser):
    """Rules for dates and calendar periods."""

    def _date_node(self, month: int, day: int, year: int | None) -> Node:
        """A month and day (and year): the date, or an error a person can act on if it does not exist."""
        length = calendar.monthrange(year if year is not None else 2000, month)[1]
        if day > length:
            where = MONTH_NAMES[month - 1] + (f" {year}" if year is not None else "")
            message = f"{where} has no {ordinal_suffix(day)} day."
            return Node(Fixed((self.now, self.now), "day"), "day", DATE_FIELDS, has_date=True, error=message)
        anchor: Series = Intersect(Month(month), DayOfMonth(day))
        fields = DAY_FIELDS
        if year is not None:
            anchor = Intersect(Year(year), anchor)
            fields = fields | {YEAR}
        return Node(anchor, "day", fields, anchor=anchor, has_date=True)

    def _month_node(self, month: int, year: int | None, latent: bool) -> Node:
        anchor: Series = Month(month)
        fields = frozenset({QUARTER, MONTH})
        if year is not None:
            anchor = Intersect(Year(year), anchor)
            fields = fields | {YEAR}
        return Node(anchor, "month", fields, anchor=anchor, has_date=True, latent=latent, is_interval=True)

    def _trailing_year(self, i: int, allow_short: bool) -> tuple[int, int] | None:
        j = i + 1 if self.puncts[i] == "," else i
        found = self.year(j)
        if found is not None:
            return found
        value = self.integers[j]
        if allow_short and j == i and value is not None and len(self.toks[j].text) == 2:
            return j + 1, 2000 + value
        return None

    def date(self, i: int) -> Parse | None:
        """A calendar date or month: "March 13", "the 1st of March", "14 April 2015", "2/15", "the 15th"."""
        said = self.words[i] in ("on", "in", "during")  # "on the 24th", "in May": no longer vague
        j = i + 1 if said else i
        candidates = [
            found
            for found in (
                self._ides(j),
                *self._month_first(j, said),
                self._day_first(j, said),
                self._numeric_date(j),
                self._month_by_modifier(j),
            )
            if found is not None
        ]
        if not candidates:
            return None
        end, node = max(candidates, key=lambda c: c[0])
        if said and node.latent and node.bare is None:
            node = replace(node, latent=False)
        return end, node

    def _ides(self, i: int) -> Parse | None:
        """The ides of March: the 15th of March, May, July and October, the 13th of other months."""
        k = self.phrase(self.skip(i, "the"), ("ides", "of"))
        named = self.month_name(k) if k > 0 else None
        if named is None:
            return None
        end, month, _ = named
        return end, self._date_node(month, 15 if month in (3, 5, 7, 10) else 13, None)

    def _month_first(self, i: int, said: bool) -> list[Parse | None]:
        """Dates said month first: "March 13", "March the 13th, 2015", "March first", "March 2014"."""
        named = self.month_name(i)
        if named is None:
            return []
        j, month, ambiguous = named
        found: list[Parse | None] = [(j, self._month_node(month, None, ambiguous and not said))]
        # "January twenty five"; not after "may", whose "may two of us come" is no date
        dom = self.day_of_month(self.skip(j, "the")) or (None if ambiguous else self._day_in_words(j))
        if dom is None and not ambiguous:
            dom = self._no_such_day(self.skip(j, "the"))
        if dom is not None and self.puncts[dom[0]] != ":" and self.words[dom[0]] not in UNITS:
            end, day, _ = dom
            year = self._trailing_year(end, allow_short=False)
            found.append(
                (year[0], self._date_node(month, day, year[1]))
                if year
                else (end, self._date_node(month, day, None))
            )
        year = self._trailing_year(self.skip(j, "of"), allow_short=False)
        if year is not None:
            found.append((year[0], self._month_node(month, year[1], False)))
        for words, n in ((("after", "next"), 1), (("before", "last"), -2)):
            k = self.phrase(j, words)
            span = self._nth_month(Month(month), n) if k > 0 else None
            if span is not None:
                found.append((k, self.fixed(span, "month", frozenset({YEAR, QUARTER, MONTH}))))
        return found

    def _no_such_day(self, i: int) -> tuple[int, int, bool] | None:
        """A number after a month that no month has as a day ("December 32", "June 45th"): read as that
        day, so that the date is refused by name rather than the number left out of it."""
        found = self.ordinal(i)
        value = found[1] if found else self.integers[i]
        if value is None:
            return None
        end = found[0] if found else i + 1
        short = found is not None or len(self.toks[i].text) <= 2
        # "December 50 people" counts people: only a number that ends the date is taken for its day
        ends = end >= len(self.words) or self.kinds[end] != "word" or self.words[end] in _AFTER_A_DATE
        if 31 < value < 100 and short and self.puncts[i + 1] != ":" and ends:
            return end, value, found is not None
        return None

    def _day_in_words(self, i: int) -> tuple[int, int, bool] | None:
        """A day said as a number word after a month: "May two", "January twenty five"."""
        found = self.cardinal(i) if self.kinds[i] == "word" else None
        return (found[0], found[1], False) if found is not None and 1 <= found[1] <= 31 else None

    def _day_first(self, i: int, said: bool) -> Parse | None:
        """Dates said day first: "13 March", "the 13th of March", "14th April 15"; or just "the 15th"."""
        the = self.skip(i, "the")
        dom = self.day_of_month(the)
        if dom is None:
            return None
        j, day, is_ordinal = dom
        if is_ordinal and self.words[j] in WEEKDAYS and self.words[j + 1] in ("of", "in"):
            return None  # "the 2nd Tuesday of April": the second Tuesday (counted by ``nth``), no 2nd
        k = self.phrase(j, ("day", "of"))
        k = k if k > 0 else self.skip(j, "of", "in")
        if self.puncts[k] in ("-", "/") and self.glued(k):
            k += 1
        named = self.month_name(k)
        if named is not None:
            end, month, _ = named
            year = self._trailing_year(end, allow_short=is_ordinal)  # "14th April 15" is 2015
            return (year[0] if year else end), self._date_node(month, day, year[1] if year else None)
        # A day of the month alone is vague ("15th") unless said "on the 15th", "the 15th", or ends a text
        latent = not (is_ordinal and (said or the > i)) and not (the > i and self._ends_phrase(j))
        anchor = DayOfMonth(day)
        return j, Node(anchor, "day", frozenset({DAY}), anchor=anchor, has_date=True, latent=latent, bare=day)

    def _month_by_modifier(self, i: int) -> Parse | None:
        """A month picked by a modifier: "next March", "last May", "this October"."""
        mod = self.modifier(i)
        named = self.month_name(mod[0]) if mod is not None else None
        if mod is None or named is None:
            return None
        end, month, _ = named
        span = self.pick(Month(month), mod[1])
        if span is None:
            return None
        return end, self.fixed(span, "month", frozenset({YEAR, QUARTER, MONTH}), is_interval=True)

    def _ends_phrase(self, i: int) -> bool:
        """Nothing but punctuation or a time follows: "the 24" alone is a date, "the 24 hours" not."""
        return (
            i >= self.n
            or self.kinds[i] == "punct"
            or self.words[i] in ("at", "from", "and", "or", "to", "for")
        )

    def _nth_month(self, series: Series, n: int) -> Span | None:
        if n < 0:
            spans = list(zip(range(-n), series.backward(self.now), strict=False))
            return spans[-1][1] if len(spans) == -n else None
        ahead = [s for _, s in zip(range(3), series.forward(self.now), strict=False) if s[0] > self.now]
        return ahead[n] if len(ahead) > n else None

    def _numeric_date(self, i: int) -> Parse | None:
        """2013-02-15, 2/15, 2/15/2013, 2/2013, 2-15, 18q4, Q4 2018."""
        kind = self.kinds[i]
        if kind == "date":
            y, m, d = (int(v) for v in self.toks[i].values)
            if not 1 <= m <= 12 or not 0 <= d <= 31:
                return None
            return i + 1, self._month_node(m, y, False) if d == 0 else self._date_node(m, d, y)
        if kind == "slash":
            a, b = (int(v) for v in self.toks[i].values)
            if self._unit(i + 1) is not None:
                return None  # "1/2 hour" is a fraction
            if 1 <= a <= 12 and 1000 <= b <= 2200:
                return i + 1, self._month_node(a, b, False)
            if 1 <= a <= 12 and 1 <= b <= 31:
                return i + 1, self._date_node(a, b, None)
            return None
        if kind == "qtr":
            year, quarter = (int(v) for v in self.toks[i].values)
            j = i + 1
            if year < 0:
                found = self._trailing_year(j, allow_short=False)
                year, j = (found[1], found[0]) if found else (self.now.year, j)
            return j, self._quarter(year, quarter)
        # "2-15" is a date unless it reads as a range: "from 2-4", "9-11am", "1-8 September", "2-3 hours",
        # or hours of a day said beside it: "Thursday 10-11", "2-3 tomorrow" ("Thursday 10/11" stays a date).
        month, day = self.integers[i], self.integers[i + 2]
        if (
            month is not None
            and day is not None
            and self.puncts[i + 1] == "-"
            and self.words[i - 1] not in _RANGE_BEFORE
            and self.words[i + 3] not in _DAY_WORDS
            and not (self.words[i + 3] == "on" and self.words[i + 4] in _DAY_WORDS)
            and 1 <= month <= 12
            and 1 <= day <= 31
            and len(self.toks[i + 2].text) <= 2
            and self.ampm(i + 3) is None
            and self.month_name(i + 3) is None
            and self._unit(i + 3) is None
            and self.puncts[i + 3] not in (":", "-")
        ):
            return i + 3, self._date_node(month, day, None)
        return None

    def _quarter(self, year: int, quarter: int) -> Node:
        start = datetime(year, 3 * quarter - 2, 1)
        return self.fixed(
            (start, add_months(start, 3)), "quarter", frozenset({YEAR, QUARTER, MONTH}), is_interval=True
        )

    def year_atom(self, i: int) -> Parse | None:
        """A year: "in 2014", "the year 2014"; a bare "2014" only counts next to a date ("March 2014")."""
        j = i
        strong = False
        if self.words[j] in ("in", "during", "of"):
            strong, j = self.words[j] != "of", j + 1
        k = self.phrase(self.skip(j, "the"), ("year",))
        if k > 0:
            strong, j = True, k
        found = self.year(j)
        if found is None:
            return None
        end, value = found
        anchor = Year(value)
        node = Node(
            anchor,
            "year",
            frozenset({YEAR}),
            anchor=anchor,
            has_date=True,
            latent=not strong,
            is_interval=True,
        )
        return end, node

    def cycle_atom(self, i: int) -> Parse | None:
        """A calendar week, month, quarter or year relative to now ("this week", "next month", "the rest of
        the week"); the product's "this month" runs from now to the month's end."""
        j = self.skip(i, "around", "about")
        quarter = self._ordinal_quarter(j)
        if quarter is not None:
            return quarter
        # "the rest of the week" or "of this week" (from now), "all week", "the whole month"
        rest = self.rest_of(self.skip(j, "the"))
        whole = max((self.phrase(j, words) for words in _WHOLE.get(self.words[j], ())), default=-1)
        k = max(rest, whole)
        if k > 0 and UNITS.get(self.words[k]) in ("day", "week", "month", "year"):
            grain = UNITS[self.words[k]]
            said = self.atom(self.skip(k + 1, "of")) if whole > rest else None
            if said is not None and said[1].has_date and grain_rank(said[1].grain) <= grain_rank(grain):
                # "all week next week", "the whole day tomorrow": the whole of the one said after it
                return said[0], replace(said[1], is_interval=True)
            span = self.cycle(grain, 0)
            if rest > 0:
                span = (self.now, span[1])
            return k + 1, self.fixed(span, grain, FIELDS_OF_UNIT[grain], is_interval=True)
        mod = self.modifier(j)
        the = self.skip(j, "the")
        if mod is None:
            unit_word = self.words[the]
            for words, n in ((("after", "next"), 2), (("before", "last"), -2)):
                k = self.phrase(the + 1, words)
                if unit_word in UNITS and UNITS[unit_word] in FIELDS_OF_UNIT and k > 0:
                    grain = UNITS[unit_word]
                    return k, self.fixed(self.cycle(grain, n), grain, FIELDS_OF_UNIT[grain], is_interval=True)
            return None
        k, meaning = mod
        unit_word = self.words[k]
        if unit_word not in UNITS or self.glued(k):
            return None
        grain = UNITS[unit_word]
        if grain not in FIELDS_OF_UNIT:
            return None
        n = {"this": 0, "coming": 0, "next": 1, "last": -1}[meaning]
        if grain == "day":
            return None
        span = self.cycle(grain, n)
        if grain == "month" and n == 0 and meaning == "this":
            span = (self.now, span[1])  # the product's "this month": the rest of it
        return k + 1, self.fixed(span, grain, FIELDS_OF_UNIT[grain], is_interval=True)

    def _ordinal_quarter(self, i: int) -> Parse | None:
        """A quarter by its number: "the 4th quarter of 2018", "third quarter" (of this year)."""
        j = self.skip(i, "the")
        found = self.ordinal(j)
        if found is None or UNITS.get(self.words[found[0]]) != "quarter" or not 1 <= found[1] <= 4:
            return None
        k = found[0] + 1
        year = self._trailing_year(self.skip(k, "of", "in"), allow_short=False)
        if year is not None:
            return year[0], self._quarter(year[1], found[1])
        return k, self._quarter(self.now.year, found[1])
