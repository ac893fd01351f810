"""One reading of a turn, made once and handed to every handler of :mod:`assistant.decomposer.handlers`.

It holds what every handler would otherwise work out again: the turn's words (after the clauses that
only acknowledge), the clock and zone, the user's world (calendars, titles, people, looked up once),
the dialogue state, the learned reader's reading (acts, operation, spans) and the rules' frame.

Where the turn says one request in the words of another ("how about 3 instead?" right after an event
was made is a move of it), ``text`` and ``frame`` are the request as restated, and ``said`` keeps what
the user wrote, which the guards read (a condition or a setting is in the words, not in the
restatement). A series ended after a period ("end the seminar after April") is kept as what it is,
:class:`SeriesEnd`: the event's words and the day its occurrences are cancelled from.
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

__all__ = ["Reading", "SeriesEnd"]


@dataclass(frozen=True, slots=True)
class SeriesEnd:
    """ "End the history seminar after April", "make the standup stop at the end of May": the words that
    name the event, and the moment its occurrences are cancelled from (the day after the period)."""

    target: str
    onward: datetime


@dataclass(slots=True)
class Reading:
    """A turn as read, and what reading it needed (see the module's docstring)."""

    said: str
    text: str
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

    def decided(self, decision: Decision) -> Decision:
        """``decision`` with this turn's frame: what the gate and the record read the turn as."""
        return decision.model_copy(update={"frame": self.frame.as_json()})
