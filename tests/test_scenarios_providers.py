"""Every shared scenario on Google and on CalDAV calendars: same turns, same replies, same checks.

The calendars are put on a loopback Google server or a real Radicale (one of each per module, so per
xdist worker, on free ports), connected and synced like a user's account; outside edits are made on
the server, and the final checks read a mirror rebuilt from the server alone, after checking that
the mirror the conversation left shows the same (see assistant/scenarios/remote.py).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from assistant.scenarios import load_scenario, run_scenario, scenario_files
from assistant.scenarios.remote import RemoteCalendars, remote_calendars, resync_and_compare
from assistant.scenarios.world import build_world, snapshot
from skills.models import Event

SCENARIOS = settings.BASE_DIR.parent / "shared" / "scenarios"
PROVIDERS = ("google", "caldav")

# (scenario, provider) pairs that fail today, each with why; strict, so a fix shows up as XPASS.
OPEN: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, RemoteCalendars]]:
    with remote_calendars("google") as google, remote_calendars("caldav") as caldav:
        assert google is not None
        assert caldav is not None
        yield {"google": google, "caldav": caldav}


def _params() -> list[Any]:
    if not SCENARIOS.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=f"{SCENARIOS} is absent"))]
    params: list[Any] = []
    for path in scenario_files([SCENARIOS]):
        for provider in PROVIDERS:
            reason = OPEN.get((path.stem, provider))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            params.append(pytest.param(path, provider, id=f"{path.stem}-{provider}", marks=marks))
    return params


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "provider"), _params())
def test_shared_scenario_on_provider(path: Path, provider: str, servers: dict[str, RemoteCalendars]) -> None:
    result = run_scenario(path, provider=provider, remote=servers[provider])
    assert result.passed, "\n".join(result.failures)


# -- the harness itself: a mirror that drifted from the server is caught, outside edits reach the server
WORLD = """
name: harness
description: one series and one meeting
now: "2026-03-02T09:00"
timezone: America/New_York
calendars:
  - key: work
    name: Work
    default: true
    events:
      - {id: standup, summary: Standup, start: "2026-03-02T10:00", end: "2026-03-02T10:15",
         rrule: "FREQ=DAILY;COUNT=5", visibility: private}
      - {id: review, summary: Design review, start: "2026-03-03T14:00", end: "2026-03-03T15:00",
         attendees: [ann@example.com], location: Room 4}
turns: []
"""


@pytest.fixture
def world(
    request: pytest.FixtureRequest, servers: dict[str, RemoteCalendars], tmp_path: Path, db: None
) -> Iterator[Any]:
    remote = servers[request.param]
    path = tmp_path / "harness.yaml"
    path.write_text(WORLD)
    with (
        override_settings(CREDENTIAL_KEYS=[remote.credential_key], **remote.settings()),
        time_machine.travel(datetime(2026, 3, 2, 14, tzinfo=UTC), tick=False),
    ):
        yield build_world(load_scenario(path), run_tag=f"h{next(_tags)}", remote=remote)


_tags = itertools.count(1)
BOTH = pytest.mark.parametrize("world", PROVIDERS, indirect=True)


@BOTH
def test_the_world_is_mirrored_from_the_server_as_written(world: Any) -> None:
    occurrences = sorted(world.initial.values(), key=lambda occ: occ.start)
    assert [occ.summary for occ in occurrences] == ["Standup"] * 2 + ["Design review"] + ["Standup"] * 3
    review = next(occ for occ in occurrences if occ.summary == "Design review")
    assert (review.attendees, review.location, review.visibility) == (
        ("ann@example.com",),
        "Room 4",
        "default",
    )
    assert {occ.visibility for occ in occurrences if occ.summary == "Standup"} == {"private"}
    assert review.start.astimezone(world.tz).hour == 14


@BOTH
def test_a_mirror_that_drifted_from_the_server_is_named(world: Any) -> None:
    Event.objects.filter(pk=world.handles["review"]).update(summary="Changed only here")
    fresh, drift = resync_and_compare(world, snapshot(world))
    assert len(drift) == 1, drift
    assert "shows 'Changed only here'" in drift[0]
    assert "holds 'Design review'" in drift[0]
    review = next(occ for occ in fresh.values() if occ.event_id == world.handles["review"])
    assert review.summary == "Design review"  # handles follow the rebuilt rows


@BOTH
def test_outside_edits_reach_the_server_not_the_mirror(world: Any) -> None:
    standup = Event.objects.select_related("calendar").get(pk=world.handles["standup"])
    review = Event.objects.select_related("calendar").get(pk=world.handles["review"])
    third = next(occ for occ in world.initial.values() if occ.start.day == 4 and occ.summary == "Standup")
    moved = third.start + timedelta(hours=2)
    world.remote.move(standup, third, moved, moved + timedelta(minutes=15))
    world.remote.delete(review, world.initial[world.handles["review"]])
    assert snapshot(world) == world.initial
    fresh, drift = resync_and_compare(world, snapshot(world))
    assert len(drift) == 2, drift
    assert not any(occ.summary == "Design review" for occ in fresh.values())
    standup_now = {
        occ.recurrence_id: occ for occ in fresh.values() if occ.event_id == world.handles["standup"]
    }
    assert standup_now[third.recurrence_id].start == moved


def test_the_command_runs_a_scenario_on_a_provider(db: None) -> None:
    out = StringIO()
    call_command(
        "run_scenarios", str(SCENARIOS / "count-friday.yaml"), "--provider", "caldav", "--json", stdout=out
    )
    assert json.loads(out.getvalue())["passed"] == 1
