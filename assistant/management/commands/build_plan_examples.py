"""``manage.py build_plan_examples [PATH ...] [--out PATH] [--now ...] [--tz ...]``: the planner's examples.

Each PATH is a JSON-lines file of utterances (``{"text": ...}``), a scenario file or a folder of them
(by default shared/eval/calendar_utterances.dev.jsonl and shared/scenarios). The rules plan each
request at a fixed clock, and per skill the commonest shapes of params are
kept with their shortest request (see :mod:`assistant.llm.examples`). The file written is the one
committed beside that module; the same data gives the same bytes.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.llm.examples import EXAMPLES_FILE, SOURCES, build_examples, requests_in

__all__ = ["Command"]


class Command(BaseCommand):
    help = "Learn the LLM planner's per-skill params examples from the rules' plans of real utterances."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="*", type=Path, default=list(SOURCES))
        parser.add_argument("--out", type=Path, default=EXAMPLES_FILE)
        parser.add_argument("--now", default="2026-03-02T09:00", help="local wall time of the fixed clock")
        parser.add_argument("--tz", default="America/New_York")

    def handle(self, *args: Any, **options: Any) -> None:
        missing = [str(p) for p in options["paths"] if not p.exists()]
        if missing:
            raise CommandError(f"No such file or folder: {', '.join(missing)}")
        texts = [text for path in options["paths"] for text in requests_in(path)]
        examples = build_examples(texts, now=datetime.fromisoformat(options["now"]), tz=options["tz"])
        out: Path = options["out"]
        out.write_text(
            json.dumps(examples, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        count = sum(map(len, examples.values()))
        self.stdout.write(f"{count} examples of {len(examples)} skills from {len(texts)} utterances -> {out}")
