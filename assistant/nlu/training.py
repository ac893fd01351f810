"""Training both models of the turn reader from labelled turns (needs the ``train`` extra).

Everything here is deterministic, so the same examples give byte-identical model files and a retrained
model shows up in a diff only when the data or the code changed: the act classifier is fitted with
L-BFGS (no random state), its features and labels are sorted and its weights rounded; crfsuite's
L-BFGS is deterministic as well, and is fed the examples in their given order. The taggers learn from
what the act classifier reads of turns without annotated acts, whose scores are exact sums, the same
whatever order the process's hash seed gives a turn's features.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pycrfsuite
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression

from assistant.nlu.acts import INFORM, INFORM_INTENT, ActModel
from assistant.nlu.examples import Example
from assistant.nlu.features import (
    edit_features,
    exclusion_features,
    operation_features,
    token_features,
    turn_features,
)
from assistant.nlu.reading import CHANGE_SLOTS, EDIT_SLOTS, EXCLUSION_SLOTS, NAME_SLOTS, PERSON_SLOTS, Slot
from assistant.nlu.shipped import (
    ACTS_FILE,
    EDITS_FILE,
    EXCLUSIONS_FILE,
    MOVES_FILE,
    NAMES_FILE,
    OPERATIONS_FILE,
    PEOPLE_FILE,
    SPANS_FILE,
)
from assistant.nlu.spans import SpanTagger, found_tags, items_of, tags_from_spans
from assistant.nlu.words import Words, words_of

__all__ = [
    "train",
    "train_acts",
    "train_edits",
    "train_exclusions",
    "train_moves",
    "train_names",
    "train_operations",
    "train_people",
    "train_spans",
]

# A feature seen once teaches about one sentence, not about turns.
_MIN_FEATURE_COUNT = 2
# Inverse regularisation strength of the logistic regressions.
_C = 1.0
# Weights are kept to three decimals, and a feature none of whose weights reaches 0.05 is left out:
# it moves no probability by much more than a point, and leaving such features out halves the file
# without changing the cross-validated accuracy.
_DECIMALS = 3
_MIN_WEIGHT = 0.05
_CRF_PARAMS = {
    "c1": 0.05,  # L1: drops most features the tagger does not need
    "c2": 0.01,  # L2
    "max_iterations": 200,
    "feature.possible_transitions": True,  # so that unseen tag pairs are scored, not forbidden
}
# The names tagger learns from about 12,000 turns and many more words: a stronger L1 keeps half the
# features (a 350 KB file instead of 670 KB) at the same cross-validated F1 (titles 0.89 / 0.69 / 0.49
# on SGD / SMCalFlow / NLU-Evaluation-Data with 0.3, 0.89 / 0.68 / 0.56 with 0.05).
_NAMES_CRF_PARAMS = {**_CRF_PARAMS, "c1": 0.3}


def train(
    examples: Sequence[Example],
    *,
    names: Sequence[Example] = (),
    moves: Sequence[Example] = (),
    exclusions: Sequence[Example] = (),
    edits: Sequence[Example] = (),
    trained_on: Mapping[str, Any] | None = None,
) -> dict[str, bytes]:
    """The model files, by file name, as :func:`assistant.nlu.shipped.reader_from_files` reads them:
    the act classifier and span tagger from ``examples`` and, given ``names``, the names tagger, the
    people tagger and the operation model (from those of ``names`` whose corpus labelled an operation),
    and given ``moves``, ``exclusions`` or ``edits`` as well, the move, the exclusion or the edit tagger.

    ``trained_on`` describes the data (the training command gives the files' names and SHA-256) and is
    kept in the act model's file, so an evaluation can tell when it is testing on the training data.
    """
    model = train_acts(examples)
    if trained_on is not None:
        model["trained_on"] = dict(trained_on)
    acts = json.dumps(model, sort_keys=True, separators=(",", ":")) + "\n"
    files = {ACTS_FILE: acts.encode(), SPANS_FILE: train_spans(examples)}
    if names:
        acts_model = ActModel.from_json(model)
        files[NAMES_FILE] = train_names(names, acts_model)
        files[PEOPLE_FILE] = train_people(names, acts_model)
        operations = json.dumps(train_operations(names), sort_keys=True, separators=(",", ":")) + "\n"
        files[OPERATIONS_FILE] = operations.encode()
        if moves:
            files[MOVES_FILE] = train_moves(moves, acts_model)
        if exclusions:
            files[EXCLUSIONS_FILE] = train_exclusions(exclusions, acts_model)
        if edits:
            taggers = SpanTagger(files[NAMES_FILE]), SpanTagger(files[PEOPLE_FILE])
            files[EDITS_FILE] = train_edits(edits, acts_model, *taggers)
    return files


def train_operations(examples: Sequence[Example]) -> dict[str, Any]:
    """The operation model as plain JSON data (see :meth:`assistant.nlu.operations.OperationModel.from_json`),
    from the examples that have an operation label."""
    labelled = [e for e in examples if e.operation is not None]
    vocabulary, matrix = _design([_operation_features(e) for e in labelled])
    labels = sorted({str(e.operation) for e in labelled})
    fit = _fit(matrix, np.array([labels.index(str(e.operation)) for e in labelled]))
    if fit is None or len(labels) < 3:
        raise ValueError("The operation model needs turns of at least three operations.")
    return {
        "operation": {
            "labels": labels,
            "intercepts": [_round(b) for b in fit.intercept_],
            "weights": _weights(vocabulary, fit.coef_),
        },
        "turns": len(labelled),
    }


def train_acts(examples: Sequence[Example]) -> dict[str, Any]:
    """The act classifier as plain JSON data (see :meth:`assistant.nlu.acts.ActModel.from_json`)."""
    vocabulary, matrix = _design([_turn_features(e) for e in examples])

    act_labels = sorted({a for e in examples for a in e.acts if a != INFORM_INTENT})
    act_fits = [_fit(matrix, np.array([a in e.acts for e in examples], dtype=int)) for a in act_labels]
    kept = [(label, fit) for label, fit in zip(act_labels, act_fits, strict=True) if fit is not None]

    intent_labels: list[str | None] = [None, *sorted({e.intent for e in examples if e.intent is not None})]
    intent_fit = _fit(matrix, np.array([intent_labels.index(e.intent) for e in examples]))
    if intent_fit is None:
        raise ValueError("Training needs turns that announce an intent and turns that do not.")

    coef, intercepts = intent_fit.coef_, intent_fit.intercept_
    if len(intent_labels) == 2:
        # scikit-learn keeps one row for two classes (the second's score against the first's); a
        # row of zeros for the first gives the same choice with one row a label, as the reader wants
        coef, intercepts = np.vstack([np.zeros_like(coef), coef]), np.concatenate([[0.0], intercepts])
    act_coef = np.vstack([fit.coef_ for _, fit in kept]) if kept else np.zeros((0, len(vocabulary)))
    return {
        "acts": {
            "labels": [label for label, _ in kept],
            "intercepts": [_round(fit.intercept_[0]) for _, fit in kept],
            "thresholds": [0.5] * len(kept),
            "weights": _weights(vocabulary, act_coef),
        },
        "intent": {
            "labels": intent_labels,
            "intercepts": [_round(b) for b in intercepts],
            "weights": _weights(vocabulary, coef),
        },
    }


def train_spans(examples: Sequence[Example]) -> bytes:
    """The span tagger's crfsuite model file."""
    return _crf(((words_of(e.text), e, INFORM in e.acts) for e in examples), _CRF_PARAMS)


def train_names(examples: Sequence[Example], acts: ActModel) -> bytes:
    """The names tagger's crfsuite model file: titles and places only, learnt from every corpus.

    It sees what the span tagger sees, whether the turn informs included: from a turn's annotated acts
    where its corpus has them (SGD), else from ``acts``, the act classifier, as when it reads a turn.
    """
    return _crf(_tagged(examples, acts, NAME_SLOTS), _NAMES_CRF_PARAMS)


def train_people(examples: Sequence[Example], acts: ActModel) -> bytes:
    """The people tagger's crfsuite model file, from the same turns and features as the names tagger.

    A tagger of its own, so that a name may lie within a title ("Lunch with Ann" is a title and Ann
    one of its people) and the titles learnt stay what they were.
    """
    return _crf(_tagged(examples, acts, PERSON_SLOTS), _NAMES_CRF_PARAMS)


def train_moves(examples: Sequence[Example], acts: ActModel) -> bytes:
    """The move tagger's crfsuite model file: where a move takes its event, from the moves of
    :mod:`assistant.nlu.moves`, with the features the other taggers see."""
    return _crf(_tagged(examples, acts, CHANGE_SLOTS), _CRF_PARAMS)


def train_exclusions(examples: Sequence[Example], acts: ActModel) -> bytes:
    """The exclusion tagger's crfsuite model file: what a turn leaves out, from the turns of
    :mod:`assistant.nlu.exclusions`, with the other taggers' features and the words before each word
    (see :func:`assistant.nlu.features.exclusion_features`)."""
    return _crf(_tagged(examples, acts, EXCLUSION_SLOTS), _CRF_PARAMS, exclusion_features)


def train_edits(examples: Sequence[Example], acts: ActModel, names: SpanTagger, people: SpanTagger) -> bytes:
    """The edit tagger's crfsuite model file: the new title, the new place and the people invited or
    taken off that an edit gives, from the turns of :mod:`assistant.nlu.edits`, with the features the
    exclusion tagger sees (the words before a word tell a new name from the old: "from Subway to
    *Arby's*", "replace woakes with *julie*") and what the ``names`` and ``people`` taggers find (see
    :func:`assistant.nlu.features.edit_features`)."""

    def more(words: Words, featured: list[list[str]]) -> list[list[str]]:
        return edit_features(words, featured, found_tags(names, people, items_of(featured)))

    return _crf(_tagged(examples, acts, EDIT_SLOTS), _CRF_PARAMS, more)


def _tagged(
    examples: Sequence[Example], acts: ActModel, slots: tuple[Slot, ...]
) -> Iterator[tuple[Words, Example, bool]]:
    """Each example with its spans of ``slots`` only, its words, and whether it informs."""
    for example in examples:
        words = words_of(example.text)
        informs = (
            INFORM in example.acts
            if example.acts
            else INFORM in acts.predict(turn_features(words, example.asked))[0]
        )
        kept = [(s, c) for s, c in zip(example.spans, example.canonical, strict=True) if s.slot in slots]
        only = replace(example, spans=tuple(s for s, _ in kept), canonical=tuple(c for _, c in kept))
        yield words, only, informs


def _crf(
    rows: Iterable[tuple[Words, Example, bool]],
    params: Mapping[str, Any],
    more: Callable[[Words, list[list[str]]], list[list[str]]] | None = None,
) -> bytes:
    """A crfsuite model file from tagged rows, each word featured by :func:`token_features` and,
    for a tagger that sees more, by ``more`` from those."""
    trainer = pycrfsuite.Trainer(verbose=False)
    for words, example, informs in rows:
        if words.tokens:
            features = token_features(words, example.asked, informs=informs)
            if more is not None:
                features = more(words, features)
            trainer.append(features, tags_from_spans(words.tokens, example.spans))
    trainer.set_params(dict(params))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model.crfsuite"
        trainer.train(str(path))
        return path.read_bytes()


def _turn_features(example: Example) -> set[str]:
    return turn_features(words_of(example.text), example.asked)


def _operation_features(example: Example) -> set[str]:
    words = words_of(example.text)
    return operation_features(words, turn_features(words, example.asked))


def _design(rows: list[set[str]]) -> tuple[list[str], csr_matrix]:
    """The features seen often enough to learn from (sorted) and the rows as a binary matrix over them."""
    counts = Counter(f for row in rows for f in row)
    vocabulary = sorted(f for f, n in counts.items() if n >= _MIN_FEATURE_COUNT)
    return vocabulary, _binary_matrix(rows, {f: j for j, f in enumerate(vocabulary)})


def _binary_matrix(rows: list[set[str]], column: dict[str, int]) -> csr_matrix:
    indices = [sorted(column[f] for f in row if f in column) for row in rows]
    pointers = np.cumsum([0, *(len(i) for i in indices)])
    flat = np.array([j for i in indices for j in i], dtype=np.int64)
    return csr_matrix((np.ones(len(flat)), flat, pointers), shape=(len(rows), len(column)))


def _fit(matrix: csr_matrix, target: np.ndarray) -> LogisticRegression | None:
    """A fitted regression, or None when the target has one class only (nothing to tell apart)."""
    if len(np.unique(target)) < 2:
        return None
    return LogisticRegression(C=_C, max_iter=2000).fit(matrix, target)


def _weights(vocabulary: list[str], coef: np.ndarray) -> dict[str, list[float]]:
    """Each feature's row of weights, one per label, leaving out features that weigh next to nothing."""
    out = {}
    for j, feature in enumerate(vocabulary):
        row = [_round(w) for w in coef[:, j]]
        if max((abs(w) for w in row), default=0.0) >= _MIN_WEIGHT:
            out[feature] = row
    return out


def _round(value: float) -> float:
    return round(float(value), _DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0
