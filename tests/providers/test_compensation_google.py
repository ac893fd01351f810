"""All or nothing on Google Calendar: a change set that fails midway takes back the requests Google
had accepted (If-Match on each), the mirror ends as Google holds it, the reply says what happened,
and a retry makes each event once."""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest

from skills import services
from skills.changes import Change, apply_change_set
from skills.context import Interrupt
from skills.errors import SkillError
from skills.models import Calendar, ChangeRecord, Event
from skills.providers import provider_for
from skills.providers.base import ConflictError, EventData, Occurrence
from skills.providers.google import client as google_client
from skills.providers.google.provider import event_id_for
from tests.providers.changesets import NY, approve, moves
from tests.providers.google_fixtures import Connected, connect, google_server, google_settings
from tests.providers.google_server import CallInfo, GoogleCalendarServer

__all__ = ["google_server", "google_settings"]

ZONE = "America/New_York"
NAMES = ["Algebra", "Biology", "Chemistry", "Drama", "English"]
_users = itertools.count(1)
pytestmark = pytest.mark.django_db


@pytest.fixture
def conn(db: None, google_server: GoogleCalendarServer, google_settings: None, monkeypatch: Any) -> Connected:
    monkeypatch.setattr(google_client, "sleep", lambda seconds: None)  # retries without waiting
    return connect(google_server, f"comp{next(_users)}")


def classes(conn: Connected) -> list[Occurrence]:
    """Five one-off afternoon classes on Google, mirrored."""
    provider = conn.provider()
    for n, name in enumerate(NAMES):
        start = datetime(2026, 3, 2 + n, 14, tzinfo=NY)
        provider.create_event(
            calendar_id=str(conn.calendar.pk),
            data=EventData(summary=name, start=start, end=start + timedelta(hours=1), timezone=ZONE),
            operation_id=f"seed-{conn.account.pk}-{n}",
        )
    return listed(conn)


def listed(conn: Connected) -> list[Occurrence]:
    return conn.provider().list_occurrences(
        start=datetime(2026, 3, 1, tzinfo=NY),
        end=datetime(2026, 3, 9, tzinfo=NY),
        calendar_ids=[str(conn.calendar.pk)],
    )


def on_google(conn: Connected) -> dict[str, str]:
    """Title → start time as Google holds it (live events only)."""
    return {
        e["summary"]: e["start"]["dateTime"][11:16]
        for e in conn.server.stored_events(conn.calendar.remote_id)
        if e.get("status") != "cancelled"
    }


def in_mirror(conn: Connected) -> dict[str, str]:
    return {o.summary: o.start.astimezone(NY).strftime("%H:%M") for o in listed(conn)}


def patch_of(uid: str) -> Any:
    return lambda call: call.op == "events.patch" and call.path.endswith("/" + uid)


def test_a_500_on_the_third_of_five_moves_puts_the_other_four_back(conn: Connected) -> None:
    occurrences = classes(conn)
    before = on_google(conn)
    assert set(before.values()) == {"14:00"}
    etags = {o.event_id: o.etag for o in occurrences}
    conn.server.inject(status=500, on=patch_of(occurrences[2].uid), times=10)  # every retry too
    conn.server.reset_log()

    with pytest.raises(SkillError) as refused:
        approve(conn.user, moves(occurrences))

    assert str(refused.value).startswith("Nothing was changed: Google Calendar is busy or failing (500)")
    assert on_google(conn) == before
    assert in_mirror(conn) == before
    assert not ChangeRecord.objects.filter(owner=conn.user).exists()
    patches = [r for r in conn.server.requests(op="events.patch") if r.status == 200]
    assert len(patches) == 8  # four moves accepted, four taken back
    assert all(r.headers.get("if-match") for r in patches)
    # The mirror kept its rows and knows Google's etags: the same preview goes through now.
    assert {o.event_id: o.etag for o in listed(conn)} == etags
    conn.server.clear_faults()
    done = approve(conn.user, moves(occurrences))
    assert done.text.startswith("Done: 5 changes.")
    assert set(on_google(conn).values()) == {"15:00"}


def test_a_move_that_cannot_be_taken_back_is_named_and_not_forced(conn: Connected) -> None:
    occurrences = classes(conn)
    conn.server.inject(status=500, on=patch_of(occurrences[2].uid), times=10)
    # Someone else's edit meanwhile: the compensating patches of three events meet 412.
    seen: Counter[str] = Counter()
    stuck = {occurrences[n].uid for n in (0, 1, 3)}

    def second_patch(call: CallInfo) -> bool:
        uid = call.path.rsplit("/", 1)[-1]
        if call.op != "events.patch" or uid not in stuck:
            return False
        seen[uid] += 1
        return seen[uid] == 2

    conn.server.inject(
        status=412, reason="conditionNotMet", message="Precondition Failed", on=second_patch, times=3
    )

    with pytest.raises(SkillError) as refused:
        approve(conn.user, moves(occurrences))

    assert str(refused.value) == (
        "The change was not made: Google Calendar is busy or failing (500); try again shortly. "
        "3 of 5 events were moved and could not be moved back: 'Algebra', 'Biology', 'Drama'. "
        "Everything else is as it was."
    )
    moved = {
        "Algebra": "15:00",
        "Biology": "15:00",
        "Chemistry": "14:00",
        "Drama": "15:00",
        "English": "14:00",
    }
    assert on_google(conn) == moved
    assert in_mirror(conn) == moved  # the mirror shows what Google holds
    assert not ChangeRecord.objects.filter(owner=conn.user).exists()


def test_a_lost_answer_then_a_retry_makes_the_event_once(conn: Connected) -> None:
    start = datetime(2026, 3, 10, 9, tzinfo=NY)
    change = Change(
        action="create",
        summary="Review",
        calendar=str(conn.calendar.pk),
        start=start,
        end=start + timedelta(hours=1),
    )
    run = "00000000-0000-0000-0000-00000000c0de"
    conn.server.lose_response(on="events.insert", times=50)  # made, and never an answer

    with pytest.raises(SkillError, match="Nothing was changed"):
        approve(conn.user, [change], run_id=run)

    # It may have been made, so it was taken back: nothing live on Google, nothing in the mirror.
    gid = event_id_for(f"{run}:t1:0")
    assert conn.server.stored_event(conn.calendar.remote_id, gid)["status"] == "cancelled"  # type: ignore[index]
    assert "Review" not in on_google(conn)
    assert not Event.objects.filter(calendar=conn.calendar, summary="Review").exists()

    conn.server.clear_faults()
    done = approve(conn.user, [change], run_id=run)

    assert done.text.startswith("Done: 1 change.")
    assert [
        e["id"] for e in conn.server.stored_events(conn.calendar.remote_id) if e["summary"] == "Review"
    ] == [gid]
    assert on_google(conn)["Review"] == "09:00"
    assert Event.objects.filter(calendar=conn.calendar, summary="Review").count() == 1


def test_a_lost_answer_the_client_retries_past_is_one_event(conn: Connected) -> None:
    start = datetime(2026, 3, 11, 9, tzinfo=NY)
    change = Change(
        action="create",
        summary="Once",
        calendar=str(conn.calendar.pk),
        start=start,
        end=start + timedelta(hours=1),
    )
    conn.server.lose_response(on="events.insert", times=2)  # committed; httplib2's resend lost too

    done = approve(conn.user, [change])

    assert done.text.startswith("Done: 1 change.")
    assert [e["summary"] for e in conn.server.stored_events(conn.calendar.remote_id)].count("Once") == 1
    assert Event.objects.filter(calendar=conn.calendar, summary="Once").count() == 1


def test_a_mixed_change_set_commits_its_built_in_part_only_with_its_google_part(conn: Connected) -> None:
    occurrences = classes(conn)[:2]
    local = Calendar.objects.create(owner=conn.user, key="paper", name="Paper", timezone=ZONE)
    at = datetime(2026, 3, 2, 16, tzinfo=NY)
    services.event_create(calendar=local, summary="Local", start=at, end=at + timedelta(hours=1))
    mine = conn.provider().list_occurrences(
        start=at - timedelta(hours=1), end=at + timedelta(hours=2), calendar_ids=[str(local.pk)]
    )
    # The built-in part comes last and fails (its event changed since it was read): Google's moves,
    # already accepted, are taken back.
    stale = [c.model_copy(update={"etag": "stale"}) for c in moves(mine)]
    before = on_google(conn)

    with pytest.raises(ConflictError):
        apply_change_set(
            provider=provider_for(conn.user),
            user=conn.user,
            run_id=str(uuid.uuid4()),
            operation_id="mixed:t1",
            changes=[*moves(occurrences), *stale],
        )

    assert on_google(conn) == before
    assert in_mirror(conn) == before
    assert Event.objects.get(calendar=local).start == at

    # And the other way round: the Google part fails, the built-in part is not committed.
    conn.server.inject(status=500, on=patch_of(occurrences[1].uid), times=10)
    fresh = conn.provider().list_occurrences(
        start=at - timedelta(hours=1), end=at + timedelta(hours=2), calendar_ids=[str(local.pk)]
    )
    with pytest.raises(SkillError, match="Nothing was changed"):
        approve(conn.user, [*moves(fresh), *moves(occurrences)])
    assert Event.objects.get(calendar=local).start == at
    assert on_google(conn) == before


def test_an_edit_on_google_after_the_last_sync_gets_a_fresh_preview_not_an_overwrite(conn: Connected) -> None:
    occurrences = classes(conn)
    # Someone moves Chemistry on another device after the mirror was read: Google answers 412.
    conn.server.edit_event(
        occurrences[2].uid,
        {
            "start": {"dateTime": "2026-03-04T16:00:00-05:00", "timeZone": ZONE},
            "end": {"dateTime": "2026-03-04T17:00:00-05:00", "timeZone": ZONE},
        },
        calendar_id=conn.calendar.remote_id,
    )

    with pytest.raises(Interrupt) as asked:
        approve(conn.user, moves(occurrences))

    question = asked.value.payload
    assert question["kind"] == "confirm"
    assert question["text"].startswith("Your calendar changed since I suggested this")
    assert "Chemistry" in question["text"]  # named as changed meanwhile, left out
    assert len(question["preview"]) == 4
    assert on_google(conn)["Chemistry"] == "16:00"  # the other device's edit stands
    assert not ChangeRecord.objects.filter(owner=conn.user).exists()
