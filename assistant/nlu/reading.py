"""What the turn reader makes of one chat turn: its dialogue acts, the intent it announces, its spans.

These are the values the rest of the app sees; they hold no model state, so a reading can be kept,
compared and logged like any other value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ASKED",
    "CHANGE_SLOTS",
    "EDIT_SLOTS",
    "EXCLUSION_SLOTS",
    "NAME_SLOTS",
    "PERSON_SLOTS",
    "SLOTS",
    "Asked",
    "Slot",
    "Span",
    "TurnReading",
]

Slot = Literal[
    "date",
    "time",
    "title",
    "location",
    "person",
    "new_time",
    "excluded",
    "new_title",
    "new_place",
    "invited",
    "uninvited",
    "new_length",
    "added_length",
]
SLOTS: tuple[Slot, ...] = ("date", "time", "title", "location", "person")
NAME_SLOTS: tuple[Slot, ...] = ("title", "location")  # what an event is called and where it is
# Who is in it: the people tagger's, learnt apart from titles (a name inside "Lunch with Ann" is
# still a person), from the corpora that name people (SMCalFlow, NLU-Evaluation-Data).
PERSON_SLOTS: tuple[Slot, ...] = ("person",)
# Where a move takes its event ("move the dentist on Monday to *Friday at 3*"): the move tagger's,
# learnt from SMCalFlow's moves (see assistant.nlu.moves), and read apart from the other spans.
CHANGE_SLOTS: tuple[Slot, ...] = ("new_time",)
# What the turn leaves out ("anything *not in Bellevue*", "*not on the weekend*"): the exclusion
# tagger's, learnt from SMCalFlow's negated constraints (see assistant.nlu.exclusions). It lies over
# the words another tagger may read as a title or a place, and says they are not wanted.
EXCLUSION_SLOTS: tuple[Slot, ...] = ("excluded",)
# What an edit gives an event ("rename it *Board sync*", "set the location to *Kid Zone*", "add *Emily*
# to the meeting", "*Darren* won't be there anymore", "make it *two hours* long", "add *an hour* to
# it"): the edit tagger's, learnt from SMCalFlow's edits (see assistant.nlu.edits), and read apart
# from the other spans, as a move's new time is.
EDIT_SLOTS: tuple[Slot, ...] = (
    "new_title",
    "new_place",
    "invited",
    "uninvited",
    "new_length",
    "added_length",
)

# What the assistant's previous turn asked for. The same words mean different things after different
# questions ("Wanderlust Book Club" after "what should I call it?" is a title; "That works" after a
# read-back agrees to a write, after a free slot takes it), and the chat always knows what it asked,
# so the reader takes it as an input.
Asked = Literal["date", "time", "title", "location", "confirm"]
ASKED: tuple[Asked, ...] = ("date", "time", "title", "location", "confirm")


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of the turn that gives a slot's value.

    ``text`` is ``turn[start:end]`` exactly as typed, so a title keeps its words and its case.
    """

    slot: Slot
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class TurnReading:
    """One user turn as the reader understood it.

    ``acts`` are the dialogue acts of the Schema-Guided Dialogue dataset (INFORM_INTENT, INFORM,
    REQUEST_ALTS, SELECT, AFFIRM, NEGATE, AFFIRM_INTENT, NEGATE_INTENT, THANK_YOU, GOODBYE); ``intent``
    is what an INFORM_INTENT announces (``"GetEvents"``, ``"GetAvailableTime"`` or ``"AddEvent"``), and
    is ``None`` exactly when INFORM_INTENT is not among the acts; ``spans`` are in text order (a
    person may lie within a title, "Lunch with Ann"; no other two overlap).
    ``operation`` is what the turn asks the calendar to do (one of
    :data:`assistant.nlu.operations.OPERATIONS`, None without that model) and ``operation_confidence``
    the model's probability of it. ``excluded`` are what the turn leaves out ("anything *not in
    Bellevue*"), kept apart from ``spans`` because they lie over words the other taggers may read as a
    title or a place, and ``excluded_confidence`` the least chance the exclusion tagger gives a word of
    them (0.0 when there are none).
    """

    acts: frozenset[str]
    intent: str | None
    spans: tuple[Span, ...]
    operation: str | None = None
    operation_confidence: float = 0.0
    excluded: tuple[Span, ...] = ()
    excluded_confidence: float = 0.0

    def first(self, slot: Slot) -> Span | None:
        """The first span of ``slot``: a turn rarely gives two values for one slot."""
        return next((span for span in self.spans if span.slot == slot), None)
