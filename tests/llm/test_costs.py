"""What model calls cost in dollars: priced by genai-prices as the loopback server answers, saved with
the call, summed over a rolling day against ``LLM_DAILY_COST_USD``, and shown in the admin.

The expected prices come from genai-prices' own calculation for the same usage and time, never a
number written here: a price list update must not break these tests, a wrong sum must.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse
from genai_prices import Usage, calc_price
from pydantic_ai.models import Model, override_allow_model_requests

from assistant.decomposer import DecomposeRequest
from assistant.llm.agents import Answer, ModelCallError, ask, question_limits
from assistant.llm.calls import CallRecord
from assistant.llm.config import llm_model
from assistant.llm.route import FALLBACK, planned
from assistant.llm.usage import cost_spent_today, daily_tokens_left, record_calls
from assistant.models import ModelCall
from tests.llm.conftest import spent_at
from tests.llm.drafts import INSTRUCTIONS, EventDraft
from tests.llm.openai_server import OpenAIServer, http_error, malformed, output
from workflows.definition import Decision

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 3, 9, 0, tzinfo=NY)  # a Tuesday morning in New York, 14:00 UTC
TRACE = "0c" * 16
DENTIST = {"title": "Dentist", "minutes": 45}
LIST = reverse("admin:assistant_modelcall_changelist")


def genai_price(tokens_in: int, tokens_out: int, *, at: datetime = NOW) -> Decimal:
    """What genai-prices charges for one gpt-4.1-mini answer on OpenAI at ``at``."""
    usage = Usage(input_tokens=tokens_in, output_tokens=tokens_out)
    return calc_price(usage, "gpt-4.1-mini", provider_id="openai", genai_request_timestamp=at).total_price


def draft(model: Model, **limits: Any) -> Answer[EventDraft]:
    return async_to_sync(ask)(
        model,
        instructions=INSTRUCTIONS,
        prompt="dentist on Friday for 45 minutes",
        output_type=EventDraft,
        limits=question_limits(**limits),
    )


def call(cost_usd: float | None, tokens_in: int = 100, tokens_out: int = 20) -> CallRecord:
    return CallRecord(
        phase="orchestrate",
        model="gpt-4.1-mini",
        outcome="ok",
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        requests=1,
        cost_usd=cost_usd,
    )


@pytest.fixture
def ollama() -> Iterator[OpenAIServer]:
    """A local Ollama, as the loopback server plays it: no key, a model genai-prices has no price for."""
    with OpenAIServer(flavour="ollama", models=("llama3.2:3b",)) as server:
        yield server


@pytest.fixture
def ollama_model(ollama: OpenAIServer) -> Iterator[Model]:
    with override_settings(LLM_MODEL="llama3.2:3b", LLM_BASE_URL=ollama.base_url, LLM_API_KEY=""):
        model = llm_model()
        assert model is not None
        with override_allow_model_requests(True):
            yield model


# Pricing a question


def test_a_priced_models_answer_costs_what_genai_prices_says_and_is_saved(
    served_model: Model, openai_server: OpenAIServer, ann: Any
) -> None:
    openai_server.queue(output(DENTIST, prompt_tokens=1000, completion_tokens=100))
    with time_machine.travel(NOW, tick=False):
        answer = draft(served_model)
        record_calls(ann, TRACE, [answer.record])

    expected = genai_price(1000, 100)
    assert expected > 0
    assert answer.record.cost_usd == pytest.approx(float(expected))
    assert ModelCall.objects.get().cost_usd == expected.quantize(Decimal("0.000001"))


def test_every_answer_of_a_question_is_priced_those_before_a_failure_too(
    served_model: Model, openai_server: OpenAIServer
) -> None:
    # Three answers that are not JSON: the question fails as invalid, and all three were billed.
    openai_server.queue(*[malformed(prompt_tokens=1000, completion_tokens=100)] * 3)
    with time_machine.travel(NOW, tick=False), pytest.raises(ModelCallError) as raised:
        draft(served_model)

    record = raised.value.record
    assert (record.outcome, record.requests) == ("invalid", 3)
    assert record.cost_usd == pytest.approx(float(3 * genai_price(1000, 100)))


def test_an_answer_past_the_token_budget_is_priced_though_it_was_not_used(
    served_model: Model, openai_server: OpenAIServer
) -> None:
    openai_server.queue(output(DENTIST, prompt_tokens=1000, completion_tokens=100))
    with time_machine.travel(NOW, tick=False), pytest.raises(ModelCallError) as raised:
        draft(served_model, total_tokens=500)

    assert raised.value.record.outcome == "budget"
    assert raised.value.record.cost_usd == pytest.approx(float(genai_price(1000, 100)))


def test_a_question_the_model_never_answered_has_no_known_cost(
    served_model: Model, openai_server: OpenAIServer
) -> None:
    openai_server.queue(http_error(400, "Bad request.", type="invalid_request_error"))
    with pytest.raises(ModelCallError) as raised:
        draft(served_model)

    assert raised.value.record.outcome == "http_error"
    assert raised.value.record.cost_usd is None


def test_a_model_without_a_price_costs_none_and_is_saved_without_one(
    ollama_model: Model, ollama: OpenAIServer, ann: Any, caplog: pytest.LogCaptureFixture
) -> None:
    ollama.queue(output(DENTIST, prompt_tokens=1000, completion_tokens=100))
    answer = draft(ollama_model)
    with caplog.at_level(logging.INFO, logger="assistant.llm"):
        record_calls(ann, TRACE, [answer.record])

    assert answer.output == EventDraft(title="Dentist", minutes=45)  # no price is no failure
    assert answer.record.cost_usd is None
    saved = ModelCall.objects.get()
    assert (saved.model, saved.input_tokens, saved.cost_usd) == ("llama3.2:3b", 1000, None)
    assert "no known price" in caplog.text


def test_the_log_line_has_the_cost(ann: Any, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="assistant.llm"):
        record_calls(ann, TRACE, [call(0.00056)])
    assert "100 in / 20 out tokens, $0.000560," in caplog.text


# The daily cost limit


def test_cost_spent_today_sums_the_last_24_hours_and_unpriced_calls_count_nothing(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=24, minutes=1), call(5.0))  # a day and a minute ago: not counted
    spent_at(ann, NOW - timedelta(hours=23, minutes=59), call(0.25))
    spent_at(ann, NOW - timedelta(minutes=1), call(0.125), call(None, 10**6, 0))
    with time_machine.travel(NOW, tick=False):
        assert cost_spent_today(ann) == Decimal("0.375")


def test_a_spent_cost_limit_leaves_no_tokens_whatever_the_token_limit(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=1), call(0.5, 100, 20))
    with time_machine.travel(NOW, tick=False), override_settings(LLM_DAILY_COST_USD=0.5):
        with override_settings(LLM_DAILY_TOKENS=1000):
            assert daily_tokens_left(ann) == 0
        with override_settings(LLM_DAILY_TOKENS=0):  # no token limit: the cost one still holds
            assert daily_tokens_left(ann) == 0


def test_below_the_cost_limit_the_token_limit_decides(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=1), call(0.49, 100, 20))
    with time_machine.travel(NOW, tick=False), override_settings(LLM_DAILY_COST_USD=0.5):
        with override_settings(LLM_DAILY_TOKENS=1000):
            assert daily_tokens_left(ann) == 880
        with override_settings(LLM_DAILY_TOKENS=0):
            assert daily_tokens_left(ann) is None


def test_unpriced_calls_never_reach_the_cost_limit(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=1), *[call(None, 1000, 100)] * 5)
    with time_machine.travel(NOW, tick=False), override_settings(LLM_DAILY_COST_USD=0.01, LLM_DAILY_TOKENS=0):
        assert daily_tokens_left(ann) is None


def test_a_spent_cost_limit_means_the_rules_answer_and_no_model_call(
    served_model: Model, openai_server: OpenAIServer, ann: Any
) -> None:
    spent_at(ann, NOW - timedelta(hours=2), call(0.75))
    rules = Decision(kind="clarify", reply_kind="clarify", text="Which event?", trace_id=TRACE)
    request = DecomposeRequest(text="shift the dentist thing", user=ann, timezone="America/New_York")
    with (
        time_machine.travel(NOW, tick=False),
        override_settings(LLM_DAILY_COST_USD=0.75, LLM_DAILY_TOKENS=0),
    ):
        decision = planned(request, rules)

    assert decision.notes == (FALLBACK["daily"],)
    assert decision.text == "Which event?"
    assert openai_server.chat_requests == []
    assert ModelCall.objects.count() == 1  # the earlier call only


def test_a_day_later_the_model_is_asked_again(
    served_model: Model, openai_server: OpenAIServer, ann: Any
) -> None:
    # Nothing is queued: the server answers 400, so the model was asked and the note says it failed.
    spent_at(ann, NOW - timedelta(hours=24, minutes=1), call(0.75))
    rules = Decision(kind="clarify", reply_kind="clarify", text="Which event?", trace_id=TRACE)
    request = DecomposeRequest(text="shift the dentist thing", user=ann, timezone="America/New_York")
    with (
        time_machine.travel(NOW, tick=False),
        override_settings(LLM_DAILY_COST_USD=0.75, LLM_DAILY_TOKENS=0),
    ):
        decision = planned(request, rules)

    assert decision.notes == (FALLBACK["unavailable"],)
    assert len(openai_server.chat_requests) == 1


# The admin


@pytest.fixture
def admin_client(client: Client) -> Client:
    root = get_user_model().objects.create_superuser(username="root", email="root@example.com", password=None)
    client.force_login(root)
    return client


def test_the_admin_lists_each_calls_cost_and_a_dash_without_one(admin_client: Client, ann: Any) -> None:
    spent_at(ann, NOW, call(0.00056))
    spent_at(ann, NOW - timedelta(minutes=1), call(None))
    response = admin_client.get(LIST)
    assert response.status_code == 200
    html = response.content.decode()
    assert ">Cost (USD)<" in html
    assert 'class="field-cost_usd">0.000560<' in html
    assert 'class="field-cost_usd">-<' in html
