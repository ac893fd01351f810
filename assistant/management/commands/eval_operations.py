"""``manage.py eval_operations [--folds K] [--json]``: how well the operation model says what a turn asks.

For each corpus of :mod:`assistant.nlu.corpora`, over its turns that carry an operation label (see
:mod:`assistant.nlu.labels`), accuracy three ways, as ``eval_names`` measures the names tagger:

- ``unseen dialogues``: K-fold cross-validation by dialogue over all corpora together;
- ``not seen corpus``: a model trained on the *other* corpora only, reading this one, counted over all
  its turns and over those whose label the other corpora have at all (SGD has no deletes, NLU-Evaluation-
  Data no small talk: no model can learn a label it never saw);
- ``shipped``: the committed model, which learnt from all of them (what it remembers, not how it reads).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.management.folds import add_fold_arguments, folds_of
from assistant.nlu.corpora import chosen_corpora, load_corpus
from assistant.nlu.evaluation import dialogue_fold
from assistant.nlu.examples import Example
from assistant.nlu.features import operation_features, turn_features
from assistant.nlu.operations import OperationModel
from assistant.nlu.shipped import shipped_reader
from assistant.nlu.training import train_operations
from assistant.nlu.words import words_of

__all__ = ["Command"]


class Command(BaseCommand):
    help = (
        "Score the operation model per corpus: on unseen dialogues, trained without that corpus, as shipped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_fold_arguments(parser)
        parser.add_argument(
            "--corpus",
            action="append",
            default=[],
            metavar="NAME=PATH",
            help="score on these corpora only, read from PATH (default: all of them, from ../shared/eval)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        folds = folds_of(options)
        try:
            chosen = chosen_corpora(options["corpus"])
        except ValueError as error:
            raise CommandError(str(error)) from error
        corpora = {name: [e for e in load_corpus(name, path) if e.operation] for name, path in chosen.items()}
        if len(corpora) < 2:
            raise CommandError("Name at least two corpora: each is scored by a model trained on the others.")
        shipped = shipped_reader().operations
        if shipped is None:
            raise CommandError("No operation model is shipped: run manage.py train_turns first.")
        began = time.perf_counter()
        right: Counter[str] = Counter()
        for fold in range(folds):
            held = {name: dialogue_fold(rows, folds, fold) for name, rows in corpora.items()}
            out = {id(e) for rows in held.values() for e in rows}
            model = _model([e for rows in corpora.values() for e in rows if id(e) not in out])
            for name, rows in held.items():
                right[name] += sum(_hit(model, e) for e in rows)
        report: dict[str, Any] = {}
        for name, examples in corpora.items():
            other = _model([e for o, rows in corpora.items() if o != name for e in rows])
            known = [e for e in examples if e.operation in other.layer.labels]
            report[name] = {
                "n": len(examples),
                "labels": dict(sorted(Counter(str(e.operation) for e in examples).items())),
                "unseen dialogues": _ratio(right[name], len(examples)),
                "not seen corpus": _ratio(sum(_hit(other, e) for e in examples), len(examples)),
                "not seen corpus, known labels": _ratio(sum(_hit(other, e) for e in known), len(known)),
                "shipped": _ratio(sum(_hit(shipped, e) for e in examples), len(examples)),
            }
        report["seconds"] = round(time.perf_counter() - began, 1)
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        columns = ("unseen dialogues", "not seen corpus", "not seen corpus, known labels", "shipped")
        self.stdout.write(f"{'corpus':12}{'turns':>7}" + "".join(f"{c:>32}" for c in columns))
        for name in corpora:
            row = report[name]
            self.stdout.write(f"{name:12}{row['n']:>7}" + "".join(f"{_pct(row[c]):>32}" for c in columns))
        self.stdout.write(
            f"(accuracy of the operation; unseen dialogues: {folds}-fold cross-validation by dialogue; "
            f"not seen corpus: trained on the other corpora only; {report['seconds']} s)"
        )


def _model(examples: Sequence[Example]) -> OperationModel:
    return OperationModel.from_json(train_operations(examples))


def _hit(model: OperationModel, example: Example) -> bool:
    words = words_of(example.text)
    return (
        model.predict(operation_features(words, turn_features(words, example.asked)))[0] == example.operation
    )


def _ratio(right: int, total: int) -> float | None:
    return round(right / total, 4) if total else None


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"
