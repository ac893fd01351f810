"""The grammar: a recursive-descent parser from tokens to :class:`Node` values.

It follows the shape of Duckling's English time grammar. Small expressions ("atoms": a clock time,
a weekday, a date, a holiday, "in 3 days", "the last Sunday of March") combine side by side into
points ("9 tomorrow morning", "Thursday at 8:00 PST"), and points make intervals ("from 9:30 to
11:00 on Thursday", "4pm for 30 mins", "next 3 days", "since 2014"). Every rule is memoized per token
position, so trying all of them from every position stays linear in practice.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import TypeVar

from assistant.timeexpr.holidays import WEAK_HOLIDAY_WORDS, holiday_spans
from assistant.timeexpr.lexer import Token
from assistant.timeexpr.lexicon import (
    AMBIGUOUS_NAMES,
    GLUED_UNITS,
    MONTH_NAMES,
    MONTHS,
    SEASONS,
    TIMEZONES,
    UNITS,
    WEEKDAY_PLURALS,
    WEEKDAYS,
    Grain,
)
from assistant.timeexpr.nodes import (
    DATE_FIELDS,
    DAY,
    MONTH,
    PART,
    QUARTER,
    TIME,
    WEEK,
    WEEKDAY,
    YEAR,
    Node,
    Tod,
    compose,
)
from assistant.timeexpr.numbers import CARDINALS, ORDINALS, TENS, VAGUE_COUNTS, ordinal_suffix
from assistant.timeexpr.series import (
    AnySeason,
    CycleNthWithin,
    DayOfMonth,
    DayOfWeek,
    DaySet,
    Fixed,
    Intersect,
    Month,
    NthWithin,
    Season,
    Series,
    Shifted,
    Span,
    Weekend,
    Year,
    Yearly,
    add,
    add_months,
    finer,
    first,
    truncate,
)

__all__ = ["ONE_DAY", "Dur", "Parse", "Parser", "memoized"]

Parse = tuple[int, Node]
T = TypeVar("T")

ONE_DAY = timedelta(days=1)
_FINER: dict[Grain, Grain] = {
    "year": "month",
    "quarter": "month",
    "month": "day",
    "week": "day",
    "day": "hour",
    "hour": "minute",
    "minute": "second",
    "second": "second",
}
_FIELDS_OF_UNIT: dict[Grain, frozenset[str]] = {
    "year": frozenset({YEAR}),
    "quarter": frozenset({YEAR, QUARTER}),
    "month": frozenset({YEAR, QUARTER, MONTH}),
    "week": frozenset({YEAR, QUARTER, MONTH, WEEK}),
    "day": DATE_FIELDS,
}
_DAY_FIELDS = frozenset({QUARTER, MONTH, WEEK, DAY})
_HOLIDAY_FIELDS = frozenset({QUARTER, MONTH, WEEK, DAY, WEEKDAY})
_ALL_FIELDS = DATE_FIELDS | {TIME, PART}

_MODIFIERS: dict[tuple[str, ...], str] = {
    ("this", "past"): "last",
    ("this", "coming"): "coming",
    ("the", "following"): "next",
    ("the", "next"): "next",
    ("the", "last"): "last",
    ("the", "previous"): "last",
    ("the", "past"): "last",
    ("the", "coming"): "coming",
    ("the", "current"): "this",
    ("this",): "this",
    ("current",): "this",
    ("next",): "next",
    ("following",): "next",
    ("last",): "last",
    ("previous",): "last",
    ("past",): "last",
    ("coming",): "coming",
    ("upcoming",): "coming",
}
_MODIFIERS_BY_FIRST: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _words, _meaning in _MODIFIERS.items():
    _MODIFIERS_BY_FIRST.setdefault(_words[0], []).append((_words, _meaning))
_PAD = 16
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
_PORTION_UNITS: dict[str, tuple[Grain, frozenset[str]]] = {
    "month": ("day", frozenset({"Y", "Q", "M", "W"})),
    "year": ("month", frozenset({"Y", "Q"})),
    "week": ("day", frozenset({"Y", "Q", "M", "W"})),
}
_SHORTHANDS: dict[str, tuple[str, Grain]] = {
    "eom": ("end", "month"),
    "bom": ("beginning", "month"),
    "eoy": ("end", "year"),
    "boy": ("beginning", "year"),
    "eow": ("end", "week"),
}
# Every word an expression can start with; the lexicon tables are added below the word lists.
START_WORDS = set(
    ["at", "on", "in", "during", "of", "the", "this", "next", "last", "past", "previous", "coming", "upcoming", "following", "current", "every", "each", "early", "mid", "late", "beginning", "start", "end", "eom", "bom", "eoy", "boy", "eow", "eod", "from", "between", "since", "after", "before", "until", "till", "til", "untill", "through", "thru", "up", "by", "within", "for", "around", "about", "approximately", "approx", "roughly", "exactly", "circa", "noon", "midday", "midnight", "midnite", "twelve", "half", "quarter", "a", "an", "one", "few", "several", "couple", "tonight", "tonite", "tonights", "right", "just", "now", "immediately", "weekday", "weekdays", "weekend", "weekends", "wkend", "wkends", "week-end", "week-ends", "week", "season", "seasons", "day", "anytime", "sometime", "sometimes", "any", "no", "prior", "later", "starting", "as", "ending", "year", "three", "rest", "all", "whole", "entire", "middle", "closest", "nearest", "upcoming", "noonish", "eod"]
)
_RELATIVE_DAYS: dict[str, list[tuple[tuple[str, ...], int]]] = {}
for _words, _offset in (
    (("day", "after", "tomorrow"), 2),
    (("day", "before", "yesterday"), -2),
    (("today",), 0),
    (("todays",), 0),
    (("tomorrow",), 1),
    (("tmrw",), 1),
    (("tmr",), 1),
    (("tomorow",), 1),
    (("tommorow",), 1),
    (("tommorrow",), 1),
    (("tomorrows",), 1),
    (("yesterday",), -1),
    (("yesterdays",), -1),
):
    _RELATIVE_DAYS.setdefault(_words[0], []).append((_words, _offset))
_RANGE_WORDS = frozenset({"to", "thru", "through", "till", "til", "until", "untill", "upto"})
_PART_WORDS: dict[str, str] = {
    "morning": "morning",
    "mornings": "morning",
    "afternoon": "afternoon",
    "afternoons": "afternoon",
    "evening": "evening",
    "evenings": "evening",
    "night": "night",
    "nights": "night",
    "lunch": "lunch",
    "lunchtime": "lunch",
    "lunches": "lunch",
}
_PLURAL_PARTS = frozenset({"mornings", "afternoons", "evenings", "nights", "lunches"})
_DAY_PART_OF: dict[str, str | None] = {
    "morning": "morning",
    "early morning": "morning",
    "afternoon": "afternoon",
    "after lunch": "afternoon",
    "evening": "evening",
    "late evening": "evening",
    "after work": "evening",
    "after school": "afternoon",
    "night": "night",
    "late night": "night",
    "tonight": "night",
    "lunch": None,
}
_ROUGHLY = frozenset({"around", "about", "approximately", "approx", "roughly", "exactly", "circa", "~"})
_POSSESSABLE = (
    frozenset(WEEKDAYS)
    | frozenset(MONTHS)
    | frozenset(UNITS)
    | {"today", "tomorrow", "yesterday", "tonight", "weekend"}
)
START_WORDS.update(
    WEEKDAYS,
    WEEKDAY_PLURALS,
    MONTHS,
    UNITS,
    SEASONS,
    CARDINALS,
    TENS,
    ORDINALS,
    _PART_WORDS,
    _RELATIVE_DAYS,
    _MODIFIERS_BY_FIRST,
    _ROUGHLY,
    ("fortnight", "fortnights"),
)


def _word(token: Token) -> str:
    """A word token's text, possessive dropped from names ("tuesday's" -> "tuesday")."""
    if token.kind != "word":
        return ""
    text = token.text
    if text.endswith("'s") and text[:-2] in _POSSESSABLE:
        return text[:-2]
    return text


# The atom rules, in order of preference, with the first tokens each can start with (words, or a
# token kind: num, ord, clock, date, slash, qtr, hol). Checking this first keeps every other rule from
# being tried at every word.
_MODIFIER_WORDS = frozenset(w for words in _MODIFIERS for w in words[:1])
_DURATION_WORDS = (
    frozenset(CARDINALS)
    | frozenset(TENS)
    | {"a", "an", "few", "several", "couple", "half", "quarter", "pair", "dozen", "num", "slash"}
)
_ATOM_STARTS: dict[str, frozenset[str]] = {
    "year_atom": frozenset({"num", "in", "during", "of", "the", "year", "two", "nineteen", "twenty"}),
    "clock": frozenset(CARDINALS)
    | frozenset(TENS)
    | _ROUGHLY
    | {
        "num",
        "clock",
        "at",
        "@",
        "noon",
        "midday",
        "noonish",
        "midnight",
        "midnite",
        "twelve",
        "eod",
        "end",
        "the",
        "half",
        "quarter",
        "a",
        "one",
    },
    "day_part": frozenset(_PART_WORDS)
    | {
        "every",
        "each",
        "this",
        "in",
        "during",
        "at",
        "the",
        "early",
        "late",
        "tonight",
        "tonite",
        "tonights",
        "last",
        "after",
    },
    "relative_day": frozenset(_RELATIVE_DAYS) | {"the", "right", "just", "now", "immediately"},
    "weekday": frozenset(WEEKDAYS)
    | frozenset(WEEKDAY_PLURALS)
    | _MODIFIER_WORDS
    | {"on", "every", "each", "weekday", "weekdays"},
    "date": frozenset(MONTHS)
    | frozenset(ORDINALS)
    | frozenset(TENS)
    | _MODIFIER_WORDS
    | {"num", "ord", "date", "slash", "qtr", "on", "in", "during", "the"},
    "cycle_atom": frozenset(ORDINALS)
    | frozenset(TENS)
    | frozenset(UNITS)
    | _MODIFIER_WORDS
    | {"ord", "around", "about", "the", "all", "whole", "entire", "rest"},
    "holiday": _MODIFIER_WORDS | {"hol"},
    "offset": _DURATION_WORDS | {"in"},
    "nth": frozenset(ORDINALS)
    | frozenset(TENS)
    | frozenset(UNITS)
    | {"ord", "num", "the", "last", "closest", "nearest"},
    "part_of": frozenset({"at", "the", "early", "mid", "late", "beginning", "start", "end", "middle"})
    | frozenset(_SHORTHANDS),
    "season": _MODIFIER_WORDS | frozenset(SEASONS) | {"in", "during"},
    "weekend": _MODIFIER_WORDS
    | {
        "every",
        "each",
        "on",
        "over",
        "during",
        "for",
        "the",
        "weekend",
        "weekends",
        "wkend",
        "wkends",
        "week",
    },
}


@lru_cache(maxsize=4096)
def _rules_for(key: str) -> tuple[str, ...]:
    """The atom rules that can start with ``key`` (a word, a punctuation mark or a token kind)."""
    return tuple(name for name, starts in _ATOM_STARTS.items() if key in starts)


def _latent_pair_ok(a: Node, b: Node) -> bool:
    """Two expressions that are each too vague alone but clear together: "may 2014", "holi 2019", "sat night"."""
    if a.grain == "year":
        return b.tod is None and b.bare is None and b.grain in ("month", "day")
    return a.part is not None and isinstance(b.anchor, DayOfWeek)


def _calendar_target(node: Node) -> bool:
    """Whether ``node`` can be what "of"/"in" points at: a date, or a bare month or year ("of May")."""
    if node.anchor is None or node.span is not None:
        return False
    return not node.latent or node.grain in ("month", "year")


def memoized(fn: Callable[[Parser, int], T]) -> Callable[[Parser, int], T]:
    name = fn.__name__

    def wrapper(self: Parser, i: int) -> T:
        key = (name, i)
        if key in self.memo:
            return self.memo[key]  # type: ignore[no-any-return]
        result = self.memo[key] = fn(self, i)
        return result

    wrapper.__doc__ = fn.__doc__
    return wrapper


@dataclass(frozen=True, slots=True)
class Dur:
    """A duration as calendar months, days and seconds; ``small``/``big``: finest/coarsest unit said."""

    months: int = 0
    days: int = 0
    seconds: float = 0.0
    small: Grain = "second"
    big: Grain = "second"

    @property
    def minutes(self) -> float:
        return self.months * 30 * 1440 + self.days * 1440 + self.seconds / 60

    def plus(self, other: Dur) -> Dur:
        return Dur(
            self.months + other.months,
            self.days + other.days,
            self.seconds + other.seconds,
            finer(self.small, other.small),
            self.big if _rank(self.big) >= _rank(other.big) else other.big,
        )


def _rank(grain: Grain) -> int:
    return ("second", "minute", "hour", "day", "week", "month", "quarter", "year").index(grain)


def _dur(amount: float, unit: Grain) -> Dur:
    """``amount`` units as a :class:`Dur`; fractions go down a unit ("1.5 hours" is 90 minutes)."""
    if unit in ("year", "quarter", "month"):
        months = amount * {"year": 12, "quarter": 3, "month": 1}[unit]
        if months == int(months):
            return Dur(months=int(months), small=unit, big=unit)
        return Dur(months=int(months), days=round((months % 1) * 30), small="day", big=unit)
    if unit in ("week", "day"):
        days = amount * (7 if unit == "week" else 1)
        if days == int(days):
            return Dur(days=int(days), small=unit, big=unit)
        return Dur(days=int(days), seconds=round((days % 1) * 86400), small="hour", big=unit)
    seconds = amount * {"hour": 3600, "minute": 60, "second": 1}[unit]
    small = unit if amount == int(amount) else _FINER[unit]
    return Dur(seconds=seconds, small=small, big=unit)


class Parser:
    """Parses one tokenized text relative to one reference time."""

    def __init__(self, tokens: list[Token], now: datetime) -> None:
        self.toks = tokens
        self.n = len(tokens)
        # Word of each token ("" for other tokens), padded so that looking past either end is safe.
        self.words = [_word(t) for t in tokens] + [""] * _PAD
        self.zone = now.tzinfo
        self.now = now.replace(tzinfo=None, microsecond=0)
        self.today = datetime(now.year, now.month, now.day)
        self.memo: dict[tuple[str, int], object] = {}

    # ------------------------------------------------------------------ token helpers

    def w(self, i: int) -> str:
        """The word at ``i`` ("" if none, or past either end)."""
        return self.words[i]

    def kind(self, i: int) -> str:
        return self.toks[i].kind if i < self.n else ""

    def punct(self, i: int) -> str:
        return self.toks[i].text if i < self.n and self.toks[i].kind == "punct" else ""

    def glued(self, i: int) -> bool:
        """Whether token ``i`` touches the one before it ("3pm", "7a")."""
        return 0 < i < self.n and self.toks[i].start == self.toks[i - 1].end

    def phrase(self, i: int, words: tuple[str, ...]) -> int:
        """End of ``words`` read from ``i``, or -1."""
        if i < 0 or self.words[i] != words[0]:
            return -1
        end = i + len(words)
        return end if end <= self.n and tuple(self.words[i:end]) == words else -1

    def skip(self, i: int, *words: str) -> int:
        return i + 1 if self.words[i] in words else i

    def integer(self, i: int) -> int | None:
        if i < self.n and self.toks[i].kind == "num" and "." not in self.toks[i].text:
            return int(self.toks[i].values[0])
        return None

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

    # ------------------------------------------------------------------ numbers

    def cardinal(self, i: int) -> tuple[int, int] | None:
        """An integer written with digits or words ("12", "twenty-three", "forty five")."""
        value = self.integer(i)
        if value is not None:
            return i + 1, value
        word = self.words[i]
        if word in CARDINALS:
            return i + 1, CARDINALS[word]
        if word in TENS:
            j = i + 2 if self.punct(i + 1) == "-" else i + 1
            unit = CARDINALS.get(self.words[j], 0)
            if 0 < unit < 10:
                return j + 1, TENS[word] + unit
            return i + 1, TENS[word]
        return None

    def ordinal(self, i: int) -> tuple[int, int] | None:
        """An ordinal ("3rd", "third", "twenty-first", "thirty first")."""
        if self.kind(i) == "ord":
            return i + 1, int(self.toks[i].values[0])
        word = self.words[i]
        if word in ORDINALS:
            return i + 1, ORDINALS[word]
        if word in TENS:
            j = i + 2 if self.punct(i + 1) == "-" else i + 1
            unit = ORDINALS.get(self.words[j], 0)
            if 0 < unit < 10:
                return j + 1, TENS[word] + unit
        return None

    def year(self, i: int) -> tuple[int, int] | None:
        """A year: "2014", "two thousand ten", "nineteen ninety nine", "twenty thirteen"."""
        if self.kind(i) == "num" and len(self.toks[i].text) == 4 and self.integer(i) is not None:
            value = self.integer(i) or 0
            return (i + 1, value) if 1000 <= value <= 2200 else None
        if self.phrase(i, ("two", "thousand")) > 0:
            j = self.skip(i + 2, "and")
            rest = self.cardinal(j)
            if rest and rest[1] < 100 and self.kind(j) == "word":
                return rest[0], 2000 + rest[1]
            return i + 2, 2000
        century = {"nineteen": 1900, "twenty": 2000}.get(self.words[i])
        if century is not None:
            rest = self.cardinal(i + 1)
            if rest and 10 <= rest[1] < 100 and self.kind(i + 1) == "word":
                return rest[0], century + rest[1]
        return None

    def day_of_month(self, i: int) -> tuple[int, int, bool] | None:
        """A day of the month: (end, day, written as an ordinal)."""
        found = self.ordinal(i)
        if found and 1 <= found[1] <= 31:
            return found[0], found[1], True
        value = self.integer(i)
        if (
            value is not None
            and 1 <= value <= 31
            and len(self.toks[i].text) <= 2
            and self.punct(i + 1) != ":"
        ):
            return i + 1, value, False
        return None

    def month_name(self, i: int) -> tuple[int, int, bool] | None:
        """A month: (end, month, whether the word is ambiguous on its own like "may")."""
        word = self.words[i]
        if word not in MONTHS:
            return None
        j = i + 2 if self.punct(i + 1) == "." and self.glued(i + 1) else i + 1
        return j, MONTHS[word], word in AMBIGUOUS_NAMES and j == i + 1

    def modifier(self, i: int) -> tuple[int, str] | None:
        """ "this", "next", "last", "coming"... and their multi-word forms."""
        for words, meaning in _MODIFIERS_BY_FIRST.get(self.words[i], ()):
            j = self.phrase(i, words)
            if j > 0:
                return j, meaning
        return None

    # ------------------------------------------------------------------ durations

    @memoized
    def duration(self, i: int) -> tuple[int, Dur] | None:
        """A duration: "90 minutes", "1.5 hours", "an hour and a half", "2h30", "half an hour"."""
        found = self._duration_part(i)
        if found is None:
            return None
        j, dur = found
        while True:  # "1 hour and 30 minutes", "2h30", "1h 30m"
            k = self.skip(j, "and")
            if self.kind(k) == "punct" and self.punct(k) == ",":
                k += 1
            more = self._duration_part(k)
            if (
                more is None
                and dur.small == "hour"
                and k == j
                and self.glued(j)
                and self.integer(j) is not None
            ):
                minutes = self.integer(j) or 0
                if minutes < 60:
                    return j + 1, dur.plus(_dur(minutes, "minute"))
            if more is None or _rank(more[1].big) >= _rank(dur.small):
                return j, dur
            j, dur = more[0], dur.plus(more[1])

    def _amount(self, i: int) -> tuple[int, float] | None:
        """How many units: a number, "a", "a few", "half a", "a quarter of an", "three-quarters of an"."""
        word = self.words[i]
        if word in ("a", "an", "one") and self.words[i + 1] in VAGUE_COUNTS:
            j = self.skip(i + 2, "of")
            return j, VAGUE_COUNTS[self.words[i + 1]]
        if word in VAGUE_COUNTS:
            return self.skip(i + 1, "of"), VAGUE_COUNTS[word]
        if word == "half" and self.words[i + 1] in ("a", "an"):
            return i + 2, 0.5
        fraction = {"quarter": 0.25, "quarters": 0.75, "half": 0.5}
        j = self.skip(i, "a", "an", "one")
        if self.words[j] == "quarter" and self.words[j + 1] == "of" and self.words[j + 2] in ("a", "an"):
            return j + 3, 0.25
        if self.words[i] == "three" and self.punct(i + 1) == "-" and self.words[i + 2] == "quarters":
            j = i + 3
        elif self.phrase(i, ("three", "quarters")) > 0:
            j = i + 2
        else:
            j = -1
        if j > 0 and self.words[j] == "of" and self.words[j + 1] in ("a", "an"):
            return j + 2, fraction["quarters"]
        if word in ("a", "an"):
            return i + 1, 1
        if self.kind(i) == "slash":
            a, b = self.toks[i].values
            return (i + 1, a / b) if b and a < b else None
        if self.kind(i) == "num":
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
        """A unit word and how many of it one unit is ("fortnight" is 2 weeks)."""
        word = self.words[i]
        if word in ("fortnight", "fortnights"):
            return i + 1, "day", 14
        if word in UNITS and (
            word not in GLUED_UNITS or self.glued(i) or (word == "h" and self.kind(i - 1) != "word")
        ):
            return i + 1, UNITS[word], 1
        if self.punct(i) in ("'", '"') and self.glued(i):
            return i + 1, ("minute" if self.punct(i) == "'" else "second"), 1
        return None

    def _duration_part(self, i: int) -> tuple[int, Dur] | None:
        amount = self._amount(i)
        if amount is None:
            return None
        j, value = amount
        if self.punct(j) == "-" and self.words[j + 1] in UNITS:  # "30-minute"
            j += 1
        unit = self._unit(j)
        if unit is None:
            return None
        k, grain, factor = unit
        value *= factor
        half = self.phrase(k, ("and", "a", "half"))
        if half > 0:
            return half, _dur(value + 0.5 * factor, grain)
        return k, _dur(value, grain)

    # ------------------------------------------------------------------ node builders

    def fixed(self, span: Span, grain: Grain, fields: frozenset[str], **flags: object) -> Node:
        series = Fixed(span, grain)
        return Node(series, grain, fields, anchor=series, has_date=True, **flags)  # type: ignore[arg-type]

    def day(self, day: datetime) -> Node:
        return self.fixed((day, day + ONE_DAY), "day", DATE_FIELDS)

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

    def pick(self, series: Series, mode: str, grain: Grain) -> Span | None:
        """One span of a series by a modifier: this (the current or next), next, last, coming."""
        if mode == "last":
            return next(series.backward(self.now), None)
        for span in series.forward(self.now):
            if mode == "this" or span[0] > self.now:
                return span
        return None

    # ------------------------------------------------------------------ combining

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
            and (part is not None or _rank(grain) > _rank("day") or (a.is_interval and b.is_interval)),
            tz=a.tz or b.tz,
        )

    # ------------------------------------------------------------------ points

    @memoized
    def point(self, i: int) -> Parse | None:
        """Atoms side by side, read together while they combine ("Thursday at 9:30pm IST")."""
        found = self.atom(i)
        if found is None:
            return None
        j, node = found
        while True:
            k = j
            if self.punct(k) == "," or self.words[k] in ("of", "from", "for"):
                k += 1
            nxt = self.atom(k)
            if nxt is not None and not self._joins(self.words[j], nxt[1]):
                nxt = None
            if nxt is None and k != j:
                nxt = self.atom(j)
            if nxt is None:
                return j, node
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
        kind = self.kind(i)
        return (
            kind not in ("word", "punct", "junk")
            or self.words[i] in START_WORDS
            or self.punct(i) in ("@", "~")
        )

    @memoized
    def atom(self, i: int) -> Parse | None:
        """The longest single expression at ``i`` (a clock time, a date, "next week"...), if any."""
        if i >= self.n:
            return None
        token = self.toks[i]
        best: Parse | None = None
        for name in _rules_for(self.words[i] or (token.text if token.kind == "punct" else token.kind)):
            found = getattr(self, name)(i)
            if found is not None and (
                best is None
                or found[0] > best[0]
                or (found[0] == best[0]
                and best[1].latent
                and not found[1].latent)
            ):
                best = found
        return best

    # -- clock times

    def ampm(self, i: int) -> tuple[int, str] | None:
        """ "am"/"pm" and their spellings: "a.m.", "a m", "7a", "3p.", "in the afternoon" is not one."""
        word = self.words[i]
        if word in ("am", "pm"):
            return i + 1, word
        if word in ("a", "p"):
            if self.words[i + 1] == "m":
                return i + 2, word + "m"
            if self.punct(i + 1) == "." and self.glued(i + 1):
                return i + 2, word + "m"
            if self.glued(i) and self.words[i + 1] not in UNITS:
                return i + 1, word + "m"
        j = self.phrase(i, ("in", "the"))
        if j > 0 and self.words[j] in ("am", "pm"):
            return j + 1, self.words[j]
        return None

    def _hour_words(self, i: int) -> tuple[int, int, int | None] | None:
        """An hour and minutes in words: "ten thirty", "nine fifty nine", "seven", "four twenty-three"."""
        word = self.words[i]
        hour = CARDINALS.get(word)
        if hour is None or not 1 <= hour <= 12:
            return None
        j = i + 1
        if (
            self.words[j] in ("oh", "o")
            and self.words[j + 1] in CARDINALS
            and CARDINALS[self.words[j + 1]] < 10
        ):
            return j + 2, hour, CARDINALS[self.words[j + 1]]
        minutes = self.cardinal(j) if self.kind(j) == "word" else None
        if minutes is not None and 10 <= minutes[1] < 60:
            return minutes[0], hour, minutes[1]
        return j, hour, None

    def _relative_minutes(self, i: int) -> tuple[int, int] | None:
        """Minutes before "past"/"to": "a quarter", "half", "20", "twenty", "15 minutes"."""
        j = self.skip(i, "a", "one")
        if self.words[j] == "quarter":
            return j + 1, 15
        if self.words[i] == "half":
            return i + 1, 30
        found = self.cardinal(i)
        if found is None or not 1 <= found[1] < 60:
            return None
        j = self.skip(found[0], "minutes", "minute", "mins", "min")
        return j, found[1]

    def _base_hour(self, i: int) -> tuple[int, Tod] | None:
        """The hour "past"/"to" counts from: "3pm", "three", "noon", "midnight"."""
        if self.words[i] in ("noon", "midday"):
            return i + 1, Tod(12)
        if self.words[i] in ("midnight", "midnite"):
            return i + 1, Tod(0)
        value = self.integer(i)
        if value is not None and 0 <= value <= 23:
            j = i + 1
        else:
            found = self.cardinal(i)
            if found is None or self.kind(i) != "word" or not 1 <= found[1] <= 12:
                return None
            j, value = found
        ampm = self.ampm(j)
        if ampm is not None:
            if not 1 <= value <= 12:
                return None
            return ampm[0], Tod(value % 12 + (12 if ampm[1] == "pm" else 0))
        return j, Tod(value, ambiguous=1 <= value <= 12)

    def clock(self, i: int) -> Parse | None:
        """A time of day: "3pm", "at 15:15", "half past 2", "quarter to 5", "ten thirty", "noon"."""
        j = i
        explicit = False
        if self.words[j] == "at" or self.punct(j) == "@":
            explicit, j = True, j + 1
        if self.words[j] in _ROUGHLY:
            explicit, j = True, j + 1
        found = self._clock_core(j)
        if found is None:
            return None
        k, hour, minute, second, grain, strong, bare = found
        explicit = explicit or strong
        for suffix in (self._oclock, self._ish):
            after = suffix(k)
            if after > k:
                k, explicit = after, True
        ampm = self.ampm(k)
        if ampm is not None:
            if not 0 <= hour <= 12:
                return None
            # "7a" alone may be anything ("4a" is a paper size); "7am", "at 7a", "7:15a" are times
            letter_only = self.words[k] in ("a", "p") and ampm[0] == k + 1 and bare >= 0
            k, explicit = self._ish(ampm[0]), explicit or not letter_only
            tod = Tod(hour % 12 + (12 if ampm[1] == "pm" else 0), minute, second, grain)
        else:
            leading_zero = self.kind(j) in ("num", "clock") and self.toks[j].text.startswith("0")
            tod = Tod(
                hour, minute, second, grain, ambiguous=1 <= hour <= 12 and not leading_zero and bare != -2
            )
        tz = None
        zone_at = k + 1 if self.punct(k) == "(" else k
        if explicit and self.words[zone_at] in TIMEZONES:
            tz = TIMEZONES[self.words[zone_at]]
            k = zone_at + (2 if self.punct(zone_at + 1) == ")" else 1)
        node = Node(
            tod.series(),
            tod.grain,
            frozenset({TIME}),
            tod=tod,
            latent=not explicit,
            has_time=True,
            tz=tz,
            bare=bare if bare >= 0 and ampm is None else None,
        )
        return k, node

    def _oclock(self, i: int) -> int:
        if self.words[i] in ("o'clock", "oclock"):
            return i + 1
        return max(self.phrase(i, ("o", "clock")), i)

    def _ish(self, i: int) -> int:
        if (
            self.words[i] in ("ish", "sharp", "exactly", "approximately", "approx")
            or (self.words[i] == "or"
            and self.words[i + 1] == "so")
        ):
            return i + (2 if self.words[i] == "or" else 1)
        if self.punct(i) == "-" and self.words[i + 1] == "ish":
            return i + 2
        return i

    def _clock_core(self, i: int) -> tuple[int, int, int, int, Grain, bool, int] | None:
        """(end, hour, minute, second, grain, explicit, bare number or -1) of the core of a clock time."""
        kind = self.kind(i)
        if kind == "clock":
            h, m, s = (int(v) for v in self.toks[i].values)
            if h > 24:
                return None
            return i + 1, h % 24, m, max(s, 0), "second" if s >= 0 else "minute", True, -1
        word = self.words[i]
        if word in ("noon", "midday", "noonish"):
            return i + 1, 12, 0, 0, "hour", True, -2
        if word in ("midnight", "midnite"):
            return i + 1, 0, 0, 0, "hour", True, -2
        end_of_day = self.phrase(self.skip(self.skip(i, "the"), "end"), ("of", "the", "day"))
        if (
            self.words[self.skip(i, "the")] == "end"
            and max(end_of_day, self.phrase(self.skip(i, "the") + 1, ("of", "day"))) > 0
        ):
            return max(end_of_day, self.skip(i, "the") + 3), 0, 0, 0, "hour", True, -2
        if word == "eod":
            return i + 1, 0, 0, 0, "hour", True, -2
        if word == "twelve" and self.words[i + 1] in ("noon", "midnight"):
            return i + 2, 12 if self.words[i + 1] == "noon" else 0, 0, 0, "hour", True, -2
        relative = self._relative_clock(i)
        if relative is not None:
            return relative
        text = self.toks[i].text if kind == "num" else ""
        if len(text) in (4, 5) and text[-3:-2] == "." and self._unit(i + 1) is None:  # "8.30", "17.45"
            h, m = int(text[:-3]), int(text[-2:])
            return (i + 1, h, m, 0, "minute", False, -1) if h <= 23 and m <= 59 else None
        value = self.integer(i)
        if value is not None:
            if len(text) in (3, 4):  # "730", "1530": hours and minutes run together
                h, m = divmod(value, 100)
                if h > 23 or m > 59:
                    return None
                return i + 1, h, m, 0, "minute", False, -1
            if value > 24 or len(text) > 2:
                return None
            minutes = self.integer(i + 1)
            if (
                minutes is not None
                and len(self.toks[i + 1].text) == 2
                and minutes < 60
                and self.words[i - 1] == "at"
                and self._not_a_unit(i + 2)
            ):
                return i + 2, value % 24, minutes, 0, "minute", False, -1
            if self.words[i + 1] == "half" and self.words[i + 2] not in ("an", "a"):
                return i + 2, value % 24, 30, 0, "minute", False, -1
            return i + 1, value % 24, 0, 0, "hour", False, value
        words = self._hour_words(i)
        if words is None:
            return None
        j, hour, minute = words
        if minute is None:
            if self.words[j] in (
                "of",
                "point",
                "time",
                "another",
                "stage",
                "way",
                "more",
                "hand",
                "side",
                "or",
                "by",
            ):
                return None  # "at one of the cafes", "at one point"
            return j, hour, 0, 0, "hour", False, -1
        return j, hour, minute, 0, "minute", False, -1

    def _not_a_unit(self, i: int) -> bool:
        return self.words[i] not in UNITS and self.words[i] not in ("people", "persons", "guests")

    def _relative_clock(self, i: int) -> tuple[int, int, int, int, Grain, bool, int] | None:
        """ "half past 2", "a quarter to 5", "20 minutes past 3pm", "twenty after 3pm"."""
        if self.words[i] == "half" and self.words[i + 1] not in ("past", "after", "to", "an", "a", "of"):
            base = self._base_hour(i + 1)  # British "half three": half past three
            if base is not None and self.kind(i + 1) in ("num", "word"):
                k, tod = base
                return k, tod.hour, 30, 0, "minute", True, -1 if tod.ambiguous else -2
        minutes = self._relative_minutes(i)
        if minutes is None:
            return None
        j, count = minutes
        direction = self.words[j]
        if direction not in ("past", "after", "to", "till", "before", "of"):
            return None
        if direction in ("to", "till", "before", "of"):
            said_in_words = self.kind(i) == "word" or self.words[j - 1] in (
                "minutes",
                "minute",
                "mins",
                "min",
            )
            if not said_in_words and self.words[j + 1] not in ("noon", "midday", "midnight", "midnite"):
                return None
        base = self._base_hour(j + 1)
        if base is None:
            return None
        k, tod = base
        sign = 1 if direction in ("past", "after") else -1
        total = (tod.hour * 60 + sign * count) % (24 * 60)
        hour, minute = divmod(total, 60)
        if tod.ambiguous:
            hour = hour % 12 or 12
        return k, hour, minute, 0, "minute", True, -1 if tod.ambiguous else -2

    # -- day parts

    def day_part(self, i: int) -> Parse | None:
        """ "this morning", "in the evening", "tonight", "after lunch", "last night", "mornings"."""
        if self.words[i - 1] == "good":
            return None
        anchor: Series | None = None
        j = i
        recurring = early = late = False
        if self.words[j] in ("every", "each"):
            recurring, j = True, j + 1
        elif self.words[j] == "this":
            anchor, j = self.day(self.today).anchor, j + 1
        else:
            for words in (
                ("in", "the"),
                ("during", "the"),
                ("in",),
                ("at",),
                ("the",),
                ("early", "in", "the"),
            ):
                k = self.phrase(j, words)
                if k > 0 and (self.words[k] in _PART_WORDS or self.words[k] in ("early", "late")):
                    early, j = words[0] == "early", k
                    break
        if self.words[j] in ("early", "late"):
            early, late, j = self.words[j] == "early", self.words[j] == "late", j + 1
        word = self.words[j]
        part: str | None = None
        if word in ("tonight", "tonite", "tonights"):
            part, anchor = "late night" if late else "tonight", self.day(self.today).anchor
        elif self.phrase(j, ("last", "night")) > 0 and anchor is None:
            part, anchor, j = (
                "late night" if late else "tonight",
                self.day(self.today - ONE_DAY).anchor,
                j + 1,
            )
        elif word == "after" and self.words[j + 1] in ("lunch", "work", "school"):
            part, j = "after " + self.words[j + 1], j + 1
        elif word in _PART_WORDS:
            part = _PART_WORDS[word]
            if early and part == "morning":
                part = "early morning"
            elif late and part in ("evening", "night"):
                part = "late " + part
            recurring = recurring or word in _PLURAL_PARTS
        if part is None:
            return None
        j += 1
        if self.words[j] == "time" and part == "lunch":
            j += 1
        series = compose(anchor, None, part)
        assert series is not None
        fields = frozenset({PART}) | (DATE_FIELDS if anchor is not None else frozenset())
        # "mornings" names no day: alone it stands for today's, next to "Monday" for Monday's.
        alone = (
            first(compose(self.day(self.today).anchor, None, part) or series, self.now) if recurring else None
        )
        # A bare "lunch" or "night" is more often a thing than a time ("lunch with Bob", "movie night").
        latent = j == i + 1 and word in ("lunch", "lunchtime", "night")
        node = Node(
            series,
            "hour",
            fields,
            anchor=anchor,
            part=part,
            has_date=anchor is not None,
            day_part=_DAY_PART_OF.get(part),
            is_interval=True,
            alone=alone,
            recurring=recurring,
            latent=latent,
        )
        return j, node

    # -- days relative to today

    def relative_day(self, i: int) -> Parse | None:
        """ "today", "tomorrow", "yesterday", "the day after tomorrow", "now", "right now"."""
        j = self.skip(i, "the")
        for words, offset in _RELATIVE_DAYS.get(self.words[j], ()):
            k = self.phrase(j, words)
            if k > 0 and (j == i or len(words) > 1):
                return k, self.day(self.today + offset * ONE_DAY)
        k = self.skip(i, "right", "just")
        if self.words[k] == "now" or self.words[i] == "immediately":
            k = k + 1 if self.words[k] == "now" else i + 1
            span = (self.now, self.now + timedelta(seconds=1))
            node = Node(
                Fixed(span, "second"), "second", _ALL_FIELDS, alone=span, has_date=True, has_time=True
            )
            return k, node
        return None

    # -- weekdays

    def weekday(self, i: int) -> Parse | None:
        """ "Friday", "on Friday", "this Friday", "next Friday", "last Tuesday", "on Mondays", "weekdays"."""
        j = i
        on = every = False
        if self.words[j] == "on":
            on, j = True, self.skip(j + 1, "a")
        if self.words[j] in ("every", "each"):
            every, j = True, j + 1
        mod = self.modifier(j) if not every else None
        if mod is not None:
            j = mod[0]
        word = self.words[j]
        if word in ("weekday", "weekdays") and (every or on or word == "weekdays") and mod is None:
            days = frozenset(range(5))
            node = Node(
                DaySet(days), "day", frozenset({WEEKDAY}), anchor=DaySet(days), weekdays=days, recurring=True
            )
            return j + 1, node
        plural = word in WEEKDAY_PLURALS
        if not plural and word not in WEEKDAYS:
            return None
        number = WEEKDAY_PLURALS[word] if plural else WEEKDAYS[word]
        k = j + 1
        if self.punct(k) == "." and self.glued(k):
            k += 1
        series = DayOfWeek(number)
        if plural or every:
            if mod is not None:
                return None
            node = Node(
                series,
                "day",
                frozenset({WEEKDAY}),
                anchor=series,
                weekdays=frozenset({number}),
                recurring=True,
            )
            return k, node
        after = self.phrase(k, ("after", "next"))
        before = self.phrase(k, ("before", "last"))
        span: Span | None
        if mod is None and after > 0:
            k, span = after, self._nth_span(series, 1)
        elif mod is None and before > 0:
            k, span = before, self._nth_span(series, -2)
        elif mod is None:
            latent = word in AMBIGUOUS_NAMES and not on
            return k, Node(series, "day", frozenset({WEEKDAY}), anchor=series, has_date=True, latent=latent)
        elif mod[1] in ("this", "next"):
            week = self.cycle("week", 0 if mod[1] == "this" else 1)
            span = first(Intersect(Fixed(week, "week"), series), self.now)
        elif mod[1] == "coming":
            span = self._nth_span(series, 0)
        else:
            span = next(series.backward(self.today), None)
        if span is None:
            return None
        return k, self.fixed(span, "day", DATE_FIELDS)

    def _nth_span(self, series: Series, n: int) -> Span | None:
        """The n-th span starting after today (n >= 0), or the (-n-1)-th before it (n < 0)."""
        if n < 0:
            spans = series.backward(self.today)
            n = -n - 1
        else:
            spans = (s for s in series.forward(self.today) if s[0] >= self.today + ONE_DAY)
        for index, span in enumerate(spans):
            if index == n:
                return span
        return None

    # -- dates

    def _date_node(self, month: int, day: int, year: int | None) -> Node:
        """A month and day (and year): the date, or an error a person can act on if it does not exist."""
        length = calendar.monthrange(year if year is not None else 2000, month)[1]
        if day > length:
            where = MONTH_NAMES[month - 1] + (f" {year}" if year is not None else "")
            message = f"{where} has no {ordinal_suffix(day)} day."
            return Node(Fixed((self.now, self.now), "day"), "day", DATE_FIELDS, has_date=True, error=message)
        anchor: Series = Intersect(Month(month), DayOfMonth(day))
        fields = _DAY_FIELDS
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
        j = i + 1 if self.punct(i) == "," else i
        found = self.year(j)
        if found is not None:
            return found
        value = self.integer(j)
        if allow_short and j == i and value is not None and len(self.toks[j].text) == 2:
            return j + 1, 2000 + value
        return None

    def date(self, i: int) -> Parse | None:
        """A calendar date or month: "March 13", "the 1st of March", "14 April 2015", "2/15", "the 15th"."""
        start = i
        on = self.words[i] in ("on", "in", "during")
        if on:
            i += 1
        candidates: list[Parse] = []
        the = self.skip(i, "the")
        # the ides of March
        k = self.phrase(the, ("ides", "of"))
        if k > 0 and self.month_name(k):
            end, month, _ = self.month_name(k) or (0, 0, False)
            candidates.append((end, self._date_node(month, 15 if month in (3, 5, 7, 10) else 13, None)))
        # March 13, March the 13th, March 13th 2015, March first
        named = self.month_name(i)
        if named is not None:
            j, month, ambiguous = named
            k = self.skip(j, "the")
            dom = self.day_of_month(k)
            if dom is not None and not (self.punct(dom[0]) == ":" or self.words[dom[0]] in UNITS):
                end, day, _ = dom
                year = self._trailing_year(end, allow_short=False)
                candidates.append(
                    (year[0], self._date_node(month, day, year[1]))
                    if year
                    else (end, self._date_node(month, day, None))
                )
            year = self._trailing_year(self.skip(j, "of"), allow_short=False)
            if year is not None:
                candidates.append((year[0], self._month_node(month, year[1], False)))
            candidates.append((j, self._month_node(month, None, ambiguous and not on)))
        # 13 March, the 13th of March, 14th April 15, 13th day of March
        dom = self.day_of_month(the)
        if dom is not None:
            j, day, is_ordinal = dom
            k = self.phrase(j, ("day", "of"))
            k = k if k > 0 else self.skip(j, "of", "in")
            if self.punct(k) in ("-", "/") and self.glued(k):
                k += 1
            named = self.month_name(k)
            if named is not None:
                end, month, _ = named
                year = self._trailing_year(end, allow_short=is_ordinal)
                node = self._date_node(month, day, year[1] if year else None)
                candidates.append((year[0] if year else end, node))
            else:
                latent = not (is_ordinal and (on or the > i)) and not (the > i and self._ends_phrase(j))
                anchor = DayOfMonth(day)
                node = Node(
                    anchor, "day", frozenset({DAY}), anchor=anchor, has_date=True, latent=latent, bare=day
                )
                candidates.append((j, node))
        numeric = self._numeric_date(i)
        if numeric is not None:
            candidates.append(numeric)
        mod = self.modifier(i)
        if mod is not None and self.month_name(mod[0]):
            end, month, _ = self.month_name(mod[0]) or (0, 0, False)
            span = self.pick(Month(month), mod[1], "month")
            if span is not None:
                candidates.append(
                    (end, self.fixed(span, "month", frozenset({YEAR, QUARTER, MONTH}), is_interval=True))
                )
        if named is not None:
            j, month, _ = named
            for words, n in ((("after", "next"), 1), (("before", "last"), -2)):
                k = self.phrase(j, words)
                if k > 0:
                    series = Month(month)
                    span = self._nth_month(series, n)
                    if span is not None:
                        candidates.append((k, self.fixed(span, "month", frozenset({YEAR, QUARTER, MONTH}))))
        if not candidates:
            return None
        best = max(candidates, key=lambda c: c[0])
        if on and best[1].latent and not best[1].bare:
            return best[0], replace(best[1], latent=False)
        return best if best[0] > start else None

    def _ends_phrase(self, i: int) -> bool:
        """Nothing but punctuation or a time follows: "the 24" alone is a date, "the 24 hours" not."""
        return (
            i >= self.n
            or self.kind(i) == "punct"
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
        kind = self.kind(i)
        if kind == "date":
            y, m, d = (int(v) for v in self.toks[i].values)
            if not 1 <= m <= 12 or not 1 <= d <= 31:
                return None
            return i + 1, self._date_node(m, d, y)
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
        a = self.integer(i)
        if a is not None and self.punct(i + 1) == "-" and self.words[i - 1] not in ("from", "between"):
            b = self.integer(i + 2)
            if (
                b is not None
                and 1 <= a <= 12
                and 1 <= b <= 31
                and len(self.toks[i + 2].text) <= 2
                and self.ampm(i + 3) is None
                and self.month_name(i + 3) is None
                and self._unit(i + 3) is None
                and self.punct(i + 3) not in (":", "-")
            ):
                return i + 3, self._date_node(a, b, None)
        return None

    def _quarter(self, year: int, quarter: int) -> Node:
        start = datetime(year, 3 * quarter - 2, 1)
        return self.fixed(
            (start, add_months(start, 3)), "quarter", frozenset({YEAR, QUARTER, MONTH}), is_interval=True
        )

    def year_atom(self, i: int) -> Parse | None:
        """ "2014" (only with "in" or next to a date), "in 2014", "the year 2014"."""
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

    # -- this/next/last week, month, quarter, year

    def cycle_atom(self, i: int) -> Parse | None:
        """ "this week", "next month", "last year", "this qtr", "the week after next", "4th quarter 2018"."""
        j = self.skip(i, "around", "about")
        quarter = self._ordinal_quarter(j)
        if quarter is not None:
            return quarter
        rest = self.phrase(self.skip(j, "the"), ("rest", "of", "the"))
        whole = self.phrase(j, ("all",))
        for words in (("the", "whole"), ("the", "entire"), ("whole",), ("entire",)):
            whole = max(whole, self.phrase(j, words))
        if max(rest, whole) > 0 and UNITS.get(self.words[max(rest, whole)]) in (
            "day",
            "week",
            "month",
            "year",
        ):
            k = max(rest, whole)
            grain = UNITS[self.words[k]]
            span = self.cycle(grain, 0)
            if rest > 0:
                span = (self.now, span[1])
            return k + 1, self.fixed(span, grain, _FIELDS_OF_UNIT[grain], is_interval=True)
        mod = self.modifier(j)
        the = self.skip(j, "the")
        if mod is None:
            unit_word = self.words[the]
            for words, n in ((("after", "next"), 2), (("before", "last"), -2)):
                k = self.phrase(the + 1, words)
                if unit_word in UNITS and UNITS[unit_word] in _FIELDS_OF_UNIT and k > 0:
                    grain = UNITS[unit_word]
                    return k, self.fixed(
                        self.cycle(grain, n), grain, _FIELDS_OF_UNIT[grain], is_interval=True
                    )
            return None
        k, meaning = mod
        unit_word = self.words[k]
        if unit_word not in UNITS or self.glued(k):
            return None
        grain = UNITS[unit_word]
        if grain not in _FIELDS_OF_UNIT:
            return None
        n = {"this": 0, "coming": 0, "next": 1, "last": -1}[meaning]
        if grain == "day":
            return None
        span = self.cycle(grain, n)
        if grain == "month" and n == 0 and meaning == "this":
            span = (self.now, span[1])  # the product's "this month": the rest of it
        return k + 1, self.fixed(span, grain, _FIELDS_OF_UNIT[grain], is_interval=True)

    def _ordinal_quarter(self, i: int) -> Parse | None:
        """ "the 4th quarter of 2018", "Q4 2018", "third quarter"."""
        j = self.skip(i, "the")
        found = self.ordinal(j)
        if found is None or UNITS.get(self.words[found[0]]) != "quarter" or not 1 <= found[1] <= 4:
            return None
        k = found[0] + 1
        year = self._trailing_year(self.skip(k, "of", "in"), allow_short=False)
        if year is not None:
            return year[0], self._quarter(year[1], found[1])
        return k, self._quarter(self.now.year, found[1])

    # -- holidays

    def holiday(self, i: int) -> Parse | None:
        """ "Easter", "next Halloween", "last Chinese New Year", "Thanksgiving 2016"."""
        mod = self.modifier(i)
        j = mod[0] if mod is not None else i
        if self.kind(j) != "hol":
            return None
        token = self.toks[j]
        key = token.key
        series = Yearly(lambda year: holiday_spans(key, year))
        sample = first(series, self.now)
        if sample is None:
            return None
        multi_day = sample[1] - sample[0] > ONE_DAY
        weekend = self._weekend_word(j + 1)
        if weekend > 0:  # "Memorial Day weekend": the long weekend the holiday makes
            span = self.pick(series, mod[1] if mod else "this", "day")
            if span is None:
                return None
            friday = span[0] - ((span[0].weekday() - 4) % 7) * ONE_DAY
            long_weekend = (friday + timedelta(hours=17), max(span[1], friday + 3 * ONE_DAY))
            return weekend, self.fixed(long_weekend, "hour", DATE_FIELDS, is_interval=True)
        if mod is None:
            latent = token.text in WEAK_HOLIDAY_WORDS
            node = Node(
                series,
                "day",
                _HOLIDAY_FIELDS,
                anchor=series,
                has_date=True,
                latent=latent,
                is_interval=multi_day,
            )
            return j + 1, node
        span = self.pick(series, mod[1], "day")
        if span is None:
            return None
        return j + 1, self.fixed(span, "day", DATE_FIELDS, is_interval=multi_day)

    # -- durations from now or from another time

    def offset(self, i: int) -> Parse | None:
        """ "in 3 days", "2 weeks ago", "a year after Christmas", "3 fridays from now", "in 15"."""
        if self.words[i] == "in":
            j = i + 2 if self.words[i + 1] in _ROUGHLY else i + 1
            found = self.duration(j)
            if found is not None:
                return found[0], self._in(found[1], 1)
            minutes = self.integer(j)
            if (
                minutes is not None
                and 0 <= minutes <= 60
                and self.words[j + 1] not in UNITS
                and self.kind(j + 1) != "word"
            ):
                return j + 1, self._in(_dur(minutes, "minute"), 1)
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
                return k, self._in(dur, sign)
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
            fields = _ALL_FIELDS if base.has_time else DATE_FIELDS
            node = Node(moved, base.grain, fields, anchor=moved, has_date=True, has_time=base.has_time)
            return target[0], node
        return None

    def _in(self, dur: Dur, sign: int) -> Node:
        """ "in <duration>": an instant at one grain below the duration's, and the span it falls in."""
        grain = _FINER[dur.small]
        moved = self.shift(self.now, dur, sign)
        start = truncate(moved, grain)
        alone = (start, add(start, grain, 1))
        if _rank(dur.big) < _rank("day"):
            return Node(Fixed(alone, grain), grain, _ALL_FIELDS, alone=alone, has_time=True, has_date=False)
        context = (start, add(start, dur.big, 1))
        anchor = Fixed(context, grain)
        return Node(
            anchor,
            grain,
            _FIELDS_OF_UNIT.get(dur.big, DATE_FIELDS),
            anchor=anchor,
            alone=alone,
            has_date=True,
        )

    def _counted_weekdays(self, i: int) -> Parse | None:
        """ "3 fridays from now", "two sundays ago", "2 mondays from next week"."""
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
                if forward:
                    spans = (s for s in series.forward(self.now) if s[0] > self.now)
                else:
                    spans = series.backward(self.today)
                for index, span in enumerate(spans):
                    if index == n - 1:
                        return k, self.fixed(span, "day", DATE_FIELDS)
        return None

    # -- the n-th of something

    def nth(self, i: int) -> Parse | None:
        """ "the first Tuesday of October", "last day of October 2015", "the 2nd last week of October 2018",
        "20th of next month", "the day after Christmas", "last weekend of July"."""
        j = self.skip(i, "the")
        closest = self._closest(j)
        if closest is not None:
            return closest
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
                if target is not None and _calendar_target(target[1]):
                    outer = target[1].anchor
                    series: Series
                    if unit is not None:
                        series = CycleNthWithin(outer, unit, n if last else n - 1, last)
                        grain = unit
                    else:
                        assert inner is not None
                        series = NthWithin(outer, inner, n - 1, last)
                        grain = "hour" if isinstance(inner, Weekend) else "day"
                    if first(series, self.now) is not None:
                        node = Node(
                            series,
                            grain,
                            DATE_FIELDS,
                            anchor=series,
                            has_date=True,
                            is_interval=grain != "day",
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
                and (relation != "of" or _rank(target[1].grain) < _rank(grain))
            ):
                base = self.resolve(target[1])
                if base is not None:
                    sign = {"after": 1, "before": -1, "of": 0}[relation]
                    start = add(truncate(base[0], grain), grain, sign)
                    fields = _FIELDS_OF_UNIT[grain]
                    node = self.fixed(
                        (start, add(start, grain, 1)), grain, fields, is_interval=grain != "day"
                    )
                    candidates.append((target[0], node))
        return max(candidates, key=lambda c: c[0]) if candidates else None

    def _closest(self, j: int) -> Parse | None:
        """ "the closest Monday to October 5th", "the second closest Christmas to today"."""
        count = self.ordinal(j)
        n, k = (count[1], count[0]) if count is not None else (1, j)
        if self.words[k] not in ("closest", "nearest"):
            return None
        inner: Series
        if self.words[k + 1] in WEEKDAYS:
            inner = DayOfWeek(WEEKDAYS[self.words[k + 1]])
        elif self.kind(k + 1) == "hol":
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
            return Weekend(time(17)), None, end
        if word in UNITS and UNITS[word] in ("day", "week", "month", "quarter"):
            return None, UNITS[word], k + 1
        return None, None, -1

    # -- parts of months, years and weeks

    def part_of(self, i: int) -> Parse | None:
        """ "early March", "mid-March", "the end of the month", "EOM", "beginning of 2017", "late next week"."""
        at_the = self.phrase(i, ("at", "the"))
        j = self.skip(at_the if at_the > 0 else i, "the")
        word = self.words[j]
        if word in _SHORTHANDS:
            which, grain = _SHORTHANDS[word]
            return j + 1, self._portion(which, self.cycle(grain, 0), grain)
        if word not in _PORTIONS["month"]:
            return None
        k = j + 2 if self.punct(j + 1) == "-" else j + 1
        if self.words[k] == "of":
            k += 1
        elif word not in ("early", "mid", "late"):
            return None
        k = self.skip(k, "the")
        if self.words[k] in ("month", "year", "week") and self.kind(k + 1) != "num":
            grain = UNITS[self.words[k]]
            return k + 1, self._portion(word, self.cycle(grain, 0), grain)
        target = self.point(k)
        if target is None or not _calendar_target(target[1]) or target[1].grain not in _PORTIONS:
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

    # -- seasons and weekends

    def season(self, i: int) -> Parse | None:
        """ "this winter", "next season", "summer 2014" (with a year), "in the fall"."""
        mod = self.modifier(i)
        j = mod[0] if mod is not None else i
        strong = mod is not None
        if mod is None and self.words[j] in ("in", "during"):
            strong, j = True, self.skip(j + 1, "the")
        word = self.words[j]
        series: Series
        if word in SEASONS:
            series = Season(*SEASONS[word])
        elif word in ("season", "seasons") and mod is not None:
            series = AnySeason([SEASONS[name] for name in ("spring", "summer", "fall", "winter")])
        else:
            return None
        fields = _DAY_FIELDS | {WEEKDAY}
        if mod is None:
            return j + 1, Node(
                series, "day", fields, anchor=series, has_date=True, latent=not strong, is_interval=True
            )
        span = self.pick(series, mod[1], "day")
        if span is None:
            return None
        return j + 1, self.fixed(span, "day", DATE_FIELDS, is_interval=True)

    def _weekend_word(self, i: int) -> int:
        """End of "weekend", "weekends", "wkend", "week end", "week-end" at ``i``, or -1."""
        if self.words[i] in ("weekend", "weekends", "wkend", "wkends"):
            return i + 1
        j = (
            i + 2
            if self.words[i] == "week" and self.punct(i + 1) == "-"
            else i + 1
            if self.words[i] == "week"
            else -1
        )
        return j + 1 if j > 0 and self.words[j] in ("end", "ends") else -1

    def weekend(self, i: int) -> Parse | None:
        """ "this weekend", "next weekend", "this past weekend", "on weekends", "over the weekend"."""
        j = i
        recurring = False
        if self.words[j] in ("every", "each"):
            recurring, j = True, j + 1
        elif self.words[j] in ("on", "over", "during", "for"):
            j += 1
        mod = self.modifier(j)
        if mod is not None:
            j = mod[0]
        else:
            j = self.skip(j, "the")
        k = self._weekend_word(j)
        if k < 0:
            return None
        recurring = recurring or self.words[k - 1].endswith("s")
        series = Weekend(time(17))
        if recurring:
            return k, Node(
                series,
                "hour",
                frozenset({WEEK, WEEKDAY, DAY}),
                anchor=series,
                weekdays=frozenset({5, 6}),
                is_interval=True,
                recurring=True,
            )
        span = self.pick(series, mod[1] if mod else "this", "hour")
        if span is None:
            return None
        return k, self.fixed(span, "hour", frozenset({WEEK, WEEKDAY, DAY}), is_interval=True)
