"""The table of handlers: what the rules do with a turn, tried in order like ``urlpatterns``.

A turn is read once (:func:`read`: the :class:`~assistant.decomposer.reading.Reading`), then each
handler in :data:`HANDLERS` is given it and returns a Decision or None; the first Decision is the turn's.
The order is the precedence: requests with words of their own (sync, sharing, a setting) before the
general ones whose cues those words would also match, questions and refusals before writes, and the
look-up last, which answers anything (or says what the assistant can do).

Adding a skill the offline rules can reach is one handler here plus the skill.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.again import same_for_another_day, same_time_later
from assistant.decomposer.changes import PENDING_MOVE, compile_change, series_end, undo_decision
from assistant.decomposer.compiler import look_up
from assistant.decomposer.copies import copy_decision
from assistant.decomposer.dialogue import chat, heed_intent, reader_asked, without_acknowledgements
from assistant.decomposer.edits import edit_decision
from assistant.decomposer.frame import Operation, RequestFrame
from assistant.decomposer.guards import bounded
from assistant.decomposer.intent import normalise
from assistant.decomposer.new_event import (
    amended,
    asked_for,
    described,
    draft_goes_on,
    draft_named_it,
    model_reads_new,
    no_date,
)
from assistant.decomposer.offered import book_offered
from assistant.decomposer.reading import MoveSaid, Reading
from assistant.decomposer.retry import another_time, declined_at
from assistant.decomposer.settings import setting_decision
from assistant.decomposer.several import Part, several_requests
from assistant.decomposer.sharing import sharing_decision
from assistant.decomposer.shown import about_shown
from assistant.decomposer.state import DECLINED, DialogueState
from assistant.decomposer.sync import sync_decision, to_another_calendar
from assistant.decomposer.understand import understand
from assistant.decomposer.unsupported import conditional_or_double, setting_as_event
from assistant.decomposer.world import World
from assistant.decomposer.zones import zone_question
from assistant.lexicon import CREATE_VERBS, NO_LEADS, QUESTION_STARTERS, spelled_out
from assistant.nlu import read_turn
from assistant.timeexpr import find_times
from assistant.turnmemo import turn_now
from workflows.definition import Decision

__all__ = ["HANDLERS", "Handler", "decide", "only_a_new_time", "read"]

# "Cancel it" with nothing waiting for an answer but events just shown: a deletion, not a "no".
_CANCEL_SHOWN = re.compile(
    r"^(?:please\s+)?(?:cancel|scrap|drop)\s+(?=(?:it|that|this|them|those|these|both)\b)"
)
# A move said as a new event: "make my standup on Thursday be at 2", "have the review on Friday
# instead", "my Friday yoga on Saturday instead" (the event's words, then where it goes).
_LEAD = r"^(?:(?:please|can you|could you|would you|actually|oh|ok|okay|wait|no)[,\s]+)*"
# "make the dentist 11:30": "be" left out before a clock time
_MAKE_IT_BE = re.compile(
    _LEAD
    + r"(?:(?:make|have|get|let)|(?:can|could|should|would|will))\s+(?P<target>(?:my|the|our)\s+.+?)\s+"
    + r"(?:be\s+(?:at\s+|on\s+)?|(?=\d))(?P<dest>.+?)[\s.!?]*$"
)
# The same as a wish: "I want the design review to start at 3 rather than 2", "I'd like my 1:1 to be on
# Friday" (what it was, after "rather than" or "instead of", is the event's own time).
_WANT_IT_TO_BE = re.compile(
    r"^(?:i|we)(?:\s+(?:want|need|would like)|'d like)\s+(?P<target>(?:my|the|our)\s+.+?)\s+to\s+"
    r"(?:be|start|begin|happen)\s+(?:at\s+|on\s+)?(?P<dest>.+?)"
    r"(?:\s+(?:rather than|instead of)\s+.+?)?[\s.!?]*$"
)
# "can we do lunch with Omar on Tuesday instead of Monday": what it was, after "instead of", is the event's
# own time, which helps find it.
_INSTEAD = re.compile(
    _LEAD + r"(?:(?:make|have|put|get)\s+|(?:(?:can|could|shall)\s+we|let's)\s+(?:do|have|make|move)\s+)?"
    r"(?P<target>.+?)\s+(?:on|at|to|for)\s+(?P<dest>.+?)"
    r"\s+instead(?:\s+of\s+(?P<was>.+?))?[\s.!?]*$"
)
# The same as a fact: "actually the dentist is at 11:30", "fyi my 1:1 has moved to Friday", "I think the
# dentist is at 3, not 2" (a question never: "is the dentist at 11?" starts otherwise, and a question
# mark is read before).
_IS_NOW = re.compile(
    r"^(?:(?:actually|oh|oops|sorry|wait|fyi|btw|correction|update|heads up|(?:it )?turns out|apparently"
    r"|i (?:think|believe|guess|realised|realized|just realised|just realized|forgot)(?: that)?)[,!:]?\s+)*"
    r"(?P<target>(?:my|the|our)\s+(?!(?:event|time|date|day|location|place|title|name)\b)"
    r"(?:(?!\b(?:is|and|will|should)\b)[^,;])+?"
    # or an event's name alone, a word or three ("yoga is now on wednesdays")
    r"|(?!(?:the|my|our|a|an|it|this|that|there|he|she|they|i|we|you|event|time|date|day)\b)"
    r"[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+"
    r"(?:is|will be|should be|needs to be|has been moved|has moved|got moved|was moved|moved)"
    r"\s+(?:now\s+|actually\s+)?(?:at|on|to)\s+(?P<dest>.+?)(?:\s+(?:now|instead))?"
    # what it was, which helps find it: "... at 3, not 2", "... on Friday rather than Thursday"
    r"(?:,?\s+(?:not|rather than|instead of)\s+(?P<was>.+?))?[\s.!]*$"
)
# "Put the dentist on Monday", "set my lunch with Omar for 2": an event the calendar has, placed at
# another time (the calendar's own title only: "put a dentist visit on Monday" is a new one).
_PUT_ON = re.compile(
    _LEAD + r"(?:put|set|have)\s+(?P<target>(?:my|the|our)\s+(?:(?!\b(?:calendar|schedule|agenda)\b).)+?)"
    r"\s+(?:on|for|to|at)\s+(?!(?:my|the|our)\s+(?:calendar|schedule|agenda)\b)(?P<dest>.+?)[\s.!?]*$"
)
# How sure a move restated from the words of a new event may be: below acting, so it is previewed.
_RESTATED = 0.75
# A new time said without a verb ("how about 3pm instead?", "actually 12:30 works better", "oops, I
# meant Saturday").
_CORRECTION = re.compile(
    r"\b(?:actually|instead|rather|better|can we do|could we do|let's do|let's say|how about|what about"
    r"|i meant|i mean|oops|sorry|wait|hmm+)\b"
)
# Words of making that place the event just made at a time alone: "put it on Friday", "set it for 5".
_PLACING = ("put it ", "set it ", "have it ", "schedule it ", "book it ")
# ... and of placing an event that exists: "make it 5", "move it to Friday", "change it to 4pm"
_PLACING_IT = ("make it ", "make that ", "move it ", "change it to ", "put it ", "set it ", "have it ")


@dataclass(frozen=True, slots=True)
class Handler:
    """One entry of the table: a name for traces and tests, and the function.  ``framed``: the decision
    carries the turn's frame; a handler that reads the turn otherwise (several parts, a follow-up)
    sets its own."""

    name: str
    handle: Callable[[Reading], Decision | None]
    framed: bool = True


def _change_said_as_new(r: Reading) -> Decision | None:
    """ "Make my standup on Thursday be at 2", "my Friday yoga on Saturday instead", "can the standup be
    at 9:30", "I want the review to start at 3 rather than 2", "put the dentist on Monday": a move of an event
    the calendar has, said with the words of a new one; read as the move it says (the event's words, the
    destination's), and previewed (which words are which is the rules' reading of the shape)."""
    if r.frame.operation not in ("create", "unknown", "query", "free") or not r.frame.titles:
        return None
    said = _MAKE_IT_BE.match(r.norm) or _INSTEAD.match(r.norm) or _WANT_IT_TO_BE.match(r.norm)
    if said is not None and said.re is _INSTEAD and CREATE_VERBS.match(said["target"]):
        said = None  # "add yoga at 9 instead": a new event in another's place, not a move of yoga
    if said is None and "?" not in r.text:
        said = _IS_NOW.match(r.norm)
    if said is None and r.frame.title_words:
        said = _PUT_ON.match(r.norm)
    if said is None or not any(find_times(f"at {said['dest']}", now=r.now, daytime=True)):
        return None  # "can the standup be late?" says no time to move it to
    was = _was(said.groupdict().get("was"), r.now)
    if was is None:
        return None  # "... instead of going to the gym": no time of its own
    frame = bounded(understand(r.text, now=r.now, world=r.world, operation="move"), r.now)
    move = replace(
        r, frame=frame, moves=MoveSaid(target=f"{said['target']}{was}", destination=said["dest"]), whole=False
    )
    if not move.frame.titles:
        return None
    decision = compile_change(move)
    if decision is None or decision.kind != "workflow":
        return None
    return move.decided(decision).model_copy(update={"confidence": min(decision.confidence, _RESTATED)})


def _was(said: str | None, now: datetime) -> str | None:
    """The words that say when an event moved "instead of" its time was, as they follow its name ("" when
    none were said; None when they say no time: "instead of going to the gym"): "at 12", "on monday"."""
    if not said:
        return ""
    for lead in ("at", "on"):
        found = find_times(f"{lead} {said}", now=now, daytime=True)
        if found and found[0].span == (0, len(lead) + 1 + len(said)):
            return f" {lead} {said}"
    return None


def _several(r: Reading) -> Decision | None:
    """ "Move the dentist to Friday and the review to Monday": each part read and decided as a turn of
    its own, joined into one plan (see :mod:`assistant.decomposer.several`)."""
    if not r.whole or r.state.draft is not None:
        return None

    def part(said: Part, update: dict[str, Any]) -> Decision:
        context = {**r.context, **update}
        return decide(
            read(
                said.words,
                user=r.user,
                timezone_name=r.timezone_name,
                context=context,
                whole=False,
                operation=said.carried,
            )
        )

    joined = several_requests(r.text, decide=part)
    if joined is None:
        return None
    return joined.model_copy(update={"frame": {**r.frame.as_json(), **joined.frame}})


HANDLERS: tuple[Handler, ...] = (
    Handler("sync calendars", sync_decision),  # "sync my work and personal calendars"
    Handler("to another calendar", to_another_calendar),  # "move the dentist to my work calendar"
    Handler("share busy times", sharing_decision),  # "don't let anyone see when I'm busy"
    Handler("another time", another_time),  # "find another time" after a new event was declined or made
    Handler("the declined new event then", declined_at),  # "no, 7pm" to a new event shown first
    Handler("preference", setting_decision),  # "my working hours are 9 to 5", "what's my lunch?"
    Handler("about the events shown", about_shown),  # "who's going?" after "when's the review?"
    Handler("time elsewhere", zone_question),  # "what's 3pm London time in my time?"
    Handler("setting said as an event", setting_as_event),  # "schedule my notifications for 9am"
    Handler("several requests", _several, framed=False),  # "cancel the gym and add yoga at 9"
    Handler("condition or two moves", conditional_or_double),  # "move it to Friday if Ann is free"
    Handler("same time later", same_time_later),  # "book the same time next week for the dentist"
    Handler("the same another day", same_for_another_day, framed=False),  # "do the same for Monday"
    Handler("copies", copy_decision),  # "copy my standups to next week"
    Handler("edit", edit_decision),  # "rename the standup to Sync", "add a note to the dentist"
    # after the edits: "take Bo off it" is no "Great!" where the reader finds no person in it
    Handler("small talk", chat),  # "thanks!", "hello"
    Handler("move said as a new event", _change_said_as_new, framed=False),  # "make my X be at 2"
    Handler("create with no date", no_date),  # "add lunch on February 30th"
    Handler("'it' is the draft", draft_named_it),  # "make it for 12 pm"
    Handler("details of the event made", amended),  # "put it in room 4"
    Handler("a free time offered", book_offered),  # "book the first one" after free times were shown
    Handler("create", asked_for),  # "add lunch with Sam on Friday at 1"
    Handler("event described", described),  # "The event is located at 801 Welch Road."
    Handler("create by the model", model_reads_new, framed=False),  # "I have a hike with Polly at 3:30"
    Handler("draft goes on", draft_goes_on),  # "at 3", "with Ann"
    Handler("move or delete", compile_change),  # "move the dentist to Friday", "cancel my 3pm"
    Handler("undo", undo_decision, framed=False),  # "undo that"
    Handler("look-up", look_up, framed=False),  # "what's on Friday?", "when am I free tomorrow?"
)


def decide(r: Reading) -> Decision:
    """The first handler's Decision; the look-up at the end of the table always gives one."""
    for handler in HANDLERS:
        decision = handler.handle(r)
        if decision is not None:
            return r.decided(decision) if handler.framed else decision
    raise AssertionError("the look-up handler answers every turn")


def read(
    text: str,
    *,
    user: Any,
    timezone_name: str,
    context: dict[str, Any] | None = None,
    whole: bool = True,
    now: datetime | None = None,
    operation: Operation | None = None,
) -> Reading:
    """The turn read once: its words, the learned reader's reading, the rules' frame, the world.
    ``operation``: what the turn does where the turn around it said so (a part of several requests
    whose verb was said before it: "... and the review to Monday" moves)."""
    tz = ZoneInfo(timezone_name)
    now = (now or turn_now()).astimezone(tz)
    context = context or {}
    state = DialogueState.of(context)
    said = spelled_out(without_acknowledgements(text, now=now))
    learned = read_turn(said, asked=reader_asked(state.asked), now=now)
    world = World.of_turn(user, now)
    if operation is not None:
        frame = understand(said, now=now, world=world, reading=learned, operation=operation)
    else:
        frame = heed_intent(understand(said, now=now, world=world, reading=learned), said, learned, now)
    frame = bounded(frame, now)
    if frame.operation == "no" and context.get("last_events") and _CANCEL_SHOWN.match(normalise(said)):
        # "cancel it" with events just shown and nothing waiting for an answer: they are deleted
        frame = bounded(understand(said, now=now, world=world, operation="delete"), now)
    moves = _restated(text, said, frame, context, now)
    ends = series_end(said, now) if moves is None else None
    if ends is not None:
        frame = bounded(understand(ends.target, now=now, world=world, operation="delete"), now)
    if moves is not None:
        frame = understand(moves.destination, now=now, world=world, operation="move")
        if said.rstrip().endswith("?"):  # "what about Monday?" may ask what is on Monday: previewed
            frame = replace(frame, confidence=min(frame.confidence, _RESTATED))
    return Reading(
        text=said,
        norm=normalise(said),
        frame=frame,
        learned=learned,
        state=state,
        context=context,
        world=world,
        now=now,
        tz=tz,
        user=user,
        timezone_name=timezone_name,
        whole=whole,
        ends=ends,
        moves=moves,
    )


def _restated(
    typed: str, text: str, frame: RequestFrame, context: dict[str, Any], now: datetime
) -> MoveSaid | None:
    """The move a turn says in other words, or None: a new time said without a verb right after the turn
    before made or changed one event is a move of that event ("how about 3pm instead?", "no, 11"), and
    right after "Where should it go?", a move of the event that turn named ("to Friday at 11")."""
    pending = context.get(PENDING_MOVE)
    if isinstance(pending, str) and frame.operation in ("unknown", "query", "move") and not frame.title_words:
        said = normalise(text).rstrip(" .!?")
        rest = said.removeprefix("to ").removeprefix("for ").removeprefix("on ").removeprefix("at ")
        if _only_times(rest, now):
            return MoveSaid(target=pending, destination=rest)
    declined_move = _declined_move(context) and not frame.title_words
    if declined_move and frame.operation in ("unknown", "query", "no", "move", "create"):
        # "no, Wednesday" to a move shown first: the same event moved there instead (the declined
        # preview's event is the one "it" names now; the chat hands over the turn without its "no")
        rest = _time_said(text)
        if _only_times(rest, now):
            if any(m.has_date for m in find_times(rest, now=now, daytime=True)) or _same_day_move(context):
                return MoveSaid(target="", destination=rest)
            # a clock time alone ("no, 5", "make it 5pm") to a move onto another day: on the day shown,
            # whose time is what was corrected
            shown = _declined_to(context)
            if shown is not None:
                clock = rest.removeprefix("at ")
                return MoveSaid(target="", destination=f"{shown:%B} {shown.day} at {clock}")
    if (
        frame.operation in ("unknown", "query", "no", "create")
        and not frame.title_words
        and len(context.get("last_events") or []) == 1
        and context.get("made")  # the turn before changed it: after a look-up, "what about Friday?" asks
    ):
        destination = _corrected(normalise(typed), normalise(text), frame, now)
        return MoveSaid(target="", destination=destination) if destination else None
    return None


def _corrected(typed: str, norm: str, frame: RequestFrame, now: datetime) -> str | None:
    """Where a correction of the event just made or changed moves it, or None.  ``typed`` is the turn as
    typed (normalised): a leading "no" that the acknowledgements took from ``norm`` still counts.  Words
    of correction with a clock time ("how about 3pm instead?") move it there; a "no", those words, or
    words of placing "it" before a time alone ("no, 11", "no, Friday", "actually Friday instead", "put
    it on Friday") too; anything more ("no that's all for now", "what about events on the 10th?",
    "actually what's on Friday at 3?") is read as it stands."""
    placing = next((lead for lead in _PLACING if norm.startswith(lead)), "")
    if frame.operation == "create" and not placing:
        return None  # "add lunch on Friday" is a new event
    first = typed.replace(",", " ").replace(".", " ").split()[:1]
    led_by_no = bool(first) and first[0] in NO_LEADS  # "no, 11", "nope, Friday at 3"
    if first == ["not"] and "," in norm:  # "not at 3, at 4": what follows the comma replaces it
        norm, led_by_no = norm.partition(",")[2].strip(), True
    worded = _CORRECTION.search(norm) is not None or _CORRECTION.search(typed) is not None  # "sorry, 5pm"
    if not worded and not led_by_no and not placing:
        return None
    words = _CORRECTION.sub(" ", norm.removeprefix(placing)).replace(",", " ").split()
    if led_by_no and words[:1] == first:
        words = words[1:]
    rest = " ".join(words).removesuffix(" please")
    rest = rest.removeprefix("for ").removeprefix("to ")  # "set it for 5pm", "no, to 11"
    if not rest or QUESTION_STARTERS.match(rest):
        return None
    if worded and frame.at_time is not None:
        return " ".join(m.text for m in find_times(norm, now=now, daytime=True))
    if _only_times(rest, now) or (len(rest) <= 5 and rest.replace(":", "").isdigit()):
        return rest
    return None


def _declined_move(context: dict[str, Any]) -> bool:
    """Whether the turn follows a declined preview of one event moved (its time changed), which is
    the one event "it" names now."""
    row = _one_declined(context)
    if row is None or row.get("action") != "update" or len(context.get("last_events") or []) != 1:
        return False
    before, after = row.get("before") or {}, row.get("after") or {}
    return bool(before.get("start")) and before.get("start") != after.get("start")


def _one_declined(context: dict[str, Any]) -> dict[str, Any] | None:
    """The one change a declined preview showed, or None where it showed none or several."""
    rows = [row for row in context.get(DECLINED) or [] if isinstance(row, dict)]
    return rows[0] if len(rows) == 1 else None


def _time_said(text: str) -> str:
    """The words of a correction that say where the event goes, without the words of placing "it"
    ("make it 5", "move it to Friday instead"); a bare number is an hour ("no, 5": "at 5")."""
    rest = " ".join(normalise(text).strip(" .!?").replace(",", " ").split())
    rest = next((rest.removeprefix(lead) for lead in _PLACING_IT if rest.startswith(lead)), rest)
    rest = rest.removeprefix("to ").removeprefix("on ").removeprefix("at ").removesuffix(" please")
    rest = rest.removesuffix(" instead")
    return f"at {rest}" if len(rest) <= 5 and rest.replace(":", "").isdigit() else rest


def only_a_new_time(text: str, now: datetime) -> bool:
    """Whether a change asked with a yes says nothing but where the event goes ("but make it 5", "but
    at 5 on Friday"), which corrects a move shown first; "but invite Bo too" asks for more."""
    return _only_times(_time_said(text), now)


def _declined_to(context: dict[str, Any]) -> date | None:
    """The day the one move declined would have moved the event to, in its own zone's wall time."""
    start = ((_one_declined(context) or {}).get("after") or {}).get("start")
    return datetime.fromisoformat(start).date() if isinstance(start, str) else None


def _same_day_move(context: dict[str, Any]) -> bool:
    """Whether the one move declined kept the event on its own day (only its time was to change)."""
    row = _one_declined(context) or {}
    before, after = row.get("before") or {}, row.get("after") or {}
    return bool(before.get("start")) and str(before["start"])[:10] == str(after.get("start"))[:10]


def _only_times(said: str, now: datetime) -> bool:
    """Whether ``said`` is nothing but days and times ("friday at 11", "next monday")."""
    times = [m.text for m in find_times(said, now=now, daytime=True) if not m.error]
    return bool(times) and " ".join(times) == said
