"""``manage.py eval_decomposer FILE [--decomposer rules|routed|llm|llm-single] [--now ...] [--tz ...]
[--json] [--misses]``.

What counts as a hit is in :mod:`assistant.evaluation.decomposer_eval`; what the model cost (turns sent
to it, calls, tokens, its latency, failures, fallbacks to the rules) in
:mod:`assistant.evaluation.model_calls`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings

from assistant.evaluation.decomposer_eval import evaluate_decomposer
from assistant.evaluation.decomposers import add_decomposer_argument, available_decomposer
from assistant.evaluation.model_calls import TurnUsage


class Command(BaseCommand):
    help = "Measure the decomposer on labelled utterances (intent, people, event names, latency)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        add_decomposer_argument(parser)
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
            figures = {"decomposer": decomposer, **report.as_json(with_misses=options["misses"])}
            self.stdout.write(json.dumps(figures))
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
        if decomposer != "rules" or report.model.turns_sent:
            self._model(report.model, pct)
        if options["misses"]:
            for miss in report.misses:
                self.stdout.write(miss.line())

    def _model(self, usage: TurnUsage, pct: Callable[[float | None], str]) -> None:
        totals = usage.totals
        models = ", ".join(totals.models) or "none answered"

        def per_turn(tokens: int) -> str:
            each = usage.per_turn_sent(tokens)
            return "" if each is None else f" ({each:.1f} per turn sent)"

        self.stdout.write(
            f"model               {models}: {usage.turns_sent} turns sent ({pct(usage.share_sent)}), "
            f"{totals.calls} calls"
        )
        self.stdout.write(
            f"  tokens            {totals.input_tokens} in{per_turn(totals.input_tokens)}, "
            f"{totals.output_tokens} out{per_turn(totals.output_tokens)}"
        )
        self.stdout.write(
            f"  model latency     p50 {usage.latency_p50_ms:.2f} ms, p95 {usage.latency_p95_ms:.2f} ms "
            "per turn sent (its calls summed; the phases overlap, the wall time is the latency above)"
        )
        failures = ", ".join(f"{outcome} {n}" for outcome, n in totals.failures.items()) or "none"
        self.stdout.write(f"  failed calls      {failures}")
        self.stdout.write(f"  fell back         {usage.fallbacks} turns answered by the rules with a note")
