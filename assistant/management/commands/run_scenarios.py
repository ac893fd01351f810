"""``manage.py run_scenarios PATH [PATH ...] [--decomposer rules|routed|llm|llm-single]
[--provider local|google|caldav] [--json] [--transcript]``.

Besides turns and checks, each scenario reports the model calls it made (calls, tokens in and out,
the model's latency summed over them, failed calls by outcome), and the run their totals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import override_settings, setup_databases, teardown_databases

from assistant.evaluation.decomposers import add_decomposer_argument, available_decomposer
from assistant.evaluation.model_calls import CallTotals
from assistant.scenarios import run_scenario, scenario_files
from assistant.scenarios.remote import PROVIDERS, remote_calendars
from assistant.scenarios.runner import ScenarioResult
from assistant.scenarios.spec import ScenarioFormatError


class Command(BaseCommand):
    help = (
        "Run scenario files (conversations with expected replies and final calendar checks), in a "
        "database of their own made for the run."
    )
    # The system checks import the URLconf and every view, which the scenarios never serve: a tenth of
    # the command's time when it is run for one file.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, help="Scenario files or folders of them.")
        add_decomposer_argument(parser)
        parser.add_argument(
            "--provider",
            choices=PROVIDERS,
            default="local",
            help="Where the calendars live: the built-in store, or a loopback Google server or an "
            "in-process Radicale started for the run (test servers: needs the dev dependencies).",
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of a table.")
        parser.add_argument(
            "--transcript",
            action="store_true",
            help="Print every turn and reply, so that a failure reads as the conversation it was.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        decomposer = available_decomposer(options["decomposer"])
        files = scenario_files(options["paths"])
        missing = [str(p) for p in files if not p.exists()]
        if missing:
            raise CommandError(f"No such scenario file: {', '.join(missing)}")
        if not files:
            raise CommandError("No scenario files found in the given paths.")
        results: list[ScenarioResult] = []
        provider = options["provider"]
        databases = _own_database() if _unmigrated() else None
        try:
            with override_settings(ASSISTANT_DECOMPOSER=decomposer), remote_calendars(provider) as remote:
                for path in files:
                    try:
                        results.append(run_scenario(path, provider=provider, remote=remote))
                    except ScenarioFormatError as exc:
                        failed = ScenarioResult(name=path.stem, turns=0, checks=0)
                        failed.failures.append(f"bad scenario file: {exc}")
                        results.append(failed)
        finally:
            if databases is not None:
                teardown_databases(databases, verbosity=0)
        passed = sum(r.passed for r in results)
        model = CallTotals.summed(r.model for r in results)
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "passed": passed,
                        "total": len(results),
                        "unexpected_writes": sum(len(r.unexpected_writes) for r in results),
                        "decomposer": decomposer,
                        "model": model.as_json(),
                        "scenarios": [r.as_json() for r in results],
                    }
                )
            )
        else:
            if options["transcript"]:
                for result in results:
                    self._transcript(result)
            self._table(results, passed, model if decomposer != "rules" or model.calls else None)
        if passed != len(results):
            raise SystemExit(1)

    def _transcript(self, result: ScenarioResult) -> None:
        verdict = self.style.SUCCESS("pass") if result.passed else self.style.ERROR("FAIL")
        self.stdout.write(f"== {result.name} ({verdict})")
        for number, turn in enumerate(result.replies, start=1):
            self.stdout.write(f"{number:>2} user: {turn['user']}")
            reply = turn["text"].replace("\n", "\n" + " " * 14)
            self.stdout.write(f"   {turn['kind']:>9}: {reply}")
            if "problem" in turn:
                self.stdout.write(self.style.ERROR(f"   expected: {turn['problem']}"))
        for failure in result.failures:
            if not failure.startswith("turn "):
                self.stdout.write(self.style.ERROR(f"   {failure}"))
        for write in result.unexpected_writes:
            self.stdout.write(self.style.ERROR(f"   unexpected write: {write}"))
        self.stdout.write("")

    def _table(self, results: list[ScenarioResult], passed: int, model: CallTotals | None) -> None:
        """One row per scenario; with ``model``, its calls, tokens in/out and model milliseconds too."""
        width = max([len(r.name) for r in results] + [8])
        extra = f"  {'calls':>5}  {'tokens in/out':>15}  {'model ms':>8}" if model is not None else ""
        self.stdout.write(
            f"{'scenario':<{width}}  {'turns':>7}  {'checks':>7}  {'writes':>6}  {'ms':>8}{extra}  result"
        )
        for r in results:
            verdict = self.style.SUCCESS("pass") if r.passed else self.style.ERROR("FAIL")
            extra = (
                f"  {r.model.calls:>5}  {_tokens(r.model):>15}  {r.model.latency_ms:>8.0f}"
                if model is not None
                else ""
            )
            self.stdout.write(
                f"{r.name:<{width}}  {r.turns_passed:>3}/{r.turns:<3}  {r.checks_passed:>3}/{r.checks:<3}  "
                f"{len(r.unexpected_writes):>6}  {r.ms:>8.0f}{extra}  {verdict}"
            )
        for r in results:
            for failure in r.failures:
                self.stdout.write(f"  {r.name}: {failure}")
            for write in r.unexpected_writes:
                self.stdout.write(f"  {r.name}: unexpected write: {write}")
            for write in r.unchecked_writes:
                self.stdout.write(f"  {r.name}: unchecked write (no check names it): {write}")
        unexpected = sum(len(r.unexpected_writes) for r in results)
        self.stdout.write(f"{passed}/{len(results)} scenarios passed; {unexpected} unexpected writes")
        if model is not None:
            failed = ", ".join(f"{outcome} {n}" for outcome, n in model.failures.items()) or "none failed"
            self.stdout.write(
                f"model {', '.join(model.models) or '(no call made)'}: {model.calls} calls, "
                f"{_tokens(model)} tokens in/out, {model.latency_ms:.0f} ms in the model; {failed}"
            )


def _tokens(totals: CallTotals) -> str:
    return f"{totals.input_tokens}/{totals.output_tokens}"


def _unmigrated() -> bool:
    """Whether the configured database lacks tables the scenarios need (a fresh clone's)."""
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))


def _own_database() -> list[tuple[Any, str, bool]]:
    """A database of the scenarios' own, dropped after the run (in memory for SQLite, test_<name>
    elsewhere), for a configured one that was never migrated: a fresh clone runs them with nothing set
    up first, and no one's database is migrated as a side effect. (A migrated one is used as it is:
    each scenario runs in a transaction rolled back after it.)

    Its tables are made from the models, as ``migrate --run-syncdb`` makes them, not by replaying the
    migrations: the same schema (the migrations are kept in step with the models, which a test checks),
    in 0.1 s instead of 0.7 s.
    """
    connections[DEFAULT_DB_ALIAS].settings_dict.setdefault("TEST", {})["MIGRATE"] = False
    config: list[tuple[Any, str, bool]] = setup_databases(
        verbosity=0, interactive=False, aliases={DEFAULT_DB_ALIAS: {}}, serialized_aliases=set()
    )
    return config
