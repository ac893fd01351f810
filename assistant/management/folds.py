"""What every cross-validating evaluation command takes (``--folds K``, ``--json``, a corpus file that
must be there), in one place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from assistant.nlu.corpora import CORPORA

__all__ = ["add_fold_arguments", "corpus_file", "folds_of"]


def add_fold_arguments(parser: CommandParser) -> None:
    parser.add_argument("--folds", type=int, default=4, help="cross-validation folds (default 4)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def folds_of(options: dict[str, Any]) -> int:
    """The number of folds asked for; fewer than two cannot hold a part out, and are refused."""
    folds: int = options["folds"]
    if folds < 2:
        raise CommandError("--folds must be at least 2.")
    return folds


def corpus_file(name: str) -> Path:
    """The shared corpus ``name`` reads, refused with its path when it is not there."""
    path = CORPORA[name]
    if not path.is_file():
        raise CommandError(f"No such file: {path}")
    return path
