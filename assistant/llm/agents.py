"""One structured question to a model: the step each phase of the LLM planner is built on.

Each phase of the planner (issue 15) gives the model instructions and the turn's data and needs one
object of a pydantic contract back, validated, within a budget and a deadline. ``ask`` is that step
through a pydantic-ai ``Agent``: the output type becomes the schema of the output tool the model
must call, an answer that fails validation (malformed JSON, a missing field, an unknown tool) goes
back to the model with the errors, at most ``OUTPUT_RETRIES`` times, and ``UsageLimits`` caps the
requests and tokens one question may spend.

Nothing in the product calls ``ask`` yet: the tests in ``tests/llm/`` are its only user until the
next step, the orchestrator phase (service catalog + dialogue state -> subtasks), is built on it and
the decomposer routes unsure turns to it.

Every failure of a question is an ``AgentRunError``, so the caller can fall back to the rules with one
``except``; the ones to expect are ``ModelRequestTimeout`` (``LLM_TIMEOUT_SECONDS`` ran out),
``ModelHTTPError`` and its kinds (``ModelRateLimitError`` for a 429 the SDK's own retries did not get
past), ``UsageLimitExceeded`` (the budget) and ``UnexpectedModelBehavior`` (still invalid after the
retries).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models import Model
from pydantic_ai.usage import RunUsage, UsageLimits

from assistant.llm.config import llm_model_settings

__all__ = ["OUTPUT_RETRIES", "Answer", "ask", "question_limits"]

OutputT = TypeVar("OutputT", bound=BaseModel)

# The design's rule: an invalid answer goes back to the model at most twice, then the assistant asks
# the user instead of guessing.
OUTPUT_RETRIES = 2


@dataclass(frozen=True)
class Answer(Generic[OutputT]):
    """The validated object and what getting it cost (requests, tokens in and out)."""

    output: OutputT
    usage: RunUsage


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
) -> Answer[OutputT]:
    """Ask ``model`` for one ``output_type``, told ``instructions`` (the system prompt) and ``prompt``."""
    agent = Agent(
        model,
        output_type=output_type,
        instructions=instructions,
        retries={"output": OUTPUT_RETRIES},
        model_settings=llm_model_settings(),
    )
    # Entered, so the connections the question opened are closed when it ends: a chat turn's event
    # loop may not outlive it, and a connection cannot move to the next one (pydantic-ai opens a new
    # client for the next question; questions asked at once share one).
    async with agent:
        result = await agent.run(prompt, usage_limits=limits or question_limits())
    return Answer(result.output, result.usage)
