"""Which words of a turn the product's own time resolver reads as a date or a time.

The span tagger takes these marks as features: the resolver already knows "the 6th", "next Wednesday",
"a quarter to 11 in the morning" and "night 10" far beyond what a few thousand examples show, so the
tagger only has to learn where the dataset's annotators start and end a span, and the reader finds
the same expressions the decomposer later resolves.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

from assistant.nlu.tokens import Token
from assistant.timeexpr import TimeMatch, find_times

__all__ = ["OUTSIDE", "time_marks", "word_kinds"]

OUTSIDE = "O"
# Whether words form a time expression does not depend on the day it is read; a fixed reference keeps
# the reading of a turn the same whenever it is made.
_REFERENCE = datetime(2019, 3, 1, 8, tzinfo=UTC)


def time_marks(text: str, tokens: list[Token]) -> list[str]:
    """One mark a token: ``O`` outside any expression, else ``B-`` or ``I-`` and what it names.

    What it names is ``date``, ``time``, ``datetime`` (both, as in "March 9th at 5 pm"), ``part`` (a
    day part: "in the morning") or ``other``.
    """
    marks = [OUTSIDE] * len(tokens)
    for match in find_times(text, now=_REFERENCE):
        kind = _kind(match)
        begun = False
        for i, token in enumerate(tokens):
            if token.start < match.span[1] and token.end > match.span[0]:
                marks[i] = f"{'I' if begun else 'B'}-{kind}"
                begun = True
    return marks


def word_kinds(tokens: list[Token]) -> list[str | None]:
    """What each word names when the resolver reads it alone ("Friday": date, "noon": time, "evening":
    part), or None.

    This is what lets the tagger take "on Friday" for a date when its examples only had "next
    Wednesday": both weekdays are dates to the resolver, whichever of them the examples happened to use.
    """
    return [_word_kind(token.text.lower()) for token in tokens]


@lru_cache(maxsize=8192)
def _word_kind(word: str) -> str | None:
    matches = find_times(word, now=_REFERENCE)
    return _kind(matches[0]) if matches else None


def _kind(match: TimeMatch) -> str:
    if match.has_date and match.has_time:
        return "datetime"
    if match.has_date:
        return "date"
    if match.has_time:
        return "time"
    return "part" if match.day_part else "other"
