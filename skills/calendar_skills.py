"""Read skills over the user's calendars, through whichever provider serves them."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from preferences.schema import day_part_bounds
from skills.context import SkillContext
from skills.filtering import filter_items
from skills.models import CopyLink
from skills.providers.base import Occurrence, TransientProviderError
from skills.registry import REGISTRY, RetryPolicy, skill
from skills.schemas import EventCriteria, EventItem

__all__ = ["CalendarList", "FindEventsInput", "FoundEvents", "find_events", "list_calendars"]

REGISTRY.service("calendar", "Read and change the user's calendars (local, Google, CalDAV).")
_RETRY = RetryPolicy(on=(TransientProviderError,))


class FindEventsInput(EventCriteria):
    start: datetime = Field(description="Start of the range, ISO 8601 with offset.")
    end: datetime = Field(description="End of the range (exclusive), ISO 8601 with offset.")
    once_with_copies: bool = Field(
        default=False,
        description="Leave out a copy (made by a copy or sync of calendars) whose original is found too: "
        "an event and its copy are one commitment, never an overlap with each other (for conflicts and "
        "'am I free then?').",
    )


class FoundEvents(BaseModel):
    events: list[EventItem]
    count: int
    start: datetime
    end: datetime


@skill(service="calendar", kind="read", retry=_RETRY)
def find_events(ctx: SkillContext, params: FindEventsInput) -> FoundEvents:
    """Find the user's events overlapping a time range, optionally narrowed by title, calendar, category
    (class or meeting), attendee, part of day (the user's ``day_parts`` bounds) and weekdays.

    Occurrences of recurring events count one by one.
    """
    calendar_ids = None
    if params.calendars:
        calendar_ids = [ctx.provider.calendar_by_key(key).id for key in params.calendars]
    owner_email = getattr(ctx.user, "email", "") or ""
    occurrences = ctx.provider.list_occurrences(start=params.start, end=params.end, calendar_ids=calendar_ids)
    if params.once_with_copies:
        occurrences = _without_copies_of(ctx, occurrences)
    items = [EventItem.from_occurrence(occ, owner_email=owner_email) for occ in occurrences]
    criteria = EventCriteria.model_validate(
        params.model_dump(exclude={"start", "end", "calendars", "once_with_copies"})
    )
    # "my afternoon meetings" by the user's own bounds of the day ("afternoon starts at 1pm")
    parts = day_part_bounds(ctx.preferences) if criteria.day_part else None
    kept = filter_items(items, criteria, ctx.tz, parts=parts)
    return FoundEvents(events=kept, count=len(kept), start=params.start, end=params.end)


def _without_copies_of(ctx: SkillContext, occurrences: list[Occurrence]) -> list[Occurrence]:
    """``occurrences`` without the copies whose originals are among them (the links say which: never
    the titles).  A copy whose original is elsewhere (another range, a calendar not asked for) stays."""
    by_id = {o.event_id: o for o in occurrences if o.recurrence_id is None}  # copies are one-off events
    if not by_id:
        return occurrences
    rows = CopyLink.objects.filter(owner=ctx.user, copy_event_id__in=list(by_id)).values_list(
        "copy_calendar_id", "copy_event_id", "source_calendar_id", "source_uid", "source_recurrence_id"
    )
    found = {
        (o.calendar_id, o.uid, o.recurrence_id.timestamp() if o.recurrence_id else None) for o in occurrences
    }
    dropped = {
        copy_event_id
        for copy_calendar_id, copy_event_id, calendar_id, uid, rid in rows
        if by_id[copy_event_id].calendar_id == copy_calendar_id
        and (calendar_id, uid, rid.timestamp() if rid else None) in found
    }
    return [o for o in occurrences if o.recurrence_id is not None or o.event_id not in dropped]


class NoInput(BaseModel):
    pass


class CalendarSummary(BaseModel):
    key: str
    name: str
    timezone: str
    is_default: bool
    provider: str


class CalendarList(BaseModel):
    calendars: list[CalendarSummary]


@skill(service="calendar", kind="read", retry=_RETRY)
def list_calendars(ctx: SkillContext, params: NoInput) -> CalendarList:
    """List the user's calendars with their keys, zones and which one new events go to."""
    return CalendarList(
        calendars=[
            CalendarSummary(
                key=c.key, name=c.name, timezone=c.timezone, is_default=c.is_default, provider=c.provider
            )
            for c in ctx.provider.list_calendars()
        ]
    )
