"""The free-slot search over a crowded year: 3 calendars, about 10,000 occurrences.

The skill is called the way the executor calls it, minus the workflow around it: the registry
definition's ``func`` with a fresh :class:`SkillContext` (so preferences are read and a provider is
made per call, as per task) and input validated by the definition's model.  The warm rows find every
series already expanded in the recurrence cache, as a running server does; the cold row drops the
caches before each call, as the first request after a restart sees them.

A search asks for the first ``limit`` slots and stops once it has them, so it may look at a few
weeks of the year only; ``EVERY_SLOT`` (the input model's largest limit) is asked for when the
search must run to the year's end.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.utils import timezone

from assistant.bench.demo import WEEKDAYS, preferences_set, until
from assistant.bench.timing import Timing, measure
from assistant.runtime import drop_caches
from skills.context import SkillContext
from skills.providers import provider_for
from skills.registry import REGISTRY
from skills.services import calendar_create, event_create

__all__ = [
    "EVERY_SLOT",
    "FIRST_SLOTS",
    "BusyYear",
    "busy_year",
    "free_slots_call",
    "free_slots_cold",
    "free_slots_warm",
]

TIMEZONE = "America/New_York"
ONE_OFFS = 1000
FIRST_SLOTS = 10  # the skill's default limit: what the chat asks for
EVERY_SLOT = 500  # the skill's largest limit: far more than this year has

# (summary, start, minutes): every weekday at work, leaving 14:00-15:30 open for the weekly ones to
# nibble at, so that a free hour exists in working hours on some days but not most.
_WORKDAY = [
    ("Early check-in", "08:30", 15),
    ("Standup", "09:00", 15),
    ("Inbox triage", "09:15", 30),
    ("Focus block", "09:45", 75),
    ("Team sync", "11:00", 30),
    ("Code review", "11:30", 30),
    ("Support rotation", "13:00", 30),
    ("Planning", "13:30", 30),
    ("Pairing", "15:30", 30),
    ("Afternoon standup", "16:00", 15),
    ("Wrap-up", "16:45", 15),
    ("Ops review", "17:00", 30),
    ("Late sync", "17:30", 30),
    ("On-call handover", "18:00", 15),
]
_WEEKLY_WORK = [
    ("1:1 with Ann", "MO", "14:00", 45),
    ("Architecture forum", "WE", "14:30", 60),
    ("Hiring panel", "TH", "14:00", 60),
    ("Sprint review", "FR", "14:00", 60),
    ("Skip-level", "TU", "08:00", 30),
    ("Brown bag", "TH", "12:15", 30),
    ("Vendor call", "MO", "17:45", 30),
    ("Retro", "FR", "16:15", 30),
]
_CLASSES = [
    ("Calculus II Lecture", "MO,WE", "18:30", 75),
    ("Biology Lab", "TU,TH", "18:30", 120),
    ("Spanish Class", "MO,WE", "20:00", 60),
    ("History Seminar", "TU,TH", "20:45", 45),
    ("Physics Tutorial", "MO,TH", "19:00", 60),
    ("Statistics Lecture", "TU,FR", "19:30", 60),
    ("Weekend Workshop", "SA,SU", "10:00", 120),
    ("Study Group", "SA,SU", "14:00", 90),
    ("Art Class", "SA,SU", "16:00", 60),
    ("Language Lab", "SA,SU", "09:00", 45),
    ("Reading Seminar", "SA,SU", "12:30", 60),
    ("Coding Club", "SA,SU", "17:30", 90),
]
_DAILY = [
    ("Gym", "06:00", 60),
    ("Meditation", "06:45", 15),
    ("Breakfast", "07:00", 30),
    ("Commute", "07:45", 30),
    ("Walk the dog", "18:00", 30),
    ("Dinner", "19:00", 60),
    ("Reading", "21:00", 30),
    ("Journal", "22:00", 15),
    ("Plan tomorrow", "22:15", 15),
    ("Night routine", "22:30", 30),
]


@dataclass(frozen=True, slots=True)
class BusyYear:
    user: Any
    tz: ZoneInfo
    start: datetime
    end: datetime
    occurrences: int


def busy_year() -> BusyYear:
    """Create a user whose three calendars hold about 10,000 occurrences in the next 365 days."""
    tz = ZoneInfo(TIMEZONE)
    tag = uuid.uuid4().hex[:8]
    user = get_user_model().objects.create_user(
        username=f"bench-{tag}-busy", email=f"busy-{tag}@bench.invalid", password=None
    )
    preferences_set(user, TIMEZONE)
    first = timezone.now().astimezone(tz).date()
    start = datetime.combine(first, time(), tz)
    end = start + timedelta(days=365)
    last = until(end - timedelta(seconds=1))

    def at(offset: int, hhmm: str) -> datetime:
        hours, minutes = (int(p) for p in hhmm.split(":"))
        return datetime.combine(first + timedelta(days=offset), time(hours, minutes), tz)

    def series(cal: Any, summary: str, byday: str, hhmm: str, minutes: int) -> None:
        begin = at(0, hhmm)
        event_create(
            calendar=cal,
            summary=summary,
            start=begin,
            end=begin + timedelta(minutes=minutes),
            rrule=f"FREQ=WEEKLY;BYDAY={byday};UNTIL={last}",
        )

    work = calendar_create(owner=user, key="work", name="Work", timezone=TIMEZONE, is_default=True)
    school = calendar_create(owner=user, key="school", name="School", timezone=TIMEZONE)
    personal = calendar_create(owner=user, key="personal", name="Personal", timezone=TIMEZONE)
    for summary, hhmm, minutes in _WORKDAY:
        series(work, summary, ",".join(WEEKDAYS), hhmm, minutes)
    for summary, byday, hhmm, minutes in _WEEKLY_WORK:
        series(work, summary, byday, hhmm, minutes)
    for summary, byday, hhmm, minutes in _CLASSES:
        series(school, summary, byday, hhmm, minutes)
    for summary, hhmm, minutes in _DAILY:
        series(personal, summary, "MO,TU,WE,TH,FR,SA,SU", hhmm, minutes)
    rng = random.Random(20260302)  # the same calendar every run, so runs compare
    for i in range(ONE_OFFS):
        begin = at(rng.randrange(365), f"{rng.randrange(8, 20):02d}:{rng.choice((0, 15, 30, 45)):02d}")
        event_create(
            calendar=rng.choice((work, personal)),
            summary=f"Appointment {i}",
            start=begin,
            end=begin + timedelta(minutes=rng.choice((30, 45, 60, 90))),
        )
    count = len(provider_for(user).list_occurrences(start=start, end=end))
    return BusyYear(user=user, tz=tz, start=start, end=end, occurrences=count)


def free_slots_call(world: BusyYear, *, limit: int) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The timed call (a year's search for 60 free minutes, up to ``limit`` slots) and a function
    returning its last output."""
    definition = REGISTRY.get("free_slots")
    raw = {
        "start": world.start.isoformat(),
        "end": world.end.isoformat(),
        "duration_minutes": 60,
        "limit": limit,
    }
    last: list[Any] = []

    def call() -> None:
        ctx = SkillContext(user=world.user, tz=world.tz)
        params = definition.input_model.model_validate(raw)
        last[:] = [definition.func(ctx, params)]

    return call, lambda: last[0]


def free_slots_warm(world: BusyYear, *, repeat: int, limit: int) -> tuple[Timing, Any]:
    call, output = free_slots_call(world, limit=limit)
    return measure(call, repeat=repeat, warmup=2), output()


def free_slots_cold(world: BusyYear, *, repeat: int) -> Timing:
    call, _ = free_slots_call(world, limit=FIRST_SLOTS)
    return measure(call, repeat=repeat, warmup=0, setup=drop_caches)
