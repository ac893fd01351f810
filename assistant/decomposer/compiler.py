"""Turns a :class:`RequestFrame` into a :class:`Decision`, using only skill names from the catalog."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.frame import RequestFrame
from skills.formatting import format_day
from workflows.definition import Decision, TaskSpec, WorkflowDefinition

__all__ = ["compile_frame", "find_params"]

HELP = (
    "I can tell you what's on your calendar, count events and find free time. Try: "
    '"What\'s my week look like?", "How many meetings do I have on Friday?" or '
    '"When am I free for an hour tomorrow afternoon?"'
)
DEFAULT_QUERY_DAYS = 7
NEXT_HORIZON_DAYS = 365


def _ref(task: str, path: str) -> str:
    return "{{" + f"{task}.output.{path}" + "}}"


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
    if op == "query":
        return _workflow(frame, _query_tasks(frame, now, tz), name="answer-query", summary="Look up events")
    if op == "count":
        return _workflow(frame, _count_tasks(frame, now, tz), name="count-events", summary="Count events")
    if op == "free":
        return _workflow(frame, _free_tasks(frame, now, tz), name="find-free-time", summary="Find free time")
    if op == "preference_get" and frame.preference_key:
        tasks = [
            TaskSpec(id="pref", skill="get_preference", params={"key": frame.preference_key}),
            TaskSpec(
                id="reply",
                skill="compose_reply",
                depends_on=("pref",),
                params={"style": "preference", "key": frame.preference_key, "value": _ref("pref", "value")},
            ),
        ]
        return _workflow(frame, tasks, name="read-preference", summary="Read a preference")
    if op in ("create", "move", "delete", "preference_set"):
        return _answer(
            "I can read your calendar, but making changes to it is not available yet. " + HELP,
            frame,
            kind="error",
        )
    if op in ("yes", "no"):
        return _answer("There is nothing waiting for your answer right now.", frame)
    if op == "undo":
        return _answer("There is nothing to undo yet.", frame)
    if op == "greet":
        return _answer("Hello! " + HELP, frame)
    if op == "out_of_scope":
        return _answer(
            "That's outside what I can see: I only know your calendar. " + HELP, frame, kind="error"
        )
    return _answer("I didn't understand that. " + HELP, frame, kind="clarify")


def _range(frame: RequestFrame, now: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    if frame.start is not None and frame.end is not None:
        return frame.start, frame.end
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
    if frame.people:
        params["attendee"] = frame.people[0]
    if frame.day_part:
        params["day_part"] = frame.day_part
    if frame.weekdays:
        params["weekdays"] = sorted(set(frame.weekdays))
    if frame.exclude_weekdays:
        params["exclude_weekdays"] = sorted(set(frame.exclude_weekdays))
    return params


def _subject(frame: RequestFrame) -> str:
    if frame.title_words and frame.titles:
        return f"{frame.titles[0]} events" if len(frame.titles) == 1 else "matching events"
    noun = {"class": "classes", "meeting": "meetings"}.get(frame.category or "", "events")
    if frame.people:
        noun += " with " + ", ".join(frame.person_names or frame.people)
    return noun


def _query_tasks(frame: RequestFrame, now: datetime, tz: ZoneInfo) -> list[TaskSpec]:
    start, end = _range(frame, now, tz)
    tasks = [
        TaskSpec(id="find", skill="find_events", params=find_params(frame, start, end), summary="Find events")
    ]
    events = _ref("find", "events")
    reply: dict[str, Any] = {"style": "agenda", "events": events, "subject": _subject(frame)}
    if frame.wants_next or (frame.title_words and not frame.range_explicit):
        tasks.append(
            TaskSpec(
                id="next",
                skill="sort_events",
                depends_on=("find",),
                params={"events": events, "limit": 3},
                summary="Pick the next ones",
            )
        )
        reply.update(events=_ref("next", "events"), text="Coming up:")
        deps: tuple[str, ...] = ("next",)
    else:
        reply.update(start=start.isoformat(), end=end.isoformat())
        deps = ("find",)
    tasks.append(
        TaskSpec(id="reply", skill="compose_reply", depends_on=deps, params=reply, summary="Write the answer")
    )
    return tasks


def _count_tasks(frame: RequestFrame, now: datetime, tz: ZoneInfo) -> list[TaskSpec]:
    start, end = _range(frame, now, tz)
    events = _ref("find", "events")
    return [
        TaskSpec(
            id="find", skill="find_events", params=find_params(frame, start, end), summary="Find events"
        ),
        TaskSpec(
            id="count",
            skill="count_events",
            depends_on=("find",),
            params={"events": events},
            summary="Count them",
        ),
        TaskSpec(
            id="reply",
            skill="compose_reply",
            depends_on=("find", "count"),
            params={
                "style": "count",
                "events": events,
                "count": _ref("count", "count"),
                "start": start.isoformat(),
                "end": end.isoformat(),
                "subject": _subject(frame),
            },
            summary="Write the answer",
        ),
    ]


def _free_tasks(frame: RequestFrame, now: datetime, tz: ZoneInfo) -> list[TaskSpec]:
    if frame.start is not None and frame.end is not None:
        start, end = max(frame.start, now), frame.end
    else:
        start, end = now, now + timedelta(days=DEFAULT_QUERY_DAYS)
    params: dict[str, Any] = {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "duration_minutes": frame.duration_minutes or 30,
    }
    if frame.day_part:
        params["day_part"] = frame.day_part
    if frame.people:
        params["people"] = frame.people
    if frame.weekdays:
        params["weekdays"] = sorted(set(frame.weekdays))
    return [
        TaskSpec(id="slots", skill="free_slots", params=params, summary="Search free time"),
        TaskSpec(
            id="reply",
            skill="compose_reply",
            depends_on=("slots",),
            params={
                "style": "slots",
                "slots": _ref("slots", "slots"),
                "start": start.isoformat(),
                "end": end.isoformat(),
            },
            summary="Write the answer",
        ),
    ]


def _workflow(frame: RequestFrame, tasks: list[TaskSpec], *, name: str, summary: str) -> Decision:
    said = ""
    if frame.start is not None and frame.range_explicit:
        said = format_day(frame.start.date())
    return Decision(
        kind="workflow",
        workflow=WorkflowDefinition(
            name=name, summary=summary + (f" ({said})" if said else ""), tasks=tuple(tasks), output="reply"
        ),
        confidence=frame.confidence,
        frame=frame.as_json(),
    )
