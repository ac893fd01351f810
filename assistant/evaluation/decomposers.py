"""Which decomposer a measuring command may run, so that a measurement says what it measured.

``rules`` runs the rules alone; ``routed`` the rules and the model for the turns they are unsure of;
``llm`` and ``llm-single`` send every turn to the model, in three phases or in one (see
:func:`assistant.planning.decompose`). A model choice without a model would quietly measure the rules
under another name (``decompose`` falls back to them), so it is refused before anything runs.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError, CommandParser

__all__ = ["DECOMPOSER_CHOICES", "add_decomposer_argument", "available_decomposer"]

DECOMPOSER_CHOICES = ("rules", "routed", "llm", "llm-single")

NO_MODEL = (
    "The {name} decomposer needs a language model and none is configured; nothing was run. "
    "Set LLM_MODEL (provider:model, e.g. openai:gpt-4.1-mini, with LLM_API_KEY or the provider's own "
    "key variable), or LLM_MODEL and LLM_BASE_URL for an OpenAI-compatible server (Ollama, vLLM, "
    "llama.cpp); or use --decomposer rules."
)


def add_decomposer_argument(parser: CommandParser) -> None:
    """``--decomposer``, the same in every measuring command."""
    parser.add_argument(
        "--decomposer",
        choices=DECOMPOSER_CHOICES,
        default="rules",
        help="rules alone; routed: the model for what the rules are unsure of; llm, llm-single: every "
        "turn to the model in three phases or one (the last three need LLM_MODEL)",
    )


def available_decomposer(name: str) -> str:
    """``name`` when that decomposer can run; a :class:`CommandError` saying what to set otherwise."""
    if name not in DECOMPOSER_CHOICES:
        raise CommandError(f"Unknown decomposer {name!r}: one of {', '.join(DECOMPOSER_CHOICES)}.")
    if name == "rules":
        return name
    from assistant.llm import config  # pydantic-ai is imported only when a model is asked for

    try:
        model = config.llm_model()
        config.llm_model_settings()  # LLM_TIMEOUT_SECONDS, read by every call
    except ImproperlyConfigured as exc:
        raise CommandError(f"{exc} Nothing was run.") from exc
    if model is None:
        raise CommandError(NO_MODEL.format(name=name))
    return name
