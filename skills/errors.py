"""Errors a skill raises on purpose, whose message is fit to show the user as is."""

from __future__ import annotations

__all__ = ["LanguageModelRequiredError", "SkillError"]


class SkillError(Exception):
    """The request cannot be done as asked; the message says why and what would work."""


class LanguageModelRequiredError(SkillError):
    """The request needs a language model and none is configured (or it cannot be reached); the
    message says what works without one."""
