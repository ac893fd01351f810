"""One reading of a turn, made once and handed to every handler of :mod:`assistant.decomposer.handlers`.

It holds what every handler would otherwise work out again: the turn's words (after the clauses that
only acknowledge), the clock and zone, the user's world (calendars, titles, people, looked up once),
the dialogue state, the learned reader's reading (acts, operation, spans) and the rules' frame.

Where the turn says one request in the words of another, the reading keeps what it is rather than
a sentence made up to be read again: a move said without a move's words ("how about 3 instead?" right
after an event was made) is a :class:`MoveSaid`, the words that name the event and those that say where
it goes; a series ended after a period ("end the seminar after April") a :class:`SeriesEnd`, the
event's words and the day its occurrences are cancelled from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.state import DialogueState
from assistant.decomposer.world import World
from assistant.nlu import TurnReading
from workflows.definition import Decision

__all__ = ["MoveSaid", "Reading", "SeriesEnd"]


@dataclass(frozen=True, slots=True)
class MoveSaid:
    """A move said in other words than a move's: the words that name the event ("" for the one the
    conversation is about: "how about 3pm instead?" right after it was made) and those that say where
    it goes ("3pm")."""

    target: str
    destination: str


@dataclass(frozen=True, slots=True)
class SeriesEnd:
    """ "End the history seminar after April", "make the standup stop at the end of May": the words that
    name the event, and the moment its occurrences are cancelled from (the day after the period)."""

    target: str
    onward: datetime


@dataclass(slots=True)
class Reading:
    """A turn as read, and what reading it needed (see the module's docstring)."""

    text: str  # what the user wrote, without the clauses that only acknowledge, numbers spelled out
    norm: str  # ``text`` as :func:`~assistant.decomposer.intent.normalise` makes it, computed once
    frame: RequestFrame
    learned: TurnReading
    state: DialogueState
    context: dict[str, Any]
    world: World
    now: datetime
    tz: ZoneInfo
    user: Any
    timezone_name: str
    whole: bool = True
    ends: SeriesEnd | None = None  # a series ended after a period: cancelled from then on
    moves: MoveSaid | None = None  # a move said in other words: the event's and the destination's

    def decided(self, decision: Decision) -> Decision:
        """``decision`` with this turn's frame: what the gate and the record read the turn as, with what
        the handler added to it (``open_ended``: see :func:`assistant.decomposer.changes`)."""
        return decision.model_copy(update={"frame": {**self.frame.as_json(), **decision.frame}})
