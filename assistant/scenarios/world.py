"""Building a scenario's world in the database, and reading it back as occurrence snapshots."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model

from assistant.scenarios.judge import Occ, store_snapshot, stored_preferences
from assistant.scenarios.spec import CalendarSpec, EventSpec, Scenario
from preferences.services import preference_set
from skills.services import calendar_create, event_create

if TYPE_CHECKING:
    from assistant.scenarios.remote import RemoteCalendars

__all__ = [
    "ScenarioWorld",
    "build_world",
    "local_dt",
    "person_snapshot",
    "snapshot",
]

SNAPSHOT_BEFORE = timedelta(days=62)
SNAPSHOT_AFTER = timedelta(days=400)


def local_dt(text: str, tz: ZoneInfo) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=tz)


@dataclass
class ScenarioWorld:
    scenario: Scenario
    user: Any
    tz: ZoneInfo
    now: datetime
    handles: dict[str, str] = field(default_factory=dict)  # scenario event id -> master event id
    initial: dict[str, Occ] = field(default_factory=dict)
    people: dict[str, Any] = field(default_factory=dict)
    remote: RemoteCalendars | None = None  # the server the calendars are on; None: the built-in store
    # The calendars as the scenario and its outside edits left them: what the assistant's own writes
    # are told apart from (``initial`` is as the scenario began, which ``unchanged`` compares with).
    baseline: dict[str, Occ] = field(default_factory=dict)
    initial_preferences: dict[str, Any] = field(default_factory=dict)
    people_initial: dict[str, dict[str, Occ]] = field(default_factory=dict)  # email -> their occurrences
    # Initial occurrence key -> the occurrence continuing it in a split-off series (see
    # ``judge.continuations``), set when the final snapshot is taken.
    continued: dict[str, Occ] = field(default_factory=dict)


def _username(prefix: str, name: str) -> str:
    return f"{prefix}-{name}"[:150]


def _make_user(username: str, email: str, full_name: str) -> Any:
    first, _, last = full_name.partition(" ")
    return get_user_model().objects.create_user(
        username=username, email=email, first_name=first, last_name=last, password=None
    )


def _add_event(calendar: Any, spec: EventSpec, tz: ZoneInfo) -> Any:
    details = {
        "calendar": calendar,
        "summary": spec.summary,
        "rrule": spec.rrule,
        "attendees": spec.attendees,
        "visibility": spec.visibility,
        "location": spec.location,
        "description": spec.description,
        "transparency": spec.transparency,
    }
    if "T" not in spec.start:  # a date alone: an all-day event
        start_day = date.fromisoformat(spec.start)
        end_day = date.fromisoformat(spec.end) if spec.end else start_day + timedelta(days=1)
        if end_day <= start_day:
            end_day = start_day + timedelta(days=1)  # an all-day "end" naming the same day means one day
        return event_create(start=start_day, end=end_day, all_day=True, **details)
    start = local_dt(spec.start, tz)
    end = local_dt(spec.end, tz) if spec.end else start + timedelta(hours=1)
    return event_create(start=start, end=end, timezone=str(tz), **details)


def _add_calendars(
    world: ScenarioWorld, owner: Any, calendars: list[tuple[CalendarSpec, ZoneInfo]]
) -> dict[str, str]:
    """One user's calendars with their events, in the built-in store or on the world's server;
    returns event handle -> master row id."""
    if world.remote is not None:
        return world.remote.populate(owner, calendars)
    handles: dict[str, str] = {}
    for cal_spec, cal_tz in calendars:
        calendar = calendar_create(
            owner=owner,
            key=cal_spec.key,
            name=cal_spec.name,
            timezone=str(cal_tz),
            is_default=cal_spec.default,
        )
        for ev in cal_spec.events:
            event = _add_event(calendar, ev, cal_tz)
            if ev.id:
                handles[ev.id] = str(event.pk)
    return handles


def build_world(scenario: Scenario, *, run_tag: str, remote: RemoteCalendars | None = None) -> ScenarioWorld:
    """The scenario's users, preferences, calendars and events; with ``remote`` the calendars are
    put on its server and mirrored through a connected account, not made in the built-in store."""
    tz = ZoneInfo(scenario.timezone)
    user = _make_user(_username(run_tag, "me"), f"me-{run_tag}@scenario.invalid", "Scenario User")
    preference_set(user=user, key="timezone", value=scenario.timezone)
    world = ScenarioWorld(scenario=scenario, user=user, tz=tz, now=local_dt(scenario.now, tz), remote=remote)
    for key, value in scenario.preferences.items():
        preference_set(user=user, key=key, value=value)
    calendars = [
        (cal_spec, ZoneInfo(cal_spec.timezone) if cal_spec.timezone else tz)
        for cal_spec in scenario.calendars
    ]
    world.handles.update(_add_calendars(world, user, calendars))
    for i, (email, person) in enumerate(scenario.people.items()):
        other = _make_user(_username(run_tag, f"p{i}"), email, person.name)
        person_tz = ZoneInfo(person.timezone) if person.timezone else tz
        preference_set(user=other, key="timezone", value=str(person_tz))
        for key, value in person.preferences.items():
            preference_set(user=other, key=key, value=value)
        world.people[email] = other
        if person.events:
            personal = CalendarSpec(key="personal", name="Personal", default=True, events=person.events)
            _add_calendars(world, other, [(personal, person_tz)])
    world.initial = snapshot(world)
    world.baseline = dict(world.initial)
    world.initial_preferences = stored_preferences(user)
    world.people_initial = {email: person_snapshot(world, email) for email in world.people}
    return world


def snapshot(world: ScenarioWorld) -> dict[str, Occ]:
    """Every occurrence of the user's calendars around the scenario's time, as the judge reads them."""
    return store_snapshot(world.user, world.now - SNAPSHOT_BEFORE, world.now + SNAPSHOT_AFTER)


def person_snapshot(world: ScenarioWorld, email: str) -> dict[str, Occ]:
    """The same of another person's calendars, which the assistant may read as free/busy and never write."""
    return store_snapshot(world.people[email], world.now - SNAPSHOT_BEFORE, world.now + SNAPSHOT_AFTER)
