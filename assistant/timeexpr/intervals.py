"""Intervals built from points: ranges, durations from a start, open ends, rolling windows.

"from 9:30 to 11:00 on Thursday", "July 13-15", "8am - 1pm", "4pm for 30 mins", "next 3 days",
"within 2 weeks", "by the end of the month", "since 2014", "until 2pm". A range's ends share what
only one of them says: the date after "11:00 on Thursday" also applies to 9:30, the month of
"15 July" to "13", the "am" of "11am" to "9".
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from assistant.timeexpr.durations import Dur, dur_of, grain_rank
from assistant.timeexpr.lexicon import LAST_AS_A_VERB_AFTER, ROUGHLY, UNITS, Grain
from assistant.timeexpr.nodes import DATE_FIELDS, DAY, MONTH, PART, TIME, WEEK, WEEKDAY, Node, Tod, compose
from assistant.timeexpr.numbers import VAGUE_COUNTS
from assistant.timeexpr.parser import ONE_DAY, Parse, Parser, by_first_word
from assistant.timeexpr.series import DayOfMonth, Fixed, Intersect, Series, Span, add, finer, first, truncate

__all__ = ["IntervalRules"]

_BEFORE = (
    ("until",),
    ("till",),
    ("til",),
    ("untill",),
    ("'til",),
    ("before",),
    ("through",),
    ("thru",),
    ("up", "to"),
    ("no", "later", "than"),
    ("prior", "to"),
    ("anytime", "before"),
    ("sometime", "before"),
    ("sometimes", "before"),
    ("any", "time", "before"),
    ("ending",),
)
_AFTER = (
    ("since",),
    ("after",),
    ("past",),  # "past 4:30 pm on Friday" ("half past 4" is a clock time, read from "half")
    ("from",),
    ("anytime", "after"),
    ("sometime", "after"),
    ("sometimes", "after"),
    ("any", "time", "after"),
    ("starting", "from"),
    ("starting", "at"),
    ("starting", "on"),
    ("starting",),
    ("no", "earlier", "than"),
    ("later", "than"),
    ("as", "of"),
    ("beginning",),
)
_OPEN_BY_FIRST: dict[str, list[tuple[tuple[str, ...], bool]]] = {}
for _table, _before in ((_BEFORE, True), (_AFTER, False)):
    for _words in _table:
        _OPEN_BY_FIRST.setdefault(_words[0], []).append((_words, _before))
_STARTS = (
    ("starting", "from"),
    ("starting", "at"),
    ("starting", "on"),
    ("starting",),
    ("beginning", "from"),
    ("beginning",),
    ("from",),
    ("after",),
    ("as", "of"),
)
_RANGE_PREFIXES = by_first_word((("in", "between"), ("between",), ("from",), ("later", "than")))
_DASH_WORDS = frozenset({"to", "thru", "through", "till", "til", "until", "untill", "-"})
_ROLLING_PREFIXES = by_first_word((("in",), ("over",), ("during",), ("within",)))
_END_SHORTHAND: dict[str, Grain] = {"eom": "month", "eoy": "year", "eow": "week", "eod": "day"}


class IntervalRules(Parser):
    """Rules for intervals: ranges, spans from a start, open ends, windows around now."""

    # ------------------------------------------------------------------ resolved intervals

    def interval(
        self, span: Span, grain: Grain, *parts: Node, open_end: bool = False, rest_of_day: bool = False
    ) -> Node:
        return Node(
            Fixed(span, grain),
            grain,
            DATE_FIELDS | {TIME, PART},
            span=span,
            is_interval=True,
            loose_start=bool(parts) and _loose(parts[0]),
            has_date=any(p.has_date for p in parts),
            has_time=any(p.has_time for p in parts),
            day_part=next((p.day_part for p in parts if p.day_part), None),
            weekdays=frozenset().union(*(p.weekdays for p in parts)),
            open_end=open_end,
            rest_of_day=rest_of_day,
        )

    def lasting(self, node: Node, dur: Dur) -> Node | None:
        """``node`` as the start of an interval lasting ``dur``: "4pm for 30 mins"."""
        start = self.resolve(node)
        if start is None:
            return None
        end = self.shift(start[0], dur, 1)
        return self.interval((start[0], end), finer(node.grain, _finer_unit(dur)), node)

    # ------------------------------------------------------------------ points and ranges around them

    def point_expression(self, i: int) -> Parse | None:
        """A point, possibly the start of a range or of a duration, or the date a range falls on."""
        found = self.point(i)
        if found is None and self.words[i] in ROUGHLY:  # "around next week", "about 3pm"
            found = self.point(i + 1)
        if found is None:
            return None
        j, node = found
        best = found
        lasting = self._for_duration(j, node)
        if lasting is not None:
            best = lasting
        if node.fields & {DAY, WEEKDAY} and not node.fields & {TIME}:
            k = j
            for words in (("from",), ("in", "between"), ("between",)):
                after = self.phrase(j, words)
                if after > 0:
                    k = after
                    break
            k = k + 1 if self.puncts[k] == "," else k
            found_range = self.range_core(k, context=node, between=self.words[k - 1] == "between")
            if found_range is not None and found_range[0] > best[0]:
                best = found_range
            opened = self.open_interval(j, context=node) if self.words[j] in _OPEN_BY_FIRST else None
            if opened is not None and opened[0] > best[0]:  # "tomorrow after 3pm"
                best = opened
        return best

    def _for_duration(self, j: int, node: Node) -> Parse | None:
        if self.words[j] != "for" or node.latent or node.span is not None:
            return None
        dur = self.duration(j + 1)
        # "tomorrow for 2 hours" says how long, not when: only a time or a long enough stay makes a range
        if dur is None or (
            TIME not in node.fields and grain_rank(_finer_unit(dur[1])) < grain_rank(node.grain)
        ):
            return None
        lasting = self.lasting(node, dur[1])
        return (dur[0], lasting) if lasting is not None else None

    def prefixed_range(self, i: int) -> Parse | None:
        """Ranges opened by a word: "from 9:30 to 11:00", "between 9 and 11am", "later than 9:30 but
        before 11:00", "from 4pm for 30 minutes"."""
        for words in _RANGE_PREFIXES.get(self.words[i], ()):
            j = self.phrase(i, words)
            if j < 0:
                continue
            found = self.range_core(
                j, context=None, between=words[-1] == "between", later=words[0] == "later", prefixed=True
            )
            start = self.point(j)
            if start is not None and words == ("from",):
                lasting = self._for_duration(start[0], start[1])
                if lasting is not None and (found is None or lasting[0] > found[0]):
                    found = lasting
            if found is not None:
                return found
        return None

    def bare_range(self, i: int) -> Parse | None:
        """A range that starts with a bare number: "9-11am", "1-8 september", "23rd to 26th Oct"."""
        return self.range_core(i, context=None)

    def endpoints(self, i: int) -> list[Parse]:
        """Ways to read one end of a range at ``i``: the whole point, or just a number ("13", "9")."""
        found = [p for p in (self.point(i), self._bare(i)) if p is not None]
        return sorted(found, key=lambda p: -p[0])

    def _bare(self, i: int) -> Parse | None:
        j = self.skip(i, "the")
        dom = self.day_of_month(j)
        if dom is None:
            return None
        n = dom[1]
        if dom[2] or n > 24:
            anchor = DayOfMonth(n)
            return dom[0], Node(
                anchor, "day", frozenset({DAY}), anchor=anchor, has_date=True, latent=True, bare=n
            )
        tod = Tod(n % 24, ambiguous=1 <= n <= 12)
        return dom[0], Node(
            tod.series(), "hour", frozenset({TIME}), tod=tod, latent=True, has_time=True, bare=n
        )

    def _connector(self, j: int, between: bool, later: bool, a: Node) -> int:
        """End of the word joining two ends of a range, or -1."""
        if between and self.words[j] == "and":
            return j + 1
        if later:
            for words in (("but", "before"), ("and", "before"), ("before",)):
                k = self.phrase(j, words)
                if k > 0:
                    return k
            return -1
        if self.puncts[j] == "-" or self.words[j] in _DASH_WORDS:
            k = j + 1
            return k + 1 if self.words[k] == "the" and self.words[j] != "-" else k
        if self.puncts[j] == "/" and a.fields >= {DAY, TIME}:
            return j + 1
        return -1

    def range_core(
        self,
        i: int,
        *,
        context: Node | None,
        between: bool = False,
        later: bool = False,
        prefixed: bool = False,
    ) -> Parse | None:
        """Two ends joined by "to", "-", "and"...; ``prefixed``: after "from"/"between", which lets bare
        hours make a range ("from 9 to 5")."""
        best: Parse | None = None
        for j, a in self.endpoints(i):
            k = self._connector(j, between, later, a)
            if k < 0:
                continue
            for end, b in self.endpoints(k):
                after = self._trailing_context(end)
                options = [(end, None)] + ([after] if after is not None else [])
                for stop, trailing in options:
                    node = self.make_range(
                        a, b, context or trailing, prefixed=prefixed or context is not None
                    )
                    if node is not None and (best is None or stop > best[0]):
                        best = stop, node
            if best is not None:
                return best
        return best

    def _trailing_context(self, i: int) -> tuple[int, Node] | None:
        """The date both ends of a range share, said after it: "on Thursday", "of July", ", tomorrow"."""
        j = i + 1 if self.puncts[i] == "," else i
        j = self.skip(j, "of")
        found = self.point(j)
        if found is None or found[1].latent or found[1].fields & {TIME} or found[1].span is not None:
            return None
        return found

    def make_range(self, a: Node, b: Node, context: Node | None, *, prefixed: bool) -> Node | None:
        """The interval from ``a`` to ``b``, sharing between them what only one (or the context) says."""
        if a.span is not None or b.span is not None or a.error or b.error:
            return None
        monthly = context is not None and MONTH in context.fields and DAY not in context.fields
        if a.bare is not None and b.bare is not None:
            if monthly or (a.tod is None and b.tod is None):
                a, b = _as_day(a), _as_day(b)
            elif context is None and not prefixed:
                return None
        elif a.bare is not None:
            a = _as_day(a) if DAY in b.fields and TIME not in b.fields else _as_hour(a)
        elif b.bare is not None:  # "July 13-15" but "today until 5"
            b = _as_day(b) if DAY in a.fields and not a.fields & {TIME, WEEKDAY} else _as_hour(b)
        if a.latent and b.latent and context is None and not prefixed:
            return None
        if (TIME in a.fields) != (TIME in b.fields):
            # Ends of different kinds ("from Tuesday at 3pm to Thursday morning") are a move, not a range.
            return None
        if a.tz is None and b.tz is not None and a.tod is not None:  # "9:30 - 11:00 CST"
            a = replace(a, tz=b.tz)
        if a.tod is not None and b.tod is not None and a.tod.ambiguous and not b.tod.ambiguous:
            a = _with_tod(a, _same_half(a.tod, b.tod))
        elif a.tod is not None and b.tod is not None and a.tod.ambiguous and a.part is None and b.part:
            # "from 6:30 to 7:30 in the morning": the end's day part is the whole range's
            a = _with_tod(a, _same_half(a.tod, b.tod.in_part(b.part)))
        b_clock = b  # the end as a clock time alone, before the context's day is put into it
        if context is not None:
            merged_a, merged_b = self.merge(a, context), self.merge(b, context)
            if merged_a is None and merged_b is None:
                return None
            a, b = merged_a or a, merged_b or b
        borrowed = self._borrow(a, b)
        if borrowed is None:
            return None
        a = borrowed
        a_span = self.resolve(a)
        if a_span is None:
            return None
        b_span = self._after(b, a_span[0])
        if b_span is None:
            return None
        end = b_span[0] if b.tod is not None else b_span[1]
        if b.tod is not None and end - a_span[0] > ONE_DAY and b_clock is not b:
            # "on Friday from 10pm to 2am": the night after Friday 10pm, not the next Friday's 2am
            overnight = self._after(b_clock, a_span[0])
            if overnight is not None and overnight[0] - a_span[0] <= ONE_DAY:
                end = overnight[0]
        if end <= a_span[0]:
            return None
        return self.interval((a_span[0], end), finer(a.grain, b.grain), a, b, *([context] if context else []))

    def _borrow(self, a: Node, b: Node) -> Node | None:
        """``a`` inside the month or day ``b`` names when ``a`` does not name one: "from 13 to 15 July"."""
        grain: Grain | None = None
        if MONTH in b.fields and MONTH not in a.fields and DAY in a.fields:
            grain = "month"
        elif WEEK in b.fields and WEEK not in a.fields and WEEKDAY in a.fields and WEEKDAY in b.fields:
            grain = "week"  # "from Monday to Friday next week"
        elif b.fields & {DAY, WEEKDAY} and not a.fields & {DAY, WEEKDAY} and TIME in a.fields:
            grain = "day"
        if grain is None:
            return a
        b_span = self.resolve(b)
        if b_span is None:
            return None
        start = truncate(b_span[0], grain)
        inside: Series = Intersect(Fixed((start, add(start, grain, 1)), grain), a.series)
        if first(inside, self.now) is None:
            return None
        return replace(a, series=inside, anchor=None, has_date=True)

    def _after(self, b: Node, start: datetime) -> Span | None:
        """The first span of ``b`` that starts at or after ``start`` (both in reference wall time)."""
        for span in b.series.forward(self.from_ref(start, b.tz)):
            span = self.to_ref(span[0], b.tz), self.to_ref(span[1], b.tz)
            if span[0] >= start:
                return span
            if span[0] > start + 400 * ONE_DAY:
                return None
        return None

    # ------------------------------------------------------------------ open and relative intervals

    def open_interval(self, i: int, context: Node | None = None) -> Parse | None:
        """Intervals open on one side: "until 2pm" (from now), "since 2014", "after 5pm" (no end).

        After a clock time on a day ("after 5pm tonight", "after 3pm tomorrow", or "tomorrow after 3pm",
        whose day is ``context``) the interval is the rest of that day: the evening asked about, not
        every day after it."""
        if self.words[i] == "after":  # "after 5 days": from then on
            dur = self.duration(i + 1)
            if dur is not None:
                alone = self.from_now(dur[1], 1).alone
                if alone is not None:
                    return dur[0], self.interval((alone[0], alone[0]), _FINER_OF[dur[1].small], open_end=True)
        for words, before in _OPEN_BY_FIRST.get(self.words[i], ()):
            j = self.phrase(i, words)
            if j < 0:
                continue
            found = self.point(j)
            if found is None or (found[1].latent and found[1].tod is None and found[1].grain != "year"):
                continue
            end, node = found
            # "before 10" says no half of the day: read from now as before, never as a day's window
            on_a_day = (
                words[-1] in ("after", "past", "before")
                and TIME in node.fields
                and (words[-1] != "before" or not _loose(node))
            )
            if context is not None:
                on_day = self.merge(node, context) if on_a_day else None
                if on_day is None:
                    continue
                node = on_day
            span = self.resolve(node)
            if span is None or node.span is not None:
                continue
            if before:
                if span[0] <= self.now:
                    continue
                if on_a_day and words[-1] == "before" and node.has_date:
                    # "before noon tomorrow", "Monday before 10 AM": that day's hours before it, not
                    # every hour from now on
                    return end, self.interval(
                        (max(self.now, truncate(span[0], "day")), span[0]), node.grain, node
                    )
                # "through Friday", "through the weekend", "until the end of the week": up to the end of
                # what is named (the weekend was left out); "until Friday" stops where Friday begins, and
                # "through 2014" where 2014 does, as the time corpus has it
                through = words[0] in ("through", "thru") and node.grain not in ("month", "quarter", "year")
                whole = through or self.words[self.skip(j, "the")] == "end"
                if whole and TIME not in node.fields:
                    return end, self.interval((self.now, span[1]), node.grain, node)
                return end, self.interval((self.now, span[0]), node.grain, node)
            lasting = self._for_duration(end, node)  # "starting Monday for 2 weeks"
            if lasting is not None:
                return lasting
            if on_a_day and node.has_date:
                rest_of_day = (span[0], add(truncate(span[0], "day"), "day", 1))
                return end, self.interval(rest_of_day, node.grain, node, rest_of_day=True)
            return end, self.interval((span[0], span[0]), node.grain, node, open_end=True)
        return None

    def by(self, i: int) -> Parse | None:
        """Deadlines, from now: "by 2pm" ends at 2pm, "by the end of the month" when the month does."""
        if self.words[i] != "by":
            return None
        j = self.skip(i + 1, "the")
        if self.words[j] in _END_SHORTHAND:
            grain = _END_SHORTHAND[self.words[j]]
            return j + 1, self.interval((self.now, self.cycle(grain, 0)[1]), "second")
        if self.words[j] == "end" and self.words[j + 1] == "of":
            k = self.skip(j + 2, "the")
            word = self.words[k]
            if (
                word in UNITS
                and UNITS[word] in ("day", "week", "month", "quarter", "year")
                and self.kinds[k + 1] != "num"
            ):
                return k + 1, self.interval((self.now, self.cycle(UNITS[word], 0)[1]), "second")
            found = self.point(k)
            if found is None or found[1].latent:
                return None
            span = self.resolve(found[1])
            if span is None or span[1] <= self.now:
                return None
            return found[0], self.interval((self.now, span[1]), "second", found[1])
        found = self.point(i + 1)
        if found is None or found[1].latent:
            return None
        span = self.resolve(found[1])
        if span is None or span[0] <= self.now:
            return None
        return found[0], self.interval((self.now, span[0]), "second", found[1])

    def within(self, i: int) -> Parse | None:
        """A window from now: "within 2 weeks" ends at the start of the day two weeks on, as in Duckling."""
        if self.words[i] != "within":
            return None
        j = self.skip(self.skip(i + 1, "the"), "next")
        found = self.duration(j) or (self.duration(j - 1) if j > i + 1 else None)
        if found is None and self.words[j] in UNITS:  # "within the next hour"
            found = j + 1, dur_of(1, UNITS[self.words[j]])
        if found is None:
            return None
        dur = found[1]
        end = truncate(self.shift(self.now, dur, 1), _FINER_OF[dur.small])
        return found[0], self.interval((self.now, end), "second")

    def last_next(self, i: int) -> Parse | None:
        """Whole units next to now, as Duckling counts them: "next 3 days" starts tomorrow, "last 2 weeks"
        ends this Monday."""
        j = i
        for words in _ROLLING_PREFIXES.get(self.words[j], ()):
            k = self.phrase(j, words)
            if k > 0:
                j = k
                break
        j = self.skip(j, "the")
        word = self.words[j]
        if word not in ("next", "last", "past", "previous", "coming", "following", "upcoming"):
            return None
        if word == "last" and j == i and self.words[i - 1] in LAST_AS_A_VERB_AFTER:
            return None  # "it will last 2 hours": how long, read as a length
        count = self._count(j + 1)
        if count is None:
            return None
        k, n = count
        unit = self.words[k]
        if unit not in UNITS or (not unit.endswith("s") and n != 1):
            return None
        grain = UNITS[unit]
        now_unit = truncate(self.now, grain)
        if word in ("next", "coming", "following", "upcoming"):
            start = add(now_unit, grain, 1)
            span = (start, add(start, grain, n))
        else:
            span = (add(now_unit, grain, -n), now_unit)
        return k + 1, self.interval(span, grain)

    def _count(self, i: int) -> tuple[int, int] | None:
        if self.words[i] in ("few", "couple", "several"):
            return self.skip(i + 1, "of"), VAGUE_COUNTS[self.words[i]]
        if self.words[i] in ("a", "an") and self.words[i + 1] in ("few", "couple"):
            return self.skip(i + 2, "of"), VAGUE_COUNTS[self.words[i + 1]]
        found = self.cardinal(i)
        if found is None or found[1] < 1:
            return None
        return found

    def for_interval(self, i: int) -> Parse | None:
        """Spans introduced by "for": "for 10 days from 18th Dec", "for 30' starting from 4pm", "for the
        next month" and "for next 3 days" (from now), "for the rest of the week"; "for next week" is
        the calendar's next week, as "next week" alone."""
        if self.words[i] != "for":
            return None
        j = self.skip(i + 1, "the")
        said_count = self._count(j + 1)
        if self.words[j] in ("next", "coming", "following") and (j > i + 1 or said_count is not None):
            k, n = said_count or (j + 1, 1)
            if self.words[k] in UNITS:
                grain = UNITS[self.words[k]]
                return k + 1, self.interval((self.now, add(self.now, grain, n)), grain)
        k = self.rest_of(j)
        if k > 0 and self.words[k] in UNITS and UNITS[self.words[k]] in ("day", "week", "month", "year"):
            return k + 1, self.interval((self.now, self.cycle(UNITS[self.words[k]], 0)[1]), "second")
        found = self.duration(i + 1)
        if found is None:
            return None
        j, dur = found
        for words in _STARTS:
            k = self.phrase(j, words)
            if k < 0:
                continue
            start = self.point(k)
            if start is not None and not start[1].latent:
                lasting = self.lasting(start[1], dur)
                if lasting is not None:
                    return start[0], lasting
        return None


_FINER_OF: dict[Grain, Grain] = {
    "year": "month",
    "quarter": "month",
    "month": "day",
    "week": "day",
    "day": "day",
    "hour": "hour",
    "minute": "minute",
    "second": "second",
}


def _finer_unit(dur: Dur) -> Grain:
    return dur.small if dur.small != "week" else "day"


def _as_day(node: Node) -> Node:
    """A bare number read as a day of the month: the "13" of "from 13 to 15 July"."""
    n = node.bare if node.bare is not None else 0
    anchor = DayOfMonth(n)
    return Node(anchor, "day", frozenset({DAY}), anchor=anchor, has_date=True, latent=node.latent, bare=n)


def _loose(node: Node) -> bool:
    """A clock time said without am/pm or a day part ("at 3", not "3pm" or "3 in the afternoon")."""
    return node.tod is not None and node.tod.ambiguous and node.part is None


def _as_hour(node: Node) -> Node:
    if node.tod is not None:
        return node
    n = node.bare if node.bare is not None else 0
    tod = Tod(n % 24, ambiguous=1 <= n <= 12)
    return Node(tod.series(), "hour", frozenset({TIME}), tod=tod, latent=True, has_time=True, bare=n)


def _same_half(a: Tod, b: Tod) -> Tod:
    """The am/pm of the end applied to the start: "9-11am" is 9 am, "10 to 2pm" is 10 am."""
    pm = b.hour >= 12
    same = a.hour % 12 <= b.hour % 12
    hour = a.hour % 12 + (12 if pm == same else 0)
    return Tod(hour, a.minute, a.second, a.grain)


def _with_tod(node: Node, tod: Tod) -> Node:
    series = compose(node.anchor, tod, node.part)
    assert series is not None
    return replace(node, tod=tod, series=series)
