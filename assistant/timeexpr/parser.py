"""The parser's base: reading tokens, numbers and durations, and combining expressions.

The rules themselves live in mixins (clock times, days, dates, relative expressions, intervals)
assembled into :class:`assistant.timeexpr.grammar.Grammar`; this class holds what they all use. A
parse is recursive descent over the tokens; every rule returns ``(end, node)`` or ``None``, and the
ones called from many places are memoized per token position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TypeVar

from assistant.timeexpr.durations import FINER, Dur, dur_of, grain_rank
from assistant.timeexpr.lexer import Token
from assistant.timeexpr.lexicon import (
    AMBIGUOUS_NAMES,
    GLUED_UNITS,
    MODIFIERS_BY_FIRST,
    MONTHS,
    UNITS,
    WEEKDAYS,
    Grain,
)
from assistant.timeexpr.nodes import (
    ALL_FIELDS,
    DATE_FIELDS,
    FIELDS_OF_UNIT,
    WEEKDAY,
    Node,
    compose,
)
from assistant.timeexpr.numbers import CARDINALS, ORDINALS, TENS, VAGUE_COUNTS
from assistant.timeexpr.series import (
    DayOfWeek,
    Fixed,
    Intersect,
    Series,
    Span,
    add,
    add_months,
    finer,
    first,
    truncate,
)
from assistant.timeexpr.starts import START_WORDS, rules_for

__all__ = ["ONE_DAY", "Parse", "Parser", "by_first_word", "calendar_target", "memoized"]

Parse = tuple[int, Node]
T = TypeVar("T")
P = TypeVar("P", bound="Parser")

ONE_DAY = timedelta(days=1)
_PAD = 16  # words past the end of the text, so that looking a few tokens ahead needs no bounds check
_POSSESSABLE = (
    frozenset(WEEKDAYS)
    | frozenset(MONTHS)
    | frozenset(UNITS)
    | {"today", "tomorrow", "yesterday", "tonight", "weekend", "morning", "afternoon", "evening", "night"}
)


def _latent_pair_ok(a: Node, b: Node) -> bool:
    """Whether two expressions too vague alone are clear together: "may 2014", "holi 2019", "sat night"."""
    if a.grain == "year":
        return b.tod is None and b.bare is None and b.grain in ("month", "day")
    if isinstance(a.anchor, DayOfWeek) and a.tod is None:  # "sat 10": a weekday's short name and an hour
        return b.anchor is None and b.tod is not None and b.part is None
    return a.part is not None and isinstance(b.anchor, DayOfWeek)


# The words an amount can start with (see ``Parser._amount``); a number or a fraction token also can.
_AMOUNT_WORDS = (
    frozenset(CARDINALS) | frozenset(TENS) | frozenset(VAGUE_COUNTS) | {"a", "an", "one", "half", "quarter"}
)
_MISSING = object()
# What an ordinal picks when it is no day of a month: "the first one", "the second slot".
_PICKED = frozenset({"one", "ones", "slot", "slots", "option", "options"})


def by_first_word(phrases: Iterable[tuple[str, ...]]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The phrases of a table by their first word, in the table's order: a rule that tries a table at a
    token tries only the phrases of that token's word (the others cannot match there)."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for words in phrases:
        found.setdefault(words[0], []).append(words)
    return {first: tuple(rows) for first, rows in found.items()}


def calendar_target(node: Node) -> bool:
    """Whether ``node`` can be what "of"/"in" points at: a date, or a bare month or year ("of May")."""
    if node.anchor is None or node.span is not None:
        return False
    return not node.latent or node.grain in ("month", "year")


def memoized(fn: Callable[[P, int], T]) -> Callable[[P, int], T]:
    """Cache a rule's result per token position: rules call each other from many places."""
    name = fn.__name__

    def wrapper(self: P, i: int) -> T:
        key = (name, i)
        result = self.memo.get(key, _MISSING)
        if result is _MISSING:
            result = self.memo[key] = fn(self, i)
        return result  # type: ignore[return-value]  # what ``fn`` returned (no cast: a call each time)

    wrapper.__doc__ = fn.__doc__
    return wrapper


class Parser:
    """Parses one tokenized text relative to one reference time."""

    def __init__(self, tokens: list[Token], now: datetime) -> None:
        self.toks = tokens
        self.n = len(tokens)
        # Word (possessive dropped from names: "tuesday's" -> "tuesday"), kind and punctuation mark of
        # each token ("" where it has none) and its value as an integer (None unless it is a whole
        # number), padded so that looking past either end is safe; made in one pass.
        words: list[str] = []
        kinds: list[str] = []
        puncts: list[str] = []
        integers: list[int | None] = []
        for token in tokens:
            kind, text = token.kind, token.text
            kinds.append(kind)
            if kind == "word":
                words.append(text[:-2] if text.endswith("'s") and text[:-2] in _POSSESSABLE else text)
                puncts.append("")
                integers.append(None)
            else:
                words.append("")
                puncts.append(text if kind == "punct" else "")
                integers.append(int(token.values[0]) if kind == "num" and "." not in text else None)
        self.words = words + [""] * _PAD
        self.kinds = kinds + [""] * _PAD
        self.puncts = puncts + [""] * _PAD
        self.integers = integers + [None] * _PAD
        self.zone = now.tzinfo
        self.now = now.replace(tzinfo=None, microsecond=0)
        self.today = datetime(now.year, now.month, now.day)
        self.memo: dict[tuple[str, int], object] = {}

    def w(self, i: int) -> str:
        """The word at ``i`` ("" if none, or past either end)."""
        return self.words[i]

    def kind(self, i: int) -> str:
        return self.kinds[i]

    def punct(self, i: int) -> str:
        return self.puncts[i]

    def glued(self, i: int) -> bool:
        """Whether token ``i`` touches the one before it ("3pm", "7a")."""
        return 0 < i < self.n and self.toks[i].start == self.toks[i - 1].end

    def phrase(self, i: int, words: tuple[str, ...]) -> int:
        """End of ``words`` read from ``i``, or -1."""
        if i < 0 or self.words[i] != words[0]:
            return -1
        end = i + len(words)
        return end if end <= self.n and tuple(self.words[i:end]) == words else -1

    def rest_of(self, i: int) -> int:
        """End of "rest of the" or "rest of this" read from ``i`` (the unit follows), or -1."""
        return max(self.phrase(i, ("rest", "of", "the")), self.phrase(i, ("rest", "of", "this")))

    def skip(self, i: int, *words: str) -> int:
        return i + 1 if self.words[i] in words else i

    def integer(self, i: int) -> int | None:
        return self.integers[i]

    def exact(self, dt: datetime, seconds: float) -> datetime:
        """``dt`` moved by elapsed seconds: "in 3 hours" across a DST change is 3 real hours."""
        if self.zone is None:
            return dt + timedelta(seconds=seconds)
        moved = dt.replace(tzinfo=self.zone).astimezone(UTC) + timedelta(seconds=seconds)
        return moved.astimezone(self.zone).replace(tzinfo=None)

    def shift(self, dt: datetime, dur: Dur, sign: int) -> datetime:
        moved = add_months(dt, sign * dur.months) + sign * dur.days * ONE_DAY
        return self.exact(moved, sign * dur.seconds) if dur.seconds else moved

    def to_ref(self, dt: datetime, tz: tzinfo | None) -> datetime:
        """A wall time in zone ``tz`` as wall time in the reference's zone."""
        if tz is None or self.zone is None:
            return dt
        return dt.replace(tzinfo=tz).astimezone(self.zone).replace(tzinfo=None)

    def from_ref(self, dt: datetime, tz: tzinfo | None) -> datetime:
        if tz is None or self.zone is None:
            return dt
        return dt.replace(tzinfo=self.zone).astimezone(tz).replace(tzinfo=None)

    def cardinal(self, i: int) -> tuple[int, int] | None:
        """An integer written with digits or words ("12", "twenty-three", "forty five")."""
        value = self.integers[i]
        if value is not None:
            return i + 1, value
        word = self.words[i]
        if word in CARDINALS:
            return i + 1, CARDINALS[word]
        if word in TENS:
            j = i + 2 if self.puncts[i + 1] == "-" else i + 1
            unit = CARDINALS.get(self.words[j], 0)
            if 0 < unit < 10:
                return j + 1, TENS[word] + unit
            return i + 1, TENS[word]
        return None

    def ordinal(self, i: int) -> tuple[int, int] | None:
        """An ordinal ("3rd", "third", "twenty-first", "thirty first")."""
        if self.kinds[i] == "ord":
            return i + 1, int(self.toks[i].values[0])
        word = self.words[i]
        if word in ORDINALS:
            return i + 1, ORDINALS[word]
        if word in TENS:
            j = i + 2 if self.puncts[i + 1] == "-" else i + 1
            unit = ORDINALS.get(self.words[j], 0)
            if 0 < unit < 10:
                return j + 1, TENS[word] + unit
        return None

    def year(self, i: int) -> tuple[int, int] | None:
        """A year: "2014", "2014 AD", "two thousand ten", "nineteen ninety nine", "twenty thirteen"."""
        if self.kinds[i] == "num" and len(self.toks[i].text) == 4 and self.integers[i] is not None:
            value = self.integers[i] or 0
            end = i + 2 if self.words[i + 1] in ("ad", "ce") else i + 1
            return (end, value) if 1000 <= value <= 2200 else None
        if self.phrase(i, ("two", "thousand")) > 0:
            j = self.skip(i + 2, "and")
            rest = self.cardinal(j)
            if rest and rest[1] < 100 and self.kinds[j] == "word":
                return rest[0], 2000 + rest[1]
            return i + 2, 2000
        century = {"nineteen": 1900, "twenty": 2000}.get(self.words[i])
        if century is not None:
            rest = self.cardinal(i + 1)
            if rest and 10 <= rest[1] < 100 and self.kinds[i + 1] == "word":
                return rest[0], century + rest[1]
        return None

    def day_of_month(self, i: int) -> tuple[int, int, bool] | None:
        """A day of the month: (end, day, written as an ordinal)."""
        found = self.ordinal(i)
        if found and 1 <= found[1] <= 31:
            return found[0], found[1], True
        value = self.integers[i]
        if (
            value is not None
            and 1 <= value <= 31
            and len(self.toks[i].text) <= 2
            and self.puncts[i + 1] != ":"
        ):
            return i + 1, value, False
        return None

    def month_name(self, i: int) -> tuple[int, int, bool] | None:
        """A month: (end, month, whether the word is ambiguous on its own like "may")."""
        word = self.words[i]
        if word not in MONTHS:
            return None
        j = i + 2 if self.puncts[i + 1] == "." and self.glued(i + 1) else i + 1
        return j, MONTHS[word], word in AMBIGUOUS_NAMES and j == i + 1

    @memoized
    def modifier(self, i: int) -> tuple[int, str] | None:
        """A modifier ("this", "next", "last", "coming", "this past"...) reduced to its meaning."""
        for words, meaning in MODIFIERS_BY_FIRST.get(self.words[i], ()):
            j = self.phrase(i, words)
            if j > 0:
                return j, meaning
        return None

    def ampm(self, i: int) -> tuple[int, str] | None:
        """The am/pm of a time in any of its spellings: "am", "a.m.", "a m", "7a", "3p.", "in the pm"."""
        word = self.words[i]
        if word in ("am", "pm"):
            return i + 1, word
        if word in ("a", "p"):
            if self.words[i + 1] == "m":
                return i + 2, word + "m"
            if self.puncts[i + 1] == "." and self.glued(i + 1):
                return i + 2, word + "m"
            if self.glued(i) and self.words[i + 1] not in UNITS:
                return i + 1, word + "m"
        j = self.phrase(i, ("in", "the"))
        if j > 0 and self.words[j] in ("am", "pm"):
            return j + 1, self.words[j]
        return None

    def _weekend_word(self, i: int) -> int:
        """End of "weekend", "weekends", "wkend", "week end", "week-end" at ``i``, or -1."""
        if self.words[i] in ("weekend", "weekends", "wkend", "wkends"):
            return i + 1
        j = (
            i + 2
            if self.words[i] == "week" and self.puncts[i + 1] == "-"
            else i + 1
            if self.words[i] == "week"
            else -1
        )
        return j + 1 if j > 0 and self.words[j] in ("end", "ends") else -1

    @memoized
    def duration(self, i: int) -> tuple[int, Dur] | None:
        """A duration: "90 minutes", "1.5 hours", "an hour and a half", "2h30", "half an hour"."""
        found = self._duration_part(i)
        if found is None:
            return None
        j, dur = found
        while True:  # "1 hour and 30 minutes", "2h30", "1h 30m"
            k = self.skip(j, "and")
            if self.kinds[k] == "punct" and self.puncts[k] == ",":
                k += 1
            more = self._duration_part(k)
            if (
                more is None
                and dur.small == "hour"
                and k == j
                and self.glued(j)
                and self.integers[j] is not None
            ):
                minutes = self.integers[j] or 0
                if minutes < 60:
                    return j + 1, dur.plus(dur_of(minutes, "minute"))
            if more is None or grain_rank(more[1].big) >= grain_rank(dur.small):
                return j, dur
            j, dur = more[0], dur.plus(more[1])

    def _amount(self, i: int) -> tuple[int, float] | None:
        """How many units: a number, "a", "a few", "half a", "a half", "a quarter of an", "three-quarters of
        an"."""
        word = self.words[i]
        if word not in _AMOUNT_WORDS and self.kinds[i] not in ("num", "slash"):
            return None  # most words: none of the readings below starts with them
        if word in ("a", "an", "one") and self.words[i + 1] in VAGUE_COUNTS:
            j = self.skip(i + 2, "of")
            return j, VAGUE_COUNTS[self.words[i + 1]]
        if word in VAGUE_COUNTS:
            return self.skip(i + 1, "of"), VAGUE_COUNTS[word]
        if word == "half" and self.words[i + 1] in ("a", "an"):
            return i + 2, 0.5
        j = self.skip(i, "a", "an", "one")
        if self.words[j] == "half":  # "a half hour", "half-hour": half of the unit that follows
            return (j + 2 if self.puncts[j + 1] == "-" else j + 1), 0.5
        if self.words[j] == "quarter" and self.words[j + 1] == "of" and self.words[j + 2] in ("a", "an"):
            return j + 3, 0.25
        j = i + 3 if self.puncts[i + 1] == "-" else i + 2  # "three-quarters of an hour"
        if (
            word == "three"
            and self.words[j - 1] == "quarters"
            and self.words[j] == "of"
            and self.words[j + 1]
            in (
                "a",
                "an",
            )
        ):
            return j + 2, 0.75
        if word in ("a", "an"):
            return i + 1, 1
        if self.kinds[i] == "slash":
            a, b = self.toks[i].values
            return (i + 1, a / b) if b and a < b else None
        if self.kinds[i] == "num":
            value = self.toks[i].values[0]
            j = i + 1
        else:
            found = self.cardinal(i)
            if found is None:
                return None
            j, value = found[0], float(found[1])
        half = self.phrase(j, ("and", "a", "half"))
        if half < 0:
            half = self.phrase(j, ("and", "an", "half"))
        return (half, value + 0.5) if half > 0 else (j, value)

    def _unit(self, i: int) -> tuple[int, Grain, float] | None:
        """A unit word, its grain and how many of the grain it is ("fortnight" is 14 days)."""
        word = self.words[i]
        if word in ("fortnight", "fortnights"):
            return i + 1, "day", 14
        if word in UNITS and (
            word not in GLUED_UNITS or self.glued(i) or (word == "h" and self.kinds[i - 1] != "word")
        ):
            return i + 1, UNITS[word], 1
        if self.puncts[i] in ("'", '"') and self.glued(i):
            return i + 1, ("minute" if self.puncts[i] == "'" else "second"), 1
        return None

    def _duration_part(self, i: int) -> tuple[int, Dur] | None:
        amount = self._amount(i)
        if amount is None:
            return None
        j, value = amount
        if self.puncts[j] == "-" and self.words[j + 1] in UNITS:  # "30-minute"
            j += 1
        j = self.skip(j, "more", "additional", "extra")  # "in 2 more minutes"
        unit = self._unit(j)
        if unit is None:
            return None
        k, grain, factor = unit
        value *= factor
        half = self.phrase(k, ("and", "a", "half"))
        if half > 0:
            return half, dur_of(value + 0.5 * factor, grain)
        return k, dur_of(value, grain)

    def fixed(self, span: Span, grain: Grain, fields: frozenset[str], *, is_interval: bool = False) -> Node:
        """A node for one known span of dates: "tomorrow", "next week", "last Tuesday"."""
        series = Fixed(span, grain)
        return Node(series, grain, fields, anchor=series, has_date=True, is_interval=is_interval)

    def day(self, day: datetime) -> Node:
        return self.fixed((day, day + ONE_DAY), "day", DATE_FIELDS)

    def from_now(self, dur: Dur, sign: int) -> Node:
        """Now moved by ``dur``: the instant, one grain finer than the duration (Duckling's "in 3 days" is
        precise to the hour), and, for a combination ("at 7 in 3 years"), the span of one unit from it."""
        grain = FINER[dur.small]
        moved = self.shift(self.now, dur, sign)
        start = truncate(moved, grain)
        alone = (start, add(start, grain, 1))
        if grain_rank(dur.big) < grain_rank("day"):
            return Node(Fixed(alone, grain), grain, ALL_FIELDS, alone=alone, has_time=True, has_date=False)
        context = (start, add(start, dur.big, 1))
        anchor = Fixed(context, grain)
        return Node(
            anchor,
            grain,
            FIELDS_OF_UNIT.get(dur.big, DATE_FIELDS),
            anchor=anchor,
            alone=alone,
            has_date=True,
        )

    def cycle(self, grain: Grain, n: int) -> Span:
        start = add(truncate(self.now, grain), grain, n)
        return start, add(start, grain, 1)

    def resolve(self, node: Node) -> Span | None:
        """The span a node means now, in the reference's wall time."""
        if node.span is not None:
            return node.span
        span = node.alone or self.settle(node.series, self.from_ref(self.now, node.tz))
        if span is None or node.tz is None:
            return span
        return self.to_ref(span[0], node.tz), self.to_ref(span[1], node.tz)

    @staticmethod
    def settle(series: Series, t: datetime) -> Span | None:
        """The next span of ``series``; failing that, the first one of the year of the latest past one
        ("Eid al-Adha 1974" is its January date though there was another in December)."""
        for span in series.forward(t):
            return span
        for span in series.backward(t):
            return next(series.forward(truncate(span[0], "year")), span)
        return None

    def pick(self, series: Series, mode: str) -> Span | None:
        """One span of a series by a modifier: this (the current or next), next, last, coming."""
        if mode == "last":
            return next(series.backward(self.now), None)
        for span in series.forward(self.now):
            if mode == "this" or span[0] > self.now:
                return span
        return None

    def merge(self, a: Node, b: Node) -> Node | None:
        """Two adjacent expressions read as one: "9" + "tomorrow morning", "Friday" + "the 13th"."""
        if a.span or b.span or a.error or b.error or a.fields & b.fields:
            return None
        if a.latent and b.latent and not (_latent_pair_ok(a, b) or _latent_pair_ok(b, a)):
            return None
        anchor = (
            a.anchor if b.anchor is None else b.anchor if a.anchor is None else Intersect(a.anchor, b.anchor)
        )
        tod, part = a.tod or b.tod, a.part or b.part
        series = compose(anchor, tod, part)
        if series is None or first(series, self.now) is None:
            return None
        grain = finer(a.grain, b.grain)
        if tod is not None and part is not None:
            grain = tod.grain
        recurring = a.recurring or b.recurring
        weekdays = a.weekdays | b.weekdays
        has_date = a.has_date or b.has_date
        if recurring:  # "Monday mornings": every Monday morning, so Monday names no date either
            plain = [n for n in (a, b) if isinstance(n.anchor, DayOfWeek) and n.fields == {WEEKDAY}]
            weekdays |= {n.anchor.weekday for n in plain if isinstance(n.anchor, DayOfWeek)}
            has_date = any(n.has_date for n in (a, b) if n not in plain)
        return Node(
            series,
            grain,
            a.fields | b.fields,
            anchor=anchor,
            tod=tod,
            part=part,
            has_date=has_date,
            has_time=a.has_time or b.has_time,
            recurring=recurring,
            day_part=a.day_part or b.day_part,
            weekdays=weekdays,
            is_interval=tod is None
            and (
                part is not None or grain_rank(grain) > grain_rank("day") or (a.is_interval and b.is_interval)
            ),
            tz=a.tz or b.tz,
        )

    @memoized
    def point(self, i: int) -> Parse | None:
        """Atoms side by side, read together while they combine ("Thursday at 9:30pm IST")."""
        found = self.atom(i)
        if found is None:
            return None
        j, node = found
        if self.words[j] in _PICKED and self.ordinal(j - 1) is not None:
            return None  # "the first one", "the 2nd slot": a pick among those listed, no day of a month
        while True:
            k = j
            if self.puncts[k] == "," or self.words[k] in ("of", "from", "for"):
                k += 1
            nxt = self.atom(k)
            if nxt is not None and not self._joins(self.words[j], nxt[1]):
                nxt = None
            if nxt is None and k != j:
                nxt = self.atom(j)
            if nxt is None:
                return j, node
            if node.latent and nxt[1].latent and self.words[nxt[0]] in UNITS:
                return j, node  # "I sat 10 minutes": the number is a length's, not Saturday's hour
            merged = self.merge(node, nxt[1])
            if merged is None:
                return j, node
            j, node = nxt[0], merged

    @staticmethod
    def _joins(word: str, node: Node) -> bool:
        """Whether "from"/"for" may join two points: "Sunday from last week", "Saturday for 9am"."""
        if word == "from":
            return node.grain in ("week", "month", "year") and node.anchor is not None
        if word == "for":
            return node.tod is not None and not node.latent
        return True

    def can_start(self, i: int) -> bool:
        """Whether an expression may start at token ``i``: most words of a sentence cannot."""
        kind = self.kinds[i]
        return (
            kind not in ("word", "punct", "junk")
            or self.words[i] in START_WORDS
            or self.puncts[i] in ("@", "~")
        )

    @memoized
    def atom(self, i: int) -> Parse | None:
        """The longest single expression at ``i`` (a clock time, a date, "next week"...), if any."""
        if i >= self.n:
            return None
        token = self.toks[i]
        best: Parse | None = None
        for name in rules_for(self.words[i] or (token.text if token.kind == "punct" else token.kind)):
            found = getattr(self, name)(i)
            if found is not None and (
                best is None
                or found[0] > best[0]
                or (found[0] == best[0] and best[1].latent and not found[1].latent)
            ):
                best = found
        return best
