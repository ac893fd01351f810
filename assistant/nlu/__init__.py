"""Reading a chat turn: what it does (dialogue acts, an announced intent) and what it gives (spans).

``read_turn(text, asked=...)`` reads one user turn with two small models learnt from annotated
dialogues (``manage.py train_turns``) and committed in ``model/``: a linear act classifier kept as
plain JSON and a CRF span tagger (python-crfsuite) that also sees what the product's time resolver
finds. Both load once, at the first turn read. ``manage.py eval_turns`` measures them.
"""

from __future__ import annotations

from assistant.nlu.reading import ASKED, SLOTS, Asked, Slot, Span, TurnReading
from assistant.nlu.shipped import read_edit, read_new_time, read_turn

__all__ = [
    "ASKED",
    "SLOTS",
    "Asked",
    "Slot",
    "Span",
    "TurnReading",
    "read_edit",
    "read_new_time",
    "read_turn",
]
