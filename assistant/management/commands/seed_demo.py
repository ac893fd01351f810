"""``manage.py seed_demo``: load (or reload) the demo user and their calendars."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from assistant.demo import demo_load


class Command(BaseCommand):
    help = "Create the demo user with a realistic calendar around the current week (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        login = demo_load()
        self.stdout.write(
            f"Demo data loaded: {login.events} events. Log in as {login.username} / {login.password}"
        )
