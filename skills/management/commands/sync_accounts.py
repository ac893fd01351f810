"""``manage.py sync_accounts``: mirror every connected calendar account once, for cron (the same
work celery beat does every CALENDAR_SYNC_SECONDS with ``skills.sync_accounts``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from skills.accounts import sync_all


class Command(BaseCommand):
    help = (
        "Sync every connected Google and CalDAV calendar account once; an account that fails is noted "
        "on the account (Settings → Calendars) and the others still sync."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        summary = sync_all()
        self.stdout.write(f"Synced {summary.synced} account(s); {summary.failed} failed.")
        if summary.failed:
            # A non-zero exit lets cron tell someone; the accounts' pages say which and why.
            raise CommandError(f"{summary.failed} account(s) could not be synced.")
