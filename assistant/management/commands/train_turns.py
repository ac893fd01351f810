"""``manage.py train_turns [FILE] [--out DIR]``: train the turn reader's models and write their files.

FILE is a JSON-lines file of annotated turns in the format of shared/eval/sgd_calendar_turns.dev.jsonl
(the default), which the act classifier and the span tagger learn from; the names tagger (titles, places
and people) and the operation model (what a turn asks for, see :mod:`assistant.nlu.labels`) learn from every
corpus of :mod:`assistant.nlu.corpora` (the SGD turns, SMCalFlow's dialogues and NLU-Evaluation-Data's
requests); the move tagger (where a move takes its event) learns from SMCalFlow's moves (see
:mod:`assistant.nlu.moves`), the exclusion tagger (what a turn leaves out) from its negated
constraints (see :mod:`assistant.nlu.exclusions`) and the edit tagger (a new title or place, people
invited or taken off) from its edits (see :mod:`assistant.nlu.edits`). The files written
(``acts.json``, ``spans.crfsuite``, ``names.crfsuite``, ``people.crfsuite``, ``moves.crfsuite``,
``exclusions.crfsuite``, ``edits.crfsuite``, ``operations.json``) are the ones committed in
``assistant/nlu/model/``, which the chat loads; the same data and library versions always give the
same bytes, so a retraining shows in a diff only when the data, the code or a library changed. Needs
the ``train`` extra.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.nlu import sgd
from assistant.nlu.corpora import CORPORA, chosen_corpora, load_corpus
from assistant.nlu.edits import load_edits
from assistant.nlu.exclusions import load_exclusions
from assistant.nlu.moves import load_moves
from assistant.nlu.shipped import MODEL_DIR
from assistant.nlu.training import train

__all__ = ["Command"]


class Command(BaseCommand):
    help = (
        "Train the turn reader (acts, spans, names, people, moves, exclusions, edits, operations) on "
        "annotated turns and write its files."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", type=Path, default=sgd.DEV_FILE)
        parser.add_argument("--out", type=Path, default=MODEL_DIR, help=f"directory (default {MODEL_DIR})")
        parser.add_argument(
            "--names-corpus",
            action="append",
            default=[],
            metavar="NAME=PATH",
            help="train the names tagger and the operation model on these corpora only "
            f"({', '.join(CORPORA)}), read from PATH (default: all of them, from ../shared/eval)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        out: Path = options["out"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            corpora = chosen_corpora(options["names_corpus"])
        except ValueError as error:
            raise CommandError(str(error)) from error
        examples = sgd.load(path)
        names = [e for corpus, where in corpora.items() for e in load_corpus(corpus, where)]
        moves = load_moves(corpora["smcalflow"]) if "smcalflow" in corpora else []
        exclusions = load_exclusions(corpora["smcalflow"]) if "smcalflow" in corpora else []
        edits = load_edits(corpora["smcalflow"]) if "smcalflow" in corpora else []
        began = time.perf_counter()
        trained_on = {
            "file": path.name,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "turns": len(examples),
            "names": {
                corpus: hashlib.sha256(where.read_bytes()).hexdigest() for corpus, where in corpora.items()
            },
        }
        try:
            files = train(
                examples, names=names, moves=moves, exclusions=exclusions, edits=edits, trained_on=trained_on
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        seconds = time.perf_counter() - began
        out.mkdir(parents=True, exist_ok=True)
        for name, content in sorted(files.items()):
            (out / name).write_bytes(content)
            self.stdout.write(f"{out / name}: {len(content):,} bytes")
        self.stdout.write(
            f"trained on {len(examples)} turns of {path.name}, "
            f"titles, places and people on {len(names)} turns of "
            f"{', '.join(corpora)}, operations on the {sum(e.operation is not None for e in names)} of them "
            f"with one, new times on {len(moves)} moves, what is left out on {len(exclusions)} turns "
            f"({sum(bool(e.spans) for e in exclusions)} leaving something out), what edits give on "
            f"{len(edits)} edits and moves, in {seconds:.1f} s"
        )
