"""Which words can start a time expression, and which rule each can start.

Most words of a sentence start none, and most rules can only start with a few words: looking the
first token up here spares trying every rule at every word, which is most of the parse time.
Keys are words, punctuation marks or token kinds (num, ord, clock, date, slash, qtr, hol).
"""

from __future__ import annotations

from functools import lru_cache

from assistant.timeexpr.lexicon import (
    MODIFIERS_BY_FIRST,
    MONTHS,
    PART_WORDS,
    PERIOD_SHORTHANDS,
    RELATIVE_DAYS,
    ROUGHLY,
    SEASONS,
    UNITS,
    WEEKDAY_PLURALS,
    WEEKDAYS,
)
from assistant.timeexpr.numbers import CARDINALS, ORDINALS, TENS

__all__ = ["START_WORDS", "rules_for"]

_MODIFIER_WORDS = frozenset(MODIFIERS_BY_FIRST)
_NUMBER_WORDS = frozenset(CARDINALS) | frozenset(TENS)
_DURATION_WORDS = _NUMBER_WORDS | {"a", "an", "few", "several", "couple", "half", "quarter", "pair", "dozen"}

# The atom rules, in order of preference, and the first tokens each can start with.
_ATOM_STARTS: dict[str, frozenset[str]] = {
    "year_atom": frozenset({"num", "in", "during", "of", "the", "year", "two", "nineteen", "twenty"}),
    "clock": _NUMBER_WORDS
    | ROUGHLY
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
        "mid",
    }
    | {"the", "half", "quarter", "a", "one", "middle"},
    "day_part": frozenset(PART_WORDS)
    | {"every", "each", "this", "in", "during", "at", "the", "early", "late", "last", "after"}
    | {"tonight", "tonite", "tonights"},
    "relative_day": frozenset(RELATIVE_DAYS) | {"the", "right", "just", "now", "immediately"},
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
    "offset": _DURATION_WORDS | {"in", "num", "slash"},
    "nth": frozenset(ORDINALS) | frozenset(TENS) | frozenset(UNITS) | {"ord", "num", "the", "last", "on"},
    "closest": frozenset(ORDINALS) | frozenset(TENS) | {"ord", "the", "closest", "nearest"},
    "part_of": frozenset({"at", "the", "early", "mid", "late", "beginning", "start", "end", "middle"})
    | frozenset(PERIOD_SHORTHANDS),
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

_INTERVAL_WORDS = frozenset(
    {"from", "between", "since", "after", "before", "until", "till", "til", "untill", "through", "thru", "up"}
    | {"by", "within", "for", "anytime", "sometime", "sometimes", "any", "no", "prior", "later", "starting"}
    | {"as", "ending", "beginning", "next", "last", "past", "previous", "coming", "following", "upcoming"}
)

START_WORDS: frozenset[str] = _INTERVAL_WORDS.union(
    *(key for key in _ATOM_STARTS.values()), {"fortnight", "fortnights"}
)


@lru_cache(maxsize=4096)
def rules_for(key: str) -> tuple[str, ...]:
    """The atom rules that can start with ``key`` (a word, a punctuation mark or a token kind)."""
    return tuple(name for name, starts in _ATOM_STARTS.items() if key in starts)
