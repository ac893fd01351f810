"""The demo user the chat rows read: a student who also works, with classes, meetings and errands.

Built through the same services the app writes with, relative to the current week (the decomposer
reads the real clock), so "this week", "Friday" and "tomorrow" always land on a populated calendar.
Two colleagues are other users of the instance, so "meetings with Ann" resolves a person.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.utils import timezone

from preferences.services import preference_set
from skills.services import calendar_create, event_create

__all__ = ["DEMO_TIMEZONE", "WEEKDAYS", "demo_user", "preferences_set", "until"]

DEMO_TIMEZONE = "America/New_York"
WEEKDAYS = ["MO", "TU", "WE", "TH", "FR"]
_PREFERENCES: dict[str, Any] = {
    "lunch_hours": {"start": "12:00", "end": "13:00"},
    "working_hours": {"days": WEEKDAYS, "start": "09:00", "end": "17:00"},
}


def until(moment: datetime) -> str:
    """An RRULE UNTIL in the UTC form RFC 5545 wants for zoned series."""
    return moment.astimezone(ZoneInfo("UTC")).strftime("%Y%m%dT%H%M%SZ")


def preferences_set(user: Any, tz_name: str) -> None:
    preference_set(user=user, key="timezone", value=tz_name)
    for key, value in _PREFERENCES.items():
        preference_set(user=user, key=key, value=value)


def _user(tag: str, name: str, email: str) -> Any:
    first, _, last = name.partition(" ")
    return get_user_model().objects.create_user(
        username=f"bench-{tag}-{first.lower()}", email=email, first_name=first, last_name=last, password=None
    )


def demo_user() -> Any:
    """Create the demo user (and two colleagues) with about three calendars' worth of a semester."""
    tz = ZoneInfo(DEMO_TIMEZONE)
    tag = uuid.uuid4().hex[:8]
    user = _user(tag, "Dana Demo", f"dana-{tag}@bench.invalid")
    preferences_set(user, DEMO_TIMEZONE)
    ann = _user(tag, "Ann Lee", f"ann-{tag}@bench.invalid")
    sam = _user(tag, "Sam Park", f"sam-{tag}@bench.invalid")
    for person in (ann, sam):
        preference_set(user=person, key="timezone", value=DEMO_TIMEZONE)
        cal = calendar_create(
            owner=person, key="personal", name="Personal", timezone=DEMO_TIMEZONE, is_default=True
        )
        monday = _monday(tz)
        event_create(
            calendar=cal, summary="Busy", start=_at(monday, 1, "14:00", tz), end=_at(monday, 1, "16:00", tz)
        )

    monday = _monday(tz)
    first = monday - timedelta(weeks=8)
    last = until(_at(monday, 7 * 16, "23:59", tz))

    def series(cal: Any, summary: str, day: int, start: str, minutes: int, byday: str, **extra: Any) -> None:
        begin = _at(first, day, start, tz)
        rule = f"FREQ=WEEKLY;BYDAY={byday};UNTIL={last}"
        event_create(
            calendar=cal,
            summary=summary,
            start=begin,
            end=begin + timedelta(minutes=minutes),
            rrule=rule,
            **extra,
        )

    def once(cal: Any, summary: str, day: int, start: str, minutes: int, **extra: Any) -> None:
        begin = _at(monday, day, start, tz)
        event_create(
            calendar=cal, summary=summary, start=begin, end=begin + timedelta(minutes=minutes), **extra
        )

    school = calendar_create(owner=user, key="school", name="School", timezone=DEMO_TIMEZONE)
    series(school, "Calculus II Lecture", 0, "14:00", 75, "MO,WE", location="Room 101")
    series(school, "History Seminar", 1, "10:00", 90, "TU")
    series(school, "Biology Lab", 3, "13:00", 120, "TH", location="Lab B")
    series(school, "Spanish Class", 4, "15:30", 60, "FR")
    series(school, "Physics Tutorial", 2, "16:00", 60, "WE")

    personal = calendar_create(
        owner=user, key="personal", name="Personal", timezone=DEMO_TIMEZONE, is_default=True
    )
    series(personal, "Gym", 0, "18:00", 90, "MO,WE,FR")
    series(personal, "Piano lesson", 5, "10:00", 60, "SA")
    once(personal, "Dentist", 3, "15:00", 60, location="Smile Dental")
    once(personal, "Dinner with Maya", 5, "19:00", 120)
    once(personal, "Coffee with Lee", 2, "09:00", 60)
    once(personal, "Flight to Denver", 7, "07:00", 180)
    once(personal, "Haircut", 9, "17:30", 45)
    once(personal, "Dentist", 30, "11:00", 60, location="Smile Dental")
    event_create(
        calendar=personal,
        summary="Mom's birthday",
        start=monday + timedelta(days=4),
        end=monday + timedelta(days=5),
        all_day=True,
    )

    work = calendar_create(owner=user, key="work", name="Work", timezone=DEMO_TIMEZONE)
    team = [ann.email, sam.email]
    series(work, "Standup", 0, "09:30", 15, ",".join(WEEKDAYS), attendees=team)
    series(work, "Team sync", 0, "10:00", 30, "MO", attendees=team)
    series(work, "1:1 with Ann", 1, "11:30", 30, "TU", attendees=[ann.email])
    once(work, "Design review", 4, "11:00", 60, attendees=[sam.email])
    once(work, "Quarterly planning", 8, "13:00", 120, attendees=team)
    once(work, "Advisor meeting", 10, "09:30", 60, attendees=[ann.email])
    return user


def _monday(tz: ZoneInfo) -> date:
    today = timezone.now().astimezone(tz).date()
    return today - timedelta(days=today.weekday())


def _at(day: date, offset: int, hhmm: str, tz: ZoneInfo) -> datetime:
    hours, minutes = (int(p) for p in hhmm.split(":"))
    return datetime.combine(day + timedelta(days=offset), time(hours, minutes), tz)
