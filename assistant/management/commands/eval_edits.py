"""``manage.py eval_edits [--folds K] [--json]``: how well the edit tagger finds what an edit gives an
event (a new title, a new place, people invited or taken off, a length set or added).

It reads SMCalFlow's edits and moves (see :mod:`assistant.nlu.edits`), the only corpus whose programs
say which words are the new value, and scores two taggers on them, per kind of span and in all:

- ``unseen dialogues``: K-fold cross-validation by dialogue, each fold read by a tagger trained on the
  others (what a kept-aside half of the same dataset will show). The names and people taggers whose
  findings it takes as features are the shipped ones, which learnt from every dialogue: the figure
  is the edit tagger's on words it never saw, beside taggers that did;
- ``shipped``: the committed tagger, which learnt from all of them (it shows what it remembers).

A span is right when its kind and bounds are those labelled; precision is over the spans read, recall
over those labelled. A move's turn labels none, so a span read in one counts against precision.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.management.folds import add_fold_arguments, corpus_file, folds_of
from assistant.nlu.edits import load_edits
from assistant.nlu.evaluation import precision_recall, unseen_and_shipped
from assistant.nlu.examples import Example
from assistant.nlu.reader import TurnReader
from assistant.nlu.reading import EDIT_SLOTS
from assistant.nlu.shipped import shipped_reader
from assistant.nlu.spans import SpanTagger
from assistant.nlu.training import train_edits

__all__ = ["Command"]

Read = set[tuple[str, int, int]]


class Command(BaseCommand):
    help = "Score the edit tagger on SMCalFlow's edits: on unseen dialogues and as shipped."

    def add_arguments(self, parser: CommandParser) -> None:
        add_fold_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folds = folds_of(options)
        turns = load_edits(corpus_file("smcalflow"))
        shipped = shipped_reader()
        names, people = shipped.names, shipped.people
        if names is None or people is None:
            raise CommandError(
                "The edit tagger reads what the names and people taggers find: train them first."
            )
        report: dict[str, Any] = {
            "n": len(turns),
            "edits": sum(e.operation == "edit" for e in turns),
            **unseen_and_shipped(
                turns,
                folds,
                shipped,
                lambda seen: TurnReader(
                    acts=shipped.acts,
                    spans=shipped.spans,
                    names=names,
                    people=people,
                    edits=SpanTagger(train_edits(seen, shipped.acts, names, people)),
                ),
                _read,
                _figures,
            ),
        }
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        self.stdout.write(f"{len(turns)} turns of SMCalFlow, {report['edits']} edits, the others moves")
        for which in ("unseen dialogues", "shipped"):
            for kind, row in report[which].items():
                self.stdout.write(
                    f"{which:17} {kind:12} precision {row['precision']:.1%}  recall {row['recall']:.1%}  "
                    f"F1 {row['f1']:.1%}  (of {row['labelled']})"
                )
        self.stdout.write(
            f"(exact bounds and kind; unseen dialogues: {folds}-fold cross-validation by dialogue)"
        )


def _read(reader: TurnReader, example: Example) -> Read:
    return {(s.slot, s.start, s.end) for s in reader.edit(example.text)[0]}


def _figures(read: list[tuple[Example, Read]]) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for kind in (*EDIT_SLOTS, "all"):
        found = labelled = right = 0
        for example, got in read:
            gold = {(s.slot, s.start, s.end) for s in example.spans if kind in ("all", s.slot)}
            mine = {g for g in got if kind in ("all", g[0])}
            found += len(mine)
            labelled += len(gold)
            right += len(mine & gold)
        rows[kind] = {**precision_recall(right, found, labelled), "labelled": labelled}
    return rows
