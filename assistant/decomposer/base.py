"""The decomposer entry point and its request type."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.decomposer.rules import RuleDecomposer
from assistant.timeexpr import one_reading
from workflows.definition import Decision

__all__ = ["DecomposeRequest", "decompose"]


@dataclass(slots=True)
class DecomposeRequest:
    """One turn with what it may depend on: the user, their zone, the conversation so far."""

    text: str
    user: Any
    timezone: str
    history: list[tuple[str, str]] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)


_RULES = RuleDecomposer()


def decompose(request: DecomposeRequest) -> Decision:
    if not request.text.strip():
        return Decision(
            kind="clarify", reply_kind="clarify", text="What would you like to know about your calendar?"
        )
    with one_reading():  # the turn's texts are read by several parts of the rules: lexed and parsed once
        return _RULES.decompose(
            text=request.text, user=request.user, timezone_name=request.timezone, context=request.context
        )
