"""How well the time resolver reads Duckling's time corpus (``manage.py eval_time``).

Each record of the file gives texts, a reference time with a fixed UTC offset and the expected value
(a point at a grain, or an interval, or nothing at all for negative records). Every text is resolved
with :func:`assistant.timeexpr.find_times` at that reference time and compared at the record's grain.

Duckling closes the ranges it builds from two ends ("8am - 1pm" ends at 14:00, "July 13-15" on the
16th, "4pm for 30 mins" at 16:31) where the product ends them at the time said (13:00, the 16th, 16:30):
so an interval's end also counts as right when it is exactly one grain before Duckling's. Records
marked ``convention_dependent`` follow a Duckling convention the product defines differently (day-part
bounds, "next <weekday>"): they are scored apart and left out of the main figures.

A record the evaluation cannot read is a miss, never a crash and never left out: a valid Duckling value
Python's ``datetime`` cannot hold ("in 2014 B.C." is the year -2014), a missing or malformed field, an
unknown grain, or an exception from the resolver itself. Each such text counts as a miss in its
record's category and once in ``unreadable``, so the figures still cover every expression of the file.
Only a line that is not a JSON object stops the run (:class:`CorpusError`): it has no category to be
a miss in, and a figure that silently skipped it would overstate the resolver.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.evaluation.misses import Miss
from assistant.timeexpr import TimeMatch, find_times
from assistant.timeexpr.lexicon import GRAINS, Grain
from assistant.timeexpr.series import add, truncate

__all__ = ["CorpusError", "Report", "Tally", "evaluate"]


class CorpusError(ValueError):
    """The file is not JSON lines of objects, so no figure computed from it could be trusted."""


@dataclass
class Tally:
    correct: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.correct += ok
        self.total += 1

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.total if self.total else None


@dataclass
class Report:
    single: Tally = field(default_factory=Tally)
    interval: Tally = field(default_factory=Tally)
    negative: Tally = field(default_factory=Tally)
    convention: Tally = field(default_factory=Tally)
    latent: Tally = field(default_factory=Tally)
    unreadable: int = 0
    timings_us: list[float] = field(default_factory=list)
    misses: list[Miss] = field(default_factory=list)

    def tally_for(self, record: dict[str, Any]) -> Tally:
        """The category a record is scored in (convention-dependent ones apart from the main figures)."""
        if record.get("convention_dependent"):
            return self.convention
        if record.get("negative"):
            return self.negative
        if "value" in record:
            return self.single
        return self.interval

    def as_dict(self, *, with_misses: bool = False) -> dict[str, Any]:
        figures: dict[str, Any] = {
            "single_accuracy": self.single.accuracy,
            "interval_accuracy": self.interval.accuracy,
            "negative_accuracy": self.negative.accuracy,
            "convention_accuracy": self.convention.accuracy,
            "latent_accuracy": self.latent.accuracy,
            "n_single": self.single.total,
            "n_interval": self.interval.total,
            "n_negative": self.negative.total,
            "n_convention": self.convention.total,
            "n_latent": self.latent.total,
            "unreadable": self.unreadable,
            "median_us": round(statistics.median(self.timings_us), 1) if self.timings_us else None,
        }
        if with_misses:
            figures["misses"] = [asdict(miss) for miss in self.misses]
        return figures


def _at_grain(dt: datetime, grain: Grain, offset: datetime) -> datetime:
    """``dt`` in the record's UTC offset, truncated to ``grain``."""
    return truncate(dt.astimezone(offset.tzinfo).replace(tzinfo=None), grain)


def _pick(matches: list[TimeMatch]) -> TimeMatch | None:
    """The match a whole-text expression resolves to: the longest one, the first among equals."""
    return max(matches, key=lambda m: m.span[1] - m.span[0], default=None)


def _expected(record: dict[str, Any]) -> str:
    if record.get("negative"):
        return "no time"
    if "value" in record:
        return f"{record['value']} at the {record.get('grain')} grain"
    return f"{record.get('from') or '…'} .. {record.get('to') or '…'} at the {record.get('grain')} grain"


def _shown(match: TimeMatch | None) -> str:
    if match is None:
        return "nothing"
    if match.error is not None:
        return f"{match.text!r} as no real date ({match.error})"
    start = match.start.isoformat() if match.start else "…"
    end = match.end.isoformat() if match.end else "…"
    return f"{match.text!r} as {start} .. {end}"


def _check(record: dict[str, Any], match: TimeMatch | None, reference: datetime) -> str | None:
    """Why ``match`` misses the record, or ``None`` for a hit; raises when the record cannot be read."""
    if record.get("negative"):
        return None if match is None else "found a time in a text that names none"
    grain = record["grain"]
    if grain not in GRAINS:
        raise ValueError(f"unknown grain {grain!r}")
    if match is None:
        return "found no time"
    if match.error is not None or match.start is None:
        return "found no real date"

    def same(ours: datetime | None, theirs: datetime | None) -> bool:
        return (
            ours is not None
            and theirs is not None
            and _at_grain(ours, grain, reference) == _at_grain(theirs, grain, reference)
        )

    if "value" in record:
        expected = datetime.fromisoformat(record["value"])
        return None if same(match.start, expected) else f"wrong value at the {grain} grain"
    start = datetime.fromisoformat(record["from"]) if record.get("from") else None
    end = datetime.fromisoformat(record["to"]) if record.get("to") else None
    if record.get("open_interval") == "after":
        if match.end is not None:
            return "expected an open end"
        return None if same(match.start, start) else f"wrong start at the {grain} grain"
    if start is not None and not same(match.start, start):
        return f"wrong start at the {grain} grain"
    if end is None:
        return None
    if match.end is None:
        return "found no end"
    closed_end = add(_at_grain(match.end, grain, reference), grain, 1)
    if same(match.end, end) or closed_end == _at_grain(end, grain, reference):
        return None
    return f"wrong end at the {grain} grain"


def _records(path: Path) -> list[dict[str, Any]]:
    records = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{path}:{number} is not JSON ({exc})") from exc
            if not isinstance(record, dict):
                raise CorpusError(f"{path}:{number} is not a JSON object")
            records.append(record)
    return records


def evaluate(path: Path) -> Report:
    """Score every text of the JSON-lines file at ``path``."""
    report = Report()
    records = _records(path)
    find_times("warm up the grammar and holiday tables 2013", now=datetime.now().astimezone())
    for record in records:
        tally = report.tally_for(record)
        texts = record.get("texts")
        if not isinstance(texts, list) or not texts:
            texts = [texts]  # one unreadable expression, so the record still counts
        for text in texts:
            match: TimeMatch | None = None
            try:
                if not isinstance(text, str):
                    raise TypeError(f"a text must be a string, not {type(text).__name__}")
                reference = datetime.fromisoformat(record["reference"])
                began = time.perf_counter_ns()
                matches = find_times(text, now=reference)
                report.timings_us.append((time.perf_counter_ns() - began) / 1000)
                match = _pick(matches)
                why = _check(record, match, reference)
            # Whatever stops one record from being read or resolved (a datetime out of range, a missing
            # field, a bug in the resolver) is a miss to report, not a reason to lose every other figure.
            except Exception as exc:
                report.unreadable += 1
                why = f"unreadable: {type(exc).__name__}: {exc}"
            tally.add(why is None)
            if record.get("requires_latent"):
                report.latent.add(why is None)
            if why is not None:
                report.misses.append(Miss(str(text), _expected(record), _shown(match), why))
    return report
