"""Bulk changes on remote calendars: HTTP requests per change and the wall time of an approval.

The servers are the tests' loopback ones, speaking the real protocols to the real clients (a
Calendar v3 server, :mod:`tests.providers.google_server`; a real Radicale,
:mod:`tests.providers.radicale_server`), imported only when these rows run.  Each world is a user
with one connected account whose calendars are synced once; what is measured is the approved
``apply_changes`` alone (planning and the preview are the built-in store's and measured elsewhere),
called as the executor calls it.

- Requests per bulk change: 50 occurrences of a daily series moved one hour, the requests the
  server received during the apply counted (Google: HTTP requests to the API, a batch counting
  once; CalDAV: every request, by method).
- Approving the shared scenario ``reschedule-afternoon-classes`` (its classes this month, Mondays
  excepted, moved to free morning time keeping lunch free) on the built-in store, Google and CalDAV:
  the same calendars made through each provider, the same plan, the apply timed.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import time_machine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import override_settings

from assistant.bench.bulkmove import _call
from assistant.bench.timing import Timing, summarise
from preferences.services import preference_set
from skills.context import SkillContext
from skills.crypto import generate_key
from skills.models import Calendar, CalendarAccount
from skills.providers import provider_for
from skills.providers.base import EventData

__all__ = ["KINDS", "OCCURRENCES", "Counted", "requests_per_bulk_change", "reschedule_approval"]

KINDS = ("local", "google", "caldav")
OCCURRENCES = 50
ZONE = "America/New_York"
SCENARIO = "reschedule-afternoon-classes"


@dataclass
class _World:
    """A user whose calendars are of one kind, and what counts the requests their server received."""

    user: Any
    calendars: dict[str, str]  # scenario key -> calendar id
    counted: Callable[[], Counter[str]]
    reset: Callable[[], None]


@dataclass(frozen=True, slots=True)
class Counted:
    """Requests of one apply, by kind (Google: "http"; CalDAV: the method), and the changes made."""

    requests: Counter[str]
    changed: int

    @property
    def total(self) -> int:
        return sum(self.requests.values())


def _user(kind: str) -> Any:
    tag = uuid.uuid4().hex[:8]
    user = get_user_model().objects.create_user(
        username=f"bench-{tag}-{kind}", email=f"{kind}-{tag}@bench.invalid", password=None
    )
    preference_set(user=user, key="timezone", value=ZONE)
    return user


@contextmanager
def _world(kind: str, keys: list[str]) -> Iterator[_World]:
    """A fresh user with one calendar per key, of ``kind``, its server running for the block."""
    with override_settings(CREDENTIAL_KEYS=[generate_key()]):
        user = _user(kind)
        if kind == "local":
            calendars = {
                key: str(Calendar.objects.create(owner=user, key=key, name=key.title(), timezone=ZONE).pk)
                for key in keys
            }
            yield _World(user, calendars, Counter, lambda: None)
        elif kind == "google":
            with _google(user, keys) as world:
                yield world
        else:
            with _caldav(user, keys) as world:
                yield world


@contextmanager
def _google(user: Any, keys: list[str]) -> Iterator[_World]:
    from skills.providers.google.sync import sync_account
    from tests.providers.google_server import GoogleCalendarServer

    email = f"{user.username}@gmail.example"
    with GoogleCalendarServer(account=email, time_zone=ZONE) as server:
        urls = {
            "GOOGLE_API_ENDPOINT": server.api_endpoint,
            "GOOGLE_TOKEN_URI": server.token_uri,
            "GOOGLE_CLIENT_ID": server.client_id,
            "GOOGLE_CLIENT_SECRET": server.client_secret,
        }
        with override_settings(**urls):
            for key in keys[1:]:
                server.add_calendar(f"{key}@group.example", summary=key.title(), account=email)
            account = CalendarAccount(owner=user, kind=CalendarAccount.Kind.GOOGLE, display_name=email)
            account.credentials = {"refresh_token": server.issue_refresh_token(email)}
            account.save()
            sync_account(account)
            remote = [email, *(f"{key}@group.example" for key in keys[1:])]
            calendars = {
                key: str(Calendar.objects.get(account=account, remote_id=rid).pk)
                for key, rid in zip(keys, remote, strict=True)
            }
            yield _World(user, calendars, lambda: Counter(http=server.api_http_requests), server.reset_log)


@contextmanager
def _caldav(user: Any, keys: list[str]) -> Iterator[_World]:
    from skills.providers.caldav import connect_account
    from tests.providers.radicale_server import RadicaleServer

    with (
        tempfile.TemporaryDirectory() as folder,
        RadicaleServer(Path(folder)) as server,
        # the bench's own server, on loopback: the outbound guard lets it through with DEBUG off too
        override_settings(OUTBOUND_ALLOWED_NETWORKS=["127.0.0.0/8", "::1/128"]),
    ):
        name, password = server.add_user()
        urls = {key: server.make_calendar(name, password, key, key.title()) for key in keys}
        account = connect_account(
            owner=user, url=server.url, username=name, password=password, display_name="Radicale"
        )
        found = {c.remote_id: c for c in account.calendars.all()}
        Calendar.objects.filter(account=account).update(timezone=ZONE)
        calendars = {key: str(found[url].pk) for key, url in urls.items()}

        def counted() -> Counter[str]:
            return Counter(r.method for r in server.requests)

        yield _World(user, calendars, counted, server.reset_log)


def _context(world: _World, **extra: Any) -> SkillContext:
    return SkillContext(
        user=world.user, tz=ZoneInfo(ZONE), run_id=str(uuid.uuid4()), task_id="apply", **extra
    )


def _apply(world: _World, plan: dict[str, Any]) -> tuple[float, Counted]:
    """The approved apply of ``plan``: its wall time (ms) and the requests the server received."""
    world.reset()
    began = time.perf_counter()
    reply = _call("apply_changes", _context(world), {"changes": plan, "approved": True})
    took = (time.perf_counter() - began) * 1000
    assert reply["kind"] == "done", reply["text"]
    return took, Counted(world.counted(), len(reply["data"]["applied"]))


def requests_per_bulk_change(kind: str, *, repeat: int) -> tuple[Timing, Counted]:
    """Move the 50 occurrences of a fresh daily series one hour later, ``repeat`` times on one
    server; the apply's wall time and the requests of the last apply."""
    samples: list[float] = []
    counted = Counted(Counter(), 0)
    with _world(kind, ["work"]) as world:
        provider = provider_for(world.user)
        for n in range(repeat):
            start = datetime(2026, 6, 1, 9, tzinfo=ZoneInfo(ZONE)) + timedelta(days=60 * n)
            provider.create_event(
                calendar_id=world.calendars["work"],
                data=EventData(
                    summary=f"Standup {n}",
                    start=start,
                    end=start + timedelta(minutes=15),
                    timezone=ZONE,
                    rrule=f"FREQ=DAILY;COUNT={OCCURRENCES}",
                ),
                operation_id=f"bench-series-{uuid.uuid4()}",
            )
            found = _call(
                "find_events",
                _context(world),
                {"start": start.isoformat(), "end": (start + timedelta(days=OCCURRENCES)).isoformat()},
            )
            events = [e for e in found["events"] if e["summary"] == f"Standup {n}"]
            assert len(events) == OCCURRENCES, len(events)
            plan = _call("plan_move", _context(world), {"events": events, "shift_minutes": 60})
            took, counted = _apply(world, plan)
            samples.append(took)
    return summarise(samples), counted


def reschedule_approval(kind: str, *, repeat: int) -> tuple[Timing, int]:
    """Approving the scenario's reschedule on calendars of ``kind``, each time on a fresh world;
    the apply's wall time and how many occurrences it moved."""
    from assistant.scenarios.spec import load_scenario

    scenario = load_scenario(settings.BASE_DIR.parent / "shared" / "scenarios" / f"{SCENARIO}.yaml")
    tz = ZoneInfo(scenario.timezone)
    now = _moment(scenario.now, tz)
    samples: list[float] = []
    changed = 0
    with time_machine.travel(now, tick=False):
        for _ in range(repeat):
            with _world(kind, [c.key for c in scenario.calendars]) as world:
                plan = _reschedule_plan(world, scenario, tz, now)
                took, counted = _apply(world, plan)
                samples.append(took)
                changed = counted.changed
    return summarise(samples), changed


def _reschedule_plan(world: _World, scenario: Any, tz: ZoneInfo, now: datetime) -> dict[str, Any]:
    """The scenario's calendars made through the provider (setup), and the plan its first turn
    makes: the afternoon classes of this month but Mondays', to free morning time."""
    for key, value in (scenario.preferences or {}).items():
        preference_set(user=world.user, key=key, value=value)
    provider = provider_for(world.user)
    for calendar in scenario.calendars:
        for event in calendar.events:
            start = _moment(event.start, tz)
            provider.create_event(
                calendar_id=world.calendars[calendar.key],
                data=EventData(
                    summary=event.summary,
                    start=start,
                    end=_moment(event.end, tz) if event.end else start + timedelta(hours=1),
                    timezone=scenario.timezone,
                    rrule=event.rrule or None,
                ),
                operation_id=f"bench-seed-{uuid.uuid4()}",
            )
    month_end = datetime(now.year, now.month % 12 + 1, 1, tzinfo=tz) if now.month < 12 else now
    found = _call(
        "find_events",
        _context(world),
        {"start": now.replace(hour=0).isoformat(), "end": month_end.isoformat()},
    )
    school = Calendar.objects.get(pk=world.calendars["school"]).key
    classes = [
        e
        for e in found["events"]
        if e["calendar"] == school
        and datetime.fromisoformat(e["start"]).astimezone(tz).hour >= 12
        and datetime.fromisoformat(e["start"]).astimezone(tz).weekday() != 0
    ]
    return _call("plan_move", _context(world), {"events": classes, "day_part": "morning"})


def _moment(value: Any, tz: ZoneInfo) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=tz)
