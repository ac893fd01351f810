"""All or nothing on a CalDAV server (a real Radicale): a PUT failing midway through a change set
puts back the resources already written, the mirror ends as the server holds it, and a part of
another calendar failing after the CalDAV part takes the CalDAV part back too."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest

from skills import services
from skills.changes import apply_change_set
from skills.errors import SkillError
from skills.models import Calendar, ChangeRecord, Event
from skills.providers import provider_for
from skills.providers.base import ConflictError, EventData, Occurrence
from skills.providers.caldav import sync_account
from tests.providers.caldav_fixtures import Connected, caldav_settings, connect
from tests.providers.changesets import NY, approve, moves
from tests.providers.radicale_server import DavUser, RadicaleServer, dav_user, radicale_server

__all__ = ["caldav_settings", "dav_user", "radicale_server"]

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("caldav_settings")]
NAMES = ["Algebra", "Biology", "Chemistry"]


def classes(connected: Connected) -> list[Occurrence]:
    provider = connected.provider()
    for n, name in enumerate(NAMES):
        start = datetime(2026, 3, 2 + n, 14, tzinfo=NY)
        provider.create_event(
            calendar_id=str(connected.calendar.pk),
            data=EventData(summary=name, start=start, end=start + timedelta(hours=1)),
            operation_id=f"seed-{connected.account.pk}-{n}",
        )
    return listed(connected)


def listed(connected: Connected) -> list[Occurrence]:
    return connected.provider().list_occurrences(
        start=datetime(2026, 3, 1, tzinfo=NY),
        end=datetime(2026, 3, 9, tzinfo=NY),
        calendar_ids=[str(connected.calendar.pk)],
    )


def on_server(dav: DavUser, connected: Connected) -> dict[str, str]:
    """Title → start hour as a fresh mirror of the server reads it."""
    fresh = connect(dav)
    sync_account(fresh.account)
    return {o.summary: o.start.astimezone(NY).strftime("%H:%M") for o in listed(fresh)}


def in_mirror(connected: Connected) -> dict[str, str]:
    return {o.summary: o.start.astimezone(NY).strftime("%H:%M") for o in listed(connected)}


def test_a_put_failing_midway_puts_back_what_was_written(
    dav_user: DavUser, radicale_server: RadicaleServer
) -> None:
    connected = connect(dav_user)
    occurrences = classes(connected)
    etags = {o.event_id: o.etag for o in occurrences}
    before = in_mirror(connected)
    radicale_server.reset_log()
    radicale_server.fail("PUT", nth=2)

    with pytest.raises(SkillError, match=r"^Nothing was changed"):
        approve(connected.account.owner, moves(occurrences))

    puts = [r.status for r in radicale_server.requests if r.method == "PUT"]
    assert puts == [204, 500, 204]  # one moved, one refused, the first moved back
    assert in_mirror(connected) == before
    assert on_server(dav_user, connected) == before
    assert not ChangeRecord.objects.filter(owner=connected.account.owner).exists()
    assert {o.event_id: o.etag for o in listed(connected)} == etags  # the same preview goes through
    done = approve(connected.account.owner, moves(occurrences))
    assert done.text.startswith("Done: 3 changes.")
    assert set(on_server(dav_user, connected).values()) == {"15:00"}


def test_a_built_in_part_failing_after_the_caldav_part_takes_the_caldav_part_back(dav_user: DavUser) -> None:
    connected = connect(dav_user)
    owner = connected.account.owner
    occurrences = classes(connected)[:2]
    before = in_mirror(connected)
    paper = Calendar.objects.create(owner=owner, key="paper", name="Paper", timezone="America/New_York")
    at = datetime(2026, 3, 2, 16, tzinfo=NY)
    services.event_create(calendar=paper, summary="Local", start=at, end=at + timedelta(hours=1))
    mine = connected.provider().local.list_occurrences(
        start=at - timedelta(hours=1), end=at + timedelta(hours=2), calendar_ids=[str(paper.pk)]
    )
    stale = [c.model_copy(update={"etag": "stale"}) for c in moves(mine)]

    with pytest.raises(ConflictError):
        apply_change_set(
            provider=provider_for(owner),
            user=owner,
            run_id=str(uuid.uuid4()),
            operation_id="mixed:t1",
            changes=[*moves(occurrences), *stale],
        )

    assert in_mirror(connected) == before
    assert on_server(dav_user, connected) == before
    assert Event.objects.get(calendar=paper).start == at
