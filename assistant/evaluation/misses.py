"""One line per miss, in the same shape for every evaluation, so a figure can be traced to its texts."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Miss"]


@dataclass(frozen=True)
class Miss:
    """A text the evaluation did not count as a hit: what was expected, what came out, and why not."""

    text: str
    expected: str
    got: str
    why: str

    def line(self) -> str:
        return f"{self.text!r}: expected {self.expected}; got {self.got}; {self.why}"
