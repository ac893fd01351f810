"""The confidence gate every planned write passes before it runs: act, preview first, or ask.

Whoever planned the turn (the rules or a model), a write is applied at once only when the reading is
sure (confidence 0.8 or more) and its account (:mod:`assistant.decomposer.account`) places every word
of the request.  A reading between 0.5 and 0.8, or with words left over, is previewed: the change
waits for the user's approval, and the preview names the words that were not used.  Below 0.5 the
gate asks instead, quoting the words it could not place; and a new event whose title is doubtful
(pieces of the sentence stitched together, a date taken into it, the request's verb) is asked about
by name, keeping its day, time and place, so that the answer completes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model

from assistant.decomposer.account import Account, Facts, account_for, stem
from assistant.decomposer.dialogue import asks_question
from assistant.decomposer.frame import READS, RequestFrame
from assistant.decomposer.intent import normalise
from assistant.decomposer.state import Draft
from assistant.decomposer.world import World
from assistant.decomposer.zones import said_zone
from assistant.lexicon import (
    CREATE_VERBS,
    EVENT_NOUNS,
    EVERYONE_CUE,
    HOLDING,
    NAMING_VERBS,
    PICK,
    STREET_ADDRESS,
    misspelt_verb,
    tokens,
)
from assistant.timeexpr import find_times, misspelt_weekdays
from assistant.turnmemo import turn_now
from skills.critic import Action, Expectation
from skills.formatting import format_day, format_time
from workflows.definition import Decision, TaskSpec, WorkflowDefinition

__all__ = ["ACT", "CONFIRM", "MODEL_LED", "facts_of", "gate"]

ACT = 0.8
CONFIRM = 0.5
# The confidence of a write only the models read (a new event, an edit): below ACT, so it is previewed.
MODEL_LED = 0.75

_TITLE_PARAMS = {"plan_create": ("summary",), "plan_edit": ("summary",)}
_PLACE_PARAMS = {"plan_create": ("location",), "plan_edit": ("location",)}
_NOTE_PARAMS = {"plan_edit": ("description",)}
_PEOPLE_PARAMS = {
    "plan_create": ("attendees",),
    "plan_edit": ("invite", "uninvite"),
    "find_events": ("attendee", "also_with", "exclude_attendees"),
    "filter_events": ("attendee", "also_with", "exclude_attendees"),
    "notify_attendees": ("only",),  # "and let Ann know": whom it tells
}
_TARGET_PARAMS = {
    "find_events": ("text", "exclude_text", "exclude_places", "calendars", "category", "exclude_category"),
    "filter_events": ("text", "exclude_text", "category", "exclude_category"),
    "plan_sync": ("sources", "to"),
    "plan_create": ("calendar", "beside"),
}

# The words that say what a change leaves out, whichever filter leaves it out ("where it is" as well
# for a leave-out by title: "leave the design crit where it is").
_EXCLUDING = (
    "except excluding apart besides but not isn't aren't don't dont never leave keep skip without though "
    "touch alone other than"
)
# The words of the kinds of event a search keeps or leaves out ("my classes", "except meetings").
_KINDS = (
    "class classes lecture lectures seminar seminars lab labs tutorial tutorials course courses "
    "meeting meetings"
)
_EXCLUDING_KINDS = f"{_EXCLUDING} {_KINDS}"
# The words that ask for a step of a plan or say which field a value fills, by skill ("skill") and by
# parameter the plan sets ("skill.param"): a word the plan does not need stays unplaced.
_CUES: dict[str, str] = {
    # a question answered above a preview ("how long is the design review and can you move it to 4")
    "compose_reply.detail": "how long last lasts length duration where place location who attending coming "
    "end ends ended finish finishes finished over start starts started begin begins began",
    "plan_create": "add create schedule book set put make plan arrange organise organize block reserve hold "
    "include pencil jot note mark enter insert save setup event appointment start starts starting begin "
    "begins held happening taking scheduled there goes later",
    "plan_create.summary": "title name label use",
    "plan_create.calendar": "calendar calendars cal on in to",
    "plan_create.location": "location located address place venue where give",
    "plan_create.duration_minutes": "long last lasts lasting take takes length duration",
    "plan_create.attendees": "invite inviting with include",
    "plan_create.rrule": "repeat repeating recurring recur weekly daily monthly yearly every",
    "plan_create.search_end": "free available whenever works suits slot open both everyone everybody all",
    "plan_create.all_day": "all day whole",
    "plan_create.beside": "after before right just directly straight",
    "plan_edit": "change update edit set make",
    "plan_edit.summary": "title name rename retitle label",
    "plan_edit.location": "location located address place venue where relocate room taking held happening",
    "plan_edit.description": "note notes description details detail add attach",
    "plan_edit.duration_minutes": "long last lasts lasting length duration shorten extend lengthen make cut "
    "trim",
    "plan_edit.longer_minutes": "longer shorter extend lengthen prolong shorten cut trim by more less add "
    "give another extra additional end",
    "plan_edit.end_at": "end ends ending finish finishes done",
    "plan_edit.invite": "invite add include bring put guest list people attending attendees invitees",
    "plan_edit.uninvite": "remove take off drop uninvite exclude",
    "plan_edit.every_weeks": "biweekly fortnightly every other week weeks",
    "plan_move": "move reschedule push shift postpone bring change make put date time day",
    "plan_move.shift_minutes": "later earlier by",
    "plan_move.search_end": "free available whenever works suits slot open both everyone everybody all "
    "time can make",
    "plan_move.other_day": "lighter lighten light free up busy packed less",
    # "the bowling event that I just created", "the dentist appointment scheduled for April 17th"
    "plan_delete": "delete remove cancel clear drop scheduled created booked made added stop end ending "
    "recurring repeating series",
    "find_events.exclude_weekdays": _EXCLUDING,
    "find_events.exclude_dates": _EXCLUDING,
    "find_events.exclude_text": f"{_EXCLUDING} where it is",
    "find_events.exclude_places": f"{_EXCLUDING} outside out of",
    "find_events.exclude_category": _EXCLUDING_KINDS,
    "filter_events.exclude_category": _EXCLUDING_KINDS,
    "filter_events.exclude_attendees": _EXCLUDING,
    "filter_events.exclude_text": f"{_EXCLUDING} where it is",
    "find_events.category": _KINDS,
    "notify_attendees": "notify notified know tell told email emails mail message inform send heads up "
    "everyone everybody anyone anybody people attendee attendees who gets get let him her them",
    # private events are never copied: a turn that says so ("but don't copy events marked private")
    # asks for nothing the plan does not do
    "plan_sync": "sync synced copy over keep step mirror both ways way calendar calendars cal between "
    "vice versa too also private marked flagged don't not never skip without leave out except excluding",
    "plan_sync.only": f"{_KINDS} all day only just",
    "undo_changes": "undo revert back",
}
# Words of constraints that every plan that finds a time keeps by itself (preferences are honoured
# by every create and move): "leave time for lunch", "I can't miss the gym", "make sure I don't miss
# the gym": the words that keep (``_KEEPING``) and what they keep (``_KEPT``), which is kept only
# where the turn keeps it ("it's lunch with Ann" names the event and keeps nothing).
_KEEPING = "keep leave protect free clear miss can't cannot sure don't"
_KEPT = "lunch gym writing block working hours break"
_FINDS_A_TIME = {"plan_create", "plan_move"}
# The steps of a plan that only makes new events.
_MAKES_ONLY = frozenset({"plan_create", "combine_changes", "apply_changes"})


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [] if value.startswith("{{") else [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and not v.startswith("{{")]
    return []


def _names(emails: list[str]) -> list[str]:
    """Each address with the name its owner goes by here, when one does: "Ann Lee" said as "Ann"."""
    addresses = [e for e in emails if "@" in e]
    if not addresses:  # most plans invite nobody: no query to build
        return emails
    found = {
        email.casefold(): f"{first} {last}".strip()
        for email, first, last in get_user_model()
        .objects.filter(email__in=addresses)
        .values_list("email", "first_name", "last_name")
    }
    return [f"{found[e.casefold()]} {e}" if e.casefold() in found else e for e in emails]


def _cues(tasks: Iterable[TaskSpec]) -> frozenset[str]:
    words: list[str] = []
    for task in tasks:
        words += _CUES.get(task.skill, "").split()
        for name, value in task.params.items():
            if value not in (None, "", [], False):
                words += _CUES.get(f"{task.skill}.{name}", "").split()
    return frozenset(stem(w) for w in words)


def facts_of(definition: WorkflowDefinition) -> Facts:
    """What a workflow's tasks write and look for, in words, and the words that ask for its steps."""
    found: dict[str, list[str]] = {"titles": [], "places": [], "people": [], "targets": [], "notes": []}
    tables = (
        (_TITLE_PARAMS, "titles"),
        (_PLACE_PARAMS, "places"),
        (_PEOPLE_PARAMS, "people"),
        (_TARGET_PARAMS, "targets"),
        (_NOTE_PARAMS, "notes"),
    )
    for task in definition.tasks:
        for table, into in tables:
            for name in table.get(task.skill, ()):
                found[into].extend(s for s in _strings(task.params.get(name)) if s)
        only = task.params.get("only") if task.skill == "plan_sync" else None
        if isinstance(only, dict):  # what of them a sync copies: "my work meetings", "the standups"
            found["targets"] += [s for name in ("text", "calendars") for s in _strings(only.get(name)) if s]
    finds_a_time = any(t.skill in _FINDS_A_TIME for t in definition.tasks)
    return Facts(
        hours=frozenset(_hours(definition.tasks)),
        titles=tuple(found["titles"]),
        targets=tuple(found["targets"]),
        places=tuple(found["places"]),
        people=tuple(_names(found["people"])),
        notes=tuple(found["notes"]),
        cues=_cues(definition.tasks),
        kept=frozenset(stem(w) for w in _KEPT.split()) if finds_a_time else frozenset(),
        keeping=frozenset(stem(w) for w in _KEEPING.split()) if finds_a_time else frozenset(),
        created=_created(definition.tasks),
        clock=_clock(definition.tasks),
        searched=any(t.skill == "plan_create" and t.params.get("search_end") for t in definition.tasks),
        calendars=tuple(
            str(t.params["calendar"])
            for t in definition.tasks
            if t.skill == "plan_create" and isinstance(t.params.get("calendar"), str)
        ),
    )


def _clock(tasks: Sequence[TaskSpec]) -> frozenset[tuple[int, int]]:
    """The wall times new events start at and, their length said, end at, for a plan whose only
    writes are new events at times it sets (none for any other, nor for a time searched for)."""
    if any(t.skill not in _MAKES_ONLY for t in tasks):
        return frozenset()
    times: set[tuple[int, int]] = set()
    for task in tasks:
        params = task.params
        if task.skill != "plan_create":
            continue
        if not isinstance(params.get("start"), str) or params.get("search_end") or params.get("all_day"):
            return frozenset()
        start = datetime.fromisoformat(params["start"])
        times.add((start.hour, start.minute))
        if isinstance(params.get("duration_minutes"), int):
            end = start + timedelta(minutes=params["duration_minutes"])
            times.add((end.hour, end.minute))
    return frozenset(times)


def _created(tasks: Sequence[TaskSpec]) -> tuple[tuple[datetime, datetime], ...]:
    """When the new events may start (from, until: the time set, the range searched, the days an
    all-day event covers), for a plan whose only writes are new events; none for any other plan (a
    move's days are the event's and its new one's)."""
    if any(t.skill not in _MAKES_ONLY for t in tasks):
        return ()
    spans = []
    for task in tasks:
        params = task.params
        if task.skill != "plan_create":
            continue
        if not isinstance(params.get("start"), str) or params.get("rrule"):
            return ()  # a time to be found, or days a rule repeats on
        start = datetime.fromisoformat(params["start"])
        if isinstance(params.get("search_end"), str):
            until = datetime.fromisoformat(params["search_end"])
        elif params.get("all_day"):
            last = date.fromisoformat(params["last_day"]) if params.get("last_day") else start.date()
            until = start + timedelta(days=(last - start.date()).days + 1)
        else:
            until = start + timedelta(minutes=1)
        spans.append((start, until))
    return tuple(spans)


_CLOCK = re.compile(r"^(?:\d{4}-\d{2}-\d{2}T)?(?P<hour>\d{2}):\d{2}")


def _hours(tasks: Iterable[TaskSpec]) -> Iterable[int]:
    """The clock hours of the times a plan's steps set, as wall times ("20:00", "...T20:00:00-04:00")."""
    stack: list[Any] = [task.params for task in tasks]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, str) and (m := _CLOCK.match(value)):
            yield int(m["hour"])


def _writes(definition: WorkflowDefinition) -> bool:
    return any(task.skill == "apply_changes" for task in definition.tasks)


def _quoted(phrases: Iterable[str]) -> str:
    return ", ".join(f'"{p}"' for p in phrases)


def gate(
    decision: Decision,
    *,
    text: str,
    user: Any,
    timezone_name: str,
    earlier: list[str],
    frame: dict[str, Any] | None = None,
    asked: str | None = None,
) -> Decision:
    """The decision as it may go ahead: unchanged, previewed first, or a question instead.

    ``frame`` is the rules' reading of the turn (a model's plan has none of its own); it says what the
    critic holds the planned changes to.
    """
    frame = frame if frame is not None else decision.frame
    tz = ZoneInfo(timezone_name)
    now = turn_now().astimezone(tz)
    drafted = decision.context_update.get("draft") if decision.kind == "clarify" else None
    if isinstance(drafted, dict) and drafted.get("title"):
        # an event begun in this turn, still to be completed: not one that already exists
        existing = _changes_existing({"summary": drafted["title"]}, text, World.of_turn(user, now))
        if existing is not None:
            return _existing(decision, existing)
    definition = decision.workflow
    if decision.kind != "workflow" or definition is None or not _writes(definition):
        return decision
    said = RequestFrame(operation=frame.get("operation", "unknown"), confidence=frame.get("confidence", 0.0))
    if said.operation in _READS and asks_question(said, text):
        return _refused(
            decision, "That reads as a question, so I haven't changed anything. What should I do?"
        )
    if _taken_back(text):
        return _refused(
            decision,
            "You took that back in the same message, so I haven't changed anything. "
            "Tell me what you'd like instead.",
        )
    facts = facts_of(definition)
    # "Planning", to "What should I call it?": the words are the name asked for, whatever else they say
    account = account_for(text, facts, now=now, earlier=earlier, naming=asked == "title")
    created = _plain_create(definition)
    if created is not None and account.doubts:
        return _ask_title(decision, created, account, tz)
    existing = _changes_existing(created, text, World.of_turn(user, now)) if created is not None else None
    if existing is not None:
        return _existing(decision, existing)
    definition = _expecting(definition, _expectation(frame, definition, text, now))
    decision = decision.model_copy(update={"workflow": definition})
    if decision.confidence < CONFIRM:
        unsure = _quoted(account.leftover) or f'"{text}"'
        return _refused(
            decision,
            f"I'm not sure what you want me to do with {unsure}, so I haven't changed anything. "
            "Could you say it another way?",
        )
    # "fridy" read as Friday, "schdule" as schedule: which the user sees before anything is written
    guessed = [(word, day.capitalize()) for word, day in misspelt_weekdays(text)]
    verb = misspelt_verb(text)
    guessed += [verb] if verb is not None else []
    guessed += _zone_read(text) if created is not None else []
    guessed += _verb_or_name(text, created) if created is not None else []
    guessed += _calendar_as_place(facts.places, World.of_turn(user, now)) if facts.places else []
    made = created if created is not None else _copy_at(definition)
    past = _in_the_past(made, now, tz) if made is not None else None
    if decision.confidence >= ACT and account.complete and not guessed and past is None:
        return decision
    return decision.model_copy(update={"workflow": _previewed(definition, account, guessed, past)})


def _calendar_as_place(places: Sequence[str], world: World) -> list[tuple[str, str]]:
    """A place the plan writes that is the name of one of the user's calendars ("put the dentist in
    School" set the place to 'School'): shown before it is written, as the place it was read as."""
    names = {c.name.casefold(): c.name for c in world.calendars}
    return [
        (place, f"the place, not your {names[place.casefold()]} calendar")
        for place in places
        if place.casefold() in names
    ]


def _taken_back(text: str) -> bool:
    """Whether the turn ends by taking its request back: "move the standup to Friday? actually no",
    "add lunch at 1, never mind" (words of waiting or refusing after a clause; thanks alone are not)."""
    for i, c in enumerate(text):
        if c not in ",.!?;":
            continue
        rest = text[i + 1 :]
        if rest.strip() and HOLDING.match(rest):
            words = set(rest.casefold().replace(",", " ").replace(".", " ").replace("!", " ").split())
            if not words <= {"thanks", "thank", "you", "please"}:
                return True
    return False


# A new event said as a change of one that exists: "make my dentist on Thursday be at 5pm", "have the
# review on Friday instead": a verb that changes (not one that adds), or "instead". A turn with no verb
# of making at all ("the design review needs to be on Monday now", "my dentist is at 2 now") says a
# change of the event it names just as well.
_CHANGES = re.compile(r"^(?:(?:please|can you|could you|would you)\s+)*(?:make|have|get|let)\b|\binstead\b")
_DEFINITE = r"\b(?:my|the|our|this|that)\s+(?:[\w'-]+\s+)?"


# Words after an event's name that say what it should do or is ("the review should start at 3").
_SAYS_OF_IT = frozenset(stem(w) for w in ("should", "must", "needs", "need", "has", "is", "will", "starts"))
# "design review -> 4pm": an arrow from an event to a time is a change of it.
_ARROW = re.compile(r"->|=>|→")


def _changes_existing(params: dict[str, Any], text: str, world: World) -> str | None:
    """The title of an event the user has, when a create of it reads as a change of that event: the
    new title is the event's, or begins with it ("the hike should start at 11" titled 'Hike should'),
    said after "the" or "my", or before an arrow."""
    norm = normalise(text)
    arrow = _ARROW.search(text) is not None
    if not arrow and not _CHANGES.search(norm) and CREATE_VERBS.search(norm):
        return None
    if not arrow and "again" in tokens(norm):
        return None  # "I'm seeing the dentist again on the 20th": another one, as "another" says
    lead = _CHANGES.match(norm)
    summary = str(params.get("summary") or "")
    titles = [tuple(stem(w) for w in tokens(t)) for t in (summary, summary.rpartition(" with ")[0]) if t]
    # a title ending in a word that says what the event should do ('Review should') is words about an
    # event: any event whose title holds them ("the review" is the design review)
    typed = tokens(summary)
    about = typed[:-1] if len(typed) > 1 and stem(typed[-1]) in _SAYS_OF_IT else []
    for existing in world.titles:
        words = tuple(stem(w) for w in tokens(existing))
        if not words:
            continue
        # the event's own title, or it with words that say what it should do ("the hike should ...")
        if any(title[: len(words)] == words and set(title[len(words) :]) <= _SAYS_OF_IT for title in titles):
            said = tokens(existing)
        elif _holds(words, tuple(stem(w) for w in about)):
            said = about
        else:
            continue
        if arrow or re.search(_DEFINITE + r"\s+".join(re.escape(w) for w in said) + r"\b", norm):
            return existing
        if lead is not None and tokens(norm[lead.end() :])[: len(said)] == list(said):
            return existing  # "make standup start at 9:05 every day": the event named right after "make"
    return None


def _holds(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    """Whether ``part`` stands in ``words`` as consecutive words."""
    return bool(part) and any(words[i : i + len(part)] == part for i in range(len(words) - len(part) + 1))


def _existing(decision: Decision, title: str) -> Decision:
    return _refused(
        decision,
        f"You already have {title!r} on your calendar, and that reads as a change to it, not a new "
        f"event, so I haven't changed anything. To change it, say e.g. \"move the {title.casefold()} "
        f'to 5pm"; for another one, "add another {title.casefold()}".',
    )


def _refused(decision: Decision, text: str, context_update: dict[str, Any] | None = None) -> Decision:
    """A question instead of the decision's plan, keeping what else it carries (its notes: why the
    turn was read as it was)."""
    return Decision(
        kind="clarify",
        reply_kind="clarify",
        text=text,
        confidence=decision.confidence,
        trace_id=decision.trace_id,
        notes=decision.notes,
        frame=decision.frame,
        context_update=context_update or {},
    )


_READS = frozenset({*READS, "preference_get"})
_ACTIONS: dict[str, list[Action]] = {"create": ["create"], "move": ["update"], "delete": ["delete"]}
# What a named day holds a change to: what a delete takes away, what a create makes (a move's days
# are its destination's too, so its targets are the plan's to find).
_ON_DAYS = frozenset({"create", "delete"})
# One event meant: "an event", "the meeting", "my appointment", "it" (not "all", "every", "both").
_ONE = re.compile(
    r"\b(?:an?|one|the|that|this|my)\s+(?:[\w'-]+\s+){0,2}?(?:event|meeting|appointment|class|lecture|call)\b(?!s)"
    r"|\b(?:it|that one|this one)\b"
)
_MANY = re.compile(r"\b(?:all|every|each|both|everything|events|meetings|appointments|classes|them|those)\b")


def _days_said(norm: str, now: datetime) -> list[date]:
    """The days the words name ("tomorrow", "Friday (the 13th)", "from Sunday", "this week"): each
    expression with a date, from its first day to its last (an open one, its first), two months at
    most."""
    days: set[date] = set()
    # a date in brackets is no second one; a street address's number is no date ("at 1722 First
    # Street"), nor is "the first one", a pick from a list: their expressions are passed over (the turn
    # parsed as the reader parsed it, not parsed again with them blanked)
    said = norm.replace("(", " ").replace(")", " ")
    unsaid = [m.span() for pattern in (STREET_ADDRESS, PICK) for m in pattern.finditer(said)]
    for match in find_times(said, now=now, daytime=True):
        if match.error or not match.has_date or match.start is None:
            continue
        if any(start < match.span[1] and match.span[0] < end for start, end in unsaid):
            continue
        first = match.start.date()
        last = (match.end - timedelta(microseconds=1)).date() if match.end is not None else first
        days.update(first + timedelta(days=n) for n in range(min((last - first).days, 62) + 1))
    return sorted(days)


def _expectation(
    frame: dict[str, Any], definition: WorkflowDefinition, text: str, now: datetime
) -> Expectation:
    """What the reading says the planned changes must keep to (see :mod:`skills.critic`).

    A turn of several requests (``parts``: the operation of each) holds its changes to what any part
    asked for: the actions of all parts, the days named anywhere in it (none when a part names none:
    ``undated``), never "one event".
    """
    operation = frame.get("operation", "")
    parts: list[str] = list(frame.get("parts") or [operation])
    norm = normalise(text)
    actions: list[Action] | None = []
    for op in parts:
        said = _ACTIONS.get(op)
        if said is None or actions is None:
            actions = None  # a part that names no kind of change: any kind may be planned
        else:
            actions += [a for a in said if a not in actions]
    if actions is not None and any(t.skill == "plan_create" for t in definition.tasks):
        actions = [*actions, "create"] if "create" not in actions else actions  # "clear Friday for travel"
    if actions is not None and any(t.skill == "plan_edit" for t in definition.tasks):
        actions = [*actions, "update"] if "update" not in actions else actions  # "rename", "invite"
    # no day held to where the change runs on from one ("cancel yoga on thursdays from now on")
    on_days = any(op in _ON_DAYS for op in parts) and not frame.get("undated") and not frame.get("open_ended")
    single = len(parts) == 1
    left_out = list(frame.get("exclude_weekdays") or [])
    left_out_dates = [date.fromisoformat(day) for day in frame.get("exclude_dates") or []]
    named = _days_said(norm.replace(frame.get("clock_pick") or "\0", " "), now)
    # a day said only to leave it out ("cancel all but Friday") is no day the changes are held to
    named = [day for day in named if day.weekday() not in left_out and day not in left_out_dates]
    return Expectation(
        actions=actions,
        days=named if on_days and not _elsewhere(definition, norm) else [],
        exclude_weekdays=left_out,
        exclude_dates=left_out_dates,
        one=single and operation in ("move", "delete") and bool(_ONE.search(norm)) and not _MANY.search(norm),
        everyone_free=any(op in ("move", "create") for op in parts) and bool(EVERYONE_CUE.search(norm)),
        new_day_part=frame.get("change_day_part") if single else None,
    )


def _elsewhere(definition: WorkflowDefinition, norm: str) -> bool:
    """Whether the days said count from somewhere else than the user's today: from another event
    ("same time in two weeks for the vet", a create copying it) or in another zone ("1pm Tokyo time
    tomorrow" is today here)."""
    copies = any(
        t.skill == "plan_create" and (t.params.get("like") or t.params.get("weeks_after"))
        for t in definition.tasks
    )
    return copies or said_zone(norm, list) is not None


def _expecting(definition: WorkflowDefinition, expect: Expectation) -> WorkflowDefinition:
    """The workflow with its writes held to ``expect`` by the critic."""
    value = expect.model_dump(mode="json")
    tasks = tuple(
        task.model_copy(update={"params": {**task.params, "expect": value}})
        if task.skill == "apply_changes"
        else task
        for task in definition.tasks
    )
    return definition.model_copy(update={"tasks": tasks})


def _in_the_past(params: dict[str, Any], now: datetime, tz: ZoneInfo) -> str | None:
    """When a new event said would start, if that is already past ("this Monday at 9am" on a Wednesday,
    "Wednesday at 5 am" at 9): said so, or None. A day said without a time is past once it is over."""
    draft = _draft(params, tz)
    if draft.day is None:
        return None  # none, or the time a step before it finds ("another time that day")
    if draft.at is None or params.get("day_part"):
        return format_day(draft.day) if (draft.last_day or draft.day) < now.date() else None
    start = datetime.combine(draft.day, time.fromisoformat(draft.at), tz)
    return f"{format_day(draft.day)} at {format_time(start, tz)}" if start < now else None


_THEIRS = re.compile(r"\b(?:his|her|their|its)\b")


def _verb_or_name(text: str, created: dict[str, Any]) -> list[tuple[str, str]]:
    """The verb read as the request where it may be the first word of the name ("book club tuesday
    7pm" made 'Club'; "Book club" is as likely): a verb that is also a noun right before the title's
    first word, with no article between, is shown before it is written, unless that word names an
    event on its own ("book dinner")."""
    first = next(iter(tokens(str(created.get("summary", "")))), None)
    if first is None or EVENT_NOUNS.fullmatch(first):
        return []  # "book dinner", "book a dentist": a thing booked, never half of a name
    said = tokens(text)
    verb = next((a for a, b in pairwise(said) if a in NAMING_VERBS and b == first), None)
    return [] if verb is None else [(verb, "what you asked me to do, not part of the name")]


def _zone_read(text: str) -> list[tuple[str, str]]:
    """The zone a new event's time was read in when the turn said it as someone's ("10am his time, he's
    in London"), to show before it is written: the hour here is not the one said."""
    norm = normalise(text)
    said = said_zone(norm, list)
    if said is None or said.zone is None or not _THEIRS.search(norm[slice(*said.spans[0])]):
        return []  # "10am London time" names its zone: nothing was guessed
    return [(norm[slice(*said.spans[0])], f"{said.zone.key.split('/')[-1].replace('_', ' ')} time")]


def _previewed(
    definition: WorkflowDefinition,
    account: Account,
    guessed: Sequence[tuple[str, str]] = (),
    past: str | None = None,
) -> WorkflowDefinition:
    """The workflow with its writes asking first, saying why: a time already past, the words left
    over (or read as a misspelt weekday or verb), a doubtful title, a hedge."""
    reasons = [f"{past} is already past"] if past is not None else []
    if account.leftover:
        reasons.append(f"I did not use {_quoted(account.leftover)}")
    elif account.doubts:
        reasons.append("I'm not sure I read all of that right")
    elif guessed:
        reasons.append("I read " + ", ".join(f'"{word}" as {meant}' for word, meant in guessed))
    elif account.hedges:
        reasons.append(f"You said {_quoted(account.hedges)}")
    unsure = f"{', and '.join(reasons)}: check this before I go ahead." if reasons else ""
    tasks = tuple(
        task.model_copy(update={"params": {**task.params, "always_ask": True, "unsure": unsure}})
        if task.skill == "apply_changes"
        else task
        for task in definition.tasks
    )
    return definition.model_copy(update={"tasks": tasks})


def _plain_create(definition: WorkflowDefinition) -> dict[str, Any] | None:
    """The parameters of a workflow that makes one new event from what was said (not a copy of another
    event, not a sync), or None."""
    plans = [t for t in definition.tasks if t.skill.startswith("plan_")]
    if len(plans) != 1 or plans[0].skill != "plan_create" or plans[0].params.get("like"):
        return None
    return dict(plans[0].params)


def _copy_at(definition: WorkflowDefinition) -> dict[str, Any] | None:
    """The parameters of a workflow that makes one copy of an event at a start said ("do the same for
    Wednesday"), or None: its start may be past as well as a new event's."""
    plans = [t for t in definition.tasks if t.skill.startswith("plan_")]
    if len(plans) != 1 or plans[0].skill != "plan_create" or not plans[0].params.get("like"):
        return None
    return dict(plans[0].params) if isinstance(plans[0].params.get("start"), str) else None


def _ask_title(decision: Decision, params: dict[str, Any], account: Account, tz: ZoneInfo) -> Decision:
    """Ask what to call a new event whose title is doubtful, keeping what else was said of it."""
    draft = _draft(params, tz)
    when = ""
    if draft.day is not None:
        when = f" on {format_day(draft.day)}"
        if draft.at is not None:
            moment = datetime.combine(draft.day, time.fromisoformat(draft.at), tz)
            when += f" at {format_time(moment, tz)}"
    unused = f" (I could not place {_quoted(account.leftover)})" if account.leftover else ""
    return _refused(
        decision,
        f"I'm not sure what to call the event{when}{unused}. What should I call it?",
        {**decision.context_update, "draft": draft.model_dump(mode="json"), "asked": "title"},
    )


def _literal(value: Any) -> str:
    """A parameter's text when it is given as it is, not taken from an earlier step's output."""
    return value if isinstance(value, str) and not value.startswith("{{") else ""


def _draft(params: dict[str, Any], tz: ZoneInfo) -> Draft:
    """The event a create plan would make, as a draft without its title."""
    start, last_day = _literal(params.get("start")), _literal(params.get("last_day"))
    moment = datetime.fromisoformat(start).astimezone(tz) if start else None
    all_day = bool(params.get("all_day"))
    return Draft(
        day=moment.date() if moment is not None else None,
        at=None if moment is None or all_day or params.get("search_end") else f"{moment:%H:%M}",
        duration_minutes=params.get("duration_minutes"),
        location=params.get("location") or "",
        attendees=list(params.get("attendees") or []),
        calendar=params.get("calendar") or None,
        repeat=params.get("rrule") or "",
        all_day=all_day,
        last_day=date.fromisoformat(last_day) if last_day else None,
    )
