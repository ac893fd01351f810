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

from assistant.decomposer.intent import normalise
from assistant.decomposer.reading import Reading
from assistant.decomposer.state import DECLINED
from assistant.timeexpr import find_times
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["another_time"]

_ANOTHER = re.compile(
    r"\b(?:another|a different|some other|other|a better|a free) (?:time|slot)\b"
    r"|\bsomewhere else\b|\belsewhere\b"
    r"|\b(?:later|earlier) (?:that|the same) day\b|\bfind (?:a |me a )?(?:free )?(?:time|slot)\b"
)


def another_time(r: Reading) -> Decision | None:
    """The declined new event planned at another free time, or None when the turn asks no such thing."""
    text, now, tz, context = r.text, r.now, r.tz, r.context
    rows = [r for r in context.get(DECLINED) or [] if isinstance(r, dict)]
    norm = normalise(text)
    if len(rows) != 1 or rows[0].get("action") != "create" or not _ANOTHER.search(norm):
        return None
    row = rows[0]
    start = datetime.fromisoformat(row["after"]["start"]).astimezone(tz)
    end = datetime.fromisoformat(row["after"]["end"]).astimezone(tz)
    found = find_times(norm, now=now, daytime=True)
    named = [m for m in found if m.has_date and not m.error and m.start]
    day = named[0].start.astimezone(tz).date() if named and named[0].start else start.date()
    lo = max(datetime.combine(day, time(), tz), now)
    search: dict[str, Any] = {
        "start": lo.isoformat(),
        "end": datetime.combine(day + timedelta(days=1), time(), tz).isoformat(),
        "duration_minutes": max(5, int((end - start).total_seconds() // 60)),
        "people": list(row.get("attendees") or []),
        "limit": 1,
    }
    if part := next((m.day_part for m in found if m.day_part), None):  # "another time that evening"
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
