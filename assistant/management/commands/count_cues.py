"""``manage.py count_cues [PATH ...]``: the regexes and cue tables written by hand in the reading code
(by default ``assistant/decomposer/``, ``assistant/answers.py`` and the lexicon they share,
``assistant/lexicon.py``), per file and in all; see :mod:`assistant.evaluation.cues` for what counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.evaluation.cues import count_cues

__all__ = ["Command"]


class Command(BaseCommand):
    help = "Count the regular expressions and cue tables in the reading code."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="*", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        base = Path(settings.BASE_DIR)
        reading = base / "assistant"
        paths = options["paths"] or [reading / "decomposer", reading / "answers.py", reading / "lexicon.py"]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or folder: {', '.join(missing)}")
        counts = count_cues(paths)
        width = max((len(c.path) for c in counts), default=4)
        self.stdout.write(f"{'file':<{width}}  regexes  tables")
        for count in counts:
            path = Path(count.path).resolve()
            shown = str(path.relative_to(base)) if path.is_relative_to(base) else count.path
            self.stdout.write(f"{shown:<{width}}  {count.regexes:>7}  {count.tables:>6}")
        regexes, tables = sum(c.regexes for c in counts), sum(c.tables for c in counts)
        self.stdout.write(f"{'all ' + str(len(counts)) + ' files':<{width}}  {regexes:>7}  {tables:>6}")
