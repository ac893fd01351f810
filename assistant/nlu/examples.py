"""A labelled turn, the unit both models learn from and are measured on."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.nlu.reading import Asked, Span

__all__ = ["Example"]


@dataclass(frozen=True, slots=True)
class Example:
    """A user turn with what a person said it means.

    ``dialogue`` groups the turns of one conversation, so cross-validation never tests on a
    conversation it trained on; ``canonical`` holds each span's normalised value, in the order of
    ``spans`` (YYYY-MM-DD for dates, HH:MM for times, the words themselves for titles and places).
    """

    dialogue: str
    text: str
    asked: Asked | None
    acts: frozenset[str]
    intent: str | None
    spans: tuple[Span, ...]
    canonical: tuple[str, ...]
    operation: str | None = None  # what the turn asks for (assistant.nlu.labels); None: not labelled
