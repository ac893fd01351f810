"""``manage.py eval_decomposer FILE [--decomposer rules|llm] [--now ...] [--tz ...] [--json] [--misses]``.

What counts as a hit is in :mod:`assistant.evaluation.decomposer_eval`.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings

from assistant.evaluation.decomposer_eval import evaluate_decomposer
from assistant.evaluation.decomposers import DECOMPOSER_CHOICES, available_decomposer


class Command(BaseCommand):
    help = "Measure the decomposer on labelled utterances (intent, people, event names, latency)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--decomposer", choices=DECOMPOSER_CHOICES, default="rules")
        parser.add_argument("--now", default="2026-03-02T09:00", help="local wall time of the fixed clock")
        parser.add_argument("--tz", default="America/New_York")
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--misses",
            action="store_true",
            help="also list every miss: text, expected, got, why (with --json, as a 'misses' list)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        decomposer = available_decomposer(options["decomposer"])
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            now = datetime.fromisoformat(options["now"])
        except ValueError as exc:
            raise CommandError(f"--now must be an ISO local time like 2026-03-02T09:00 ({exc})") from exc
        with override_settings(ASSISTANT_DECOMPOSER=decomposer):
            report = evaluate_decomposer(path, now=now.replace(tzinfo=None), tz=options["tz"])
        if options["json"]:
            self.stdout.write(json.dumps(report.as_json(with_misses=options["misses"])))
            return
        pct = lambda v: "n/a" if v is None else f"{v * 100:.1f}%"  # noqa: E731
        self.stdout.write(
            f"utterances          {report.n}: {report.n_acted} acted on, {report.n_clarify} asked"
        )
        self.stdout.write(f"intent accuracy     {pct(report.intent_accuracy)} (a calendar_set question hits)")
        self.stdout.write(f"  strict            {pct(report.strict_intent_accuracy)} (every question a miss)")
        self.stdout.write(f"  when acting       {pct(report.acted_intent_accuracy)} of {report.n_acted}")
        for intent, scores in report.per_intent.items():
            self.stdout.write(
                f"  {intent:<16}  precision {pct(scores['precision'])}  recall {pct(scores['recall'])}"
            )
        self.stdout.write(
            f"asked instead       {pct(report.clarify_rate)} "
            f"({report.n_clarify_toward_set} of {report.n_clarify} on the way to calendar_set)"
        )
        self.stdout.write(f"person recall       {pct(report.person_recall)} of {report.n_person}")
        self.stdout.write(f"event-name recall   {pct(report.event_name_recall)} of {report.n_event_name}")
        self.stdout.write(f"latency             p50 {report.p50_ms:.2f} ms, p95 {report.p95_ms:.2f} ms")
        if options["misses"]:
            for miss in report.misses:
                self.stdout.write(miss.line())
