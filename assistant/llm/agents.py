"""One structured question to a model: the step each phase of the LLM planner is built on.

Each phase of the planner gives the model instructions and the turn's data and needs one object of a
pydantic contract back, validated, within a budget and a deadline. ``ask`` is that step through a
pydantic-ai ``Agent``: the output type becomes the schema of the output tool the model must call, an
answer that fails validation (malformed JSON, a missing field, an unknown tool, or the caller's own
check, such as a workflow that does not validate) goes back to the model with the errors, at most
``OUTPUT_RETRIES`` times, and ``UsageLimits`` caps the requests and tokens one question may spend.

Every question ends with a :class:`CallRecord` (the admin's log line): on success in the
:class:`Answer`, on failure in :class:`ModelCallError`, which wraps every ``AgentRunError`` so a caller
falls back to the rules with one ``except``. The causes to expect are ``ModelRequestTimeout``
(``LLM_TIMEOUT_SECONDS`` ran out), ``ModelHTTPError`` and its kinds (``ModelRateLimitError`` for a
429 the SDK's own retries did not get past), ``UsageLimitExceeded`` (the budget) and
``UnexpectedModelBehavior`` (still invalid after the retries).

The record also says what the question cost in dollars, priced by genai-prices (through pydantic-ai's
``ModelResponse.cost()``) from every answer the model gave, the ones before a failure included: they
were billed.  A model genai-prices does not know (a local Ollama, vLLM or llama.cpp model) has no
price, and the cost is None, never an error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeVar

from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry, capture_run_messages
from pydantic_ai.exceptions import (
    AgentRunError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelRequestTimeout,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
)
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.usage import RunUsage, UsageLimits

from assistant.llm.calls import CallOutcome, CallRecord, collected
from assistant.llm.config import llm_model_settings

__all__ = ["OUTPUT_RETRIES", "Answer", "ModelCallError", "ask", "question_limits"]

OutputT = TypeVar("OutputT", bound=BaseModel)

logger = logging.getLogger("assistant.llm")

# The design's rule: an invalid answer goes back to the model at most twice, then the assistant asks
# the user instead of guessing.
OUTPUT_RETRIES = 2


@dataclass(frozen=True)
class Answer(Generic[OutputT]):
    """The validated object, what getting it cost (requests, tokens in and out) and its log record."""

    output: OutputT
    usage: RunUsage
    record: CallRecord


class ModelCallError(Exception):
    """A question that got no valid answer; ``record`` says how it ended, ``__cause__`` is pydantic-ai's."""

    def __init__(self, record: CallRecord) -> None:
        super().__init__(f"{record.phase}: {record.outcome} ({record.error})")
        self.record = record


def question_limits(*, total_tokens: int | None = None) -> UsageLimits:
    """One question's budget: the first answer and its retries, and at most ``total_tokens`` if given."""
    return UsageLimits(request_limit=1 + OUTPUT_RETRIES, total_tokens_limit=total_tokens)


async def ask(
    model: Model,
    *,
    instructions: str,
    prompt: str,
    output_type: type[OutputT],
    limits: UsageLimits | None = None,
    phase: str = "question",
    check: Callable[[OutputT], list[str]] | None = None,
) -> Answer[OutputT]:
    """Ask ``model`` for one ``output_type``, told ``instructions`` (the system prompt) and ``prompt``.

    ``check`` returns the problems of a schema-valid answer (empty when it is right); they go back to the
    model as a ``ModelRetry``, sharing the ``OUTPUT_RETRIES`` with schema errors.
    """
    agent = Agent(
        model,
        output_type=output_type,
        instructions=instructions,
        retries={"output": OUTPUT_RETRIES},
        model_settings=llm_model_settings(),
    )
    if check is not None:

        @agent.output_validator
        def _checked(output: OutputT) -> OutputT:
            problems = check(output)
            if problems:
                raise ModelRetry("Fix these problems and answer again:\n- " + "\n- ".join(problems))
            return output

    usage = RunUsage()
    started = time.perf_counter()
    record = CallRecord(
        phase=phase, model=model.model_name, outcome="ok", prompt=f"{instructions}\n\n{prompt}"
    )
    try:
        # Entered, so the connections the question opened are closed when it ends: a chat turn's event
        # loop may not outlive it, and a connection cannot move to the next one (pydantic-ai opens a new
        # client for the next question; questions asked at once share one).
        # The messages are captured so that the answers given before a failure are priced too.
        with capture_run_messages() as messages:
            async with agent:
                result = await agent.run(prompt, usage_limits=limits or question_limits(), usage=usage)
    except AgentRunError as exc:
        _finish(record, usage, started, _outcome(exc))
        record.cost_usd = _cost(messages)
        record.error = str(exc)[:500]
        collected([record])
        raise ModelCallError(record) from exc
    _finish(record, usage, started, "retried" if usage.requests > 1 else "ok")
    record.cost_usd = _cost(result.all_messages())
    record.output = result.output.model_dump_json()
    collected([record])
    return Answer(result.output, usage, record)


def _finish(record: CallRecord, usage: RunUsage, started: float, outcome: CallOutcome) -> None:
    record.outcome = outcome
    record.latency_ms = (time.perf_counter() - started) * 1000
    record.requests = usage.requests
    record.input_tokens = usage.input_tokens
    record.output_tokens = usage.output_tokens


def _cost(messages: list[ModelMessage]) -> float | None:
    """The dollars the model's answers in ``messages`` cost; None when one of them has no known price.

    None rather than a partial sum: a total that leaves out answers would understate the spend.  None
    too without any answer (a timeout, an outage): a request cut short may still be billed.  Any
    exception of the price lookup means "unknown" (``LookupError`` for a model genai-prices does not
    know, ``ValueError`` for an answer without usage, an assertion for one without a model name): a
    price is a statistic and must never fail the question.
    """
    answers = [message for message in messages if isinstance(message, ModelResponse)]
    if not answers:
        return None
    total = Decimal(0)
    for answer in answers:
        try:
            total += answer.cost().total_price
        except Exception as exc:  # any failure of the lookup: see the docstring
            logger.debug("no price for model %s: %s", answer.model_name, exc)
            return None
    return float(total)


def _outcome(exc: AgentRunError) -> CallOutcome:
    if isinstance(exc, ModelRequestTimeout):
        return "timeout"
    if isinstance(exc, ModelRateLimitError) or (isinstance(exc, ModelHTTPError) and exc.status_code == 429):
        return "rate_limited"
    if isinstance(exc, ModelHTTPError):
        return "http_error"
    if isinstance(exc, UsageLimitExceeded):
        return "budget"
    if isinstance(exc, UnexpectedModelBehavior) and "maximum output retries" in str(exc):
        return "invalid"
    return "error"
