"""Turns a :class:`RequestFrame` into a :class:`Decision`, using only skill names from the catalog."""

from __future__ import annotations

from calendar import day_name
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.dialogue import NOTHING_WAITING, follow_up, last_question
from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.guards import bounded
from assistant.decomposer.reading import Reading
from assistant.lexicon import ABOUT_OTHERS, CATEGORY_WORDS, tokens
from skills.formatting import format_day, format_person, join_and
from workflows.builder import Handle, Plan
from workflows.definition import Decision

__all__ = ["compile_frame", "find_params", "look_up"]

HELP = (
    "I can tell you what's on your calendar, find free time, and add, move or cancel events. Try: "
    '"What\'s on Friday?", "When am I free tomorrow afternoon?" or '
    '"Schedule lunch with Sam on Tuesday at 1pm".'
)
DEFAULT_QUERY_DAYS = 7
# "Am I free at 3?" asks about a moment; a range longer than this asks about the time in it.
_AN_HOUR_OR_SO = timedelta(hours=4)
NEXT_HORIZON_DAYS = 365


def look_up(r: Reading) -> Decision:
    """What no other handler took: a question about the calendar, with what the conversation supplies
    (the operation of a day-only turn, the day of a time-only one), or the help text; a question the
    user may go on about is remembered."""
    frame = bounded(follow_up(r.frame, r.text, r.state, r.learned, r.now), r.now)
    if frame.operation == "no" and r.context.get("last_applied_run"):
        # "no, leave it" right after a change was made: it is made, and can be taken back
        return _answer(f'{NOTHING_WAITING} To take back what I last changed, say "undo".', frame)
    decision = compile_frame(frame, now=r.now, tz=r.tz)
    asked = last_question(frame, r.now, r.tz)
    if asked is not None and decision.kind == "workflow":
        update = {**decision.context_update, "last_question": asked.model_dump(mode="json")}
        decision = decision.model_copy(update={"context_update": update})
    return decision


def _answer(text: str, frame: RequestFrame, kind: str = "answer") -> Decision:
    reply_kind: Any = kind
    decision_kind: Any = "clarify" if kind == "clarify" else "answer"
    return Decision(
        kind=decision_kind,
        reply_kind=reply_kind,
        text=text,
        confidence=frame.confidence,
        frame=frame.as_json(),
    )


def compile_frame(frame: RequestFrame, *, now: datetime, tz: ZoneInfo) -> Decision:
    if frame.error:
        return _answer(f"{frame.error} Which date did you mean?", frame, kind="clarify")
    op = frame.operation
    if op in ("query", "count", "free", "preference_get") and frame.confidence < 0.5:
        return _answer("I'm not sure what you're asking. " + HELP, frame, kind="clarify")
    plan = Plan()
    if op in ("query", "count", "unknown") and frame.conflicts:
        reply = _conflict_tasks(plan, frame, now, tz)
        return _workflow(frame, plan, reply, name="find-conflicts", summary="Find overlaps")
    at = _point_asked(frame)
    if op in ("query", "unknown") and frame.asked_busy and at is not None:
        # "do I have anything at 10 tomorrow?": yes or no for that time, and what is on
        reply = _free_at_tasks(plan, frame, at)
        return _workflow(frame, plan, reply, name="find-free-time", summary="Is anything on")
    if op == "query":
        reply = _query_tasks(plan, frame, now, tz)
        return _workflow(frame, plan, reply, name="answer-query", summary="Look up events")
    if op == "count":
        reply = _count_tasks(plan, frame, now, tz)
        return _workflow(frame, plan, reply, name="count-events", summary="Count events")
    if op == "free" and frame.duration_minutes is not None and not 5 <= frame.duration_minutes <= 24 * 60:
        return _answer("I look for free time of 5 minutes to a day. How long should it be?", frame, "clarify")
    if op == "free":
        reply = _free_tasks(plan, frame, now, tz)
        return _workflow(frame, plan, reply, name="find-free-time", summary="Find free time")
    if op == "preference_get" and frame.preference_key:
        pref = plan.add("get_preference", {"key": frame.preference_key}, id="pref")
        reply = plan.add(
            "compose_reply",
            {"style": "preference", "key": frame.preference_key, "value": pref["value"]},
            id="reply",
        )
        return _workflow(frame, plan, reply, name="read-preference", summary="Read a preference")
    if op == "preference_set":
        return _answer(
            'Tell me the new value, e.g. "my lunch is 12:30 to 1:30", "my gym is Mondays and Thursdays 6 to '
            '7pm", "no meetings before 10am", or change it on your settings page (/settings/).',
            frame,
            kind="clarify",
        )
    if op in ("yes", "no"):
        return _answer(NOTHING_WAITING, frame)
    if op == "undo":
        return _answer("There is nothing to undo yet.", frame)
    if op == "greet":
        return _answer("Hello! " + HELP, frame)
    if op == "out_of_scope":
        return _answer(
            "That's outside what I can do: I only know your calendar (I can't look things up elsewhere, "
            "or book, buy or order anything). " + HELP,
            frame,
            kind="error",
        )
    return _answer(_not_understood(frame, tz), frame, kind="clarify")


def _not_understood(frame: RequestFrame, tz: ZoneInfo) -> str:
    """What the assistant can do, with examples built from what was understood of the turn."""
    if frame.start is not None and frame.range_explicit:
        day = format_day(frame.start.astimezone(tz).date())
        return (
            f"I'm not sure what you'd like for {day}. "
            f'I can show what\'s on it ("What do I have on {day}?"), '
            f'find free time ("When am I free on {day}?") or add an event ("Add lunch on {day} at 1pm").'
        )
    if frame.titles and frame.title_words:  # an event of the calendar, named and nothing more
        name = frame.titles[0]
        return (
            f"I'm not sure what you'd like to do with {name!r}. I can find it (\"When is {name}?\"), "
            f'move it ("Move {name} to Friday at 3pm") or cancel it ("Cancel {name}").'
        )
    return "I didn't understand that. " + HELP


def _range(frame: RequestFrame, now: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    if frame.start is not None and frame.end is not None:
        return frame.start, frame.end
    if frame.past and not frame.range_explicit:
        return now - timedelta(days=NEXT_HORIZON_DAYS), now
    if frame.wants_next or (frame.title_words and not frame.range_explicit):
        return now, now + timedelta(days=NEXT_HORIZON_DAYS)
    today = now.astimezone(tz).replace(hour=0, minute=0, second=0, microsecond=0)
    return today, today + timedelta(days=DEFAULT_QUERY_DAYS)


def find_params(frame: RequestFrame, start: datetime, end: datetime) -> dict[str, Any]:
    params: dict[str, Any] = {"start": start.isoformat(), "end": end.isoformat()}
    if frame.title_words:
        params["text"] = " ".join(frame.title_words)
    if frame.category:
        params["category"] = frame.category
    if frame.calendars:
        params["calendars"] = frame.calendars
    attendee, *also_with = _attendees(frame) or [""]
    if attendee:
        params["attendee"] = attendee
    if also_with:
        params["also_with"] = also_with
    if frame.day_part:
        params["day_part"] = frame.day_part
    if frame.weekdays:
        params["weekdays"] = sorted(set(frame.weekdays))
    if frame.exclude_weekdays:
        params["exclude_weekdays"] = sorted(set(frame.exclude_weekdays))
    if frame.exclude_dates:
        params["exclude_dates"] = sorted(set(frame.exclude_dates))
    if frame.exclude_titles:
        params["exclude_text"] = list(frame.exclude_titles)
    if frame.exclude_people:
        params["exclude_attendees"] = list(frame.exclude_people)
    if frame.places:
        params["places"] = list(frame.places)
    if frame.exclude_places:
        params["exclude_places"] = list(frame.exclude_places)
    if frame.exclude_category:
        params["exclude_category"] = frame.exclude_category
    return params


def _attendees(frame: RequestFrame) -> list[str]:
    """Who the events looked for are with: a person of the directory, or one it does not know ("my
    meeting with Bob": a Bob attends; a name found nowhere is no licence to take another event), and
    those listed with them, who all attend ("my meetings with Ann and Bo"; not "with Ann or Bo", nor
    the Bo of "cancel lunch with Ann and have yoga with Bo"). Not someone whose name is part of the
    title ("dinner with Ann")."""
    if frame.named_in_title:
        return []
    titled = {w.removesuffix("'s") for title in frame.titles for w in tokens(title)}
    unknown = [n for n in frame.strangers if not set(tokens(n)) & titled]
    first = frame.people[:1] or unknown[:1]
    if not first:
        return []
    return [*first, *(p for p in frame.together[1:] if p in frame.people or p in unknown)]


def _subject(frame: RequestFrame) -> str:
    if frame.title_words and frame.titles:
        return f"{frame.titles[0]} events" if len(frame.titles) == 1 else "matching events"
    noun = {"class": "classes", "meeting": "meetings"}.get(frame.category or "", "events")
    if attendees := _attendees(frame):
        # as a name is written ("with Ann", not as typed, "with ann"), or the directory's name; those
        # the events are looked for with, who were said first ("with Ann or Bo" looks for Ann's)
        names = [n.title() if n.islower() else n for n in frame.person_names[: len(attendees)]]
        noun += " with " + join_and(names or [format_person(p) for p in frame.people])
    if frame.places_said:
        noun += " " + " or ".join(frame.places_said)
    return noun


def _left_out(frame: RequestFrame) -> dict[str, list[str]]:
    """What a question's exceptions leave out, for its answer to name: titles and places as said, the
    events with someone ("events with Ann"), weekdays in the plural ("Saturdays")."""
    names = [
        *frame.exclude_titles,
        *frame.exclude_places,
        *frame.exclude_calendars,
        *({"class": ["classes"], "meeting": ["meetings"]}.get(frame.exclude_category or "", [])),
        *(f"events with {format_person(p) if '@' in p else p.title()}" for p in frame.exclude_people),
        *(f"{day_name[d]}s" for d in sorted(set(frame.exclude_weekdays))),
        *(format_day(date.fromisoformat(day)) for day in sorted(set(frame.exclude_dates))),
    ]
    return {"left_out": names} if names else {}


def _guests_asked(frame: RequestFrame) -> list[str]:
    """The people a question about a named event's guests asks about, as said ("is Bill invited to
    the design review?": Bill), whom the answer says are invited or not; none for "who is coming"."""
    if frame.detail != "attendees" or not frame.title_words or not frame.titles or frame.named_in_title:
        return []
    return [*frame.people, *frame.strangers]  # the directory's by address, others by name


def _beside_tasks(plan: Plan, frame: RequestFrame, now: datetime) -> Handle:
    """ "What's after the design review (tomorrow)?": the events of the review's own day after it (the
    next review from now, or the one on the day said)."""
    assert frame.beside is not None
    side, name = frame.beside
    explicit = frame.range_explicit and frame.start is not None and frame.end is not None
    # no day said: the next one, or the last one when none is coming ("after the dentist" last Monday)
    horizon = timedelta(days=NEXT_HORIZON_DAYS)
    start, end = (frame.start, frame.end) if explicit else (now - horizon, now + horizon)
    assert start is not None
    assert end is not None
    # "before my work meeting": the meeting is the mark, not the kind of event looked for
    kind = (
        frame.category
        if frame.category and not CATEGORY_WORDS[frame.category].search(name.casefold())
        else None
    )
    others = find_params(replace(frame, title_words=[], titles=[], category=kind), start, end)
    find = plan.add("find_events", others, id="find", summary="Find events")
    mark = plan.add(
        "find_events", {"start": start.isoformat(), "end": end.isoformat(), "text": name}, id="mark"
    )
    beside = plan.add(
        "events_beside",
        {
            "events": find["events"],
            "anchors": mark["events"],
            "name": name,
            "side": side,
            "around": now.isoformat(),
        },
        id="beside",
        summary=f"Keep the events {side} it",
    )
    reply = {"events": beside["events"], "text": beside["heading"], "none_text": beside["none_text"]}
    return plan.add("compose_reply", {"style": "agenda", **reply}, id="reply", summary="Write the answer")


def _query_tasks(plan: Plan, frame: RequestFrame, now: datetime, tz: ZoneInfo) -> Handle:
    if frame.beside is not None:
        return _beside_tasks(plan, frame, now)
    start, end = _range(frame, now, tz)
    # "When is the dentist?", "where is calc?": the next ones, or the last one when none is coming,
    # so the search reaches as far back as ahead
    # "is the dentist at 11?": a clock time with no day is no day to look in; the dentist's are shown
    anyday = frame.time_only and frame.operation == "query"
    nearest = (
        frame.title_words and (not frame.range_explicit or anyday) and not frame.wants_next and not frame.past
    )
    if nearest:
        start, end = now - timedelta(days=NEXT_HORIZON_DAYS), now + timedelta(days=NEXT_HORIZON_DAYS)
    asked = _guests_asked(frame)
    params = find_params(frame, start, end)
    if asked:
        params.pop("attendee", None)  # "is Bill invited to the review?": the review, whoever comes
    find = plan.add("find_events", params, id="find", summary="Find events")
    reply: dict[str, Any] = {
        "style": "agenda",
        "events": find["events"],
        "subject": _subject(frame) if not asked else f"{frame.titles[0]} events",
        **_left_out(frame),
        **({"guests_asked": asked} if asked else {}),
    }
    if frame.detail:
        reply["detail"] = frame.detail  # "where is it?": each event's place on its line
    if frame.pick is not None and frame.range_explicit:
        order = ("longest", "shortest") if frame.by_length else (_NTH_WORDS[frame.pick], "last")
        picked = _nth(plan, frame.pick, find["events"], by="duration" if frame.by_length else "start")
        reply.update(events=picked, text=f"The {order[0] if frame.pick >= 0 else order[1]}:")
        # the period asked about, for an answer that finds none: "You have no meetings on Tuesday, March 3."
        reply.update(start=start.isoformat(), end=end.isoformat())
    elif frame.past and not frame.range_explicit:
        picked = plan.add(
            "sort_events",
            {"events": find["events"], "descending": True, "limit": 1},
            id="next",
            summary="Pick the most recent",
        )
        reply.update(events=picked["events"], text="The most recent:")
    elif nearest:
        picked = plan.add(
            "nearest_events",
            {"events": find["events"], "around": now.isoformat(), "limit": 3},
            id="next",
            summary="Pick the next ones, or the last",
        )
        reply.update(events=picked["events"], text=picked["heading"])
    elif frame.wants_next:
        one = frame.next_one  # "my next yoga": that one
        picked = plan.add(
            "sort_events",
            {"events": find["events"], "limit": 1 if one else 3},
            id="next",
            summary="Pick the next one" if one else "Pick the next ones",
        )
        reply.update(events=picked["events"], text="Next:" if one else "Coming up:")
    else:
        reply.update(start=start.isoformat(), end=end.isoformat())
    return plan.add("compose_reply", reply, id="reply", summary="Write the answer")


_NTH_WORDS = {0: "first", 1: "second", 2: "third", 3: "fourth", 4: "fifth", -1: "last"}


def _nth(plan: Plan, place: int, events: Any, by: str = "start") -> Any:
    """The events' one at ``place`` in time order (-1: the last), as a list of it, or of none when
    there are fewer ("my second meeting" on a day of one is none); ``by="duration"``: in the order of
    their lengths, the longest first ("my longest meeting this week")."""
    last = place < 0
    return plan.add(
        "sort_events",
        {
            "events": events,
            **({"by": by} if by != "start" else {}),
            "descending": last if by == "start" else not last,
            "limit": 1,
            **({} if last or not place else {"offset": place}),
        },
        id="nth",
        summary="Pick the one asked for",
    )["events"]


def _count_tasks(plan: Plan, frame: RequestFrame, now: datetime, tz: ZoneInfo) -> Handle:
    start, end = _range(frame, now, tz)
    find = plan.add("find_events", find_params(frame, start, end), id="find", summary="Find events")
    count = plan.add("count_events", {"events": find["events"]}, id="count", summary="Count them")
    return plan.add(
        "compose_reply",
        {
            "style": "count",
            "events": find["events"],
            "count": count["count"],
            "start": start.isoformat(),
            "end": end.isoformat(),
            "subject": _subject(frame),
            **({"detail": "duration"} if frame.detail == "duration" else {}),  # how long, in all
            **_left_out(frame),
        },
        id="reply",
        summary="Write the answer",
    )


def _conflict_tasks(plan: Plan, frame: RequestFrame, now: datetime, tz: ZoneInfo) -> Handle:
    start, end = _range(frame, now, tz)
    params = find_params(replace(frame, title_words=[], category=None), start, end)
    params["once_with_copies"] = True  # an event and its copy in another calendar are no overlap
    find = plan.add("find_events", params, id="find", summary="Find events")
    return plan.add(
        "compose_reply",
        {
            "style": "conflicts",
            "events": find["events"],
            "start": start.isoformat(),
            "end": end.isoformat(),
            **({"involving": list(frame.involving)} if frame.involving else {}),
        },
        id="reply",
        summary="Name the overlaps",
    )


def _free_at_tasks(plan: Plan, frame: RequestFrame, at: datetime) -> Handle:
    """ "Am I free tomorrow at 3?": yes or no for that hour (or the length asked), and what is there.

    With people named ("are Ann and Raj free on Thursday at 10?") their free/busy is read too: yes only
    if all of them are free, and the user as well unless the question is about them alone
    (:data:`ABOUT_OTHERS`); the answer names who is busy and when, never what their events are.
    """
    end = at + timedelta(minutes=frame.duration_minutes or 60)
    window = {"start": at.isoformat(), "end": end.isoformat()}
    find = plan.add(
        "find_events",
        {**window, "once_with_copies": True},  # an event and its copy: named once
        id="find",
        summary="Find what is then",
    )
    reply: dict[str, Any] = {"style": "free_at", "events": find["events"], **window}
    if frame.asked_busy:
        reply["asked_busy"] = True
    about_others = ABOUT_OTHERS in frame.notes
    if frame.people or (about_others and frame.person_names):
        busy: dict[str, Any] = {**window, "people": frame.people}
        if frame.person_names:
            busy["names"] = frame.person_names  # a name of nobody here: a calendar that cannot be seen
        read = plan.add("people_busy", busy, id="busy", summary="Read their free/busy")
        reply.update(people=read["free"], busy=read["busy"], unseen=read["unseen"], with_you=not about_others)
    return plan.add("compose_reply", reply, id="reply", summary="Answer yes or no")


def _point_asked(frame: RequestFrame) -> datetime | None:
    """The time a question is about when it names one clock time ("at 3 tomorrow"), not a day or a
    part of one ("the 13th", "Thursday afternoon")."""
    point = frame.start is not None and frame.end is not None and frame.end - frame.start <= _AN_HOUR_OR_SO
    if frame.at_time is not None and frame.start == frame.at_time and point:
        return frame.at_time
    return None


def _free_tasks(plan: Plan, frame: RequestFrame, now: datetime, tz: ZoneInfo) -> Handle:
    at = _point_asked(frame)
    if at is not None:
        return _free_at_tasks(plan, frame, at)  # "am I free at 3?", not "the 13th ... right now"
    if frame.start is not None and frame.end is not None:
        start, end = max(frame.start, now), frame.end
    else:
        start, end = now, now + timedelta(days=DEFAULT_QUERY_DAYS)
    params: dict[str, Any] = {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "duration_minutes": frame.duration_minutes or 30,
        "waking_hours": True,
        "limit": 60,
    }
    if frame.day_part:
        params["day_part"] = frame.day_part
    if frame.people:
        params["people"] = frame.people
    if frame.weekdays:
        params["weekdays"] = sorted(set(frame.weekdays))
    slots = plan.add("free_slots", params, id="slots", summary="Search free time")
    reply: dict[str, Any] = {
        "style": "slots",
        "slots": slots["slots"],
        "window_start": slots["window_start"],
        "window_end": slots["window_end"],
        "start": start.isoformat(),
        "end": end.isoformat(),
    }
    if frame.day_part:
        reply["day_part"] = frame.day_part  # a whole evening free is "free all evening"
    if frame.detail in ("duration", "first"):
        # "how many free hours ...?": how long they are in all, too; "the earliest ...": that one alone
        reply["detail"] = frame.detail
    if frame.people:  # "when are Ann and Raj both free?": the answer names who was considered
        for key in ("people", "unseen", "nearest", "nearest_days"):
            reply[key] = slots[key]
    if end > start and start.astimezone(tz).date() == (end - timedelta(microseconds=1)).astimezone(tz).date():
        # One day: what fills it is part of the answer ("you have the dentist at 4; free until then").
        day_start = start.astimezone(tz).replace(hour=0, minute=0, second=0, microsecond=0)
        find = {"start": day_start.isoformat(), "end": (day_start + timedelta(days=1)).isoformat()}
        reply["events"] = plan.add("find_events", find, id="find", summary="Find the day's events")["events"]
    return plan.add("compose_reply", reply, id="reply", summary="Write the answer")


def _workflow(frame: RequestFrame, plan: Plan, reply: Handle, *, name: str, summary: str) -> Decision:
    said = ""
    if frame.start is not None and frame.range_explicit:
        said = format_day(frame.start.date())
    return Decision(
        kind="workflow",
        workflow=plan.build(name, summary=summary + (f" ({said})" if said else ""), output=reply),
        confidence=frame.confidence,
        frame=frame.as_json(),
    )
