"""A time that suits everyone: five colleagues, four weeks, a thousand busy blocks each.

"Find a time when Ann, Raj, Lee, Bo and Kai are all free in the next four weeks": the ``free_slots``
skill with the five as ``people`` (their free/busy read as the search reads it, once for the range),
called the way the executor calls it (see :mod:`assistant.bench.freeslots`): the registry's
function, a fresh :class:`SkillContext` per call (preferences read, a provider made) and input
validated by the definition's model.  It asks for every slot (the input model's largest limit), so
the whole four weeks are searched, never only their first days.

The searching user has working hours, lunch, a gym evening and meeting hours, and a calendar of
their own (a daily standup, a weekly review); each colleague has 1,000 one-off blocks of 15 to 45
minutes at random quarter hours of the four weeks, day and night, so that the times all six are
free are short and few.  The notes give the same search as the move planner runs it
(``plan_move`` with ``everyone``, a meeting with the five moved to the first time they all can).
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
from preferences.services import preference_set
from skills.context import SkillContext
from skills.models import Event
from skills.providers import provider_for
from skills.registry import REGISTRY
from skills.schemas import EventItem
from skills.services import calendar_create, event_create, event_place, event_ready

__all__ = ["BLOCKS", "DAYS", "PEOPLE", "EveryoneWorld", "everyone_free", "everyone_world"]

TIMEZONE = "America/New_York"
PEOPLE = 5
BLOCKS = 1000  # busy blocks of each colleague
DAYS = 28
SLOT_MINUTES = 30
EVERY_SLOT = 500  # free_slots' largest limit: the whole range is searched


@dataclass(frozen=True, slots=True)
class EveryoneWorld:
    user: Any
    tz: ZoneInfo
    start: datetime
    end: datetime
    emails: list[str]
    meeting: dict[str, Any]  # the meeting with the five, as find_events gives it


def everyone_world() -> EveryoneWorld:
    """The searching user and five colleagues, each with ``BLOCKS`` busy blocks in the next ``DAYS``."""
    tz = ZoneInfo(TIMEZONE)
    tag = uuid.uuid4().hex[:8]
    users = get_user_model().objects
    user = users.create_user(username=f"bench-{tag}-host", email=f"host-{tag}@bench.invalid", password=None)
    preferences_set(user, TIMEZONE)  # working hours 9-17 on weekdays, lunch 12-13
    preference_set(user=user, key="gym_schedule", value=[{"day": "WE", "start": "16:00", "end": "17:00"}])
    preference_set(user=user, key="meeting_hours", value={"earliest": "09:30"})
    first = timezone.now().astimezone(tz).date() + timedelta(days=1)
    start = datetime.combine(first, time(), tz)
    end = start + timedelta(days=DAYS)
    own = calendar_create(owner=user, key="work", name="Work", timezone=TIMEZONE, is_default=True)
    standup = datetime.combine(first, time(9, 30), tz)
    event_create(
        calendar=own,
        summary="Standup",
        start=standup,
        end=standup + timedelta(minutes=15),
        rrule=f"FREQ=WEEKLY;BYDAY={','.join(WEEKDAYS)};UNTIL={until(end)}",
    )
    review = datetime.combine(first, time(14), tz)
    event_create(
        calendar=own,
        summary="Weekly review",
        start=review,
        end=review + timedelta(hours=1),
        rrule=f"FREQ=WEEKLY;UNTIL={until(end)}",
    )
    rng = random.Random(20260309)  # the same calendars every run, so runs compare
    emails = []
    for n in range(PEOPLE):
        email = f"colleague{n}-{tag}@bench.invalid"
        person = users.create_user(
            username=f"bench-{tag}-colleague{n}", email=email, first_name=f"Colleague{n}", password=None
        )
        calendar = calendar_create(owner=person, key="work", name="Work", timezone=TIMEZONE, is_default=True)
        blocks = []
        for i in range(BLOCKS):
            begin = start + timedelta(minutes=15 * rng.randrange(DAYS * 24 * 4))
            event = Event(calendar=calendar, summary=f"Busy {i}", timezone=TIMEZONE, organizer=email)
            event_place(
                event=event,
                start=begin,
                end=begin + timedelta(minutes=rng.choice((15, 30, 45))),
                all_day=False,
            )
            blocks.append(event_ready(event=event, revise=False))
        Event.objects.bulk_create(blocks)
        emails.append(email)
    meeting_start = datetime.combine(first, time(10), tz)
    meeting = event_create(
        calendar=own,
        summary="Planning with everyone",
        start=meeting_start,
        end=meeting_start + timedelta(minutes=SLOT_MINUTES),
        attendees=emails,
    )
    found = provider_for(user).list_occurrences(start=meeting.start, end=meeting.end)
    occurrence = next(o for o in found if o.event_id == str(meeting.pk))
    item = EventItem.from_occurrence(occurrence, owner_email=user.email)
    return EveryoneWorld(
        user=user, tz=tz, start=start, end=end, emails=emails, meeting=item.model_dump(mode="json")
    )


def _call(world: EveryoneWorld, skill: str, raw: dict[str, Any]) -> tuple[Callable[[], Any], list[Any]]:
    definition = REGISTRY.get(skill)
    last: list[Any] = []

    def call() -> None:
        ctx = SkillContext(user=world.user, tz=world.tz)
        params = definition.input_model.model_validate(raw)
        last[:] = [definition.func(ctx, params)]

    return call, last


def everyone_free(world: EveryoneWorld, *, repeat: int) -> tuple[Timing, str]:
    """The timed search (free_slots, the five as people, every 30-minute slot of the four weeks),
    and notes: how many slots it found and the move planner's median for the same five."""
    search, found = _call(
        world,
        "free_slots",
        {
            "start": world.start.isoformat(),
            "end": world.end.isoformat(),
            "duration_minutes": SLOT_MINUTES,
            "people": world.emails,
            "limit": EVERY_SLOT,
        },
    )
    timing = measure(search, repeat=repeat, warmup=2)
    move, planned = _call(
        world,
        "plan_move",
        {
            "events": [world.meeting],
            "search_start": world.start.isoformat(),
            "search_end": world.end.isoformat(),
            "everyone": True,
        },
    )
    moved = measure(move, repeat=repeat, warmup=1)
    slots = found[0].slots
    first = f", first {slots[0].start.astimezone(world.tz):%a %H:%M}" if slots else ""
    changes = planned[0].changes
    to = f" → {changes[0].start.astimezone(world.tz):%a %H:%M}" if changes else " → none fits"
    notes = (
        f"skill func + SkillContext; {PEOPLE}×{BLOCKS:,} blocks, {DAYS} days, {SLOT_MINUTES} min, working +"
        f" meeting hours, lunch, gym; found {len(slots)} slots{first};"
        f" plan_move everyone median {moved.median:.1f} ms{to}"
    )
    return timing, notes
