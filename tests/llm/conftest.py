"""Fixtures for the LLM tests: the loopback OpenAI server and the configured model pointed at it, and a
user whose model calls are recorded at the times a test says (the budget and cost tests)."""

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import override_settings
from pydantic_ai.models import Model, override_allow_model_requests

from assistant.llm.calls import CallRecord
from assistant.llm.config import llm_model
from assistant.llm.usage import record_calls
from tests.llm.openai_server import OpenAIServer

LOOPBACK_KEY = "sk-loopback-test-key"


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """An OpenAI chat-completions server on 127.0.0.1 that wants ``LOOPBACK_KEY``."""
    with OpenAIServer(api_key=LOOPBACK_KEY) as server:
        yield server


@pytest.fixture
def served_model(openai_server: OpenAIServer) -> Iterator[Model]:
    """``llm_model()`` configured as an operator would for a local server, and allowed to call it.

    The one place model requests are allowed (tests/conftest.py forbids them): the model's only
    address is the loopback server.
    """
    with override_settings(
        LLM_MODEL="gpt-4.1-mini", LLM_BASE_URL=openai_server.base_url, LLM_API_KEY=LOOPBACK_KEY
    ):
        model = llm_model()
        assert model is not None
        with override_allow_model_requests(True):
            yield model


def spent_at(user: Any, when: datetime, *records: CallRecord, trace_id: str = "0e" * 16) -> None:
    """Record ``records`` as one turn of ``user``'s at ``when``."""
    with time_machine.travel(when, tick=False):
        record_calls(user, trace_id, list(records))


@pytest.fixture
def ann() -> Any:
    return get_user_model().objects.create_user("ann", "ann@example.com")
