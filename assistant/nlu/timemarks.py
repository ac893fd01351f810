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
# Whether words form a time expression does not depend on the day it is read: the reference of a text
# read without a turn's clock (the training examples, the single words of :func:`word_kinds`).
_REFERENCE = datetime(2019, 3, 1, 8, tzinfo=UTC)


def time_marks(text: str, tokens: list[Token], *, now: datetime | None = None) -> list[str]:
    """One mark a token: ``O`` outside any expression, else what the expression it is in names.

    That is ``date``, ``time``, ``datetime`` (both at once: "now"), ``part`` (a day part: "in the
    morning") or ``other``. Not where in the expression the token stands: the resolver's expressions
    take in words a span leaves out (the "on" of "on Friday"), so a span's first word is often not the
    expression's. An expression of a day and a time ("on Friday at 1pm") is marked in its two parts,
    as the resolver reads them apart ("on Friday": date, "at 1pm": time): a date and a time are two
    spans, and the examples hardly ever say both in one expression.

    ``now`` is the turn's clock where there is one: the decomposer parses the turn at it too, so within
    one reading (:func:`assistant.timeexpr.one_reading`) the marks cost no parse of their own.
    """
    marks = [OUTSIDE] * len(tokens)
    for match in find_times(text, now=now or _REFERENCE, daytime=True):  # the decomposer's reading: shared
        inside = [i for i, t in enumerate(tokens) if t.start < match.span[1] and t.end > match.span[0]]
        for i, kind in zip(inside, _parts(text, [tokens[i] for i in inside], _kind(match)), strict=True):
            marks[i] = kind
    return marks


def _parts(text: str, tokens: list[Token], kind: str) -> list[str]:
    """The mark of each token of one expression: its kind, or for a day and a time, the kind of the
    part it is in (the time is the longest end, or else beginning, that the resolver reads as a time)."""
    if kind == "datetime":
        for cut in range(1, len(tokens)):
            if _reading(text[tokens[cut].start : tokens[-1].end].lower()) == "time":
                return ["date"] * cut + ["time"] * (len(tokens) - cut)
        for cut in range(len(tokens) - 1, 0, -1):
            if _reading(text[tokens[0].start : tokens[cut - 1].end].lower()) == "time":
                return ["time"] * cut + ["date"] * (len(tokens) - cut)
    return [kind] * len(tokens)


def word_kinds(tokens: list[Token]) -> list[str | None]:
    """What each word names when the resolver reads it alone ("Friday": date, "noon": time, "evening":
    part), or None.

    This is what lets the tagger take "on Friday" for a date when its examples only had "next
    Wednesday": both weekdays are dates to the resolver, whichever of them the examples happened to use.
    """
    return [_reading(token.text.lower()) for token in tokens]


@lru_cache(maxsize=8192)
def _reading(words: str) -> str | None:
    """The kind of expression ``words`` are to the resolver, if they are one as a whole (kept: the
    same words come back turn after turn)."""
    matches = find_times(words, now=_REFERENCE)
    whole = len(matches) == 1 and matches[0].span == (0, len(words))
    return _kind(matches[0]) if whole else None


def _kind(match: TimeMatch) -> str:
    if match.has_date and match.has_time:
        return "datetime"
    if match.has_date:
        return "date"
    if match.has_time:
        return "time"
    return "part" if match.day_part else "other"
