"""What a turn asks the calendar to do, as one learned label: the operation of the turn's reading.

The rules find an operation from the verbs they know ("add", "move", "cancel"); people also state
what is happening ("I have a hike with Polly at 3:30"), wish ("I need a meeting in the afternoon") or
leave the verb out ("tea w/ sam fri 4pm"). This model learns the operation from the whole turn, from
the labelled turns of every shared corpus (see :mod:`assistant.nlu.labels`), and says how sure it is,
so that the decomposer may take its reading where the rules found no operation, and preview, never
write at once, on its word alone.

Scored like the act classifier: a multinomial linear model kept as plain JSON, summed in pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assistant.nlu.acts import LinearLayer

__all__ = ["OPERATIONS", "REQUESTS", "OperationModel"]

# The labels of a turn that asks something of the calendar, rather than answering or chatting.
REQUESTS = (
    "create",  # a new event
    "query",  # what is on, when something is, whether a time is free
    "attribute",  # who comes, where it is, how long it lasts
    "move",  # a new time for an event
    "edit",  # another title, place, length or people for an event
    "delete",
)
# Every label a corpus gives (see assistant.nlu.labels); a model holds the ones its data had.
OPERATIONS = (
    *REQUESTS,
    "approve",  # yes to what was read back, or one of the options offered
    "decline",  # no, keep it as it is
    "detail",  # more about what is being worked on ("at 3pm", "make it an hour")
    "small_talk",  # thanks, greetings, "that's all"
    "out_of_scope",  # weather, reminders, other people's details: not the calendar's
)


@dataclass(frozen=True, slots=True)
class OperationModel:
    """The linear layer over :func:`assistant.nlu.features.turn_features`, one row a label."""

    layer: LinearLayer

    def predict(self, features: set[str]) -> tuple[str, float]:
        """The likeliest operation and its probability (a softmax over the labels' scores)."""
        scores = self.layer.scores(features)
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        best = max(range(len(scores)), key=scores.__getitem__)
        return str(self.layer.labels[best]), exps[best] / sum(exps)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OperationModel:
        return cls(layer=LinearLayer.from_json(data["operation"]))
