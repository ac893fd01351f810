"""``ask`` over HTTP: the configured model (``LLM_BASE_URL``) talking to the loopback OpenAI server,
through pydantic-ai's real OpenAI chat model, the openai SDK and its HTTP client.

What the server records is what a real server would be sent: the system prompt, the output tool
and its JSON schema, the key, and on a failed answer the retry carrying the errors. The faults are
the ones the router will have to survive: malformed JSON, a tool the agent never offered, a 429, a
500, a model slower than ``LLM_TIMEOUT_SECONDS``, a token budget.
"""

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from django.test import override_settings
from pydantic_ai.exceptions import (
    ModelHTTPError,
    ModelRateLimitError,
    ModelRequestTimeout,
    UsageLimitExceeded,
)
from pydantic_ai.models import Model, override_allow_model_requests
from pydantic_ai.usage import UsageLimits

from assistant.llm.agents import Answer, ModelCallError, ask, question_limits
from assistant.llm.config import NO_KEY, llm_model
from tests.llm.conftest import LOOPBACK_KEY
from tests.llm.drafts import INSTRUCTIONS, EventDraft
from tests.llm.openai_server import (
    Completion,
    OpenAIServer,
    delayed,
    http_error,
    malformed,
    output,
    rate_limited,
    text,
    tool_call,
)

pytestmark = pytest.mark.asyncio

PROMPT = "dentist on Friday for 45 minutes"
DENTIST = {"title": "Dentist", "minutes": 45}


async def draft(model: Model, *, limits: UsageLimits | None = None) -> Answer[EventDraft]:
    return await ask(model, instructions=INSTRUCTIONS, prompt=PROMPT, output_type=EventDraft, limits=limits)


async def test_a_structured_answer_round_trips(served_model: Model, openai_server: OpenAIServer) -> None:
    openai_server.queue(output(DENTIST, prompt_tokens=120, completion_tokens=15))

    answer = await draft(served_model)

    assert answer.output == EventDraft(title="Dentist", minutes=45)
    assert (answer.usage.requests, answer.usage.input_tokens, answer.usage.output_tokens) == (1, 120, 15)
    (sent,) = openai_server.chat_requests
    assert sent.headers["authorization"] == f"Bearer {LOOPBACK_KEY}"
    assert sent.body["model"] == "gpt-4.1-mini"
    assert sent.system_prompt == INSTRUCTIONS
    assert sent.messages[-1] == {"role": "user", "content": PROMPT}
    # Structured output is a tool the model must call: its parameters are the output type's JSON schema,
    # constraints included, and the type's docstring is its description (so it is prompt text too).
    assert sent.body["tool_choice"] == "required"
    tool = sent.tools["final_result"]
    assert tool["description"] == EventDraft.__doc__
    assert tool["parameters"] == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1},
            "minutes": {"type": "integer", "exclusiveMinimum": 0, "maximum": 1440},
        },
        "required": ["title", "minutes"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("first", "error_says"),
    [
        (malformed('{"title": "Dentist", "minutes": '), "json_invalid"),
        (output({"title": "Dentist", "minutes": 0}), "greater_than"),
        (tool_call("delete_everything", {"calendar": "all"}), "Unknown tool name: 'delete_everything'"),
    ],
    ids=["malformed-json", "invalid-value", "unknown-tool"],
)
async def test_a_bad_answer_is_retried_with_its_error_then_succeeds(
    served_model: Model, openai_server: OpenAIServer, first: Completion, error_says: str
) -> None:
    openai_server.queue(first, output(DENTIST))

    answer = await draft(served_model)

    assert answer.output == EventDraft(title="Dentist", minutes=45)
    assert answer.usage.requests == 2
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (100, 20)  # both requests counted
    first_sent, retry_sent = openai_server.chat_requests
    assert retry_sent.messages[: len(first_sent.messages)] == first_sent.messages
    bad_call, error = retry_sent.messages[len(first_sent.messages) :]
    assert bad_call["role"] == "assistant"
    # The error answers the bad call itself, as that tool's result.
    assert (error["role"], error["tool_call_id"]) == ("tool", bad_call["tool_calls"][0]["id"])
    assert error_says in error["content"]


async def test_a_text_answer_instead_of_the_output_tool_is_sent_back_as_feedback(
    served_model: Model, openai_server: OpenAIServer
) -> None:
    openai_server.queue(text("Sure, the dentist for 45 minutes."), output(DENTIST))

    answer = await draft(served_model)

    assert answer.output == EventDraft(title="Dentist", minutes=45)
    feedback = openai_server.chat_requests[1].messages[-1]
    assert feedback["role"] == "user"
    assert "failed the application's validation" in feedback["content"]
    assert "json_invalid" in feedback["content"]


async def test_a_429_the_sdk_cannot_retry_past_is_a_rate_limit_error(
    served_model: Model, openai_server: OpenAIServer
) -> None:
    openai_server.queue(rate_limited(0.01), rate_limited(0.01), rate_limited(0.01))

    with pytest.raises(ModelCallError) as raised:
        await draft(served_model)

    cause = raised.value.__cause__
    assert isinstance(cause, ModelRateLimitError)
    assert isinstance(cause, ModelHTTPError)  # an AgentRunError: the one ``except`` a fallback needs
    assert cause.status_code == 429
    assert raised.value.record.outcome == "rate_limited"
    assert raised.value.record.requests == 0  # no answer came back to count
    # The openai SDK retried twice by itself, honouring Retry-After.
    assert [r.headers["x-stainless-retry-count"] for r in openai_server.chat_requests] == ["0", "1", "2"]


async def test_a_passing_429_or_500_is_retried_by_the_sdk_itself(
    served_model: Model, openai_server: OpenAIServer
) -> None:
    openai_server.queue(rate_limited(0.01), output(DENTIST))
    assert (await draft(served_model)).output.title == "Dentist"
    openai_server.queue(http_error(500, headers={"Retry-After": "0.01"}), output(DENTIST))
    assert (await draft(served_model)).output.title == "Dentist"
    assert len(openai_server.chat_requests) == 4


async def test_a_model_slower_than_the_timeout_is_a_request_timeout(
    served_model: Model, openai_server: OpenAIServer
) -> None:
    openai_server.queue(delayed(5, output(DENTIST)))
    started = time.monotonic()

    with override_settings(LLM_TIMEOUT_SECONDS=0.3), pytest.raises(ModelCallError) as raised:
        await draft(served_model)

    assert time.monotonic() - started < 2
    assert isinstance(raised.value.__cause__, ModelRequestTimeout)
    assert raised.value.record.outcome == "timeout"
    assert len(openai_server.chat_requests) == 1


async def test_a_token_budget_is_a_usage_limit(served_model: Model, openai_server: OpenAIServer) -> None:
    openai_server.queue(malformed(prompt_tokens=900, completion_tokens=200), output(DENTIST))

    with pytest.raises(ModelCallError) as raised:
        await draft(served_model, limits=question_limits(total_tokens=1000))

    assert isinstance(raised.value.__cause__, UsageLimitExceeded)
    assert "total_tokens_limit of 1000" in str(raised.value.__cause__)
    assert (raised.value.record.outcome, raised.value.record.input_tokens) == ("budget", 900)

    assert len(openai_server.chat_requests) == 1  # spent: no retry is sent


async def test_an_ollama_server_works_the_same() -> None:
    with (
        OpenAIServer(flavour="ollama") as ollama,
        override_settings(LLM_MODEL="llama3.2:3b", LLM_BASE_URL=ollama.base_url, LLM_API_KEY=""),
    ):
        model = llm_model()
        assert model is not None
        ollama.queue(malformed(), output(DENTIST))
        with override_allow_model_requests(True):
            answer = await draft(model)

    assert answer.output == EventDraft(title="Dentist", minutes=45)
    first, _ = ollama.chat_requests
    assert first.body["model"] == "llama3.2:3b"
    assert first.headers["authorization"] == f"Bearer {NO_KEY}"


@pytest.fixture
def configured_model(openai_server: OpenAIServer) -> Iterator[Model]:
    """The configured model pointed at the loopback server, but with requests left forbidden."""
    with override_settings(LLM_MODEL="gpt-4.1-mini", LLM_BASE_URL=openai_server.base_url):
        model = llm_model()
        assert model is not None
        yield model


async def test_the_suite_forbids_model_requests_unless_a_test_allows_them(
    configured_model: Model, openai_server: OpenAIServer
) -> None:
    openai_server.queue(output(DENTIST))
    with pytest.raises(RuntimeError, match="ALLOW_MODEL_REQUESTS is False"):
        await draft(configured_model)
    assert openai_server.requests == []


async def test_the_server_lists_its_models_and_refuses_a_wrong_key(openai_server: OpenAIServer) -> None:
    request = urllib.request.Request(
        f"{openai_server.base_url}/models", headers={"Authorization": f"Bearer {LOOPBACK_KEY}"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        listed = json.load(response)
    assert [m["id"] for m in listed["data"]] == ["gpt-4.1-mini"]
    wrong = urllib.request.Request(
        f"{openai_server.base_url}/models", headers={"Authorization": "Bearer nope"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(wrong, timeout=5)
    assert refused.value.code == 401
    assert json.load(refused.value)["error"]["code"] == "invalid_api_key"


async def test_an_unqueued_request_fails_at_once(served_model: Model, openai_server: OpenAIServer) -> None:
    with pytest.raises(ModelCallError) as raised:
        await draft(served_model)
    cause = raised.value.__cause__
    assert isinstance(cause, ModelHTTPError)
    assert "no reply queued" in str(cause)
    assert cause.status_code == 400
    assert raised.value.record.outcome == "http_error"
    assert len(openai_server.chat_requests) == 1
