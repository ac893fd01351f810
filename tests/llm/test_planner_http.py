"""The planner over HTTP: a chat turn the rules are unsure of, planned by the configured model on the
loopback OpenAI server (and its Ollama flavour), through pydantic-ai's real OpenAI chat model and the
openai SDK. A plan of one subtask and one step keeps the server's FIFO queue in the phases' order."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import override_settings
from pydantic_ai.models import override_allow_model_requests

from assistant.llm.route import FALLBACK
from assistant.models import Message, ModelCall
from assistant.services import chat_turn, conversation_create
from tests.factories import user_with_calendar
from tests.llm.conftest import LOOPBACK_KEY
from tests.llm.openai_server import (
    OpenAIServer,
    RecordedRequest,
    delayed,
    http_error,
    malformed,
    output,
    rate_limited,
)

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)
pytestmark = pytest.mark.django_db(transaction=True)

HELLO_PLAN = [
    output(
        {
            "kind": "plan",
            "confidence": 0.9,
            "subtasks": [{"id": "reply", "service": "reply", "instruction": "greet"}],
        }
    ),
    output({"steps": [{"id": "say", "skill": "compose_reply", "instruction": "say hello"}]}),
    output({"params": {"style": "text", "text": "Hello from the model"}}),
]


@pytest.fixture
def configured(openai_server: OpenAIServer) -> Iterator[OpenAIServer]:
    """LLM_MODEL and LLM_BASE_URL pointing at the loopback server, as an operator sets them."""
    with (
        override_settings(
            LLM_MODEL="gpt-4.1-mini", LLM_BASE_URL=openai_server.base_url, LLM_API_KEY=LOOPBACK_KEY
        ),
        override_allow_model_requests(True),
    ):
        yield openai_server


def turn(text: str) -> tuple[Any, Message | None, list[str]]:
    with time_machine.travel(NOW, tick=False):
        user, _ = user_with_calendar("http-planner", key="personal", name="Personal")
        conversation = conversation_create(user=user)
        reply = chat_turn(user=user, conversation=conversation, text=text)
    said = list(
        conversation.messages.filter(role="assistant")
        .order_by("created_at", "id")
        .values_list("text", flat=True)
    )
    return user, reply, said


def test_a_plan_over_http_after_a_malformed_answer(configured: OpenAIServer) -> None:
    configured.queue(malformed('{"kind": "plan", '), *HELLO_PLAN)
    user, reply, _ = turn("call sarah")
    assert reply is not None
    assert reply.text == "Hello from the model"
    requests = configured.chat_requests
    assert len(requests) == 4
    # Phase 1 was shown the services and the output schema whose service names are an enum.
    schema = requests[0].tools["final_result"]["parameters"]
    services = schema["$defs"]["Subtask"]["properties"]["service"]["enum"]
    assert "calendar" in services
    assert "changes" in services
    assert "find_events" not in requests[0].messages[-1]["content"]
    # The malformed answer went back to the model with the error, once.
    assert requests[1].messages[-1]["role"] == "tool"
    outcomes = sorted(ModelCall.objects.filter(user=user).values_list("phase", "outcome", "input_tokens"))
    assert outcomes == [
        ("orchestrate", "retried", 100),
        ("params:compose_reply", "ok", 50),
        ("select:reply", "ok", 50),
    ]


@pytest.mark.parametrize("flavour", ["openai", "ollama"])
def test_the_same_plan_from_an_ollama_server(flavour: Literal["openai", "ollama"]) -> None:
    with (
        OpenAIServer(flavour=flavour) as server,
        override_settings(LLM_MODEL="llama3.2:3b", LLM_BASE_URL=server.base_url, LLM_API_KEY=""),
        override_allow_model_requests(True),
    ):
        server.queue(*HELLO_PLAN)
        _, reply, _ = turn("call sarah")
        assert server.chat_requests[0].body["model"] == "llama3.2:3b"
    assert reply is not None
    assert reply.text == "Hello from the model"


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param([rate_limited(0.01)] * 3, id="429"),
        pytest.param([http_error(500)] * 3, id="500"),
        pytest.param([delayed(2, output({}))], id="timeout"),
    ],
)
def test_a_model_that_fails_leaves_the_rules_answer_with_a_note(
    configured: OpenAIServer, fault: list[Any]
) -> None:
    configured.queue(*fault)
    with override_settings(LLM_TIMEOUT_SECONDS=0.3):
        user, reply, said = turn("the location is my office")
    assert reply is not None
    assert reply.kind == "clarify"  # the rules' own question about it
    assert said[0] == FALLBACK["unavailable"]
    (call,) = ModelCall.objects.filter(user=user)
    assert call.outcome in ("rate_limited", "http_error", "timeout")
    assert call.phase == "orchestrate"


@pytest.mark.parametrize(
    ("replies", "phase", "problem"),
    [
        pytest.param(
            [
                output(
                    {
                        "kind": "plan",
                        "confidence": 0.9,
                        "subtasks": [
                            {"id": "a", "service": "calendar", "instruction": "x", "dependsOn": ["b"]},
                            {"id": "b", "service": "reply", "instruction": "y", "dependsOn": ["a"]},
                        ],
                    }
                ),
                *HELLO_PLAN,
            ],
            0,
            "form a cycle",
            id="cycle",
        ),
        pytest.param(
            [
                HELLO_PLAN[0],
                output({"steps": [{"id": "say", "skill": "delete_everything", "instruction": "now"}]}),
                *HELLO_PLAN[1:],
            ],
            1,
            "compose_reply",
            id="unknown-skill",
        ),
    ],
)
def test_a_recorded_wrong_answer_goes_back_with_its_problem(
    configured: OpenAIServer, replies: list[Any], phase: int, problem: str
) -> None:
    configured.queue(*replies)
    user, reply, _ = turn("call sarah")
    assert reply is not None
    assert reply.text == "Hello from the model"
    requests = configured.chat_requests
    assert len(requests) == 4
    sent_back = requests[phase + 1].messages[-1]
    assert sent_back["role"] == "tool"
    assert problem in sent_back["content"]
    assert ModelCall.objects.filter(user=user, outcome="retried").count() == 1


def test_a_reference_to_a_step_not_depended_on_goes_back_to_phase_three() -> None:
    """Phase 3 asks for both steps at once, so the server answers each request by what it asks."""

    def answer(request: RecordedRequest) -> Any:
        fields = request.tools["final_result"]["parameters"]["properties"]
        prompt = request.messages[1]["content"]
        retry = request.messages[-1]["role"] == "tool"
        if "subtasks" in fields:
            return output(
                {
                    "kind": "plan",
                    "confidence": 0.9,
                    "subtasks": [{"id": "m", "service": "changes", "instruction": "move"}],
                }
            )
        if "steps" in fields:
            # The apply step names no dependency on the plan step.
            steps = [
                {"id": "plan", "skill": "plan_move", "instruction": "plan"},
                {"id": "apply", "skill": "apply_changes", "instruction": "apply"},
            ]
            return output({"steps": steps})
        if prompt.startswith("Skill plan_move"):
            return output({"params": {"events": [], "to_date": "2026-03-06"}})
        if retry:
            return output({"params": {"changes": {"changes": []}}})
        return output({"params": {"changes": "{{m_plan.output}}"}})  # ... and reads its output anyway

    with (
        OpenAIServer(responder=answer) as server,
        override_settings(LLM_MODEL="gpt-4.1-mini", LLM_BASE_URL=server.base_url, LLM_API_KEY=""),
        override_allow_model_requests(True),
    ):
        user, reply, _ = turn("call sarah")
        sent_back = [
            r.messages[-1]["content"] for r in server.chat_requests if r.messages[-1]["role"] == "tool"
        ]
    assert len(sent_back) == 1
    assert "references task m_plan in {{m_plan.output}} but does not depend on it" in sent_back[0]
    assert reply is not None
    assert reply.text == "I found nothing to change."
    assert ModelCall.objects.get(user=user, phase="params:apply_changes").outcome == "retried"
