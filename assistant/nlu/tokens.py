"""Splitting a turn into words with their character offsets, so spans can be cut from the text as typed."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Token", "tokenize"]

# A number keeps its separators ("4:30", "4.8") because a clock time is one word to a reader; a word
# keeps its apostrophes ("I'm", "Oysterfeller's") so names are not cut in the middle; anything else
# that is not a space stands alone ("#", "-", "?"), which is where spans start and end in practice.
_TOKEN = re.compile(r"\d+(?:[:.]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*|\S")


@dataclass(frozen=True, slots=True)
class Token:
    """A word of the turn and where it stands in it (``text == turn[start:end]``)."""

    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """The words and punctuation marks of ``text``, in order."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
