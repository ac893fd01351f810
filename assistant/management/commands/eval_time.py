"""``manage.py eval_time FILE [--json]``: how well the time resolver reads Duckling's time corpus.

Each record of the file gives texts, a reference time with a fixed UTC offset and the expected value
(a point at a grain, or an interval, or nothing at all for negative records). Every text is resolved
with :func:`assistant.timeexpr.find_times` at that reference time and compared at the record's grain.

Duckling closes the ranges it builds from two ends ("8am - 1pm" ends at 14:00, "July 13-15" on the
16th, "4pm for 30 mins" at 16:31) where the product ends them at the time said (13:00, the 16th, 16:30):
so an interval's end also counts as right when it is exactly one grain before Duckling's. Records
marked ``convention_dependent`` follow a Duckling convention the product defines differently (day-part
bounds, "next <weekday>"): they are scored apart and left out of the main figures.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.timeexpr import TimeMatch, find_times
from assistant.timeexpr.lexicon import GRAINS, Grain
from assistant.timeexpr.series import add, truncate

__all__ = ["Command", "Report", "evaluate"]


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
    timings_us: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
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
            "median_us": round(statistics.median(self.timings_us), 1) if self.timings_us else None,
        }


def _parse(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _at_grain(dt: datetime, grain: Grain, offset: datetime) -> datetime:
    """``dt`` in the record's UTC offset, truncated to ``grain``."""
    return truncate(dt.astimezone(offset.tzinfo).replace(tzinfo=None), grain)


def _pick(matches: list[TimeMatch]) -> TimeMatch | None:
    """The match a whole-text expression resolves to: the longest one, the first among equals."""
    return max(matches, key=lambda m: m.span[1] - m.span[0], default=None)


def _check(record: dict[str, Any], match: TimeMatch | None, reference: datetime) -> bool:
    if record.get("negative"):
        return match is None
    if match is None or match.error is not None or match.start is None:
        return False
    grain: Grain = record["grain"] if record["grain"] in GRAINS else "second"

    def same(ours: datetime | None, theirs: datetime | None) -> bool:
        return (
            ours is not None
            and theirs is not None
            and _at_grain(ours, grain, reference) == _at_grain(theirs, grain, reference)
        )

    if "value" in record:
        return same(match.start, _parse(record["value"]))
    start, end = _parse(record.get("from")), _parse(record.get("to"))
    open_side = record.get("open_interval")
    if open_side == "after":
        return match.end is None and same(match.start, start)
    if start is not None and not same(match.start, start):
        return False
    if end is None:
        return True
    if match.end is None:
        return False
    closed_end = add(_at_grain(match.end, grain, reference), grain, 1)
    return same(match.end, end) or closed_end == _at_grain(end, grain, reference)


def evaluate(path: Path) -> Report:
    """Score every text of the JSON-lines file at ``path``."""
    report = Report()
    with path.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    find_times("warm up the grammar and holiday tables 2013", now=datetime.now().astimezone())
    for record in records:
        reference = datetime.fromisoformat(record["reference"])
        for text in record["texts"]:
            began = time.perf_counter_ns()
            matches = find_times(text, now=reference)
            report.timings_us.append((time.perf_counter_ns() - began) / 1000)
            ok = _check(record, _pick(matches), reference)
            if record.get("convention_dependent"):
                tally = report.convention
            elif record.get("negative"):
                tally = report.negative
            elif "value" in record:
                tally = report.single
            else:
                tally = report.interval
            tally.add(ok)
            if record.get("requires_latent"):
                report.latent.add(ok)
            if not ok:
                got = _pick(matches)
                shown = "nothing" if got is None else got.error or f"{got.start} .. {got.end}"
                report.failures.append(f"{text!r} @ {record['reference']}: got {shown}")
    return report


class Command(BaseCommand):
    help = "Score the time-expression resolver on a JSON-lines corpus (see shared/eval/README.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--failures", action="store_true", help="also list the texts read wrong")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        report = evaluate(path)
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict()))
        else:
            self.stdout.write(self._table(report))
        if options["failures"]:
            self.stdout.write("\n".join(report.failures))

    @staticmethod
    def _table(report: Report) -> str:
        rows = [
            ("single values", report.single),
            ("intervals", report.interval),
            ("negatives", report.negative),
            ("convention-dependent", report.convention),
            ("needing latent reading", report.latent),
        ]
        out = [f"{'':24}{'correct':>8}{'total':>8}{'accuracy':>10}"]
        for name, tally in rows:
            accuracy = "-" if tally.accuracy is None else f"{tally.accuracy:.1%}"
            out.append(f"{name:24}{tally.correct:>8}{tally.total:>8}{accuracy:>10}")
        median = report.as_dict()["median_us"]
        out.append(f"median per expression: {median} µs over {len(report.timings_us)} expressions")
        return "\n".join(out)
