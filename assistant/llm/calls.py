"""What each model call cost and how it ended, gathered while a turn is planned and saved after it.

The planner's phases run concurrently on an event loop and must not touch the database, so each
question yields a :class:`CallRecord` in memory; the sync code around the planner saves them in one
go (``record_calls``), and tools that want the numbers without the database (``eval_decomposer``,
the bench) read them with :func:`collect_calls`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

__all__ = ["CallOutcome", "CallRecord", "collect_calls", "collected"]

CallOutcome = Literal[
    "ok",  # valid at the first answer
    "retried",  # valid after the model was sent its errors (schema or workflow validation)
    "invalid",  # still invalid after the retries: the assistant asked the user instead
    "timeout",  # LLM_TIMEOUT_SECONDS ran out
    "rate_limited",  # a 429 the SDK's own retries did not get past
    "http_error",  # any other HTTP failure (500, 401, ...)
    "budget",  # the turn's or the day's token budget would be exceeded
    "error",  # anything else the model did (plain text, an unknown tool past the retries)
]


@dataclass(slots=True)
class CallRecord:
    """One question to the model (its retries included): the unit the admin log shows."""

    phase: str  # "orchestrate", "select:<service>", "params:<skill>", "single", "skill:<name>"
    model: str
    outcome: CallOutcome
    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    latency_ms: float = 0.0
    cost_usd: float | None = None  # dollars by genai-prices; None when the model has no known price
    error: str = ""
    prompt: str = ""  # instructions and prompt as sent (kept LLM_LOG_DAYS days)
    output: str = ""  # the validated output as JSON, or the last invalid text


_COLLECTOR: ContextVar[list[CallRecord] | None] = ContextVar("llm_calls", default=None)


@contextmanager
def collect_calls() -> Iterator[list[CallRecord]]:
    """Every call made inside the block, appended to the list it yields (nested blocks see their own)."""
    calls: list[CallRecord] = []
    token = _COLLECTOR.set(calls)
    try:
        yield calls
    finally:
        _COLLECTOR.reset(token)


def collected(records: list[CallRecord]) -> None:
    """Hand ``records`` to the innermost :func:`collect_calls` block, if any."""
    calls = _COLLECTOR.get()
    if calls is not None:
        calls.extend(records)
