"""The LLM_* settings: no model by default, an OpenAI-compatible server by base URL, pydantic-ai's
inference for provider:model, and a plain ImproperlyConfigured for anything malformed."""

import importlib.util

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel

from assistant.llm.config import NO_KEY, llm_model, llm_model_settings

SECRET = "sk-very-secret-value"


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment's own provider variables must not decide these tests."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_no_model_is_the_offline_default() -> None:
    with override_settings(LLM_MODEL="", LLM_BASE_URL="", LLM_API_KEY=""):
        assert llm_model() is None
    with override_settings(LLM_MODEL="   "):
        assert llm_model() is None


def test_a_base_url_is_an_openai_compatible_chat_model_named_verbatim() -> None:
    with override_settings(
        LLM_MODEL="llama3.2:3b", LLM_BASE_URL="http://ollama.internal:11434/v1", LLM_API_KEY=""
    ):
        model = llm_model()
    assert isinstance(model, OpenAIChatModel)
    assert model.model_name == "llama3.2:3b"  # an Ollama tag's colon is not a provider prefix
    assert model.base_url.rstrip("/") == "http://ollama.internal:11434/v1"


def test_a_server_never_gets_the_openai_key_meant_for_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with override_settings(LLM_MODEL="qwen2.5", LLM_BASE_URL="http://127.0.0.1:8000/v1", LLM_API_KEY=""):
        model = llm_model()
    assert isinstance(model, OpenAIChatModel)
    assert model.client.api_key == NO_KEY
    with override_settings(LLM_MODEL="qwen2.5", LLM_BASE_URL="http://127.0.0.1:8000/v1", LLM_API_KEY="vllm"):
        model = llm_model()
    assert isinstance(model, OpenAIChatModel)
    assert model.client.api_key == "vllm"


def test_provider_and_model_are_inferred_by_pydantic_ai_with_the_configured_key() -> None:
    with override_settings(LLM_MODEL="openai:gpt-4.1-mini", LLM_BASE_URL="", LLM_API_KEY=SECRET):
        model = llm_model()
    # pydantic-ai 2 speaks the Responses API to OpenAI itself ("openai-chat:" for chat completions).
    assert isinstance(model, OpenAIResponsesModel)
    assert model.model_name == "gpt-4.1-mini"
    assert model.client.api_key == SECRET


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ({"LLM_MODEL": "", "LLM_BASE_URL": "http://localhost:11434/v1"}, "LLM_MODEL is empty"),
        (
            {"LLM_MODEL": "llama3.2", "LLM_BASE_URL": "localhost:11434/v1"},
            "LLM_BASE_URL must be an http(s) URL",
        ),
        ({"LLM_MODEL": "llama3.2", "LLM_BASE_URL": "ftp://models.example/v1"}, "LLM_BASE_URL must be"),
        ({"LLM_MODEL": "gpt-4.1-mini", "LLM_BASE_URL": ""}, "names no provider: write provider:model"),
        ({"LLM_MODEL": "mystery:model-1", "LLM_BASE_URL": ""}, "Unknown provider: mystery"),
        ({"LLM_MODEL": "openai:gpt-4.1-mini", "LLM_BASE_URL": "", "LLM_API_KEY": ""}, "OPENAI_API_KEY"),
    ],
)
def test_a_malformed_value_says_what_to_write(values: dict[str, str], says: str) -> None:
    with (
        override_settings(**{"LLM_API_KEY": SECRET, **values}),
        pytest.raises(ImproperlyConfigured) as raised,
    ):
        llm_model()
    assert says in str(raised.value)
    assert SECRET not in str(raised.value)


@pytest.mark.skipif(
    importlib.util.find_spec("anthropic") is not None, reason="the anthropic SDK is installed"
)
def test_a_provider_whose_sdk_is_not_installed_names_the_extra() -> None:
    with (
        override_settings(LLM_MODEL="anthropic:claude-sonnet-4-5", LLM_BASE_URL=""),
        pytest.raises(ImproperlyConfigured, match=r"pydantic-ai-slim\[anthropic\]"),
    ):
        llm_model()


def test_the_timeout_is_a_deadline_for_one_whole_request() -> None:
    with override_settings(LLM_TIMEOUT_SECONDS=7.5):
        assert llm_model_settings() == {"request_timeout": 7.5}
    with override_settings(LLM_TIMEOUT_SECONDS=0), pytest.raises(ImproperlyConfigured, match="positive"):
        llm_model_settings()
