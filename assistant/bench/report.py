"""The benchmark's one table: a row per measurement, its target, and whether the target was met.

Rows carry their samples, not formatted text, so the same run can be printed as a table or as JSON
and the verdict is computed from the numbers rather than re-parsed from the text.  Most samples are
milliseconds; the LLM planner's prompt rows hold estimated tokens instead (``unit="tokens"``), shown
as "656 tok" in the same columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from assistant.bench.timing import Timing

__all__ = ["Row", "Target", "as_json", "render", "verdict"]

COLUMNS = ("measurement", "n", "median ms", "p95 ms", "target", "ratio/notes")
UNITS = {"ms": "ms", "tokens": "est. tokens (chars/4)"}


@dataclass(frozen=True, slots=True)
class Target:
    """A limit on one statistic of a row: its median, its p95, its ratio to a reference row, a
    count it reports (HTTP requests per change), or its largest sample in estimated tokens (a prompt
    that must stay small for every utterance)."""

    stat: Literal["median", "p95", "ratio", "requests", "tokens"]
    limit: float

    @property
    def label(self) -> str:
        if self.stat == "ratio":
            return f"ratio <= {self.limit:g}"
        if self.stat == "requests":
            return f"<= {self.limit:g} HTTP requests"
        if self.stat == "tokens":
            return f"max <= {self.limit:g} est. tokens"
        return f"{self.stat} <= {self.limit:g} ms"


@dataclass(slots=True)
class Row:
    """One measurement; ``unavailable`` says why it could not be taken (then it prints "n/a")."""

    name: str
    timing: Timing | None = None
    target: Target | None = None
    notes: str = ""
    ratio: float | None = None
    unavailable: str = ""
    requests: int | None = None  # HTTP requests one measured call made, where a target limits them
    unit: Literal["ms", "tokens"] = "ms"  # what the samples are: milliseconds, or estimated tokens

    @property
    def met(self) -> bool | None:
        """Whether the target was met; None when there is no target or nothing was measured."""
        if self.target is None or self.timing is None:
            return None
        value = {
            "median": self.timing.median,
            "p95": self.timing.p95,
            "ratio": self.ratio,
            "requests": self.requests,
            "tokens": max(self.timing.samples),
        }[self.target.stat]
        return None if value is None else value <= self.target.limit


def _ms(value: float) -> str:
    # Per-task engine costs are tens of microseconds; a chat turn is tens of milliseconds.
    if value < 1:
        return f"{value:.3f}"
    if value < 100:
        return f"{value:.2f}"
    return f"{value:.0f}"


def _value(row: Row, value: float) -> str:
    return f"{value:.0f} tok" if row.unit == "tokens" else _ms(value)


def _cells(row: Row) -> tuple[str, ...]:
    target = row.target.label if row.target else "-"
    if row.timing is None:
        return (row.name, "-", "n/a", "n/a", target, f"n/a ({row.unavailable})")
    notes = []
    if row.ratio is not None:
        notes.append(f"{row.ratio:.2f}")
    if row.met is not None:
        notes.append("met" if row.met else "MISSED")
    if row.notes:
        notes.append(row.notes)
    return (
        row.name,
        str(row.timing.n),
        _value(row, row.timing.median),
        _value(row, row.timing.p95),
        target,
        "; ".join(notes),
    )


def render(rows: list[Row]) -> list[str]:
    """The table as lines; columns are separated by at least two spaces (names never hold two)."""
    table = [COLUMNS, *(_cells(r) for r in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS) - 1)]
    numeric = {1, 2, 3}
    lines = []
    for line in table:
        cells = [
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            for i, cell in enumerate(line[:-1])
        ]
        lines.append("  ".join([*cells, line[-1]]).rstrip())
    return lines


def verdict(rows: list[Row]) -> str:
    """The closing line: which targets were met, missed, or could not be measured."""
    met = [r.name for r in rows if r.met is True]
    missed = [r.name for r in rows if r.met is False]
    unmeasured = [r.name for r in rows if r.target is not None and r.met is None]
    total = len(met) + len(missed) + len(unmeasured)
    parts = [f"Targets met: {len(met)}/{total}"]
    if missed:
        parts.append("missed: " + ", ".join(missed))
    if unmeasured:
        parts.append("not measured: " + ", ".join(unmeasured))
    if not missed and not unmeasured:
        parts.append("all met")
    return "; ".join(parts) + "."


def as_json(rows: list[Row]) -> dict[str, Any]:
    """The rows as data; ``median_ms``/``p95_ms`` only for rows in milliseconds, ``median``/``p95`` in
    the row's ``unit`` for every row."""
    return {
        "rows": [
            {
                "measurement": r.name,
                "n": r.timing.n if r.timing else 0,
                "unit": UNITS[r.unit],
                "median": r.timing.median if r.timing else None,
                "p95": r.timing.p95 if r.timing else None,
                "median_ms": r.timing.median if r.timing and r.unit == "ms" else None,
                "p95_ms": r.timing.p95 if r.timing and r.unit == "ms" else None,
                "target": r.target.label if r.target else None,
                "met": r.met,
                "ratio": r.ratio,
                "notes": r.notes if r.timing else f"n/a ({r.unavailable})",
            }
            for r in rows
        ],
        "targets_met": [r.name for r in rows if r.met is True],
        "targets_missed": [r.name for r in rows if r.met is False],
        "verdict": verdict(rows),
    }
