"""A new event like one the calendar has, at its own weekday and time weeks later: "book the same time
next week for the dentist", "add another one at the same time next week", "same time in two weeks for
yoga".

"The same time next week" is the event's time, not the turn's: a new event on next Monday at an unknown
hour (what the create path read) or a question about the time would both miss it.  The event is named
("for the dentist") or the one the conversation is about ("another one"); the plan is find -> choose ->
plan_create (like that event, ``weeks_after``) -> apply, so the copy keeps its title, length, place,
people and calendar and is checked for conflicts like any new event.  Moving an event there ("move the
dentist to the same time next week") stays a move (:mod:`assistant.decomposer.changes`).
"""

from __future__ import annotations

import re
from datetime import timedelta

from assistant.decomposer.compiler import find_params
from assistant.decomposer.intent import normalise
from assistant.decomposer.reading import Reading
from assistant.decomposer.understand import understand
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["same_time_later"]

_HORIZON = timedelta(days=365)
_WEEKS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}
_SAME_TIME = re.compile(
    r"(?:\b(?:at|for|on|in)\s+)?(?:the\s+)?\bsame\s+(?:time|slot|time slot|hour)\s+"
    r"(?P<when>next week|the (?:following )?week after(?P<next> next)?|the following week|a week later"
    r"|in (?P<n>a|one|two|three|four|\d) weeks?)\b"
)
_MOVING = re.compile(r"\b(?:move|moved|reschedule|push|shift|postpone|bump|delay|switch|change)\b")
# What is left of the sentence once the verb and the "another one" are gone is the event named.
_VERB = re.compile(
    r"^(?:(?:please|can you|could you|would you|i want to|i'd like to|let's|lets)\s+)*"
    r"(?:book|add|schedule|create|make|set up|put|plan|arrange|repeat|copy|duplicate|do|pencil in)?"
    r"(?:\s+(?:me|in))?\s*"
)
_ANOTHER = re.compile(r"\b(?:another one|another|one more|a new one|a second one|again|also|too|one)\b")
_EDGE = re.compile(r"^(?:(?:for|at|of|with|and|the)\s+)+|(?:\s+(?:for|at|of|and))+$")


def _weeks(m: re.Match[str]) -> int:
    if m["n"]:
        return _WEEKS.get(m["n"]) or int(m["n"])
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
    if said is None or _MOVING.search(norm):
        return None
    weeks = _weeks(said)
    rest = f"{norm[: said.start()]} {norm[said.end() :]}"
    rest = _ANOTHER.sub(" ", _VERB.sub("", rest.strip(), count=1))
    target = _EDGE.sub("", re.sub(r"\s+", " ", rest).strip())
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
    plan = Plan()
    found = plan.add("find_events", find, id="find", summary="Find the event")
    chose = plan.add(
        "choose_event",
        # a series is one candidate, its next occurrence (a copy of a weekly one is named as a
        # conflict with the week after's)
        {"events": found["events"], "action": "Copy", "outcome": when, "per_series": True},
        id="choose",
        summary="Make sure which one",
    )
    copy = plan.add(
        "plan_create",
        {"like": chose["events"], "weeks_after": weeks},
        id="plan",
        summary=f"Plan the copy {when}",
    )
    apply = plan.add(
        "apply_changes", {"changes": copy.output, "approved": chose["chosen"]}, id="apply", summary="Apply"
    )
    return Decision(
        kind="workflow",
        workflow=plan.build("copy-event", summary=f"Copy an event to {when}", output=apply),
        confidence=0.8,
    )


def _ask() -> Decision:
    return Decision(
        kind="clarify",
        reply_kind="clarify",
        text='The same time as which event? Name it, e.g. "book the same time next week for the dentist".',
    )
