"""A declined preview followed by what to do instead: "No, find another time that day".

The chat declines the waiting preview and hands the rest of the turn here with the declined rows in the
context.  A new event declined for its time is planned again at the first free time of the same day (or
of the part of the day, or the day the turn names), for it and its attendees and outside the protected
preferences; the new plan is previewed or applied by the usual policy.
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from typing import Any

from assistant.decomposer.reading import Reading
from assistant.decomposer.state import DECLINED
from assistant.lexicon import NO_LEADS
from assistant.timeexpr import find_durations, find_times
from workflows.builder import Handle, Plan
from workflows.definition import Decision

__all__ = ["another_time", "declined_at"]

_ANOTHER = re.compile(
    r"\b(?:another|a different|some other|other|a better|a free) (?:time|slot)\b"
    r"|\bsomewhere else\b|\belsewhere\b"
    r"|\b(?:later|earlier) (?:that|the same) day\b|\bfind (?:a |me a )?(?:free )?(?:time|slot)\b"
)


def declined_at(r: Reading) -> Decision | None:
    """ "No, 7pm" or "no, make it 30 minutes" to a new event shown first: the same event at the day or
    time said, or as long as said, shown again; None unless one new event was declined and the turn
    says nothing but when or how long."""
    rows = [row for row in r.context.get(DECLINED) or [] if isinstance(row, dict)]
    if len(rows) != 1 or rows[0].get("action") != "create" or not (rows[0].get("after") or {}).get("start"):
        return None
    said = r.norm.strip(" .!?")
    said = said.removeprefix("make it ").removeprefix("at ").removeprefix("on ").removesuffix(" instead")
    row = rows[0]
    was = datetime.fromisoformat(row["after"]["start"]).astimezone(r.tz)
    minutes = int((datetime.fromisoformat(row["after"]["end"]).astimezone(r.tz) - was).total_seconds() // 60)
    lengths = find_durations(said)
    if len(lengths) == 1 and lengths[0].span == (0, len(said)) and lengths[0].minutes > 0:
        start, minutes = was, lengths[0].minutes  # "no, make it 30 minutes"
    else:
        said = f"at {said}" if said[:1].isdigit() else said  # "no, 11": an hour, read as "at 11"
        times = [m for m in find_times(said, now=r.now, daytime=True) if not m.error and m.start is not None]
        if len(times) != 1 or times[0].text != said or times[0].is_interval:
            return None
        when = times[0]
        assert when.start is not None
        day = when.start.astimezone(r.tz).date() if when.has_date else was.date()
        clock = when.start.astimezone(r.tz).time() if when.has_time else was.time()
        start = datetime.combine(day, clock, r.tz)
    new = {
        "summary": row["summary"],
        "start": start.isoformat(),
        "duration_minutes": max(5, minutes),
        "attendees": list(row.get("attendees") or []),
        "location": row.get("location") or "",
        "rrule": row.get("rrule") or "",
        "calendar": row.get("calendar_key") or "",
    }
    plan = Plan()
    made = plan.add("plan_create", new, id="plan", summary="Plan it then")
    return _shown_first(plan, made, "create-then", f"{row['summary']} then")


# What a turn that asks for another time for the event just made starts with, after any "no".
_LOOKING = ("find", "pick", "choose", "try", "get", "give", "move", "put")


def another_time(r: Reading) -> Decision | None:
    """The declined new event planned at another free time, the event the turn before made or moved
    moved to another free time, or None when the turn asks no such thing."""
    now, tz, context, norm = r.now, r.tz, r.context, r.norm
    rows = [r for r in context.get(DECLINED) or [] if isinstance(r, dict)]
    if not _ANOTHER.search(norm):
        return None
    if not rows and r.state.made is not None:
        return _made_elsewhere(r, norm)
    if len(rows) != 1 or rows[0].get("action") != "create":
        return None
    row = rows[0]
    start = datetime.fromisoformat(row["after"]["start"]).astimezone(tz)
    end = datetime.fromisoformat(row["after"]["end"]).astimezone(tz)
    lo, hi, part = _where_to_look(norm, start, now)
    search: dict[str, Any] = {
        "start": lo.isoformat(),
        "end": hi.isoformat(),
        "duration_minutes": max(5, int((end - start).total_seconds() // 60)),
        "people": list(row.get("attendees") or []),
        "limit": 1,
    }
    if part:  # "another time that evening"
        search["day_part"] = part
    plan = Plan()
    slots = plan.add("free_slots", search, id="slots", summary="Find another free time")
    new = {
        "summary": row["summary"],
        "start": slots["slots.0.start"],
        "duration_minutes": search["duration_minutes"],
        "attendees": search["people"],
    }
    made = plan.add("plan_create", new, id="plan", summary="Plan it there")
    apply = plan.add("apply_changes", {"changes": made.output}, id="apply", summary="Apply")
    return Decision(
        kind="workflow",
        workflow=plan.build("create-elsewhere", summary=f"{row['summary']} at another time", output=apply),
        confidence=0.85,
    )


def _made_elsewhere(r: Reading, norm: str) -> Decision | None:
    """ "No, find another time in the evening" right after an event was made or moved: that event moved
    to the first free time of its day (of the day part, or of the day the turn names), previewed first
    (the time is the assistant's pick). A turn that only puts the question off ("maybe another time")
    or asks something else is left to the other handlers."""
    words = norm.replace(",", " ").split()
    if words and (words[0] in NO_LEADS or words[0] == "actually"):
        words = words[1:]
    made = r.state.made
    if made is None or not words or words[0] not in _LOOKING:
        return None
    lo, hi, part = _where_to_look(norm, made.start.astimezone(r.tz), r.now)
    move: dict[str, Any] = {"search_start": lo.isoformat(), "search_end": hi.isoformat()}
    if part:  # "another time in the evening"
        move["day_part"] = part
    plan = Plan()
    find = {"start": made.start.isoformat(), "end": made.end.isoformat(), "text": made.summary}
    found_it = plan.add("find_events", find, id="find", summary="Find the event")
    chose = plan.add(
        "choose_event",
        {"events": found_it["events"], "action": "Move", "expect_one": True},
        id="choose",
        summary="Make sure which one",
    )
    moved = plan.add(
        "plan_move", {"events": chose["events"], **move}, id="plan", summary="Find it another time"
    )
    return _shown_first(plan, moved, "move-elsewhere", f"{made.summary} at another time")


def _shown_first(plan: Plan, changes: Handle, name: str, summary: str) -> Decision:
    """The plan with its ``changes`` applied after a preview: the time is the user's correction or the
    assistant's pick, not a request read whole, so it is shown before it is made."""
    apply = plan.add(
        "apply_changes",
        {"changes": changes.output, "always_ask": True},
        id="apply",
        summary="Preview, then apply",
    )
    workflow = plan.build(name, summary=summary, output=apply)
    return Decision(kind="workflow", workflow=workflow, confidence=0.85)


def _where_to_look(norm: str, was: datetime, now: datetime) -> tuple[datetime, datetime, str | None]:
    """Where another time is looked for: from now on the day the turn names, or else the day of ``was``
    (the time given up, in the user's zone), to that day's end; and the part of the day it names."""
    tz = was.tzinfo
    found = find_times(norm, now=now, daytime=True)
    named = [m.start for m in found if m.has_date and not m.error and m.start]
    day = named[0].astimezone(tz).date() if named else was.date()
    lo = max(datetime.combine(day, time(), tz), now)
    hi = datetime.combine(day + timedelta(days=1), time(), tz)
    return lo, hi, next((m.day_part for m in found if m.day_part), None)
