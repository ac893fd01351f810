"""``manage.py eval_moves [--folds K] [--json]``: how well the move tagger finds where a move goes.

It reads the moves of SMCalFlow's dialogues (see :mod:`assistant.nlu.moves`), the only corpus that
says which words of a move are its new time, and scores two taggers on them:

- ``unseen dialogues``: K-fold cross-validation by dialogue, each fold read by a tagger trained on the
  others (what a kept-aside half of the same dataset will show);
- ``shipped``: the committed tagger, which learnt from all of them (it shows what it remembers).

A turn is right when the new time read has the bounds of the one labelled, or when neither has one
("push it back a week"); precision is over the turns where a new time was read, recall over those
where one was labelled.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.management.folds import add_fold_arguments, folds_of
from assistant.nlu.corpora import CORPORA
from assistant.nlu.evaluation import read_unseen
from assistant.nlu.examples import Example
from assistant.nlu.moves import load_moves
from assistant.nlu.reader import TurnReader
from assistant.nlu.shipped import shipped_reader
from assistant.nlu.spans import SpanTagger
from assistant.nlu.training import train_moves

__all__ = ["Command"]


class Command(BaseCommand):
    help = "Score the move tagger on SMCalFlow's moves: on unseen dialogues and as shipped."

    def add_arguments(self, parser: CommandParser) -> None:
        add_fold_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folds = folds_of(options)
        if not CORPORA["smcalflow"].is_file():
            raise CommandError(f"No such file: {CORPORA['smcalflow']}")
        moves = load_moves(CORPORA["smcalflow"])
        shipped = shipped_reader()
        crossed = read_unseen(
            moves,
            folds,
            lambda seen: TurnReader(
                acts=shipped.acts, spans=shipped.spans, moves=SpanTagger(train_moves(seen, shipped.acts))
            ),
            _read,
        )
        report: dict[str, Any] = {
            "n": len(moves),
            "with a new time": sum(bool(e.spans) for e in moves),
            "unseen dialogues": _figures(crossed),
            "shipped": _figures([(e, _read(shipped, e)) for e in moves]),
        }
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        self.stdout.write(f"{len(moves)} moves of SMCalFlow, {report['with a new time']} with a new time")
        for which in ("unseen dialogues", "shipped"):
            row = report[which]
            self.stdout.write(
                f"{which:17} precision {row['precision']:.1%}  recall {row['recall']:.1%}  "
                f"F1 {row['f1']:.1%}  right {row['right']:.1%}"
            )
        self.stdout.write(f"(exact bounds; unseen dialogues: {folds}-fold cross-validation by dialogue)")


def _read(reader: TurnReader, example: Example) -> tuple[int, int] | None:
    span, _ = reader.new_time(example.text)
    return (span.start, span.end) if span is not None else None


def _figures(read: list[tuple[Example, tuple[int, int] | None]]) -> dict[str, float]:
    found = right = labelled = whole = 0
    for example, got in read:
        gold = (example.spans[0].start, example.spans[0].end) if example.spans else None
        found += got is not None
        labelled += gold is not None
        right += got is not None and got == gold
        whole += got == gold
    precision = right / found if found else 0.0
    recall = right / labelled if labelled else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "right": round(whole / len(read), 3) if read else 0.0,
    }
