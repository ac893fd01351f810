"""``manage.py bench [--quick] [--json]``: measure the performance targets and print one table."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from assistant.bench import FULL, QUICK, as_json, render, run_bench, verdict
from assistant.bench.load import load_rows


class Command(BaseCommand):
    help = (
        "Measure the rule decomposer on the scenarios' turns (reads, writes, follow-ups, answers), "
        "validation, the engine against LangGraph (committing and in savepoints), the free-slot search "
        "(first slots and every slot of a year), a chat turn and a confirmed bulk move of 500 occurrences "
        "(with SQL queries per changed event), the LLM planner's prompt sizes (est. tokens) and its "
        "own time per turn against a loopback model, in one run; print medians, p95s and targets. "
        "Everything is rolled back or deleted afterwards."
    )
    # The system checks import the URLconf, hence the whole chat stack; a module of it being
    # rewritten must not stop the engine and free-slot rows from being measured (they print n/a).
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--quick", action="store_true", help="A few repetitions per row (a smoke run).")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of the table.")
        parser.add_argument(
            "--load",
            action="store_true",
            help="Also run the load rows: 50 websocket users for 60 s against daphne and two workers "
            "(needs REDIS_URL and CELERY_BROKER_URL; data it makes is deleted).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        _refuse_unmigrated()
        run = run_bench(repeats=QUICK if options["quick"] else FULL)
        if options["load"]:
            with tempfile.TemporaryDirectory(prefix="bench-load-") as logs:
                run.rows.extend(load_rows(log_dir=Path(logs)))
        if options["json"]:
            self.stdout.write(json.dumps({**as_json(run.rows), "machine": run.machine}, indent=2))
            return
        for line in render(run.rows):
            self.stdout.write(line)
        self.stdout.write(run.machine)
        self.stdout.write(verdict(run.rows))


def _refuse_unmigrated() -> None:
    """Stop before writing anything: the engine row commits a user and runs and deletes them after,
    and that delete cascades through every table that points at users, so each must exist."""
    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        raise CommandError("The database has unapplied migrations; run `manage.py migrate` first.")
