"""The ``LLM_*`` settings as a pydantic-ai model: which model, where, with what key and deadline.

Every model call goes through pydantic-ai, so the code above this module takes a ``Model`` and never
names a provider or calls its SDK. Two ways to name a model:

- ``LLM_MODEL=provider:model`` alone (``openai:gpt-4.1-mini``, ``anthropic:claude-sonnet-4-5``,
  ``google:gemini-2.5-flash``): pydantic-ai infers the model class and provider. The provider's SDK
  must be installed (``pydantic-ai-slim[anthropic]``, ``[google]``; only ``[openai]`` is a dependency).
- ``LLM_BASE_URL`` set: an OpenAI-compatible server (Ollama ``http://host:11434/v1``, vLLM,
  llama.cpp), spoken to with pydantic-ai's OpenAI chat-completions model; ``LLM_MODEL`` is then the
  name the server knows the model by, verbatim, colons and all (``llama3.2:3b``).

``LLM_API_KEY`` is passed to the provider when set; without it a provider reads its own variable
(``OPENAI_API_KEY``, ...). It is never put in a message: Django's error reports already hide settings
named ``*KEY*``, and the errors raised here name the model, not the key. A server at ``LLM_BASE_URL``
gets ``LLM_API_KEY`` or a placeholder, never the ``OPENAI_API_KEY`` meant for OpenAI.

The model is built when asked for, not at start-up, so an app without an LLM never pays for one and a
misconfiguration is reported (``ImproperlyConfigured``) by whatever first asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from pydantic_ai.exceptions import UserError
from pydantic_ai.models import Model, infer_model
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers import Provider, infer_provider, infer_provider_class
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings

__all__ = ["llm_model", "llm_model_settings"]

# The OpenAI SDK refuses to start without some key; local servers (Ollama, llama.cpp) ignore it.
NO_KEY = "no-key"


def llm_model() -> Model | None:
    """The configured model, or None when ``LLM_MODEL`` is empty (the rules alone: the offline default)."""
    name = settings.LLM_MODEL.strip()
    base_url = settings.LLM_BASE_URL.strip()
    if not name:
        if base_url:
            raise ImproperlyConfigured(
                "LLM_BASE_URL is set but LLM_MODEL is empty: set LLM_MODEL to the name the server "
                "serves the model under (for Ollama e.g. llama3.2)."
            )
        return None
    if base_url:
        return _served_model(name, base_url)
    return _inferred_model(name)


def llm_model_settings() -> ModelSettings:
    """Settings for every request: ``LLM_TIMEOUT_SECONDS`` as pydantic-ai's deadline for one request.

    ``request_timeout`` rather than the HTTP client's ``timeout``: it bounds the whole request, the SDK's
    own retries (a 429's ``Retry-After`` wait included) too, for every provider, and raises
    ``ModelRequestTimeout`` when it runs out.
    """
    seconds = float(settings.LLM_TIMEOUT_SECONDS)
    if not seconds > 0:
        raise ImproperlyConfigured(f"LLM_TIMEOUT_SECONDS must be a positive number, not {seconds:g}.")
    return ModelSettings(request_timeout=seconds)


def _served_model(name: str, base_url: str) -> Model:
    """``name`` on the OpenAI-compatible server at ``base_url``."""
    url = urlsplit(base_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        # The value is not repeated: a URL may carry credentials.
        raise ImproperlyConfigured(
            "LLM_BASE_URL must be an http(s) URL with a host, the root of an OpenAI-compatible API "
            "(for Ollama e.g. http://localhost:11434/v1)."
        )
    provider = OpenAIProvider(base_url=base_url, api_key=settings.LLM_API_KEY or NO_KEY)
    return OpenAIChatModel(name, provider=provider)


def _inferred_model(name: str) -> Model:
    """``provider:model`` as pydantic-ai reads it, with ``LLM_API_KEY`` when set."""
    if ":" not in name:
        raise ImproperlyConfigured(
            f"LLM_MODEL={name!r} names no provider: write provider:model (openai:gpt-4.1-mini, "
            "anthropic:claude-sonnet-4-5, google:gemini-2.5-flash), or set LLM_BASE_URL to an "
            "OpenAI-compatible server that serves it."
        )
    try:
        return infer_model(name, provider_factory=_provider_factory(settings.LLM_API_KEY))
    except ImportError as exc:  # the provider's SDK: an optional extra of pydantic-ai-slim
        raise ImproperlyConfigured(f"LLM_MODEL={name!r} needs a package not installed: {exc}") from exc
    except (UserError, ValueError) as exc:  # unknown provider or model, a key the provider lacks
        raise ImproperlyConfigured(
            f"LLM_MODEL={name!r} cannot be used: {exc} (LLM_API_KEY is passed to the provider when set)"
        ) from exc


def _provider_factory(api_key: str) -> Callable[[str], Provider[Any]]:
    """pydantic-ai's own provider lookup, handing ``api_key`` to the provider when there is one."""
    if not api_key:
        return infer_provider
    return lambda provider: infer_provider_class(provider)(api_key=api_key)  # type: ignore[call-arg]
