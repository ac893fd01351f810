"""When the model plans a turn, and what the user is told when it cannot.

The rules are the fast path and answer whatever they are sure of (confidence at or above
``planner.ACT``). A turn they are unsure of goes to the model, within the turn's token budget and what
is left of the user's day; the planner gates its own confidence (act, confirm first, or ask). When the
model cannot plan it (a timeout, an outage, a budget spent, a misconfiguration) the rules' decision
stands, with a note saying so; when its plans stayed invalid, the user is asked rather than guessed
for. Never an exception out of here: a chat turn must not become a 500 because a model is down.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from assistant.llm.config import llm_model
from assistant.llm.phases import Turn
from assistant.llm.planner import PlanFailedError, plan
from assistant.llm.usage import daily_tokens_left, record_calls
from preferences.selectors import preferences_described
from skills.selectors import calendar_list
from workflows.definition import Decision

__all__ = ["planned", "turn_of"]

logger = logging.getLogger("assistant.llm")

FALLBACK = {
    "unavailable": "The language model didn't answer, so I went by my built-in rules.",
    "budget": "This request would go over the language model's budget, so I went by my built-in rules.",
    "daily": "You've used today's language-model allowance, so I went by my built-in rules until tomorrow.",
    "misconfigured": "The language model isn't set up correctly (the operator can see why in the log), "
    "so I went by my built-in rules.",
}
COULD_NOT_PLAN = (
    "I couldn't work out a safe way to do that, so I changed nothing. Could you say it in smaller steps "
    '(e.g. "find my classes this week", then "move the Monday one to 9am")?'
)


def turn_of(request: Any) -> Turn:
    """The turn as the planner sees it: the request, the clock and zone, calendars and preferences."""
    from zoneinfo import ZoneInfo

    calendars = [c.name + (" (default)" if c.is_default else "") for c in calendar_list(user=request.user)]
    return Turn(
        text=request.text,
        now=timezone.now().astimezone(ZoneInfo(request.timezone)),
        timezone=request.timezone,
        history=list(request.history),
        calendars=calendars,
        preferences=preferences_described(user=request.user),
    )


def planned(request: Any, rules: Decision, *, single: bool = False) -> Decision:
    """The model's decision for ``request``, or ``rules`` with a note on why the model did not plan it."""
    try:
        model = llm_model()
    except ImproperlyConfigured as exc:
        logger.error("trace %s: the LLM settings are wrong: %s", rules.trace_id, exc)
        return _noted(rules, "misconfigured")
    if model is None:
        return rules
    tokens = int(settings.LLM_TURN_TOKENS)
    left = daily_tokens_left(request.user)
    if left is not None and left <= 0:
        return _noted(rules, "daily")
    if left is not None:
        tokens = min(tokens, left)
    try:
        decision, calls = plan(turn_of(request), model, tokens=tokens, trace_id=rules.trace_id, single=single)
    except PlanFailedError as exc:
        record_calls(request.user, rules.trace_id, exc.calls)
        if exc.kind == "invalid":
            return Decision(
                kind="clarify", reply_kind="clarify", text=COULD_NOT_PLAN, trace_id=rules.trace_id
            )
        return _noted(rules, exc.kind)
    record_calls(request.user, rules.trace_id, calls)
    return decision


def _noted(rules: Decision, why: str) -> Decision:
    return rules.model_copy(update={"notes": (*rules.notes, FALLBACK[why])})
