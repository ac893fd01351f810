"""The act classifier at run time: linear models read from plain JSON, scored in pure Python.

The training command fits them with scikit-learn and writes their weights out; reading a turn then
needs neither scikit-learn nor pickle, only a sum of a few dozen weights per label. Two models share
the features: one-vs-rest logistic regressions for the acts (a turn may do several things: "No, that's
all. Thanks." negates and thanks) and one multinomial regression for the intent a turn announces,
which also decides INFORM_INTENT, so a reading never announces an intent without naming it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["INFORM", "INFORM_INTENT", "ActModel", "LinearLayer"]

INFORM = "INFORM"
INFORM_INTENT = "INFORM_INTENT"
_WORD = "w="  # the prefix of a word feature (see assistant.nlu.features)


@dataclass(frozen=True, slots=True)
class LinearLayer:
    """Weights of one linear model: a score for each label is its intercept plus the weights of the
    features present (all features are present or absent, so no values are needed)."""

    labels: tuple[str | None, ...]
    intercepts: tuple[float, ...]
    weights: Mapping[str, Sequence[float]]

    def scores(self, features: Iterable[str]) -> list[float]:
        # Each label's intercept plus the weights of the features present, summed exactly (fsum): a
        # plain sum would depend on the order of a set of strings, which changes with the process's
        # hash seed, and a turn at a threshold could read differently from one run to the next.
        get = self.weights.get
        rows = [row for row in map(get, features) if row is not None]
        return [math.fsum(column) for column in zip(self.intercepts, *rows, strict=True)]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LinearLayer:
        return cls(
            labels=tuple(data["labels"]),
            intercepts=tuple(data["intercepts"]),
            weights={feature: tuple(row) for feature, row in data["weights"].items()},
        )


@dataclass(frozen=True, slots=True)
class ActModel:
    """The acts layer (with a probability threshold for each act) and the announced-intent layer.

    The intent layer's labels are ``None`` (announces nothing) and the intents.
    """

    acts: LinearLayer
    thresholds: tuple[float, ...]
    intent: LinearLayer

    def predict(self, features: set[str]) -> tuple[frozenset[str], str | None]:
        """The acts of a turn and the intent it announces.

        A turn always does something, so when no act reaches its threshold and no intent is announced,
        the likeliest act is taken; but a turn with no word the model has seen ("asdfgh qwerty") is
        not understood at all, and gets no act rather than the one its intercepts happen to favour.
        """
        if not any(f.startswith(_WORD) and f in self.acts.weights for f in features):
            return frozenset(), None
        intent_scores = self.intent.scores(features)
        intent = self.intent.labels[max(range(len(intent_scores)), key=intent_scores.__getitem__)]
        probabilities = [_sigmoid(s) for s in self.acts.scores(features)]
        chosen = {
            str(label)
            for label, p, threshold in zip(self.acts.labels, probabilities, self.thresholds, strict=True)
            if p >= threshold
        }
        if intent is not None:
            chosen.add(INFORM_INTENT)
        elif not chosen:
            best = max(range(len(probabilities)), key=probabilities.__getitem__)
            chosen.add(str(self.acts.labels[best]))
        return frozenset(chosen), intent

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ActModel:
        return cls(
            acts=LinearLayer.from_json(data["acts"]),
            thresholds=tuple(data["acts"]["thresholds"]),
            intent=LinearLayer.from_json(data["intent"]),
        )


def _sigmoid(score: float) -> float:
    return 1 / (1 + math.exp(-score)) if score >= 0 else math.exp(score) / (1 + math.exp(score))
