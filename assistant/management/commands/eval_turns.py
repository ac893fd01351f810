"""``manage.py eval_turns [FILE] [--folds K] [--json] [--misses]``: how well the turn reader reads turns.

Two measurements of the same figures. The honest one is K-fold cross-validation over the file's
dialogues: each fold is read by models trained, in memory, on the other folds only. The second reads
the file with the shipped models; when they were trained on this very file (the model records the
SHA-256 of its training file) that is train=test, printed only so the gap between the two shows how
much the models remember rather than generalise.

Figures: act accuracy (the exact set of acts of a turn), F1 of each common act, accuracy of the
announced intent (none counts as a value), span F1 for each slot (exact bounds; also over tokens),
value accuracy for each slot (the share of annotated values that a predicted span of the same slot
gives: dates and times resolved by the product's resolver at Friday 2019-03-01 08:00 in Los Angeles,
titles, places and people compared as text, case aside), and milliseconds per turn (p50/p95).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.nlu import sgd
from assistant.nlu.evaluation import Scores, cross_validate, score
from assistant.nlu.reading import SLOTS
from assistant.nlu.shipped import ACTS_FILE, MODEL_DIR, shipped_reader

__all__ = ["Command"]


class Command(BaseCommand):
    help = "Score the turn reader on annotated turns: cross-validated, and the shipped models on the file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", type=Path, default=sgd.DEV_FILE)
        parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--misses", action="store_true", help="also list the turns read wrong")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        folds: int = options["folds"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        if folds < 2:
            raise CommandError("--folds must be at least 2.")
        examples = sgd.load(path)
        try:
            crossed = cross_validate(examples, folds)
        except ValueError as error:
            raise CommandError(str(error)) from error
        shipped = score(shipped_reader(), examples)
        same_data = _trained_on(path)
        if options["json"]:
            report = crossed.as_dict() | {
                "folds": folds,
                "shipped": shipped.as_dict() | {"train_equals_test": same_data},
            }
            self.stdout.write(json.dumps(report))
        else:
            dialogues = len({e.dialogue for e in examples})
            self.stdout.write(
                _table(f"cross-validated ({folds} folds over {dialogues} dialogues; unseen text)", crossed)
            )
            label = "train=test" if same_data else "not trained on this file"
            self.stdout.write(_table(f"shipped models on {path.name} ({label})", shipped))
        if options["misses"]:
            self.stdout.write("\nturns read wrong in cross-validation:\n" + "\n".join(crossed.misses))


def _trained_on(path: Path) -> bool:
    """Whether the shipped models were trained on exactly this file."""
    model = json.loads((MODEL_DIR / ACTS_FILE).read_text(encoding="utf-8"))
    return bool(model.get("trained_on", {}).get("sha256") == hashlib.sha256(path.read_bytes()).hexdigest())


def _table(title: str, scores: Scores) -> str:
    figures = scores.as_dict()

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f} ms"

    lines = [
        f"{title}: {figures['n']} turns",
        f"  acts exact {pct(figures['act_accuracy'])}   announced intent {pct(figures['intent_accuracy'])}",
        "  act F1    " + "  ".join(f"{act} {pct(f1)}" for act, f1 in figures["act_f1"].items()),
        f"  {'slot':10}{'span F1':>10}{'token F1':>10}{'value':>10}",
    ]
    lines += [
        f"  {slot:10}{pct(figures['span_f1'][slot]):>10}{pct(figures['token_f1'][slot]):>10}"
        f"{pct(figures['value_accuracy'][slot]):>10}"
        for slot in SLOTS
    ]
    lines.append(f"  per turn  p50 {ms(figures['p50_ms'])}   p95 {ms(figures['p95_ms'])}")
    return "\n".join(lines)
