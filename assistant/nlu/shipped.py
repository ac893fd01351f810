"""The models committed with the code (``assistant/nlu/model/``), loaded once, at first use.

``manage.py train_turns`` writes them; loading is lazy so that commands and tests that never read a
turn do not pay for it, and guarded by a lock so that two first turns in two threads load it once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from assistant.nlu.acts import ActModel
from assistant.nlu.operations import OperationModel
from assistant.nlu.reader import TurnReader
from assistant.nlu.reading import Asked, Span, TurnReading
from assistant.nlu.spans import SpanTagger

__all__ = [
    "ACTS_FILE",
    "EDITS_FILE",
    "EXCLUSIONS_FILE",
    "MODEL_DIR",
    "MOVES_FILE",
    "NAMES_FILE",
    "OPERATIONS_FILE",
    "PEOPLE_FILE",
    "SPANS_FILE",
    "load_reader",
    "read_edit",
    "read_new_time",
    "read_turn",
    "reader_from_files",
    "shipped_reader",
]

MODEL_DIR = Path(__file__).resolve().parent / "model"
ACTS_FILE = "acts.json"
SPANS_FILE = "spans.crfsuite"
NAMES_FILE = "names.crfsuite"
OPERATIONS_FILE = "operations.json"
PEOPLE_FILE = "people.crfsuite"
MOVES_FILE = "moves.crfsuite"
EXCLUSIONS_FILE = "exclusions.crfsuite"
EDITS_FILE = "edits.crfsuite"

_lock = threading.Lock()
_reader: TurnReader | None = None


def load_reader(directory: Path) -> TurnReader:
    """The reader whose model files are in ``directory`` (the names, people, move, exclusion and edit
    taggers' and the operation model's when they are there)."""
    names = (
        ACTS_FILE,
        SPANS_FILE,
        NAMES_FILE,
        PEOPLE_FILE,
        MOVES_FILE,
        EXCLUSIONS_FILE,
        EDITS_FILE,
        OPERATIONS_FILE,
    )
    return reader_from_files({n: (directory / n).read_bytes() for n in names if (directory / n).exists()})


def reader_from_files(files: Mapping[str, bytes]) -> TurnReader:
    """The reader of model files' contents, by file name (as training returns them)."""
    acts = ActModel.from_json(json.loads(files[ACTS_FILE]))
    names = SpanTagger(files[NAMES_FILE]) if NAMES_FILE in files else None
    people = SpanTagger(files[PEOPLE_FILE]) if PEOPLE_FILE in files else None
    moves = SpanTagger(files[MOVES_FILE]) if MOVES_FILE in files else None
    exclusions = SpanTagger(files[EXCLUSIONS_FILE]) if EXCLUSIONS_FILE in files else None
    edits = SpanTagger(files[EDITS_FILE]) if EDITS_FILE in files else None
    operations = (
        OperationModel.from_json(json.loads(files[OPERATIONS_FILE])) if OPERATIONS_FILE in files else None
    )
    return TurnReader(
        acts=acts,
        spans=SpanTagger(files[SPANS_FILE]),
        names=names,
        people=people,
        moves=moves,
        operations=operations,
        exclusions=exclusions,
        edits=edits,
    )


def shipped_reader() -> TurnReader:
    """The reader of the committed models, loaded at the first call and kept for the process."""
    global _reader
    if _reader is None:
        with _lock:
            if _reader is None:
                _reader = load_reader(MODEL_DIR)
    return _reader


def read_new_time(
    text: str, *, asked: Asked | None = None, now: datetime | None = None
) -> tuple[Span | None, float]:
    """Where ``text`` would take an event if it moves one, read with the shipped move tagger (see
    :meth:`assistant.nlu.reader.TurnReader.new_time`)."""
    return shipped_reader().new_time(text, asked=asked, now=now)


def read_edit(text: str, *, now: datetime | None = None) -> tuple[tuple[Span, ...], float]:
    """What ``text`` gives an event if it edits one, read with the shipped edit tagger (see
    :meth:`assistant.nlu.reader.TurnReader.edit`)."""
    return shipped_reader().edit(text, now=now)


def read_turn(text: str, *, asked: Asked | None = None, now: datetime | None = None) -> TurnReading:
    """Read one user turn with the shipped models.

    ``asked`` is what the assistant's previous turn asked for: ``"date"``, ``"time"``, ``"title"``,
    ``"location"``, ``"confirm"`` (a read-back awaiting a yes or no), or ``None`` when it asked nothing
    of these. It changes the reading where the words alone do not decide: "That works for me."
    takes up what was offered (SELECT), but after a read-back (``"confirm"``) it agrees to it (AFFIRM).
    ``now`` is the turn's clock, where there is one: the time resolver's parse of the turn is then shared
    with the decomposer's.
    """
    return shipped_reader().read(text, asked=asked, now=now)
