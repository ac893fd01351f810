"""A free time the last reply offered, taken: "book the first one" after "when am I free on Thursday?".

The reply that lists free times keeps them in the conversation (``offered``, see
:func:`assistant.services._remember`); a request to make something in one of them, picked by its place
in the list, starts a new event there: at its start, as long as the turn says or the default length
(no longer than the free time), its name asked for unless the turn gives it.
"""

from __future__ import annotations

from datetime import timedelta

from assistant.decomposer.drafts import draft_turn, rule_title
from assistant.decomposer.reading import Reading
from assistant.decomposer.state import Draft
from assistant.lexicon import ORDINALS, PICK, POINTERS, tokens
from workflows.definition import Decision

__all__ = ["book_offered"]


def book_offered(r: Reading) -> Decision | None:
    """ "Book the first one", "take the second slot", "put lunch with Ann in the last one": a new event
    in a free time the last reply offered; None when none was offered or the turn picks none."""
    offered = r.state.offered
    pick = PICK.search(r.norm) if offered and r.frame.operation == "create" else None
    # "that one" is the only one offered; "the other one" is none in particular
    alone = 0 if len(offered) == 1 else None
    if pick is None:
        if alone is None or not offered[0].asked or r.frame.operation != "create" or not _points_at_it(r):
            return None
        index: int | None = alone  # "book it for a call with Bo" after "Yes, you are free ... at 4"
    else:
        index = alone if pick["that"] is not None else ORDINALS.get(pick["nth"])
    if index is None or not -len(offered) <= index < len(offered):
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f'I offered {len(offered)} free times. Which one should I book? Say e.g. "the first one".',
            confidence=0.8,
        )
    free = offered[index]
    start = free.start.astimezone(r.tz)
    free_minutes = int((free.end - free.start) / timedelta(minutes=1))
    minutes = r.frame.duration_minutes or (free_minutes if free_minutes < 60 else None)
    # "book the first one for a call with Bo": what it is, said with the pick ('Call with Bo')
    title = rule_title(r.frame, r.text) if r.frame.titles else ""
    draft = Draft(title=title, day=start.date(), at=f"{start:%H:%M}", duration_minutes=minutes)
    state = r.state.model_copy(update={"draft": draft, "asked": "title"})
    return draft_turn(r.frame, r.text, state, r.learned, r.now, r.tz, continuing=True)


# Words that point at the one time offered: "book it", "put a call with Bo there", "then works".
_THERE = POINTERS | {"there", "then"}


def _points_at_it(r: Reading) -> bool:
    """Whether a request to make something points at the one free time offered, the time the user asked
    about, rather than saying a time of its own ("book it for a call with Bo", "put lunch there"; not
    "add lunch on Friday at 1")."""
    said_time = r.frame.at_time is not None or r.frame.range_explicit
    return not said_time and not _THERE.isdisjoint(tokens(r.norm))
