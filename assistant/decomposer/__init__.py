"""Turns a chat turn into a Decision: a direct answer, a clarifying question, or a workflow."""

from __future__ import annotations

from assistant.decomposer.base import DecomposeRequest, decompose

__all__ = ["DecomposeRequest", "decompose"]
