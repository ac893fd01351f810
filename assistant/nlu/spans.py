"""The span tagger: a linear-chain CRF (python-crfsuite) that labels each word B-, I- or O for a slot.

BIO tags over words, not characters, so the tagger learns where people start and end a title or a
place from the words around it; the spans it returns are cut from the turn by the words' offsets, so
they keep the text exactly as typed.
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import TypeAlias

import pycrfsuite

from assistant.nlu.reading import CHANGE_SLOTS, EDIT_SLOTS, EXCLUSION_SLOTS, SLOTS, Slot, Span
from assistant.nlu.tokens import Token

__all__ = ["Items", "SpanTagger", "found_tags", "items_of", "spans_from_tags", "tags_from_spans"]

_OUTSIDE = "O"
_SLOTS: dict[str, Slot] = {slot: slot for slot in (*SLOTS, *CHANGE_SLOTS, *EXCLUSION_SLOTS, *EDIT_SLOTS)}

# Each word's features as crfsuite takes them: a list of feature names a word, or those lists converted
# once (see :func:`items_of`).
Items: TypeAlias = "list[list[str]] | pycrfsuite.ItemSequence"


def items_of(features: list[list[str]]) -> pycrfsuite.ItemSequence:
    """``features`` converted once for every tagger that reads the same words: crfsuite converts a
    list at each call, and that costs more than the tagging (60 and 40 microseconds for 19 words)."""
    return pycrfsuite.ItemSequence(features)


class SpanTagger:
    """A trained CRF model, ready to tag.

    A crfsuite tagger keeps the sequence it is tagging inside itself, so one tagger serves one call at
    a time: the lock makes it safe to share between the server's threads (a call takes well under a
    millisecond).
    """

    def __init__(self, model: bytes) -> None:
        # crfsuite reads the model from this buffer for as long as the tagger lives, without holding a
        # reference to it: if it were collected, tagging would read freed memory (and tag everything O).
        self._model = model
        self._tagger = pycrfsuite.Tagger()
        self._tagger.open_inmemory(self._model)
        self._lock = threading.Lock()

    @cached_property
    def attributes(self) -> frozenset[str]:
        """The features the model gives a weight: any other is no part of a word's score, so a caller
        may leave it out before tagging (converting a word's features costs more than tagging it)."""
        with self._lock:
            return frozenset(attribute for attribute, _ in self._tagger.info().state_features)

    def tags(self, features: Items) -> list[str]:
        """The most likely tag of each word, given each word's features."""
        if not len(features):
            return []
        with self._lock:
            return list(self._tagger.tag(features))

    def inside(self, features: Items) -> list[float]:
        """Each word's probability of lying in some span (of being tagged other than O)."""
        if not len(features):
            return []
        with self._lock:
            self._tagger.set(features)
            return [1.0 - self._tagger.marginal(_OUTSIDE, i) for i in range(len(features))]


def found_tags(names: SpanTagger | None, people: SpanTagger | None, features: Items) -> list[str]:
    """Each word's tag from the people tagger, or where it found no person the names tagger's ("O"
    where neither found anything, or without them): what the edit tagger is told is already named."""
    named = names.tags(features) if names is not None else ["O"] * len(features)
    persons = people.tags(features) if people is not None else ["O"] * len(features)
    return [p if p != _OUTSIDE else n for p, n in zip(persons, named, strict=True)]


def tags_from_spans(tokens: list[Token], spans: tuple[Span, ...]) -> list[str]:
    """The BIO tag of each token, for training: a token is in a span when it lies within its offsets."""
    tags = [_OUTSIDE] * len(tokens)
    for span in spans:
        inside = [i for i, t in enumerate(tokens) if t.start >= span.start and t.end <= span.end]
        for n, i in enumerate(inside):
            tags[i] = f"{'I' if n else 'B'}-{span.slot}"
    return tags


def spans_from_tags(text: str, tokens: list[Token], tags: list[str]) -> tuple[Span, ...]:
    """The spans the tags mark; an I- tag that does not continue its slot starts a new span."""
    spans: list[Span] = []
    slot: str | None = None
    start = end = 0
    for token, tag in zip(tokens, tags, strict=True):
        kind, _, tag_slot = tag.partition("-")
        if slot is not None and (kind != "I" or tag_slot != slot):
            spans.append(_span(text, slot, start, end))
            slot = None
        if kind in ("B", "I") and slot is None:
            slot, start = tag_slot, token.start
        if slot is not None:
            end = token.end
    if slot is not None:
        spans.append(_span(text, slot, start, end))
    return tuple(spans)


def _span(text: str, slot: str, start: int, end: int) -> Span:
    return Span(_SLOTS[slot], start, end, text[start:end])
