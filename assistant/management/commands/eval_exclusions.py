"""``manage.py eval_exclusions [--folds K] [--json]``: how well the exclusion tagger finds what a turn
leaves out.

It reads SMCalFlow's dialogues (see :mod:`assistant.nlu.exclusions`), the only corpus that says which
words a request leaves out ("anything *not in Bellevue*"), and scores two taggers on them:

- ``unseen dialogues``: K-fold cross-validation by dialogue, each fold read by a tagger trained on the
  others (what a kept-aside half of the same dataset will show);
- ``shipped``: the committed tagger, which learnt from all of them (it shows what it remembers);
- ``other corpora``: the turns of the SGD calendar dialogues and NLU-Evaluation-Data, which the tagger
  never saw and which label nothing left out, read by the shipped tagger: how many it reads as leaving
  something out (each one is shown, to be looked at: the corpora do not say it is wrong).

A span is right when its bounds are those labelled; precision is over the spans read, recall over
those labelled. Most turns leave nothing out, and a span read in one of them counts against precision:
the chat leaves out what the tagger reads, so a false one hides events.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from assistant.management.folds import add_fold_arguments, corpus_file, folds_of
from assistant.nlu.corpora import CORPORA, load_corpus
from assistant.nlu.evaluation import precision_recall, unseen_and_shipped
from assistant.nlu.examples import Example
from assistant.nlu.exclusions import load_exclusions
from assistant.nlu.reader import TurnReader
from assistant.nlu.shipped import shipped_reader
from assistant.nlu.spans import SpanTagger
from assistant.nlu.training import train_exclusions

__all__ = ["Command"]

Bounds = set[tuple[int, int]]


class Command(BaseCommand):
    help = "Score the exclusion tagger on SMCalFlow's dialogues: on unseen dialogues and as shipped."

    def add_arguments(self, parser: CommandParser) -> None:
        add_fold_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folds = folds_of(options)
        turns = load_exclusions(corpus_file("smcalflow"))
        shipped = shipped_reader()
        report: dict[str, Any] = {
            "n": len(turns),
            "leaving something out": sum(bool(e.spans) for e in turns),
            **unseen_and_shipped(
                turns,
                folds,
                shipped,
                lambda seen: TurnReader(
                    acts=shipped.acts,
                    spans=shipped.spans,
                    exclusions=SpanTagger(train_exclusions(seen, shipped.acts)),
                ),
                _read,
                _figures,
            ),
            "other corpora": {
                name: _left_out(shipped, load_corpus(name))
                for name in ("sgd", "nlu")
                if CORPORA[name].is_file()
            },
        }
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        self.stdout.write(
            f"{len(turns)} turns of SMCalFlow, {report['leaving something out']} leaving something out"
        )
        for which in ("unseen dialogues", "shipped"):
            row = report[which]
            self.stdout.write(
                f"{which:17} precision {row['precision']:.1%}  recall {row['recall']:.1%}  "
                f"F1 {row['f1']:.1%}  turns read as leaving out what they do not {row['false turns']}"
            )
        for name, row in report["other corpora"].items():
            self.stdout.write(
                f"{name} (never seen, nothing labelled): {len(row['read'])} of {row['n']} turns read as "
                "leaving something out"
            )
            for text, spans in row["read"]:
                self.stdout.write(f"  {text!r}: {', '.join(spans)}")
        self.stdout.write(f"(exact bounds; unseen dialogues: {folds}-fold cross-validation by dialogue)")


def _read(reader: TurnReader, example: Example) -> Bounds:
    return {(s.start, s.end) for s in reader.read(example.text).excluded}


def _left_out(reader: TurnReader, examples: list[Example]) -> dict[str, Any]:
    read = [(e.text, [s.text for s in reader.read(e.text).excluded]) for e in examples]
    return {"n": len(examples), "read": [(text, spans) for text, spans in read if spans]}


def _figures(read: list[tuple[Example, Bounds]]) -> dict[str, float]:
    found = labelled = right = false_turns = 0
    for example, got in read:
        gold = {(s.start, s.end) for s in example.spans}
        found += len(got)
        labelled += len(gold)
        right += len(got & gold)
        false_turns += bool(got) and not gold
    return {**precision_recall(right, found, labelled), "false turns": false_turns}
