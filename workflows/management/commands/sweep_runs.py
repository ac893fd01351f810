"""``manage.py sweep_runs``: the sweeper for a crontab, or as a loop (``--every 10``) without beat."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from workflows.sweeper import sweep


class Command(BaseCommand):
    help = (
        "Hand runs nobody is working on (never dispatched, or their worker died) to the workers again, "
        "and fail for good, telling the user, those tried too often."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every",
            type=float,
            default=0,
            metavar="SECONDS",
            help="keep sweeping at this interval instead of once (for servers without celery beat or cron)",
        )

    def handle(self, *args: Any, every: float, **options: Any) -> None:
        while True:
            report = sweep()
            if options["verbosity"] > 0:
                self.stdout.write(
                    f"dispatched {report.dispatched}, failed {report.failed}, "
                    f"undelivered {report.undelivered}"
                )
            if every <= 0:
                return
            time.sleep(every)
