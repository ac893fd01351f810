"""Copies of events at a later time: "copy my standups to next week", "duplicate this week's classes
into next week", "copy Monday's meetings to Thursday".

The events copied are the turn's subject (a title, a category, people; everything when none is said) in
the period copied from: the one said, or for a week said alone the week before it.  Each copy keeps
its own wall time and length, the same number of days later (``plan_copies``), and is previewed
first: a copy is a bulk write, and one that is already there (a weekly series) is named and left out.
Copying one calendar into another is syncing (:mod:`assistant.decomposer.sync`, earlier in the table).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.decomposer.again import copy_of_one
from assistant.decomposer.compiler import find_params
from assistant.decomposer.reading import Reading
from assistant.decomposer.sync import led_in
from assistant.decomposer.understand import understand
from assistant.lexicon import COPY_VERBS, EDGE_WORDS, THE_NEXT_PERIOD, trim_edges
from assistant.timeexpr import TimeMatch, find_times
from skills.changes import shift_wall
from skills.formatting import format_day, format_range
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["copy_decision"]

# "from this week to next week": one interval to the resolver, the period copied and where it goes to
# a copy; the two ends are read apart.
_FROM_TO = re.compile(r"^(?:from\s+)?(?P<source>.+?)\s+(?:to|into|until|till)\s+(?P<dest>\S.*)$")
# A period said: where it starts in the turn, its bounds, its grain, where it ends in the turn.
_Period = tuple[int, datetime, datetime, str, int]
# How far back and ahead one event copied is looked for, when no day of it is said.
_BACK, _HORIZON = timedelta(days=7), timedelta(days=365)
_FROM_WHICH = 'Copy from which day or week? Say e.g. "copy Monday\'s standup to Thursday".'


def copy_decision(r: Reading) -> Decision | None:
    """Copies of the events the turn names, from the period said (or the week before) to a later one;
    None when the turn copies nothing to a time."""
    norm = r.norm
    if r.frame.operation in ("yes", "no", "greet", "undo") or not COPY_VERBS.search(norm):
        return None
    periods = [p for t in find_times(norm, now=r.now, daytime=True) if (p := _period(t, r.tz)) is not None]
    # where the copies go: the time said after "to", "into", "over to"
    to = next((p for p in reversed(periods) if led_in(norm[: p[0]]) == "to"), None)
    if to is None and len(periods) == 1:
        periods = _ends(norm, periods[0], r) or periods
        to = None if len(periods) == 1 else periods[1]
    following = _next_one(norm, periods[0], r) if periods else None
    if following is not None:  # "to the following week": the week after the one copied, not after today's
        periods, to = [periods[0], following], following
    if to is None:
        return None
    said = next((p for p in periods if p is not to), None)
    if said is not None:
        start, end = said[1], said[2]
    elif to[3] == "week":  # "to next week": from the week before it
        start, end = shift_wall(to[1], r.tz, days=-7), shift_wall(to[2], r.tz, days=-7)
    elif to[3] == "day" and (one := _one_copied(r, norm[: to[0]], to[1].astimezone(r.tz).date())) is not None:
        return one
    else:
        return Decision(kind="clarify", reply_kind="clarify", text=_FROM_WHICH)
    first = start.astimezone(r.tz).date()
    if to[3] == "week" and (said is None or said[3] != "week"):
        # "copy Friday's meetings to next week": to the same weekday of that week, whole weeks later
        first -= timedelta(days=first.weekday() - to[1].astimezone(r.tz).weekday())
    days = (to[1].astimezone(r.tz).date() - first).days
    if days < 1:
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"I can copy events to a later day or week than {format_range(start, end, r.tz)}. "
            "Where should the copies go?",
        )
    return _plan(r, start, end, days, format_range(to[1], to[2], r.tz))


def _one_copied(r: Reading, said: str, day: date) -> Decision | None:
    """The plan of a copy of one event named by its title ("copy the design review to Friday"), on
    ``day``, at the event's own time; None when the words before the day name no event."""
    target = trim_edges(COPY_VERBS.sub(" ", said, count=1), EDGE_WORDS)
    frame = understand(target, now=r.now, world=r.world, existing=True) if target else None
    if frame is None or not frame.title_words:
        return None
    # the one said, or from a week back (one this week may be over: "copy the piano lesson to Friday")
    start, end = (frame.start, frame.end) if frame.range_explicit else (r.now - _BACK, r.now + _HORIZON)
    find = find_params(frame, start or r.now - _BACK, end or r.now + _HORIZON)
    on = f"to {format_day(day)}"
    return copy_of_one(
        find,
        on,
        {"on_date": day.isoformat()},
        summary=f"Copy an event {on}",
        per_series=True,
        shown_first=True,
    )


def _ends(norm: str, period: _Period, r: Reading) -> list[_Period]:
    """The two periods an interval "from this week to next week" joins, read apart; none when it is
    not two periods of the same length said with "to"."""
    m = _FROM_TO.match(norm[period[0] : period[4]])
    if m is None:
        return []
    ends = []
    for name in ("source", "dest"):
        at = period[0] + m.start(name)
        found = [
            p for t in find_times(m[name], now=r.now, daytime=True) if (p := _period(t, r.tz, at)) is not None
        ]
        if len(found) != 1:
            return []
        ends.extend(found)
    return ends if ends[0][3] == ends[1][3] else []


def _next_one(norm: str, period: _Period, r: Reading) -> _Period | None:
    """The period after ``period`` when the turn copies "to the week after" it, else None."""
    m = THE_NEXT_PERIOD.search(norm)
    if m is None or m.start() < period[4]:
        return None
    grain = m["after"] or m["following"]
    if grain != period[3]:
        return None
    days = 7 if grain == "week" else 1
    start, end = shift_wall(period[1], r.tz, days=days), shift_wall(period[2], r.tz, days=days)
    return m.start(), start, end, period[3], m.end()


def _period(t: TimeMatch, tz: ZoneInfo, at: int = 0) -> _Period | None:
    """Where a day or longer is said (``at`` is where the text searched starts in the turn), its
    bounds and grain: what copies go from and to (never a clock time, nor a date that cannot be)."""
    if t.error is not None or t.start is None or not t.has_date or t.has_time:
        return None
    if t.end is None and t.grain == "day":  # "copy it from Thursday to ...": that day, not from it on
        return at + t.span[0], t.start, shift_wall(t.start, tz, days=1), t.grain, at + t.span[1]
    if t.end is None:
        return None
    return at + t.span[0], t.start, t.end, t.grain, at + t.span[1]


def _plan(r: Reading, start: datetime, end: datetime, days: int, where: str) -> Decision:
    plan = Plan()
    found = plan.add("find_events", find_params(r.frame, start, end), id="find", summary="Find the events")
    copies = plan.add(
        "plan_copies",
        {"events": found["events"], "days_after": days},
        id="plan",
        summary=f"Plan their copies {where}",
    )
    apply = plan.add(
        "apply_changes", {"changes": copies.output, "always_ask": True}, id="apply", summary="Apply"
    )
    return Decision(
        kind="workflow",
        workflow=plan.build("copy-events", summary=f"Copy events to {where}", output=apply),
        confidence=0.85,
    )
