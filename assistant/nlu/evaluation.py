"""Measuring the turn reader on labelled turns, and cross-validation over whole dialogues.

Cross-validation trains on the other folds and reads the held fold, so every figure is on turns from
dialogues the model never saw, the way the held-out half of the dataset will judge it. Folds are cut
by dialogue, never by turn: turns of one conversation share names and places, and testing on a
conversation trained on would flatter the span tagger.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from assistant.nlu.examples import Example
from assistant.nlu.reader import TurnReader
from assistant.nlu.reading import SLOTS, Slot, Span, TurnReading
from assistant.nlu.shipped import reader_from_files
from assistant.nlu.spans import tags_from_spans
from assistant.nlu.tokens import tokenize
from assistant.nlu.training import train
from assistant.timeexpr import find_times

__all__ = [
    "REFERENCE",
    "Scores",
    "cross_validate",
    "precision_recall",
    "read_unseen",
    "score",
    "unseen_and_shipped",
]

T = TypeVar("T")

# The dataset's dates are relative to this Friday morning, in the zone its dialogues take place in.
REFERENCE = datetime(2019, 3, 1, 8, tzinfo=ZoneInfo("America/Los_Angeles"))
# Acts with fewer turns than this get no F1 of their own: a figure over a handful says little.
_COMMON = 20
_VALUE_FORMATS = {"date": "%Y-%m-%d", "time": "%H:%M"}


@dataclass
class Counts:
    """True positives, false positives and false negatives of one kind of answer."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, gold: set[Any], predicted: set[Any]) -> None:
        self.tp += len(gold & predicted)
        self.fp += len(predicted - gold)
        self.fn += len(gold - predicted)

    @property
    def f1(self) -> float | None:
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp + self.fp + self.fn else None


@dataclass
class Scores:
    """Everything measured over a run of turns; turns are added one by one, from any number of folds."""

    n: int = 0
    acts_right: int = 0
    intent_right: int = 0
    acts: defaultdict[str, Counts] = field(default_factory=lambda: defaultdict(Counts))
    spans: defaultdict[Slot, Counts] = field(default_factory=lambda: defaultdict(Counts))
    tokens: defaultdict[Slot, Counts] = field(default_factory=lambda: defaultdict(Counts))
    values_right: defaultdict[Slot, int] = field(default_factory=lambda: defaultdict(int))
    values_total: defaultdict[Slot, int] = field(default_factory=lambda: defaultdict(int))
    timings_ms: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def add(self, example: Example, reading: TurnReading, ms: float) -> None:
        self.n += 1
        self.timings_ms.append(ms)
        acts_ok = reading.acts == example.acts
        intent_ok = reading.intent == example.intent
        self.acts_right += acts_ok
        self.intent_right += intent_ok
        for act in example.acts | reading.acts:
            self.acts[act].add({act} & example.acts, {act} & reading.acts)
        tokens = tokenize(example.text)
        gold_tags = tags_from_spans(tokens, example.spans)
        predicted_tags = tags_from_spans(tokens, reading.spans)
        for slot in SLOTS:
            self.spans[slot].add(_bounds(example.spans, slot), _bounds(reading.spans, slot))
            self.tokens[slot].add(
                {i for i, tag in enumerate(gold_tags) if tag.endswith(f"-{slot}")},
                {i for i, tag in enumerate(predicted_tags) if tag.endswith(f"-{slot}")},
            )
        for span, canonical in zip(example.spans, example.canonical, strict=True):
            self.values_total[span.slot] += 1
            found = {value_of(p) for p in reading.spans if p.slot == span.slot}
            self.values_right[span.slot] += _normal(span.slot, canonical) in found
        if not (acts_ok and intent_ok and set(reading.spans) == set(example.spans)):
            self.misses.append(_miss(example, reading))

    def as_dict(self) -> dict[str, Any]:
        """The figures, as ``eval_turns --json`` prints them (None where nothing was there to count)."""
        common = sorted(act for act, c in self.acts.items() if c.tp + c.fn >= _COMMON)
        return {
            "n": self.n,
            "act_accuracy": _ratio(self.acts_right, self.n),
            "intent_accuracy": _ratio(self.intent_right, self.n),
            "act_f1": {act: _round(self.acts[act].f1) for act in common},
            "span_f1": {slot: _round(self.spans[slot].f1) for slot in SLOTS},
            "token_f1": {slot: _round(self.tokens[slot].f1) for slot in SLOTS},
            "value_accuracy": {
                slot: _ratio(self.values_right[slot], self.values_total[slot]) for slot in SLOTS
            },
            "p50_ms": _round(statistics.median(self.timings_ms)) if self.timings_ms else None,
            "p95_ms": _round(_percentile(self.timings_ms, 0.95)) if self.timings_ms else None,
        }


def score(reader: TurnReader, examples: Sequence[Example], into: Scores | None = None) -> Scores:
    """Read every example with ``reader``, timing each reading; add to ``into`` when given."""
    scores = into or Scores()
    if examples:
        reader.read(examples[0].text, asked=examples[0].asked)  # the first reading pays for warm-up
    for example in examples:
        began = time.perf_counter()
        reading = reader.read(example.text, asked=example.asked)
        scores.add(example, reading, (time.perf_counter() - began) * 1000)
    return scores


def cross_validate(examples: Sequence[Example], folds: int) -> Scores:
    """Scores of ``folds``-fold cross-validation over dialogues.

    Dialogues are dealt to the folds in the order of their sorted ids, so the folds are the same at
    every run and every fold gets dialogues of every kind the file holds.
    """
    dialogues = sorted({e.dialogue for e in examples})
    if len(dialogues) < folds:
        raise ValueError(f"{folds} folds need at least {folds} dialogues; there are {len(dialogues)}.")
    scores = Scores()
    for fold in range(folds):
        held = dialogue_fold(examples, folds, fold)
        out = {id(e) for e in held}
        reader = reader_from_files(train([e for e in examples if id(e) not in out]))
        score(reader, held, scores)
    return scores


def dialogue_fold(examples: Sequence[Example], folds: int, fold: int) -> list[Example]:
    """The examples of one of ``folds`` folds: dialogues dealt to the folds in the order of their sorted
    ids, so a fold never shares a conversation with the others and is the same at every run."""
    dialogues = sorted({e.dialogue for e in examples})
    fold_of = {dialogue: i % folds for i, dialogue in enumerate(dialogues)}
    return [e for e in examples if fold_of[e.dialogue] == fold]


def read_unseen(
    examples: Sequence[Example],
    folds: int,
    reader_of: Callable[[list[Example]], TurnReader],
    read: Callable[[TurnReader, Example], T],
) -> list[tuple[Example, T]]:
    """Each example with what ``read`` makes of it through the reader ``reader_of`` trains on the other
    folds (by dialogue, see :func:`dialogue_fold`): how a tagger does on conversations it never saw."""
    crossed: list[tuple[Example, T]] = []
    for fold in range(folds):
        held = dialogue_fold(examples, folds, fold)
        out = {id(e) for e in held}
        reader = reader_of([e for e in examples if id(e) not in out])
        crossed += [(e, read(reader, e)) for e in held]
    return crossed


def unseen_and_shipped(
    examples: Sequence[Example],
    folds: int,
    shipped: TurnReader,
    retrained: Callable[[list[Example]], TurnReader],
    read: Callable[[TurnReader, Example], T],
    figures: Callable[[list[tuple[Example, T]]], dict[str, float]],
) -> dict[str, dict[str, float]]:
    """One tagger's figures on dialogues it never saw (``retrained`` on the other folds) and as shipped,
    which learnt from all of them: the two rows every tagger's evaluation reports."""
    return {
        "unseen dialogues": figures(read_unseen(examples, folds, retrained, read)),
        "shipped": figures([(e, read(shipped, e)) for e in examples]),
    }


def precision_recall(right: int, found: int, labelled: int) -> dict[str, float]:
    """Precision over what was found, recall over what was labelled, and their F1, rounded."""
    precision = right / found if found else 0.0
    recall = right / labelled if labelled else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}


def value_of(span: Span) -> str:
    """What a span says, in the dataset's canonical form: a date or a time as the product's resolver
    reads the span's words, a title or a place as its words (case aside)."""
    fmt = _VALUE_FORMATS.get(span.slot)
    if fmt is None:
        return span.text.strip().lower()
    matches = find_times(span.text, now=REFERENCE, daytime=True)
    match = max(matches, key=lambda m: m.span[1] - m.span[0], default=None)
    return match.start.strftime(fmt) if match is not None and match.start is not None else ""


def _normal(slot: Slot, canonical: str) -> str:
    return canonical if slot in _VALUE_FORMATS else canonical.strip().lower()


def _bounds(spans: Sequence[Span], slot: Slot) -> set[tuple[int, int]]:
    return {(s.start, s.end) for s in spans if s.slot == slot}


def _miss(example: Example, reading: TurnReading) -> str:
    def spans(found: Sequence[Span]) -> str:
        return ", ".join(f"{s.slot}={s.text!r}" for s in found) or "-"

    return (
        f"{example.text!r} (asked {example.asked}): acts {sorted(example.acts)} intent {example.intent} "
        f"spans {spans(example.spans)}\n    read acts {sorted(reading.acts)} intent {reading.intent} "
        f"spans {spans(reading.spans)}"
    )


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ratio(right: int, total: int) -> float | None:
    return _round(right / total) if total else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
