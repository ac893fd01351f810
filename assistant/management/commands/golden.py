"""``manage.py golden [SOURCE ...] [--check] [--show N]``: the decision for every line of the shared
material, written to ``tests/golden/`` and compared with the committed files (see
:mod:`assistant.evaluation.golden`)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.evaluation.golden import Difference, compare, records, sources, write_records


class Command(BaseCommand):
    help = (
        "Write the golden decisions of the shared material and show how they differ from the committed ones."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sources", nargs="*", help=f"Some of: {', '.join(sources())} (default: all).")
        parser.add_argument(
            "--check", action="store_true", help="Write nothing; fail when a decision differs."
        )
        parser.add_argument("--show", type=int, default=20, help="Differences shown per source (default 20).")

    def handle(self, *args: Any, **options: Any) -> None:
        wanted = options["sources"] or sources()
        unknown = sorted(set(wanted) - set(sources()))
        if unknown:
            raise CommandError(
                f"Unknown source {', '.join(unknown)}; the sources are {', '.join(sources())}."
            )
        changed = 0
        for name in wanted:
            rows = list(records(name))
            differences = compare(name, rows)
            changed += len(differences)
            self.stdout.write(f"{name}: {len(rows)} records, {len(differences)} differ")
            for difference in differences[: options["show"]]:
                self._show(difference)
            if not options["check"]:
                write_records(name, rows)
        if options["check"] and changed:
            raise SystemExit(1)

    def _show(self, difference: Difference) -> None:
        self.stdout.write(f"  ~ {difference.key[:120]}")
        before, after = difference.before or {}, difference.after or {}
        for field in sorted(set(before) | set(after)):
            old, new = before.get(field), after.get(field)
            if old == new or field in ("text", "scenario"):
                continue
            if isinstance(old, list) and isinstance(new, list) and field == "turns":
                for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
                    if a != b:
                        self.stdout.write(f"      - turn {number}: {a[:300]}")
                        self.stdout.write(f"      + turn {number}: {b[:300]}")
                continue
            self.stdout.write(f"      - {field}: {str(old)[:300]}")
            self.stdout.write(f"      + {field}: {str(new)[:300]}")
