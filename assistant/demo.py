"""Demo data: a student-and-part-time-worker's realistic calendar, anchored to the current week.

Loading is idempotent (it replaces the demo users' calendars), so running the start command twice
leaves one copy of everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from preferences.services import preference_set
from skills.models import Calendar
from skills.services import calendar_create, event_create

__all__ = ["DEMO_PASSWORD", "DEMO_USERNAME", "DemoLogin", "demo_load"]

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-calendar-2026"
DEMO_TZ = "America/New_York"
COLLEAGUES = [
    ("ana", "ana@demo.example", "Ana", "Silva"),
    ("bo", "bo@demo.example", "Bo", "Kim"),
    ("maya", "maya@demo.example", "Maya", "Patel"),
]


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    events: int


def _user(username: str, email: str, first: str, last: str, password: str | None) -> object:
    User = get_user_model()  # noqa: N806 - the model class
    user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    user.email, user.first_name, user.last_name = email, first, last
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    return user


@transaction.atomic
def demo_load(*, today: date | None = None) -> DemoLogin:
    tz = ZoneInfo(DEMO_TZ)
    today = today or timezone.now().astimezone(tz).date()
    monday = today - timedelta(days=today.weekday())
    term_end = (monday + timedelta(weeks=15)).strftime("%Y%m%dT235959Z")

    def at(day_offset: int, hh: int, mm: int = 0) -> datetime:
        return datetime.combine(monday + timedelta(days=day_offset), time(hh, mm), tzinfo=tz)

    me = _user(DEMO_USERNAME, "demo@demo.example", "Dana", "Demo", DEMO_PASSWORD)
    others = {key: _user(f"demo-{key}", email, first, last, None) for key, email, first, last in COLLEAGUES}
    Calendar.objects.filter(owner__in=[me, *others.values()]).delete()
    for user in [me, *others.values()]:
        preference_set(user=user, key="timezone", value=DEMO_TZ)
    preference_set(user=me, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    preference_set(
        user=me,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "08:00", "end": "18:00"},
    )
    preference_set(
        user=me,
        key="gym_schedule",
        value=[{"day": d, "start": "07:00", "end": "08:00"} for d in ("MO", "WE", "FR")],
    )
    preference_set(user=me, key="work_calendar", value="work")
    preference_set(user=me, key="personal_calendar", value="personal")

    personal = calendar_create(owner=me, key="personal", name="Personal", timezone=DEMO_TZ, is_default=True)
    work = calendar_create(owner=me, key="work", name="Work", timezone=DEMO_TZ)
    school = calendar_create(owner=me, key="school", name="School", timezone=DEMO_TZ)
    weekly = f"FREQ=WEEKLY;UNTIL={term_end}"
    events = [
        event_create(
            calendar=school,
            summary="Calculus II Lecture",
            start=at(0, 14),
            end=at(0, 15, 15),
            rrule=weekly.replace("WEEKLY", "WEEKLY;BYDAY=MO,WE"),
            location="Hall B 201",
        ),
        event_create(
            calendar=school,
            summary="Biology Lab",
            start=at(3, 13),
            end=at(3, 15),
            rrule=weekly,
            location="Science Center 3",
        ),
        event_create(
            calendar=school, summary="Spanish Class", start=at(4, 15, 30), end=at(4, 16, 30), rrule=weekly
        ),
        event_create(
            calendar=school, summary="History Seminar", start=at(1, 10), end=at(1, 11, 30), rrule=weekly
        ),
        event_create(
            calendar=personal,
            summary="Gym",
            start=at(0, 7),
            end=at(0, 8),
            rrule="FREQ=WEEKLY;BYDAY=MO,WE,FR",
            transparency="opaque",
        ),
        event_create(
            calendar=work,
            summary="Team sync",
            start=at(0, 10),
            end=at(0, 10, 30),
            rrule="FREQ=WEEKLY;BYDAY=MO",
            attendees=["ana@demo.example", "bo@demo.example"],
        ),
        event_create(
            calendar=work,
            summary="1:1 with Ana",
            start=at(2, 9),
            end=at(2, 9, 30),
            rrule="FREQ=WEEKLY",
            attendees=["ana@demo.example"],
        ),
        event_create(
            calendar=work,
            summary="Design review",
            start=at(3, 16),
            end=at(3, 17),
            attendees=["bo@demo.example", "maya@demo.example"],
            location="Room 4",
        ),
        event_create(calendar=personal, summary="Dentist", start=at(3, 8), end=at(3, 9), location="Dr. Lee"),
        event_create(
            calendar=personal,
            summary="Dinner with Maya",
            start=at(5, 19),
            end=at(5, 21),
            attendees=["maya@demo.example"],
        ),
        event_create(
            calendar=personal,
            summary="Mom's birthday",
            start=monday + timedelta(days=9),
            end=monday + timedelta(days=10),
            all_day=True,
        ),
    ]
    for key, user in others.items():
        cal = calendar_create(owner=user, key="work", name="Work", timezone=DEMO_TZ, is_default=True)
        event_create(calendar=cal, summary="Focus time", start=at(1, 13), end=at(1, 16), rrule="FREQ=WEEKLY")
        if key == "ana":
            event_create(calendar=cal, summary="Client visit", start=at(3, 9), end=at(3, 12))
    return DemoLogin(username=DEMO_USERNAME, password=DEMO_PASSWORD, events=len(events))
