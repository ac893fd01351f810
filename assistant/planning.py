"""Which planner reads a turn: the rules, and a model for what they are unsure of.

Above both :mod:`assistant.decomposer` (the rules and the gate) and :mod:`assistant.llm` (the model's
planner), so neither imports the other's entry point; pydantic-ai is imported only where a model is
used.  Whoever plans, the same gate decides whether a write acts, is previewed, or is asked about.
"""

from __future__ import annotations

from typing import Literal

from django.conf import settings

from assistant.decomposer.entry import EMPTY, DecomposeRequest, gated, read_by_rules
from assistant.decomposer.gate import ACT
from assistant.turnmemo import one_turn
from workflows.definition import Decision

__all__ = ["DecomposeRequest", "Route", "decompose"]

# rules: the rules alone (the offline default); routed: the rules, and the model for what they are
# unsure of (the default with LLM_MODEL set); llm and llm-single: every turn to the model, in three
# phases or in one (for eval_decomposer and run_scenarios).
Route = Literal["rules", "routed", "llm", "llm-single"]


def decompose(request: DecomposeRequest, *, route: Route | None = None) -> Decision:
    if not request.text.strip():
        return Decision(kind="clarify", reply_kind="clarify", text=EMPTY)
    with one_turn():  # the turn's texts are read by several parts of the rules: each read once
        rules = read_by_rules(request)
        route = (
            route or settings.ASSISTANT_DECOMPOSER or ("routed" if settings.LLM_MODEL.strip() else "rules")
        )
        if route == "rules" or (route == "routed" and rules.confidence >= ACT):
            decision = rules
        else:
            from assistant.llm.route import planned  # pydantic-ai is imported only where a model is used

            decision = planned(request, rules, single=route == "llm-single")
        return gated(decision, request, rules.frame)
