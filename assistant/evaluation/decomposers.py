"""Which decomposer a measuring command may run, so that a measurement says what it measured.

``--decomposer llm`` is part of the documented command lines (shared/eval and shared/scenarios READMEs),
but no LLM decomposer exists yet and :func:`assistant.decomposer.decompose` always runs the rules. A
figure labelled "llm" would then be the rules' figure under another name, so the choice is refused
before anything runs.
"""

from __future__ import annotations

from django.core.management.base import CommandError

__all__ = ["DECOMPOSER_CHOICES", "available_decomposer"]

DECOMPOSER_CHOICES = ("rules", "llm")
_AVAILABLE = frozenset({"rules"})


def available_decomposer(name: str) -> str:
    """``name`` when that decomposer can run; a :class:`CommandError` saying what to use otherwise."""
    if name not in _AVAILABLE:
        raise CommandError(
            f"The {name.upper()} decomposer is not available yet; nothing was run. "
            "Use --decomposer rules (the default)."
        )
    return name
