"""Pydantic models that several skills exchange (events, slots, criteria): the DAG's common currency.

Everything here is JSON-safe, because task outputs are stored with the run and travel to the browser.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from preferences.schema import day_part_bounds
from skills.providers.base import Occurrence

__all__ = [
    "DAY_PARTS",
    "DayPart",
    "EventCriteria",
    "EventItem",
    "SkillInput",
    "Slot",
    "is_class",
]

DayPart = Literal["morning", "afternoon", "evening", "night"]

# The product's day parts (scenarios README), for a user who has not set ``day_parts``; night wraps
# past midnight.  Where a day part is searched or filtered for a user, their own bounds count
# (``preferences.schema.day_part_bounds``); these are what they default to.
DAY_PARTS: dict[str, tuple[time, time]] = day_part_bounds({})

_CLASS_WORDS = re.compile(r"\b(lectures?|class(es)?|seminars?|labs?|tutorials?|courses?)\b", re.IGNORECASE)
_SCHOOL_CALENDARS = re.compile(
    r"\b(school|classes|class|university|uni|college|courses?|campus)\b", re.IGNORECASE
)


def is_class(summary: str, calendar_name: str) -> bool:
    """The product's definition: a class by its title, or by living on a school calendar."""
    return bool(_CLASS_WORDS.search(summary) or _SCHOOL_CALENDARS.search(calendar_name))


class SkillInput(BaseModel):
    """Base of skill inputs: unknown params are an error, so a decomposer's typo cannot pass silently."""

    model_config = ConfigDict(extra="forbid")


class EventItem(BaseModel):
    """One occurrence as skills pass it along; ``key`` addresses it across reads (event@original start)."""

    key: str
    event_id: str
    recurrence_id: datetime | None = None
    calendar: str
    calendar_name: str
    summary: str
    start: datetime
    end: datetime
    all_day: bool = False
    timezone: str
    location: str = ""
    attendees: list[str] = Field(default_factory=list)
    recurring: bool = False
    is_class: bool = False
    is_meeting: bool = False
    etag: str = ""
    rrule: str = Field(default="", description="The series' rule, when known (a plan changing it needs it).")

    @classmethod
    def from_occurrence(cls, occ: Occurrence, *, owner_email: str = "") -> EventItem:
        others = [a for a in occ.attendees if a.casefold() != owner_email.casefold()]
        return cls(
            key=occ.occurrence_key,
            event_id=occ.event_id,
            recurrence_id=occ.recurrence_id,
            calendar=occ.calendar_key,
            calendar_name=occ.calendar_name,
            summary=occ.summary,
            start=occ.start,
            end=occ.end,
            all_day=occ.all_day,
            timezone=occ.timezone,
            location=occ.location,
            attendees=list(occ.attendees),
            recurring=occ.is_recurring,
            is_class=is_class(occ.summary, occ.calendar_name),
            is_meeting=bool(others),
            etag=occ.etag,
            rrule=occ.rrule,
        )

    @property
    def minutes(self) -> int:
        return int((self.end - self.start).total_seconds() // 60)


class Slot(BaseModel):
    start: datetime
    end: datetime

    @property
    def minutes(self) -> int:
        return int((self.end - self.start).total_seconds() // 60)


class EventCriteria(SkillInput):
    """What to keep of a list of events; every given criterion must hold (an empty one always does)."""

    text: str | None = Field(default=None, description="Words the title (or location) contains, any case.")
    calendars: list[str] = Field(default_factory=list, description="Calendar keys or names to keep.")
    category: Literal["class", "meeting", "all_day", "timed"] | None = Field(
        default=None, description="class: lectures, seminars, labs...; meeting: has other attendees."
    )
    attendee: str | None = Field(
        default=None, description="An attendee's email or name (a name in the title counts: 'Lunch with Bo')."
    )
    also_with: list[str] = Field(
        default_factory=list,
        description="More attendees, each as ``attendee``: events with all of them ('with both Ann and Bo').",
    )
    day_part: DayPart | None = Field(
        default=None, description="Keep events starting in this part of the day."
    )
    weekdays: list[int] = Field(default_factory=list, description="Keep only these weekdays (0=Monday).")
    starts_at: str | None = Field(
        default=None,
        pattern=r"^([01]\d|2[0-3]):[0-5]\d$",
        description="Keep events starting at this wall time, HH:MM ('my 9am coffee': 09:00).",
    )
    starts: list[datetime] = Field(
        default_factory=list,
        description="Keep only events starting at one of these moments ('delete them': those a list showed).",
    )
    exclude_weekdays: list[int] = Field(default_factory=list, description="Drop these weekdays (0=Monday).")
    exclude_dates: list[date] = Field(
        default_factory=list, description="Drop the events of these days ('except the 12th')."
    )
    exclude_text: list[str] = Field(
        default_factory=list, description="Drop events whose title has any of these."
    )
    exclude_category: Literal["class", "meeting"] | None = Field(
        default=None, description="Drop the events of this category ('what's on that's not a meeting')."
    )
    places: list[str] = Field(
        default_factory=list, description="Keep events whose place has one of these ('in Bellevue')."
    )
    exclude_places: list[str] = Field(
        default_factory=list, description="Drop events whose place has any of these ('not in Bellevue')."
    )
    exclude_attendees: list[str] = Field(
        default_factory=list, description="Drop events any of these people (emails, or names in them) attend."
    )
