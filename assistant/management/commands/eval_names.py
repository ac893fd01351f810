"""``manage.py eval_names [--folds K] [--json]``: how well the names and people taggers find titles,
places and people.

For each corpus of :mod:`assistant.nlu.corpora` three figures side by side:

- ``unseen dialogues``: K-fold cross-validation by dialogue over all corpora together, each fold read by
  a tagger trained on the others: text of the same kind, never seen (what a kept-aside half of the
  same datasets will show);
- ``not seen corpus``: a tagger trained on the *other* corpora only, reading this one (text of another
  kind than any it learnt from: the hardest measure of how it generalises);
- ``shipped``: the committed tagger, which learnt from all of them (this corpus too: it shows what it
  remembers, never how well it reads).

Span F1 with exact bounds and token F1, for titles, places and people.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from assistant.management.folds import add_fold_arguments, folds_of
from assistant.nlu.corpora import CORPORA, load_corpus
from assistant.nlu.evaluation import Scores, dialogue_fold, score
from assistant.nlu.examples import Example
from assistant.nlu.reader import TurnReader
from assistant.nlu.reading import NAME_SLOTS, PERSON_SLOTS
from assistant.nlu.shipped import shipped_reader
from assistant.nlu.spans import SpanTagger
from assistant.nlu.training import train_names, train_people

__all__ = ["Command"]

_COLUMNS = ("unseen dialogues", "not seen corpus", "shipped")
_SLOTS = (*NAME_SLOTS, *PERSON_SLOTS)


class Command(BaseCommand):
    help = (
        "Score the names and people taggers per corpus: on unseen dialogues, trained without that corpus, "
        "as shipped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_fold_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folds = folds_of(options)
        corpora = {name: load_corpus(name) for name in CORPORA}
        shipped = shipped_reader()

        def reader(examples: list[Example]) -> TurnReader:
            return TurnReader(
                acts=shipped.acts,
                spans=shipped.spans,
                names=SpanTagger(train_names(examples, shipped.acts)),
                people=SpanTagger(train_people(examples, shipped.acts)),
            )

        crossed = {name: Scores() for name in corpora}
        for fold in range(folds):
            held = {name: dialogue_fold(rows, folds, fold) for name, rows in corpora.items()}
            out = {id(e) for rows in held.values() for e in rows}
            trained = reader([e for rows in corpora.values() for e in rows if id(e) not in out])
            for name, rows in held.items():
                score(trained, rows, crossed[name])
        report: dict[str, Any] = {}
        for name, examples in corpora.items():
            others = [e for other, rows in corpora.items() if other != name for e in rows]
            report[name] = {
                "n": len(examples),
                "unseen dialogues": _figures(crossed[name]),
                "not seen corpus": _figures(score(reader(others), examples)),
                "shipped": _figures(score(shipped, examples)),
            }
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        heads = "".join(f"{slot + ' F1':>16}" for slot in _SLOTS)
        self.stdout.write(f"{'corpus':12}{'turns':>7}  {'':17}{heads}")
        for name, row in report.items():
            for number, which in enumerate(_COLUMNS):
                cells = "".join(
                    f"{_pct(row[which][slot]['span']):>8}/{_pct(row[which][slot]['token']):>7}"
                    for slot in _SLOTS
                )
                lead = f"{name:12}{row['n']:>7}" if number == 0 else " " * 19
                self.stdout.write(f"{lead}  {which:17}{cells}")
        self.stdout.write(
            f"(span F1 exact bounds / token F1; unseen dialogues: {folds}-fold cross-validation by dialogue; "
            "not seen corpus: trained on the other corpora only)"
        )


def _figures(scores: Scores) -> dict[str, dict[str, float | None]]:
    figures = scores.as_dict()
    return {slot: {"span": figures["span_f1"][slot], "token": figures["token_f1"][slot]} for slot in _SLOTS}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"
