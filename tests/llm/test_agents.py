"""``ask`` without HTTP: pydantic-ai's TestModel and FunctionModel stand in for the model, to pin the
retry rule (an invalid answer goes back with its errors, at most twice) and the request budget."""

import pytest
from pydantic_ai.exceptions import AgentRunError, UnexpectedModelBehavior, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import UsageLimits

from assistant.llm.agents import OUTPUT_RETRIES, ModelCallError, ask
from assistant.llm.calls import collect_calls
from tests.llm.drafts import INSTRUCTIONS, EventDraft

pytestmark = pytest.mark.asyncio


def answering(*arguments: dict[str, object]) -> tuple[FunctionModel, list[list[ModelMessage]]]:
    """A model that calls the output tool with ``arguments`` in turn (the last one from then on),
    and the message history it was sent each time."""
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        (tool,) = info.output_tools
        return ModelResponse(parts=[ToolCallPart(tool.name, arguments[min(len(seen), len(arguments)) - 1])])

    return FunctionModel(respond), seen


def retried(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    """The output-tool calls sent back to the model as failed (pydantic-ai 2: a retried tool return)."""
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.outcome == "retried"
    ]


async def test_the_answer_is_an_object_of_the_output_type() -> None:
    answer = await ask(TestModel(), instructions=INSTRUCTIONS, prompt="dentist", output_type=EventDraft)
    assert isinstance(answer.output, EventDraft)
    assert answer.usage.requests == 1
    assert answer.usage.input_tokens > 0


async def test_an_invalid_answer_goes_back_with_its_errors_and_the_next_one_counts() -> None:
    model, seen = answering({"title": "Dentist", "minutes": 0}, {"title": "Dentist", "minutes": 45})
    answer = await ask(model, instructions=INSTRUCTIONS, prompt="dentist, 45 minutes", output_type=EventDraft)
    assert answer.output == EventDraft(title="Dentist", minutes=45)
    assert answer.usage.requests == 2
    (retry,) = retried(seen[1])
    errors = retry.content
    assert isinstance(errors, list)
    assert [(e["loc"], e["type"]) for e in errors] == [(["minutes"], "greater_than")]
    assert retry.retry is not None
    assert (retry.retry.cause, retry.retry.max_retries) == ("validation_error", OUTPUT_RETRIES)


async def test_still_invalid_after_two_retries_is_an_error_not_a_guess() -> None:
    model, seen = answering({"title": "", "minutes": 45})
    with pytest.raises(ModelCallError) as raised:
        await ask(model, instructions=INSTRUCTIONS, prompt="something", output_type=EventDraft)
    assert len(seen) == 1 + OUTPUT_RETRIES
    assert isinstance(raised.value.__cause__, UnexpectedModelBehavior)
    assert isinstance(raised.value.__cause__, AgentRunError)
    assert (raised.value.record.outcome, raised.value.record.requests) == ("invalid", 3)


async def test_a_request_budget_stops_the_retries() -> None:
    model, seen = answering({"title": "Dentist", "minutes": -1}, {"title": "Dentist", "minutes": 30})
    with pytest.raises(ModelCallError) as raised:
        await ask(
            model,
            instructions=INSTRUCTIONS,
            prompt="dentist",
            output_type=EventDraft,
            limits=UsageLimits(request_limit=1),
        )
    assert len(seen) == 1
    assert isinstance(raised.value.__cause__, UsageLimitExceeded)


async def test_the_callers_check_sends_its_problems_back_and_the_record_says_retried() -> None:
    model, seen = answering({"title": "Dentist", "minutes": 45}, {"title": "Dentist", "minutes": 30})

    def half_hours(draft: EventDraft) -> list[str]:
        return [] if draft.minutes % 30 == 0 else ["minutes must be a multiple of 30"]

    with collect_calls() as calls:
        answer = await ask(
            model,
            instructions=INSTRUCTIONS,
            prompt="dentist",
            output_type=EventDraft,
            check=half_hours,
            phase="draft",
        )
    assert answer.output.minutes == 30
    (retry,) = retried(seen[1])
    assert "minutes must be a multiple of 30" in str(retry.content)
    assert calls == [answer.record]
    assert (answer.record.phase, answer.record.outcome, answer.record.requests) == ("draft", "retried", 2)
    assert answer.record.prompt.startswith(INSTRUCTIONS)
    assert '"minutes":30' in answer.record.output
