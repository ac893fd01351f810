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

from django.core.management.base import BaseCommand, CommandParser

from assistant.management.folds import add_fold_arguments, corpus_file, folds_of
from assistant.nlu.evaluation import precision_recall, unseen_and_shipped
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
        moves = load_moves(corpus_file("smcalflow"))
        shipped = shipped_reader()
        report: dict[str, Any] = {
            "n": len(moves),
            "with a new time": sum(bool(e.spans) for e in moves),
            **unseen_and_shipped(
                moves,
                folds,
                shipped,
                lambda seen: TurnReader(
                    acts=shipped.acts, spans=shipped.spans, moves=SpanTagger(train_moves(seen, shipped.acts))
                ),
                _read,
                _figures,
            ),
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
    return {**precision_recall(right, found, labelled), "right": round(whole / len(read), 3) if read else 0.0}
