"""Words taken out of a text with every other word left where it was.

The rules read a turn in passes over the same positions: a span one reader found (a repetition, a
duration, an address, a calendar's name) is blanked for the next, so that "every Tuesday" is no date
to start on and "12 Main St" no noon, while the spans already found still point at the right words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["blanked", "blanked_matches"]


def blanked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each ``(start, end)`` span replaced by as many spaces."""
    for lo, hi in spans:
        text = text[:lo] + " " * (hi - lo) + text[hi:]
    return text


def blanked_matches(pattern: re.Pattern[str], text: str) -> str:
    """``text`` with every match of ``pattern`` replaced by as many spaces."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)
