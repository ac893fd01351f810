"""The rules' reading of a turn, and the gate every planned write passes.

What decides between the rules and a model is :mod:`assistant.planning`, above both: this package
never imports the model's, so the rules stand alone (offline, in the evaluations, for the model's
own examples).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.decomposer.gate import gate
from assistant.decomposer.handlers import decide, read
from assistant.turnmemo import one_turn
from workflows.definition import Decision

__all__ = ["EMPTY", "DecomposeRequest", "gated", "read_by_rules", "rules_decision"]

EMPTY = "What would you like to know about your calendar?"


@dataclass(slots=True)
class DecomposeRequest:
    """One turn with what it may depend on: the user, their zone, the conversation so far."""

    text: str
    user: Any
    timezone: str
    history: list[tuple[str, str]] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)


def read_by_rules(request: DecomposeRequest) -> Decision:
    """The rules' decision, before the gate (its confidence says whether a model should plan)."""
    return decide(
        read(request.text, user=request.user, timezone_name=request.timezone, context=request.context)
    )


def gated(decision: Decision, request: DecomposeRequest, frame: dict[str, Any]) -> Decision:
    """Whoever planned it, a write passes the same gate: act, preview first, or ask."""
    earlier = [text for role, text in request.history if role == "user"]
    return gate(
        decision,
        text=request.text,
        user=request.user,
        timezone_name=request.timezone,
        earlier=earlier,
        frame=frame,
        asked=request.context.get("asked"),
    )


def rules_decision(request: DecomposeRequest) -> Decision:
    """The turn as the rules alone plan it, gated: the offline reading."""
    if not request.text.strip():
        return Decision(kind="clarify", reply_kind="clarify", text=EMPTY)
    with one_turn():  # the turn's texts are read by several parts of the rules: each read once
        rules = read_by_rules(request)
        return gated(rules, request, rules.frame)
