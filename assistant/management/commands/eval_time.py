"""``manage.py eval_time FILE [--json] [--misses]``: how well the time resolver reads Duckling's time corpus.

The scoring, and what counts as a miss, is in :mod:`assistant.evaluation.time_eval`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.evaluation.time_eval import CorpusError, Report, evaluate

__all__ = ["Command"]


class Command(BaseCommand):
    help = "Score the time-expression resolver on a JSON-lines corpus (see shared/eval/README.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--misses",
            action="store_true",
            help="also list every miss: text, expected, got, why (with --json, as a 'misses' list)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            report = evaluate(path)
        except CorpusError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(with_misses=options["misses"])))
            return
        self.stdout.write(self._table(report))
        if options["misses"]:
            for miss in report.misses:
                self.stdout.write(miss.line())

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
        out.append(f"unreadable: {report.unreadable} (each counted as a miss in its category)")
        median = report.as_dict()["median_us"]
        out.append(f"median per expression: {median} µs over {len(report.timings_us)} expressions")
        return "\n".join(out)
