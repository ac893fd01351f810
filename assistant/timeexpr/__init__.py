"""Deterministic time-expression resolution for the rule-based decomposer.

``find_times`` finds dates, times, day parts and intervals in a sentence and resolves them against a
reference time with the product's conventions (weeks start on Monday, "next Friday" is the Friday of
next week, the day parts of ``DAY_PARTS``); ``find_durations`` finds how long things last.
"""

from __future__ import annotations

from assistant.timeexpr.lexer import misspelt_weekdays
from assistant.timeexpr.lexicon import DAY_PARTS
from assistant.timeexpr.matches import DurationMatch, TimeMatch
from assistant.timeexpr.resolve import find_durations, find_times, one_reading

__all__ = [
    "DAY_PARTS",
    "DurationMatch",
    "TimeMatch",
    "find_durations",
    "find_times",
    "misspelt_weekdays",
    "one_reading",
]
