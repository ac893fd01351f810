"""A new event like one the calendar has, at its own weekday and time weeks later: "book the same time
next week for the dentist", "add another one at the same time next week", "same time in two weeks for
yoga"; or on another day right after one was made: "do the same for Monday".

"The same time next week" is the event's time, not the turn's: a new event on next Monday at an unknown
hour (what the create path read) or a question about the time would both miss it.  The event is named
("for the dentist") or the one the conversation is about ("another one"); the plan is find -> choose ->
plan_create (like that event, ``weeks_after``) -> apply, so the copy keeps its title, length, place,
people and calendar and is checked for conflicts like any new event.  Moving an event there ("move the
dentist to the same time next week") stays a move (:mod:`assistant.decomposer.changes`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from dateutil.rrule import rrulestr

from assistant.decomposer.compiler import find_params
from assistant.decomposer.intent import normalise
from assistant.decomposer.reading import Reading
from assistant.decomposer.understand import understand
from assistant.lexicon import EDGE_WORDS, MOVE_VERBS, SAME_AGAIN, trim_edges
from assistant.timeexpr.numbers import CARDINALS
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["copy_of_one", "same_for_another_day", "same_time_later"]

_HORIZON = timedelta(days=365)
_SAME_TIME = re.compile(
    r"(?:\b(?:at|for|on|in)\s+)?(?:the\s+)?\bsame\s+(?:time|slot|time slot|hour)\s+"
    r"(?P<when>next week|the (?:following )?week after(?P<next> next)?|the following week|a week later"
    r"|in (?P<n>a|one|two|three|four|\d) weeks?)\b"
)
# What is left of the sentence once the verb and the "another one" are gone is the event named.
_VERB = re.compile(
    r"^(?:(?:please|can you|could you|would you|i want to|i'd like to|let's|lets)\s+)*"
    r"(?:book|add|schedule|create|make|set up|put|plan|arrange|repeat|copy|duplicate|do|pencil in)?"
    r"(?:\s+(?:me|in))?\s*"
)
_ANOTHER = re.compile(r"\b(?:another one|another|one more|a new one|a second one|again|also|too|one)\b")


def _weeks(m: re.Match[str]) -> int:
    if m["n"]:
        return 1 if m["n"] == "a" else CARDINALS.get(m["n"]) or int(m["n"])
    return 2 if m["next"] else 1


def same_time_later(r: Reading) -> Decision | None:
    """A workflow making a copy of the event named (or talked about) weeks later at its own time, a
    question when no event is named, or None when the turn asks for no such copy (nor for an answer or
    an undo, whose words may look like one)."""
    if r.frame.operation in ("yes", "no", "greet", "undo"):
        return None
    text, now, world, context = r.text, r.now, r.world, r.context
    norm = normalise(text).rstrip(" .!?")
    said = _SAME_TIME.search(norm)
    if said is None or MOVE_VERBS.search(norm):
        return None
    weeks = _weeks(said)
    rest = f"{norm[: said.start()]} {norm[said.end() :]}"
    rest = _ANOTHER.sub(" ", _VERB.sub("", rest.strip(), count=1))
    target = trim_edges(rest, EDGE_WORDS)
    frame = understand(target, now=now, world=world) if target else None
    shown = context.get("last_events") or []
    if frame is not None and frame.title_words:
        find = find_params(frame, now, now + _HORIZON)
    elif shown and (not target or target in ("it", "that", "this")):
        last = shown[0]
        find = {"start": last["start"], "end": last["end"], "text": last["summary"]}
    else:
        return _ask()
    when = "the same time next week" if weeks == 1 else f"the same time {weeks} weeks later"
    # a series is one candidate, its next occurrence (a copy of a weekly one is named as a conflict with
    # the week after's)
    return copy_of_one(
        find, when, {"weeks_after": weeks}, per_series=True, summary=f"Copy an event to {when}"
    )


def same_for_another_day(r: Reading) -> Decision | None:
    """ "Do the same for Monday" right after an event was made: another like it on the day said (at
    the time said, else at its own), planned as any new event is; None for any other turn.  A change
    made just before is not repeated this way: which event "the same" would move is not said."""
    made = r.context.get("made") or {}
    frame = r.frame
    if not made.get("created") or not frame.range_explicit or frame.start is None or frame.title_words:
        return None
    said = SAME_AGAIN.search(r.norm)
    if said is None or "same" not in said.group(0) or r.text.rstrip().endswith("?"):
        return None  # "what about Friday?" asks; only "the same for ..." says to do it again
    # read as the new event it makes: "do the same for ..." begins like a question ("do I have ...")
    read_as = replace(frame, operation="create", confidence=0.8).as_json()
    if made.get("series"):
        # "piano every Wednesday at 5 in March", then "do the same for April": every Wednesday of April
        # at 5, shown first; one copy on April's first such day would not be the same
        again = _series_again(made, frame.start, frame.end, r) if frame.end is not None else None
        if again is not None:
            return again.model_copy(update={"frame": read_as})
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"{made['summary']!r} repeats, so one more on that day would not be the same, and I haven't "
            'made anything. Tell me how it repeats then, e.g. "every weekday in April from 9 to 11".',
            frame=read_as,
        )
    before = datetime.fromisoformat(made["start"]).astimezone(r.tz)
    day = frame.start.astimezone(r.tz).date()
    if frame.end is not None and frame.end - frame.start > timedelta(days=1):
        # "for next week": the day of that stretch on the event's own weekday (it took the Monday)
        same = day + timedelta(days=(before.weekday() - day.weekday()) % 7)
        day = same if same < frame.end.astimezone(r.tz).date() else day
    at = frame.at_time.astimezone(r.tz).time() if frame.at_time is not None else before.time()
    start = datetime.combine(day, at, r.tz)
    decision = copy_of_one(
        {"start": made["start"], "end": made["end"], "text": made["summary"]},
        "on the day said",
        {"start": start.isoformat()},
        summary="Make another like it on the day said",
    )
    return decision.model_copy(update={"frame": read_as})


def _series_again(made: dict[str, Any], start: datetime, end: datetime, r: Reading) -> Decision | None:
    """The plan of the series just made again over the stretch said, as it repeats (its days and time,
    ending with the stretch), previewed; None where the stretch is a day or less, or holds none of its
    days."""
    rule = ";".join(
        part
        for part in str(made.get("rule") or "").split(";")
        if part and not part.upper().startswith(("UNTIL=", "COUNT="))
    )
    if not rule or end - start <= timedelta(days=1):
        return None
    before = datetime.fromisoformat(made["start"]).astimezone(r.tz)
    # wall time: the rule repeats on the days and at the hour the user sees, across a clock change
    begins = max(datetime.combine(start.astimezone(r.tz).date(), before.time(), r.tz), r.now)
    begins = begins.replace(tzinfo=None)
    ends = end.astimezone(r.tz)
    found = rrulestr(rule, dtstart=begins).after(begins, inc=True)
    first = found.replace(tzinfo=r.tz) if found is not None else None
    if first is None or first >= ends:
        return None
    until = (ends - timedelta(seconds=1)).astimezone(UTC)
    return copy_of_one(
        {"start": made["start"], "end": made["end"], "text": made["summary"]},
        f"as it repeats, from {first:%B} {first.day}",
        {"start": first.isoformat(), "rrule": f"{rule};UNTIL={until:%Y%m%dT%H%M%SZ}"},
        summary="Make it again over the stretch said",
        per_series=True,
        shown_first=True,
    )


def copy_of_one(
    find: dict[str, Any],
    outcome: str,
    when: dict[str, Any],
    *,
    summary: str,
    per_series: bool = False,
    shown_first: bool = False,
) -> Decision:
    """The plan of a copy of one event: find it, make sure which (a series one candidate where
    ``per_series``), plan another like it ``when`` (plan_create's start, weeks_after or on_date) and
    apply it, as the policy says or, ``shown_first``, after a preview."""
    plan = Plan()
    found = plan.add("find_events", find, id="find", summary="Find the event")
    chose = plan.add(
        "choose_event",
        {
            "events": found["events"],
            "action": "Copy",
            "outcome": outcome,
            **({"per_series": True} if per_series else {}),
        },
        id="choose",
        summary="Make sure which one",
    )
    copy = plan.add(
        "plan_create", {"like": chose["events"], **when}, id="plan", summary=f"Plan the copy {outcome}"
    )
    asked = {"always_ask": True} if shown_first else {"approved": chose["chosen"]}
    apply = plan.add("apply_changes", {"changes": copy.output, **asked}, id="apply", summary="Apply")
    return Decision(
        kind="workflow",
        workflow=plan.build("copy-event", summary=summary, output=apply),
        confidence=0.85 if shown_first else 0.8,
    )


def _ask() -> Decision:
    return Decision(
        kind="clarify",
        reply_kind="clarify",
        text='The same time as which event? Name it, e.g. "book the same time next week for the dentist".',
    )
