"""``manage.py bench``: the measurements behind the project's performance targets, in one table.

One module per group of measurements (``engine``, ``langgraph_dag``, ``freeslots``, ``chat``,
``bulkmove``), the timing helper (``timing``), the table (``report``) and the runner that takes every
row in one run (``runner``), so that ratios compare numbers measured side by side on the same
machine and load.
"""

from __future__ import annotations

from assistant.bench.report import Row, Target, as_json, render, verdict
from assistant.bench.runner import FULL, QUICK, ROW_NAMES, BenchRun, Repeats, run_bench
from assistant.bench.timing import Timing, measure

__all__ = [
    "FULL",
    "QUICK",
    "ROW_NAMES",
    "BenchRun",
    "Repeats",
    "Row",
    "Target",
    "Timing",
    "as_json",
    "measure",
    "render",
    "run_bench",
    "verdict",
]
