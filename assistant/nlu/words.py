"""A turn cut into words, with what the time resolver says of them: the input of both models."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from assistant.nlu.timemarks import time_marks, word_kinds
from assistant.nlu.tokens import Token, tokenize

__all__ = ["Words", "words_of"]


@dataclass(frozen=True, slots=True)
class Words:
    """The tokens of a turn, the resolver's mark of each (see :func:`time_marks`) and what each word
    names alone (see :func:`word_kinds`), computed once and shared by the two models."""

    tokens: list[Token]
    marks: list[str]
    kinds: list[str | None]


def words_of(text: str, *, now: datetime | None = None) -> Words:
    """``now``: the turn's clock, if it has one (see :func:`time_marks`)."""
    tokens = tokenize(text)
    return Words(tokens, time_marks(text, tokens, now=now), word_kinds(tokens))
