"""Timing a callable: repeated runs, the median and the 95th percentile, in milliseconds.

Medians and p95 rather than means, because one garbage collection or SQLite checkpoint in a run
of twenty would drag a mean far from what a user typically sees; the p95 keeps the tail visible.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Timing", "measure", "summarise"]


@dataclass(frozen=True, slots=True)
class Timing:
    """The samples of one measurement (ms) and their summary."""

    samples: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p95(self) -> float:
        """Nearest-rank 95th percentile: with 20 samples it is the 19th, never an interpolated value."""
        ordered = sorted(self.samples)
        return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]

    def scaled(self, factor: float) -> Timing:
        """The same samples divided by ``factor`` (a 100-task run reported per task)."""
        return Timing(tuple(s / factor for s in self.samples))


def summarise(samples: list[float]) -> Timing:
    if not samples:
        raise ValueError("a measurement needs at least one sample")
    return Timing(tuple(samples))


def measure(
    func: Callable[[], Any],
    *,
    repeat: int,
    warmup: int = 1,
    setup: Callable[[], Any] | None = None,
) -> Timing:
    """Run ``func`` ``warmup`` times unmeasured, then ``repeat`` times measured.

    ``setup`` runs before every call, outside the timing, for what each call needs fresh (a new
    conversation, a cleared cache).  The garbage collector is left alone: a server pays for its
    collections too, and the p95 is where they show.
    """
    for _ in range(warmup):
        if setup is not None:
            setup()
        func()
    samples: list[float] = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        begin = time.perf_counter_ns()
        func()
        samples.append((time.perf_counter_ns() - begin) / 1e6)
    return summarise(samples)
