"""The model-call log in the database: saving a turn's calls, what a user spent, and retention.

:mod:`assistant.llm.calls` gathers :class:`CallRecord` objects in memory while a turn is planned (the
phases run on an event loop and must not touch the database); the sync code around the planner
hands them to :func:`record_calls` once the turn is planned.  :func:`daily_tokens_left` is what the
planner and the LLM skills check before asking: the user's day in tokens (``LLM_DAILY_TOKENS``) and
in dollars (``LLM_DAILY_COST_USD``) in one answer (the turn's own cap, ``LLM_TURN_TOKENS``, is
counted in memory).  :func:`prune_model_calls` blanks old prompts and outputs (``LLM_LOG_DAYS``):
they quote the user and their calendar, while the numbers stay for the usage statistics.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import F, Sum
from django.utils import timezone

from assistant.llm.calls import CallRecord
from assistant.models import ModelCall

__all__ = [
    "cost_spent_today",
    "daily_tokens_left",
    "prune_model_calls",
    "record_calls",
    "tokens_spent_today",
]

logger = logging.getLogger("assistant.llm")

_DAY = timedelta(hours=24)
_MILLIONTH = Decimal("0.000001")


def _stored_user(user: Any) -> bool:
    """Whether ``user`` is a saved account: ``None``, ``AnonymousUser`` and unsaved users have no log."""
    return user is not None and bool(getattr(user, "is_authenticated", False)) and user.pk is not None


def record_calls(user: Any, trace_id: str, records: list[CallRecord]) -> None:
    """Save one turn's calls as :class:`ModelCall` rows, in one INSERT.

    Nothing is saved without records or without a stored, signed-in user (an evaluation run, the
    bench): the log and the budgets are per user.  The log lines name the phase, model, tokens, cost,
    latency, outcome and trace, never the prompt, the output or the error, which may quote the user's
    words and their events.
    """
    if not records or not _stored_user(user):
        return
    ModelCall.objects.bulk_create(
        [
            ModelCall(
                user=user,
                trace_id=trace_id,
                # A phase names a skill or service; cut rather than fail the turn on an odd one.
                phase=record.phase[: ModelCall._meta.get_field("phase").max_length],
                model=record.model[: ModelCall._meta.get_field("model").max_length],
                outcome=record.outcome,
                input_tokens=record.input_tokens,
                output_tokens=record.output_tokens,
                requests=record.requests,
                latency_ms=record.latency_ms,
                cost_usd=_dollars(record.cost_usd),
                error=record.error,
                prompt=record.prompt,
                output=record.output,
            )
            for record in records
        ]
    )
    for record in records:
        logger.info(
            "model call %s on %s: %s, %d in / %d out tokens, %s, %d request(s), %.0f ms (trace %s)",
            record.phase,
            record.model,
            record.outcome,
            record.input_tokens,
            record.output_tokens,
            "no known price" if record.cost_usd is None else f"${record.cost_usd:.6f}",
            record.requests,
            record.latency_ms,
            trace_id,
        )


def tokens_spent_today(user: Any) -> int:
    """Tokens (input and output) the user's model calls used over the last 24 hours.

    A rolling 24 hours rather than the calendar day: a day that began at midnight UTC would reset in
    the middle of a user's afternoon in America, and a user could spend two days' budget within an
    hour across the reset.  Without a stored, signed-in user (an evaluation run), 0.
    """
    return _spent_today(user)[0]


def cost_spent_today(user: Any) -> Decimal:
    """Dollars the user's model calls cost over the last 24 hours (rolling, like the tokens).

    Calls without a known price (a local server's model) count as nothing.  Without a stored,
    signed-in user, 0.
    """
    return _spent_today(user)[1]


def daily_tokens_left(user: Any) -> int | None:
    """What the user may still spend today, in tokens (never below 0); None when nothing limits it.

    ``LLM_DAILY_TOKENS`` minus the tokens of the last 24 hours, and 0 once the calls of those hours
    cost ``LLM_DAILY_COST_USD`` or more: the callers need one answer (may the model be asked, and for
    how many tokens), and a spent day is a spent day whichever limit ended it.  One query either way.
    """
    token_limit: int = settings.LLM_DAILY_TOKENS
    cost_limit = Decimal(str(settings.LLM_DAILY_COST_USD))
    if token_limit <= 0 and cost_limit <= 0:
        return None
    tokens, cost = _spent_today(user)
    if cost_limit > 0 and cost >= cost_limit:
        return 0
    if token_limit <= 0:
        return None
    return max(token_limit - tokens, 0)


def _spent_today(user: Any) -> tuple[int, Decimal]:
    """Tokens and dollars of the user's calls over the last 24 hours, in one query."""
    if not _stored_user(user):
        return 0, Decimal(0)
    spent = ModelCall.objects.filter(user=user, created_at__gt=timezone.now() - _DAY).aggregate(
        tokens=Sum(F("input_tokens") + F("output_tokens")), cost=Sum("cost_usd")
    )
    # SUM skips the nulls (calls without a price) and is null itself without any row.
    return int(spent["tokens"] or 0), Decimal(spent["cost"] or 0)


def _dollars(cost: float | None) -> Decimal | None:
    """A record's float cost as the column stores it, to the millionth of a dollar."""
    if cost is None:
        return None
    return Decimal(str(cost)).quantize(_MILLIONTH)


def prune_model_calls(now: datetime | None = None) -> int:
    """Blank the prompt, output and error of calls older than ``LLM_LOG_DAYS`` days; how many were.

    The error goes too: a validation error quotes the model's invalid answer, which quotes the user.
    One UPDATE; rows already blank are not counted, so a second run the same day reports 0.  The
    rows, their outcome and their numbers stay: the usage statistics and the admin still show what
    each call cost and how it ended.
    """
    cutoff = (now or timezone.now()) - timedelta(days=settings.LLM_LOG_DAYS)
    stale = ModelCall.objects.filter(created_at__lt=cutoff).exclude(prompt="", output="", error="")
    pruned = stale.update(prompt="", output="", error="")
    if pruned:
        logger.info("blanked the texts of %d model call(s) before %s", pruned, cutoff.isoformat())
    return pruned
