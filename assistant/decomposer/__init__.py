"""Turns a chat turn into a Decision by the rules: a direct answer, a clarifying question, or a
workflow.  Which planner reads a turn (the rules, or a model where they are unsure) is decided in
:mod:`assistant.planning`."""

from __future__ import annotations

from assistant.decomposer.entry import DecomposeRequest, rules_decision

__all__ = ["DecomposeRequest", "rules_decision"]
