"""``manage.py calendar_ics import|export USERNAME CALENDAR_KEY FILE``: .ics in and out of the local store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from skills.ics import calendar_export_ics, calendar_import_ics
from skills.models import Calendar


class Command(BaseCommand):
    help = "Import an .ics file into a user's local calendar, or export one (re-import updates by UID)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("direction", choices=["import", "export"])
        parser.add_argument("username")
        parser.add_argument("calendar", help="the calendar's key, e.g. personal")
        parser.add_argument("file", type=Path, help="the .ics file to read, or to write ('-' for stdout)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            user = get_user_model().objects.get(username=options["username"])
            calendar = Calendar.objects.get(owner=user, key=options["calendar"])
        except (get_user_model().DoesNotExist, Calendar.DoesNotExist) as exc:
            raise CommandError(
                f"No calendar {options['calendar']!r} for user {options['username']!r}."
            ) from exc
        path: Path = options["file"]
        if options["direction"] == "import":
            if not path.is_file():
                raise CommandError(f"No such file: {path}")
            count = calendar_import_ics(calendar=calendar, data=path.read_bytes())
            self.stdout.write(f"Imported {count} events into {calendar.name}.")
        else:
            data = calendar_export_ics(calendar=calendar)
            if str(path) == "-":
                self.stdout.write(data.decode())
            else:
                path.write_bytes(data)
                self.stdout.write(f"Wrote {calendar.name} to {path}.")
