"""What the two models see of a turn: features of each word for the span tagger, of the whole turn for
the act classifier.

Every feature is about the form of words and their neighbours (case, digits, affixes, the words around
them), what the assistant asked, what the time resolver found and, for the tagger, whether the act
classifier found the turn informing; never about particular sentences: the models must read turns
nobody wrote down before.
"""

from __future__ import annotations

import itertools
import re

from assistant.nlu.reading import Asked
from assistant.nlu.timemarks import OUTSIDE
from assistant.nlu.words import Words

__all__ = ["token_features", "turn_features"]

_SENTENCE_END = frozenset({".", "!", "?", ";"})
_DIGITS = re.compile(r"\d")
_RUN = re.compile(r"(.)\1+")


def token_features(words: Words, asked: Asked | None, *, informs: bool) -> list[list[str]]:
    """The span tagger's features, one list for each token.

    The tagger sees what the resolver makes of the turn rather than the spelling of its time words:
    inside an expression a word is marked with what the expression names (see :func:`time_marks`),
    and a word the resolver reads alone ("Friday", "noon") is given by that reading instead of its
    letters, so every weekday is learnt from the examples of any weekday.

    ``informs`` is whether the turn gives details (the INFORM act: the annotated acts in training, the
    act classifier's reading at run time). The dataset labels the spans of the calendar's details
    only, so the times and addresses a turn gives another service ("book me a cab to 45 Camino Alto")
    are unlabelled there; knowing whether the turn informs at all lets the tagger learn from those
    turns without learning that an address or a time is usually nothing.
    """
    tokens, marks, kinds = words.tokens, words.marks, words.kinds
    lower = [t.text.lower() for t in tokens]
    shapes = [_shape(t.text) for t in tokens]
    shorts = [_short_shape(shape) for shape in shapes]
    ask = asked or "none"
    starts = _sentence_starts(words)
    last = len(tokens) - 1
    out: list[list[str]] = []
    for i, token in enumerate(tokens):
        text, word, shape, short = token.text, lower[i], shapes[i], shorts[i]
        features = [
            "bias",
            f"shape={shape}",
            f"short={short}",
            f"ask={ask}",
            f"ask|short={ask}|{short}",
            f"tx={marks[i]}",
            f"ask|tx={ask}|{marks[i]}",
            f"inf={informs}",
            f"inf|short={informs}|{short}",
            f"inf|tx={informs}|{marks[i]}",
            f"pos={min(i - starts[i], 4)}",
        ]
        if kinds[i]:
            features.append(f"kind={kinds[i]}")
        else:
            features.extend((f"w={word}", f"pre={word[:3]}", f"suf={word[-3:]}"))
        if text.istitle():
            features.append("title")
        if text.isupper():
            features.append("upper")
        if text.isdigit():
            features.append("digit")
        if not text[0].isalnum():
            features.append("punct")
        if i == last or (i + 1 == last and lower[last] in _SENTENCE_END):
            features.append("last")
        for d in (-2, -1, 1, 2):
            j = i + d
            inside = 0 <= j <= last
            features.append(f"{d}:w={lower[j] if inside else 'BOUNDARY'}")
            if abs(d) == 1 and inside:
                features.extend(
                    (
                        f"{d}:short={shorts[j]}",
                        f"{d}:tx={marks[j]}",
                        f"{d}|0:w={_pair(lower, i, j)}",
                    )
                )
                if kinds[j]:
                    features.append(f"{d}:kind={kinds[j]}")
        out.append(features)
    return out


def turn_features(words: Words, asked: Asked | None) -> set[str]:
    """The act classifier's features: words and word pairs, what was asked, what the resolver found.

    Numbers become their shape ("17705" -> "d", "4:30" -> "d:d"): what a turn does with a number does
    not depend on which number it is.
    """
    lower = ["<s>", *(_number_shape(t.text.lower()) for t in words.tokens), "</s>"]
    features = {f"ask={asked or 'none'}"}
    features.update(f"w={w}" for w in lower[1:-1])
    features.update(f"ww={a}|{b}" for a, b in itertools.pairwise(lower))
    features.update(f"tx={mark}" for mark in words.marks if mark != OUTSIDE)
    return features


def _sentence_starts(words: Words) -> list[int]:
    """For each token, the index of the first token of its sentence."""
    starts, start = [], 0
    for i, token in enumerate(words.tokens):
        starts.append(start)
        if token.text in _SENTENCE_END:
            start = i + 1
    return starts


def _pair(words: list[str], i: int, j: int) -> str:
    return f"{words[j]}|{words[i]}" if j < i else f"{words[i]}|{words[j]}"


def _shape(text: str) -> str:
    """Xxxx for "Rangoon", dd:dd for "11:30": each run of a kind of character cut at four."""
    out: list[str] = []
    for ch in text:
        kind = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if out[-4:] != [kind] * 4:
            out.append(kind)
    return "".join(out)


def _short_shape(shape: str) -> str:
    """Xx for "Rangoon", d:d for "11:30": each run of a kind of character as one."""
    return _RUN.sub(r"\1", shape)


def _number_shape(word: str) -> str:
    return _short_shape(_shape(word)) if _DIGITS.search(word) else word
