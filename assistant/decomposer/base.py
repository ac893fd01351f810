"""The decomposer entry point and its request type."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from django.conf import settings

from assistant.decomposer.gate import ACT, gate
from assistant.decomposer.rules import RuleDecomposer
from assistant.timeexpr import one_reading
from workflows.definition import Decision

__all__ = ["DecomposeRequest", "Route", "decompose"]

# rules: the rules alone (the offline default); routed: the rules, and the model for what they are
# unsure of (the default with LLM_MODEL set); llm and llm-single: every turn to the model, in three
# phases or in one (for eval_decomposer and run_scenarios).
Route = Literal["rules", "routed", "llm", "llm-single"]


@dataclass(slots=True)
class DecomposeRequest:
    """One turn with what it may depend on: the user, their zone, the conversation so far."""

    text: str
    user: Any
    timezone: str
    history: list[tuple[str, str]] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)


_RULES = RuleDecomposer()


def decompose(request: DecomposeRequest, *, route: Route | None = None) -> Decision:
    if not request.text.strip():
        return Decision(
            kind="clarify", reply_kind="clarify", text="What would you like to know about your calendar?"
        )
    with one_reading():  # the turn's texts are read by several parts of the rules: lexed and parsed once
        rules = _RULES.decompose(
            text=request.text, user=request.user, timezone_name=request.timezone, context=request.context
        )
        route = (
            route or settings.ASSISTANT_DECOMPOSER or ("routed" if settings.LLM_MODEL.strip() else "rules")
        )
        if route == "rules" or (route == "routed" and rules.confidence >= ACT):
            decision = rules
        else:
            from assistant.llm.route import planned  # pydantic-ai is imported only where a model is used

            decision = planned(request, rules, single=route == "llm-single")
        # Whoever planned it, a write passes the same gate: act, preview first, or ask.
        earlier = [text for role, text in request.history if role == "user"]
        return gate(
            decision,
            text=request.text,
            user=request.user,
            timezone_name=request.timezone,
            earlier=earlier,
            frame=rules.frame,
        )
