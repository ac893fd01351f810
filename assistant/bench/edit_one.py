"""One occurrence of a long series edited: "rename next Monday's planning to ..." or "invite Ana to it".

The series has 500 weekly occurrences and the edited one lies in the middle of it, so a cost that
grows with the series (expanding it whole, copying its exceptions, rewriting its row) shows.  The
skills are called as the executor calls them (see :mod:`assistant.bench.bulkmove`): ``plan_edit``
for the one occurrence, then ``apply_changes``, approved as when the user picked the option (a
rename) or with the approval of its preview (an invitation asks first).  Finding the occurrence is
setup.  Each repetition edits a fresh series, so no write replays an earlier one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from assistant.bench.bulkmove import BulkWorld, _call, _context
from assistant.bench.timing import Timing, measure
from skills.context import Interrupt
from skills.models import Event
from skills.services import event_create

__all__ = ["OCCURRENCES", "edit_one"]

OCCURRENCES = 500
_TITLE = "Planning"
_MIDDLE = OCCURRENCES // 2


def _fresh(world: BulkWorld) -> list[dict[str, Any]]:
    """A new weekly series with one attendee; returns its middle occurrence as find_events gives it."""
    Event.objects.filter(calendar=world.calendar, summary__in=[_TITLE, "Roadmap"]).delete()
    begin = world.start + timedelta(hours=15)
    event_create(
        calendar=world.calendar,
        summary=_TITLE,
        start=begin,
        end=begin + timedelta(minutes=45),
        rrule=f"FREQ=WEEKLY;COUNT={OCCURRENCES}",
        attendees=["ana@bench.invalid"],
    )
    day = begin + timedelta(weeks=_MIDDLE)
    found = _call(
        "find_events",
        _context(world),
        {"start": (day - timedelta(hours=1)).isoformat(), "end": (day + timedelta(hours=1)).isoformat()},
    )
    events = [e for e in found["events"] if e["summary"] == _TITLE]
    assert len(events) == 1, found
    return events


def _rename(world: BulkWorld, events: list[dict[str, Any]]) -> None:
    plan = _call("plan_edit", _context(world), {"events": events, "summary": "Roadmap"})
    run_id = str(uuid.uuid4())
    reply = _call("apply_changes", _context(world, run_id=run_id), {"changes": plan, "approved": True})
    assert reply["kind"] == "done", reply["text"]


def _invite(world: BulkWorld, events: list[dict[str, Any]]) -> None:
    plan = _call("plan_edit", _context(world), {"events": events, "invite": ["bo@bench.invalid"]})
    run_id = str(uuid.uuid4())
    try:
        _call("apply_changes", _context(world, run_id=run_id), {"changes": plan})
    except Interrupt as pause:
        digest = str(pause.payload["digest"])
    else:
        raise AssertionError("apply_changes did not ask before inviting someone")
    answer = {"approve": True, "digest": digest}
    reply = _call("apply_changes", _context(world, run_id=run_id, answer=answer), {"changes": plan})
    assert reply["kind"] == "done", reply["text"]


def edit_one(world: BulkWorld, *, kind: str, repeat: int) -> Timing:
    """Plan and apply a rename (``kind="rename"``) or an invitation (``"invite"``) of the middle
    occurrence of a fresh 500-occurrence series, ``repeat`` times."""
    edit: Callable[[BulkWorld, list[dict[str, Any]]], None] = _rename if kind == "rename" else _invite
    events: list[list[dict[str, Any]]] = []

    def setup() -> None:
        events[:] = [_fresh(world)]

    def call() -> None:
        edit(world, events[0])

    return measure(call, repeat=repeat, warmup=1, setup=setup)
