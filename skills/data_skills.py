"""Data-processing skills: pure transformations of events, and the free-slot search."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field

from preferences.schema import day_part_bounds
from skills.context import SkillContext
from skills.filtering import filter_items
from skills.formatting import format_day, format_time
from skills.freetime import (
    WAKING_HOURS,
    Span,
    day_part_window,
    parse_hhmm,
    protected_spans,
    search,
    within_meeting_hours,
    within_working_hours,
)
from skills.people import Availability, availability, people_matching
from skills.providers.base import TransientProviderError
from skills.registry import REGISTRY, RetryPolicy, skill
from skills.schemas import DayPart, EventCriteria, EventItem, SkillInput, Slot

__all__ = ["PersonBusy", "count_events", "filter_events", "free_slots", "people_busy", "sort_events"]

REGISTRY.service("data", "Filter, sort and count events; search free time.")


class EventsInput(SkillInput):
    events: list[EventItem] = Field(description="Events from an earlier task's output.")


class FilterInput(EventCriteria):
    events: list[EventItem] = Field(description="Events from an earlier task's output.")


class EventsOutput(BaseModel):
    events: list[EventItem]
    count: int


@skill(service="data", kind="read")
def filter_events(ctx: SkillContext, params: FilterInput) -> EventsOutput:
    """Keep the events matching every criterion given: title words, calendar, category, day part, weekdays."""
    criteria = EventCriteria.model_validate(params.model_dump(exclude={"events"}))
    parts = day_part_bounds(ctx.preferences) if criteria.day_part else None
    kept = filter_items(params.events, criteria, ctx.tz, parts=parts)
    return EventsOutput(events=kept, count=len(kept))


class SortInput(EventsInput):
    by: Literal["start", "end", "summary", "duration"] = "start"
    descending: bool = False
    limit: int | None = Field(default=None, ge=1, description="Keep only the first N after sorting.")
    offset: int = Field(
        default=0, ge=0, description="Leave out the first N after sorting ('the second event': 1)."
    )


@skill(service="data", kind="read")
def sort_events(ctx: SkillContext, params: SortInput) -> EventsOutput:
    """Sort events by start, end, title or duration, optionally leaving out the first N and keeping
    only the next N."""
    keys = {
        "start": lambda e: (e.start, e.summary),
        "end": lambda e: (e.end, e.summary),
        "summary": lambda e: (e.summary.casefold(), e.start),
        "duration": lambda e: (e.end - e.start, e.start),
    }
    ordered = sorted(params.events, key=keys[params.by], reverse=params.descending)[params.offset :]
    if params.limit:
        ordered = ordered[: params.limit]
    return EventsOutput(events=ordered, count=len(ordered))


class NearestInput(EventsInput):
    around: datetime = Field(description="The moment to look from (now), ISO 8601 with offset.")
    limit: int = Field(default=3, ge=1, description="How many of the coming ones to keep.")


class NearestOutput(EventsOutput):
    past: bool = Field(description="Nothing is coming up: the events are the most recent one before.")
    heading: str = Field(description="What the list is, for the reply ('Coming up:').")


@skill(service="data", kind="read")
def nearest_events(ctx: SkillContext, params: NearestInput) -> NearestOutput:
    """The next events from a moment on; when none is coming up, the most recent one before it.

    "When is the dentist?" asked two days after it was: the answer is that one, saying it was the last,
    not "You have no Dentist events".
    """
    coming = sorted((e for e in params.events if e.end > params.around), key=lambda e: (e.start, e.summary))
    if coming:
        kept = coming[: params.limit]
        return NearestOutput(events=kept, count=len(kept), past=False, heading="Coming up:")
    before = sorted(params.events, key=lambda e: (e.start, e.summary))[-1:]
    heading = "Nothing is coming up; the most recent:" if before else "Coming up:"
    return NearestOutput(events=before, count=len(before), past=bool(before), heading=heading)


class BesideInput(EventsInput):
    anchors: list[EventItem] = Field(description="The events named as the mark ('the design review'), found.")
    name: str = Field(description="The mark as said, for the reply when none is found.")
    side: Literal["after", "before"] = Field(description="The events after the mark, or before it.")
    around: datetime = Field(description="Marks from this moment on are taken first (now).")


class BesideOutput(EventsOutput):
    heading: str = Field(description="What the list is, for the reply ('After Design review, ...:').")
    none_text: str = Field(description="What to say when nothing is there.")


@skill(service="data", kind="read")
def events_beside(ctx: SkillContext, params: BesideInput) -> BesideOutput:
    """The events of the mark's own day after it ends, or before it starts: "what's after the design
    review?" is the rest of that day, not the review (the next mark from ``around``, else the last)."""
    marks = sorted(params.anchors, key=lambda e: (e.start, e.summary))
    mark = next((e for e in marks if e.end > params.around), marks[-1] if marks else None)
    if mark is None:
        missing = f"I found no event called {params.name!r}, so I can't tell what is {params.side} it."
        return BesideOutput(events=[], count=0, heading="", none_text=missing)
    tz = ctx.tz
    day = mark.start.astimezone(tz).date()
    midnight = datetime.combine(day, datetime.min.time(), tz)
    if params.side == "after":
        start, end = mark.end, midnight + timedelta(days=1)
        kept = [e for e in params.events if e.key != mark.key and start <= e.start < end]
    else:
        start, end = midnight, mark.start
        kept = [e for e in params.events if e.key != mark.key and start <= e.start and e.end <= end]
    when = f"{format_day(day)}, {format_time(mark.start, tz)} – {format_time(mark.end, tz)}"
    heading = f"{params.side.capitalize()} {mark.summary} ({when}):"
    none_text = f"Nothing else is on {params.side} {mark.summary} ({when})."
    return BesideOutput(events=kept, count=len(kept), heading=heading, none_text=none_text)


class CountOutput(BaseModel):
    count: int


@skill(service="data", kind="read")
def count_events(ctx: SkillContext, params: EventsInput) -> CountOutput:
    """Count events (each occurrence of a recurring event counts once)."""
    return CountOutput(count=len(params.events))


class FreeSlotsInput(SkillInput):
    start: datetime = Field(description="Start of the search range, ISO 8601 with offset.")
    end: datetime = Field(description="End of the search range (exclusive).")
    duration_minutes: int = Field(default=60, ge=5, le=24 * 60, description="Length the slot must have.")
    window_start: str | None = Field(
        default=None, pattern=r"^\d{2}:\d{2}$", description="Daily window start HH:MM."
    )
    window_end: str | None = Field(
        default=None, pattern=r"^\d{2}:\d{2}$", description="Daily window end HH:MM."
    )
    day_part: DayPart | None = Field(default=None, description="Search only in this part of each day.")
    weekdays: list[int] = Field(default_factory=list, description="Only these weekdays (0=Monday).")
    calendars: list[str] = Field(
        default_factory=list, description="Calendars whose events block time (all if empty)."
    )
    people: list[str] = Field(
        default_factory=list,
        description="Emails of people who must be free too (those who are users here: their free/busy); "
        "the search is then for a meeting and keeps to the user's meeting hours.",
    )
    respect_preferences: bool = Field(
        default=True,
        description="Treat lunch, gym and writing blocks as busy, and stay within working hours (and "
        "meeting hours, when people are asked for).",
    )
    ignore_events: list[str] = Field(default_factory=list, description="Event keys not to count as busy.")
    waking_hours: bool = Field(
        default=False,
        description="With no window, day part or working hours, search only 08:00-21:00: free time to show "
        "a person, not the middle of the night.",
    )
    limit: int = Field(default=10, ge=1, le=500)


class FreeSlotsOutput(BaseModel):
    slots: list[Slot]
    count: int
    duration_minutes: int
    window_start: str | None = Field(default=None, description="The daily window searched, HH:MM.")
    window_end: str | None = None
    people: list[str] = Field(
        default_factory=list,
        description="The people asked for whose free/busy was read, by name ('Ann Lee'), in the order asked.",
    )
    unseen: list[str] = Field(
        default_factory=list,
        description="The people asked for whose calendar cannot be seen (not users here).",
    )
    nearest: list[Slot] = Field(
        default_factory=list,
        description="With people and no free time in the range: the first times after it that suit everyone.",
    )
    nearest_days: int = Field(
        default=0, description="How many days past the range the nearest times were looked for (0: not)."
    )


@skill(service="data", kind="read", retry=RetryPolicy(on=(TransientProviderError,)))
def free_slots(ctx: SkillContext, params: FreeSlotsInput) -> FreeSlotsOutput:
    """Find free time of at least a given length in a range: the user's busy events, the listed people's
    busy times and the user's protected preferences (lunch, gym, writing block, working hours; meeting
    hours when people are listed; their own bounds of the day parts) all count. The output names the
    people whose time was read (and those whose calendar cannot be seen); when none of the range suits
    everyone, the nearest times after it.
    """
    provider = ctx.provider
    calendar_ids = [provider.calendar_by_key(k).id for k in params.calendars] if params.calendars else None
    ignored = frozenset(params.ignore_events)
    window = None
    weekdays = frozenset(params.weekdays) if params.weekdays else None
    if params.window_start and params.window_end:
        window = (parse_hhmm(params.window_start), parse_hhmm(params.window_end))
    elif params.day_part:
        window = day_part_window(ctx.preferences, params.day_part)
    preferences = ctx.preferences if params.respect_preferences else {}
    window, weekdays = within_working_hours(preferences, window, weekdays)
    if params.people:
        window, weekdays = within_meeting_hours(preferences, window, weekdays)
    if window is None and params.waking_hours:
        window = WAKING_HOURS

    def free(start: datetime, end: datetime, limit: int) -> tuple[list[Slot], Availability]:
        own_busy = provider.busy_reader(start=start, end=end, calendar_ids=calendar_ids, ignore=ignored)
        # Everyone's busy times are read once for the range; each chunk of the search slices them.
        others = availability(user=ctx.user, emails=params.people, start=start, end=end)

        def busy_between(a: datetime, b: datetime) -> list[Span]:
            busy = own_busy(a, b)
            busy.extend(others.spans(a, b))
            return busy + protected_spans(preferences, a, b, ctx.tz)

        found = search(
            start=start,
            end=end,
            tz=ctx.tz,
            min_minutes=params.duration_minutes,
            busy_between=busy_between,
            daily_window=window,
            weekdays=weekdays,
            limit=limit,
        )
        return [
            Slot(start=datetime.fromtimestamp(s, ctx.tz), end=datetime.fromtimestamp(e, ctx.tz))
            for s, e in found
        ], others

    slots, others = free(params.start, params.end, params.limit)
    nearest: list[Slot] = []
    nearest_days = 0
    if not slots and others.people:
        # Nothing suits everyone: the nearest times after the range, as the planners of a time that
        # suits everyone offer them (``plan_move``/``plan_create`` with ``everyone``).
        from skills.change_skills import NEAREST, NEAREST_DAYS

        nearest_days = NEAREST_DAYS
        nearest, _ = free(params.end, params.end + timedelta(days=NEAREST_DAYS), NEAREST)
    return FreeSlotsOutput(
        slots=slots,
        count=len(slots),
        duration_minutes=params.duration_minutes,
        window_start=f"{window[0]:%H:%M}" if window else None,
        window_end=f"{window[1]:%H:%M}" if window else None,
        people=[p.name for p in others.people],
        unseen=others.unseen,
        nearest=nearest,
        nearest_days=nearest_days,
    )


class PeopleBusyInput(SkillInput):
    start: datetime = Field(description="Start of the time asked about, ISO 8601 with offset.")
    end: datetime = Field(description="End of it (exclusive).")
    people: list[str] = Field(
        default_factory=list,
        description="Emails of the people asked about; those who are users here have their free/busy read.",
    )
    names: list[str] = Field(
        default_factory=list,
        description="Names said for people ('zoe'): one that names nobody here is a person whose calendar "
        "cannot be seen.",
    )


class PersonBusy(BaseModel):
    name: str = Field(description="The person as known here ('Ann Lee').")
    busy: list[Slot] = Field(description="When they are busy around the time asked: busy times only.")


class PeopleBusyOutput(BaseModel):
    free: list[str] = Field(
        default_factory=list, description="The people free throughout the time, by name, in the order asked."
    )
    busy: list[PersonBusy] = Field(
        default_factory=list,
        description="The people busy at some moment of it, with when, in the order asked.",
    )
    unseen: list[str] = Field(
        default_factory=list, description="The people asked about whose calendar cannot be seen."
    )


@skill(service="data", kind="read", retry=RetryPolicy(on=(TransientProviderError,)))
def people_busy(ctx: SkillContext, params: PeopleBusyInput) -> PeopleBusyOutput:
    """Whether each of some people of this instance is free throughout a time ("are Ann and Raj free on
    Thursday at 10?"): who is free, who is busy and when (their busy blocks as free/busy shows them,
    never what the events are), and whose calendar cannot be seen (an address or a name of nobody here).
    """
    others = availability(user=ctx.user, emails=params.people, start=params.start, end=params.end)
    lo, hi = params.start.timestamp(), params.end.timestamp()
    busy_now = {p.user_id for p in others.busy_between(lo, hi)}
    free: list[str] = []
    busy: list[PersonBusy] = []
    for person in others.people:
        if person.user_id not in busy_now:
            free.append(person.name)
            continue
        spans = [(a, b) for a, b in others.busy_of(person) if b > lo and a < hi]
        slots = [
            Slot(start=datetime.fromtimestamp(a, ctx.tz), end=datetime.fromtimestamp(b, ctx.tz))
            for a, b in spans
        ]
        busy.append(PersonBusy(name=person.name, busy=slots))
    unseen = others.unseen
    said = [" ".join(n.split()) for n in params.names if n.split()]
    if said:
        known = people_matching(user=ctx.user, names=said)
        named = {n.casefold() for n in [*free, *(b.name for b in busy), *unseen]}
        named |= {n.split()[0] for n in named}  # "ann" said for Ann Lee, "zoe" for zoe@elsewhere.org
        for name in said:
            if not known.get(name.casefold()) and name.casefold() not in named:
                unseen.append(name.title())
                named.add(name.casefold())
    return PeopleBusyOutput(free=free, busy=busy, unseen=unseen)
