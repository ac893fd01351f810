"""The options every cross-validating evaluation command takes (``--folds K``, ``--json``), in one place."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

__all__ = ["add_fold_arguments", "folds_of"]


def add_fold_arguments(parser: CommandParser) -> None:
    parser.add_argument("--folds", type=int, default=4, help="cross-validation folds (default 4)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def folds_of(options: dict[str, Any]) -> int:
    """The number of folds asked for; fewer than two cannot hold a part out, and are refused."""
    folds: int = options["folds"]
    if folds < 2:
        raise CommandError("--folds must be at least 2.")
    return folds
