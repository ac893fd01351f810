"""Requests that change what an event is, not when: rename it, put it somewhere, invite or drop people,
give it another length.

"Rename my 1:1 with Priya to Career chat", "and put it in room 4B", "Add Lee to the roadmap review
and let him know", "take Bo off the design review", "shorten my meetings on Thursday to 25 minutes".
The sentence is split by its verb's frame into the event it names (read like a query, or "it" for
the event the conversation is about) and the new value; the plan is find -> choose -> plan_edit ->
apply (-> notify).  An edit of a recurring event without a date applies to the series (its
occurrences are one candidate), as people mean "rename the standup" of the standup, not of next
Monday's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.changes import notify_step
from assistant.decomposer.compiler import find_params
from assistant.decomposer.guards import odd_length
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from assistant.timeexpr import find_durations, find_times
from workflows.definition import Decision, TaskSpec, WorkflowDefinition

__all__ = ["edit_decision", "edit_tasks"]

_HORIZON = timedelta(days=365)
_NAME = r"[\w .'&+:/#@-]+?"
_RENAME = re.compile(
    rf"\b(?:rename|retitle)\s+(?P<target>{_NAME})\s+(?:to|as)\s+(?P<title>.+)$"
    rf"|\bchange\s+the\s+(?:name|title)\s+of\s+(?P<target2>{_NAME})\s+to\s+(?P<title2>.+)$",
    re.IGNORECASE,
)
_PLACE = re.compile(
    rf"\b(?:put|move|hold|have|set|change)\s+(?P<target>{_NAME})\s+(?:in|into|at)\s+(?P<place>.+)$"
    rf"|\b(?:change|set|move)\s+the\s+(?:location|place|room|venue)\s+of\s+(?P<target2>{_NAME})\s+"
    r"to\s+(?P<place2>.+)$",
    re.IGNORECASE,
)
# The place of the event the conversation is about: "and set the location to the Spree room", "also
# make the location Conference Room B", "oh and it's at Blue Bottle on Market St now".
_LEAD = r"^(?:(?:oh|and|also|ok|okay|then|so|actually)[\s,]+)*(?:please\s+|can you\s+|could you\s+)*"
_WHERE = r"(?:location|place|room|venue|address)"
_PLACE_OF_IT = re.compile(
    rf"{_LEAD}(?:set|change|make|update|put)\s+(?:the\s+)?{_WHERE}\s+(?:to\s+|as\s+|is\s+)?(?P<place>.+)$"
    rf"|{_LEAD}(?:the\s+)?(?:new\s+)?{_WHERE}\s+(?:is|will be|should be)\s+(?:now\s+)?(?P<place2>.+)$"
    rf"|{_LEAD}(?:it'?s|it is|it will be|it'll be|it should be)\s+(?:now\s+)?(?:at|in)\s+(?P<place3>.+?)"
    r"(?:,?\s+now)?$",
    re.IGNORECASE,
)
_INVITE = re.compile(
    rf"\b(?:add|invite|include)\s+(?P<who>{_NAME})\s+(?:to|on|in|into)\s+(?P<target>.+)$", re.IGNORECASE
)
_UNINVITE = re.compile(
    rf"\b(?:take|remove|drop|uninvite)\s+(?P<who>{_NAME})\s+(?:off|from|out of)\s+(?P<target>.+)$",
    re.IGNORECASE,
)
_LENGTH = re.compile(
    rf"\b(?:shorten|lengthen|extend|cut|make|change|set)\s+(?P<target>{_NAME})\s+(?:to\s+)?"
    r"(?P<length>\d+(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?|h))(?:\s+long)?\s*[.!]*$",
    re.IGNORECASE,
)
# "make the team sync biweekly", "change my 1:1 to every other week", "switch yoga to weekly"
_REPEAT_EDIT = re.compile(
    rf"\b(?:make|change|set|switch|turn|move)\s+(?P<target>{_NAME})\s+(?:to\s+|into\s+)?(?:be\s+)?"
    r"(?:(?P<two>biweekly|bi-weekly|fortnightly|every other week|every two weeks|every 2 weeks)"
    r"|(?P<one>weekly|every week)|every (?P<n>\d+|three|four) weeks)\b"
    r"(?:\s+(?:instead|from now on))?\s*[.!]*$",
    re.IGNORECASE,
)
_ALL = re.compile(r"\b(?:all|every|each|both)\b", re.IGNORECASE)
_NOTIFY = re.compile(
    r"\s*(?:,|\band\b|\bthen\b)?\s*\b(?:let|tell|notify|inform|email|message|ping|"
    r"(?:send|give)(?=\s+\w+\s+(?:a|an)\s+(?:heads[- ]up|note|message|email|notice|invite))|"
    r"make sure(?=.*\b(?:notified|told|informed|knows?|heads[- ]up|email|invite)))\b(?P<whom>.*)$",
    re.IGNORECASE,
)
_EVERYONE = re.compile(r"\b(?:everyone|everybody|all|attendees|the others|the team)\b", re.IGNORECASE)
_IT = re.compile(r"^(?:it|that|this|this one|that one|the event|the meeting)$", re.IGNORECASE)
_NAMES = re.compile(r"\s*(?:,|\band\b|&)\s*")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
# A place is not a time: "move it to 3pm" moves; "put it in room 4B" does not.
_TIMEISH_PLACE = re.compile(r"^(?:the )?(?:morning|afternoon|evening|night|next|same|later|earlier)\b")


@dataclass(frozen=True, slots=True)
class _Edit:
    target: str
    params: dict[str, Any]
    what: str
    who: str = ""  # the people an invite or an uninvite names, as said
    told: str | None = None  # whom "and let ... know" names; None: nobody is told
    # "add Lee to X" and "put X in Y" also read as new events ("add lunch to my calendar"): they edit
    # only an event the calendar has by that name; a length can be given to a day's events too
    by_name_only: bool = True


def _clean(text: str) -> str:
    return re.sub(r"[\s.!?]+$", "", text.strip())


def _people(who: str, world: World) -> tuple[list[str], list[str]]:
    """Addresses of the people named, and the names nobody in the directory answers to."""
    emails: list[str] = []
    unknown: list[str] = []
    names = [n for n in _NAMES.split(who.strip()) if n]
    directory = world.people_named([n.casefold() for n in names if not _EMAIL.fullmatch(n)])
    for name in names:
        if _EMAIL.fullmatch(name):
            emails.append(name)
        elif directory.get(name.casefold()):
            emails.append(directory[name.casefold()][0].email)
        else:
            unknown.append(name)
    return emails, unknown


def _read(text: str, now: datetime) -> _Edit | None:
    """The edit a sentence asks for, or None when it asks for none."""
    told = _NOTIFY.search(text)
    body = text[: told.start()] if told else text
    whom = told["whom"] if told else None
    if m := _RENAME.search(body):
        title = _clean(m["title"] or m["title2"])
        return _Edit(m["target"] or m["target2"], {"summary": title}, f"rename to {title}")
    if m := _INVITE.search(body):
        return _Edit(m["target"], {}, "invite", m["who"], whom)
    if m := _UNINVITE.search(body):
        return _Edit(m["target"], {}, "take off", m["who"], whom)
    if m := _REPEAT_EDIT.search(body):
        n = m["n"] or ""
        weeks = 2 if m["two"] else 1 if m["one"] else {"three": 3, "four": 4}.get(n.casefold()) or int(n)
        said = {1: "every week", 2: "every other week"}.get(weeks, f"every {weeks} weeks")
        return _Edit(m["target"], {"every_weeks": weeks}, f"repeat {said}")
    if m := _LENGTH.search(body):
        lengths = find_durations(m["length"])
        if lengths and lengths[0].minutes > 0:
            minutes = lengths[0].minutes
            return _Edit(
                m["target"], {"duration_minutes": minutes}, f"{minutes} minutes long", by_name_only=False
            )
    if m := _PLACE_OF_IT.search(body.strip()):
        place = _clean(m["place"] or m["place2"] or m["place3"])
        read = find_times(place, now=now, daytime=True)
        if _TIMEISH_PLACE.match(place.casefold()) or any(t.span[0] == 0 for t in read):
            return None  # "it's at 3pm", "it is in the morning": a time; "Room B, 12th floor" a place
        return _Edit("it", {"location": place}, f"place: {place}")
    if m := _PLACE.search(body):
        place = _clean(m["place"] or m["place2"])
        target = m["target"] or m["target2"] or ""
        if (
            _TIMEISH_PLACE.match(place.casefold())
            or find_times(place, now=now, daytime=True)
            or find_times(f"in {place}", now=now, daytime=True)
            or re.search(r"\bto\b", target, re.IGNORECASE)
        ):
            return None  # "move it to the afternoon", "put it at 3", "... to 9 in two weeks": a move
        return _Edit(target, {"location": place}, f"place: {place}")
    return None


def edit_tasks(
    find: dict[str, Any],
    params: dict[str, Any],
    *,
    expect_one: bool = True,
    per_series: bool = False,
    what: str = "",
    apply: dict[str, Any] | None = None,
) -> list[TaskSpec]:
    """find -> choose -> plan_edit -> apply: the plan of every edit, whether asked for ("rename the
    standup to ...") or given as a detail of the event just made ("it's at 4045 Castro Valley Blvd")."""
    return [
        TaskSpec(id="find", skill="find_events", params=find, summary="Find the event"),
        TaskSpec(
            id="choose",
            skill="choose_event",
            depends_on=("find",),
            params={
                "events": "{{find.output.events}}",
                "action": "Change",
                "expect_one": expect_one,
                "per_series": per_series,
                "outcome": what,
                "scope": "series" if per_series else "occurrence",
            },
            summary="Make sure which one",
        ),
        TaskSpec(
            id="plan",
            skill="plan_edit",
            depends_on=("choose",),
            params={"events": "{{choose.output.events}}", "scope": "{{choose.output.scope}}", **params},
            summary=f"Plan the edit ({what})" if what else "Plan the edit",
        ),
        TaskSpec(
            id="apply",
            skill="apply_changes",
            depends_on=("plan", "choose"),
            params={"changes": "{{plan.output}}", "approved": "{{choose.output.chosen}}", **(apply or {})},
            summary="Apply",
        ),
    ]


def _clarify(text: str) -> Decision:
    return Decision(kind="clarify", reply_kind="clarify", text=text)


def edit_decision(
    text: str, *, now: datetime, tz: ZoneInfo, world: World, context: dict[str, Any]
) -> Decision | None:
    """A workflow for an edit request, a question about it, or None when the turn is no edit."""
    edit = _read(text, now)
    if edit is None:
        return None
    target = _clean(re.sub(r"^(?:and|then|also)\s+", "", edit.target.strip(), flags=re.IGNORECASE))
    shown = context.get("last_events") or []
    per_series = False
    if _IT.match(target) and shown:
        last = shown[0]
        find: dict[str, Any] = {"start": last["start"], "end": last["end"], "text": last["summary"]}
    else:
        frame = understand(target, now=now, world=world)
        explicit = frame.range_explicit and frame.start is not None and frame.end is not None
        if not frame.title_words and (edit.by_name_only or not explicit):
            return None  # "add lunch to my calendar", "put the dentist in my calendar": no event edited
        start, end = (frame.start, frame.end) if explicit else (now, now + _HORIZON)
        assert start is not None
        assert end is not None
        find = find_params(frame, start, end)
        per_series = not explicit
    params = dict(edit.params)
    odd = odd_length(params.get("duration_minutes"))
    if odd:
        return _clarify(odd)
    notify_only: list[str] | None = None
    if edit.who:
        emails, unknown = _people(edit.who, world)
        if unknown:
            return _clarify(f"Who is {unknown[0]}? Give me their email address and I'll add them.")
        params["invite" if edit.what == "invite" else "uninvite"] = emails
        if edit.told is not None:
            notify_only = [] if _EVERYONE.search(edit.told) else emails
    tasks = edit_tasks(
        find,
        params,
        expect_one=not _ALL.search(target),
        per_series=per_series,
        what=edit.what,
        apply={"notify": True} if notify_only is not None else None,
    )
    output = "apply"
    if notify_only is not None:
        tasks.append(notify_step(only=notify_only))
        output = "notify"
    return Decision(
        kind="workflow",
        workflow=WorkflowDefinition(
            name="edit-event", summary=f"Edit {target} ({edit.what})", tasks=tuple(tasks), output=output
        ),
        confidence=0.8,
    )
