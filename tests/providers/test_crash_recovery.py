"""A worker killed between a server accepting a change set's remote writes and the database
committing the set: the set's next attempt finishes it, recorded once and undoable, on a built-in
calendar, a CalDAV server (a real Radicale) and Google (the loopback server) together (see
``skills.inflight``).

The kill is played in-process by an exception no handler catches (a ``BaseException``): the set's
transaction rolls back, no compensation runs, the servers keep what they accepted, as after SIGKILL.
Each point of the set is tried: after each remote part, and after all of them.  The worker-level
version (real workers, SIGKILL) is in ``tests/integration/test_faults.py``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import niquests
import pytest
from django.test import override_settings
from django.utils import timezone

from skills import changes as change_module
from skills import services
from skills.changes import Change, undo_run
from skills.context import Interrupt
from skills.errors import SkillError
from skills.models import Calendar, CalendarAccount, ChangeRecord, Event, RemoteIntent
from skills.providers import provider_for
from skills.providers.base import EventData, Occurrence
from skills.providers.caldav import CaldavProvider, sync_account
from skills.providers.google import GoogleProvider
from skills.providers.google import client as google_client
from skills.providers.google.sync import sync_account as google_sync
from tests.providers.caldav_fixtures import Connected, connect
from tests.providers.changesets import NY, approve, moves
from tests.providers.google_fixtures import KEY, google_server
from tests.providers.google_server import GoogleCalendarServer
from tests.providers.radicale_server import DavUser, RadicaleServer, dav_user, radicale_server
from workflows.sweeper import sweep

__all__ = ["dav_user", "google_server", "radicale_server"]

pytestmark = pytest.mark.django_db
DAY = datetime(2026, 3, 2, tzinfo=NY)


class Killed(BaseException):
    """What SIGKILL leaves in-process: nothing catches it, the open transaction rolls back."""


@pytest.fixture
def both_settings(google_server: GoogleCalendarServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    google_server.clear_faults()
    monkeypatch.setattr(google_client, "sleep", lambda seconds: None)
    with override_settings(
        GOOGLE_API_ENDPOINT=google_server.api_endpoint,
        GOOGLE_TOKEN_URI=google_server.token_uri,
        GOOGLE_CLIENT_ID=google_server.client_id,
        GOOGLE_CLIENT_SECRET=google_server.client_secret,
        CREDENTIAL_KEYS=[KEY],
    ):
        yield


@dataclass
class World:
    """One user with a CalDAV account, a Google account and a built-in calendar, one event in each
    remote calendar and three in the built-in one, and a set moving all five an hour later."""

    dav: Connected
    google: Calendar
    server: GoogleCalendarServer
    paper: Calendar
    planned: list[Change]

    @property
    def owner(self) -> Any:
        return self.dav.account.owner

    def hours(self) -> dict[str, int]:
        """Title → start hour in the mirrors and the built-in store."""
        rows = Event.objects.filter(calendar__owner=self.owner, series__isnull=True)
        return {e.summary: e.start.astimezone(NY).hour for e in rows}

    def on_servers(self, dav_user: DavUser) -> dict[str, int]:
        fresh = connect(dav_user)
        sync_account(fresh.account)
        found = {
            o.summary: o.start.astimezone(NY).hour
            for o in fresh.provider().list_occurrences(start=DAY, end=DAY + timedelta(days=1))
        }
        for item in self.server.stored_events(self.google.remote_id):
            if item.get("status") != "cancelled":
                found[item["summary"]] = int(item["start"]["dateTime"][11:13])
        return found


def _occurrences(provider: Any, calendar: Calendar) -> list[Occurrence]:
    found: list[Occurrence] = provider.list_occurrences(
        start=DAY, end=DAY + timedelta(days=1), calendar_ids=[str(calendar.pk)]
    )
    return found


def world(dav_user: DavUser, server: GoogleCalendarServer, order: str) -> World:
    dav = connect(dav_user)
    owner = dav.account.owner
    email = f"{owner.username}-{uuid.uuid4().hex[:6]}@gmail.example"
    server.add_account(email, time_zone="America/New_York", summary="Google")
    account = CalendarAccount(owner=owner, kind=CalendarAccount.Kind.GOOGLE, display_name=email)
    account.credentials = {"refresh_token": server.issue_refresh_token(email)}
    account.save()
    google_sync(account)
    google = Calendar.objects.get(account=account, remote_id=email)
    at = DAY.replace(hour=14)
    CaldavProvider(owner).create_event(
        calendar_id=str(dav.calendar.pk),
        data=EventData(summary="Algebra", start=at, end=at + timedelta(hours=1)),
        operation_id=f"seed-dav-{owner.pk}",
    )
    at = DAY.replace(hour=16)
    GoogleProvider(owner).create_event(
        calendar_id=str(google.pk),
        data=EventData(summary="Biology", start=at, end=at + timedelta(hours=1), timezone="America/New_York"),
        operation_id=f"seed-google-{owner.pk}",
    )
    paper = Calendar.objects.create(owner=owner, key="paper", name="Paper", timezone="America/New_York")
    for n in range(3):
        at = DAY.replace(hour=8 + n)
        services.event_create(calendar=paper, summary=f"Local {n}", start=at, end=at + timedelta(minutes=30))
    local = moves(_occurrences(CaldavProvider(owner).local, paper))
    parts = {
        "caldav": moves(_occurrences(CaldavProvider(owner), dav.calendar)),
        "google": moves(_occurrences(GoogleProvider(owner), google)),
    }
    planned = [*parts[order.split(",")[0]], *parts[order.split(",")[1]], *local]
    # As the planners of moves make them: the calendar by its key, the target by its row.
    planned = [c.model_copy(update={"calendar": "work"}) for c in planned]
    return World(dav=dav, google=google, server=server, paper=paper, planned=planned)


BEFORE = {"Algebra": 14, "Biology": 16, "Local 0": 8, "Local 1": 9, "Local 2": 10}
AFTER = {"Algebra": 15, "Biology": 17, "Local 0": 9, "Local 1": 10, "Local 2": 11}


def killed_attempt(w: World, monkeypatch: pytest.MonkeyPatch, point: str = "writes") -> str:
    """Approve the set with the worker dying after ``point``; the run id, for its next attempt."""
    run_id = str(uuid.uuid4())
    with monkeypatch.context() as patch:
        kill_after(patch, point)
        with pytest.raises(Killed):
            approve(w.owner, w.planned, run_id=run_id)
    return run_id


def kill_after(monkeypatch: pytest.MonkeyPatch, point: str) -> None:
    """Die once ``point`` is done: a remote part of the set ("caldav", "google") or all of its
    writes ("writes", before the change records)."""

    def dying(real: Any) -> Any:
        def die(*args: Any, **kwargs: Any) -> Any:
            real(*args, **kwargs)
            raise Killed

        return die

    if point == "writes":
        monkeypatch.setattr(change_module, "_log", dying(lambda *a, **k: None))
    else:
        cls = CaldavProvider if point == "caldav" else GoogleProvider
        monkeypatch.setattr(cls, "apply_writes", dying(cls.apply_writes))


@pytest.mark.usefixtures("both_settings")
@pytest.mark.parametrize(
    ("order", "point"),
    [
        ("caldav,google", "caldav"),  # CalDAV written, Google not yet
        ("google,caldav", "google"),  # Google written, CalDAV not yet
        ("caldav,google", "writes"),  # both written, nothing recorded
    ],
)
def test_a_set_killed_midway_is_finished_once_by_its_next_attempt(
    dav_user: DavUser,
    radicale_server: RadicaleServer,
    google_server: GoogleCalendarServer,
    monkeypatch: pytest.MonkeyPatch,
    order: str,
    point: str,
) -> None:
    w = world(dav_user, google_server, order)
    run_id = killed_attempt(w, monkeypatch, point)

    # What the kill left: some writes on the servers, none here, the set's intent still open.
    assert w.hours() == BEFORE
    on_servers = w.on_servers(dav_user)
    assert on_servers != BEFORE
    assert not ChangeRecord.objects.filter(owner=w.owner).exists()
    assert RemoteIntent.objects.filter(owner=w.owner).count() == 1
    # A sync meanwhile mirrors none of the unrecorded writes.
    sync_account(w.dav.account)
    google_sync(CalendarAccount.objects.get(calendars=w.google))
    assert w.hours() == BEFORE

    done = approve(w.owner, w.planned, run_id=run_id)  # the task again, after the restart

    assert done.text.startswith("Done: 5 changes."), done.text
    assert w.hours() == AFTER
    assert w.on_servers(dav_user) == {k: v for k, v in AFTER.items() if not k.startswith("Local")}
    assert ChangeRecord.objects.filter(owner=w.owner, run_id=run_id).count() == 5
    assert not RemoteIntent.objects.filter(owner=w.owner).exists()

    records, skipped = undo_run(
        provider=provider_for(w.owner),
        user=w.owner,
        run_id=run_id,
        undo_run_id=str(uuid.uuid4()),
        operation_id="u",
    )
    assert (len(records), skipped) == (5, [])
    assert w.hours() == BEFORE
    assert w.on_servers(dav_user) == {"Algebra": 14, "Biology": 16}


@pytest.mark.usefixtures("both_settings")
def test_someone_elses_edit_after_the_kill_is_still_a_conflict(
    dav_user: DavUser,
    radicale_server: RadicaleServer,
    google_server: GoogleCalendarServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a version carrying the set's own key is written over: an edit made on the server after
    the kill is a conflict as ever, the user sees a fresh preview, and what the killed attempt had
    written elsewhere is put back, so nothing of the set is applied anywhere."""
    w = world(dav_user, google_server, "caldav,google")
    run_id = killed_attempt(w, monkeypatch)
    other = connect(dav_user)  # another device moves Algebra to 17:00 over the killed attempt's write
    sync_account(other.account)
    approve(other.account.owner, moves(_occurrences(other.provider(), other.calendar), hours=2))

    with pytest.raises(Interrupt) as asked:
        approve(w.owner, w.planned, run_id=run_id)

    assert asked.value.payload["text"].startswith("Your calendar changed since I suggested this")
    assert "Algebra" not in [row["summary"] for row in asked.value.payload["preview"]]
    # Their edit stands; the killed attempt's write to Google, which this one cannot finish, is
    # taken back: nothing of the set is anywhere, and it is settled.
    assert w.on_servers(dav_user) == {"Algebra": 17, "Biology": 16}
    assert w.hours() == {**BEFORE, "Algebra": 17}  # the mirror shows their edit
    assert not ChangeRecord.objects.filter(owner=w.owner).exists()
    assert not RemoteIntent.objects.filter(owner=w.owner).exists()


@pytest.mark.usefixtures("both_settings")
def test_another_apps_retitle_on_google_is_kept_as_the_set_finishes(
    dav_user: DavUser,
    radicale_server: RadicaleServer,
    google_server: GoogleCalendarServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Google keeps private extended properties through other apps' edits, so the key alone does
    not make a version the set's.  A rename of Biology after the kill leaves the set's own fields
    (its new times) as the set made them: the next attempt patches only those, over the rename,
    which stands."""
    w = world(dav_user, google_server, "google,caldav")
    run_id = killed_attempt(w, monkeypatch)
    [biology] = Event.objects.filter(calendar=w.google, summary="Biology")
    google_server.edit_event(biology.uid, {"summary": "Biology (room 4)"}, calendar_id=w.google.remote_id)

    done = approve(w.owner, w.planned, run_id=run_id)

    assert done.text.startswith("Done: 5 changes."), done.text
    assert w.on_servers(dav_user) == {"Algebra": 15, "Biology (room 4)": 17}


@pytest.mark.usefixtures("both_settings")
def test_another_apps_edit_that_keeps_the_key_is_neither_written_over_nor_taken_back(
    dav_user: DavUser,
    radicale_server: RadicaleServer,
    google_server: GoogleCalendarServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CalDAV client that keeps unknown properties renames Algebra after the kill: the resource
    carries the set's key but not what the set sent.  The next attempt neither sends over it (a whole
    resource would lose the rename) nor puts it back; it takes back the rest (Biology, on Google)
    and says which event still holds part of the change."""
    w = world(dav_user, google_server, "caldav,google")
    run_id = killed_attempt(w, monkeypatch)
    state = CalendarAccount.objects.get(pk=w.dav.account.pk).sync_state
    [path] = state["calendars"][str(w.dav.calendar.pk)]["resources"]
    url = dav_user.server.url.rstrip("/") + path
    held = niquests.get(url, auth=(dav_user.name, dav_user.password))
    renamed = str(held.text).replace("SUMMARY:Algebra", "SUMMARY:Algebra (room 4)")
    assert "X-CALENDAR-ASSISTANT-OPERATION" in renamed
    niquests.put(url, data=renamed.encode(), auth=(dav_user.name, dav_user.password))

    with pytest.raises(SkillError) as refused:
        approve(w.owner, w.planned, run_id=run_id)

    assert "could not be" in str(refused.value)
    assert "'Algebra'" in str(refused.value)
    assert w.on_servers(dav_user) == {"Algebra (room 4)": 15, "Biology": 16}
    assert not ChangeRecord.objects.filter(owner=w.owner).exists()
    assert not RemoteIntent.objects.filter(owner=w.owner).exists()


@pytest.mark.usefixtures("both_settings")
def test_a_set_whose_run_will_not_try_again_is_put_back_by_the_sweeper(
    dav_user: DavUser,
    radicale_server: RadicaleServer,
    google_server: GoogleCalendarServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run was failed for good (out of attempts) after its worker died mid-set: the sweeper puts
    back what the set had sent, so "nothing was left half-done" is true of the servers as well."""
    w = world(dav_user, google_server, "caldav,google")
    killed_attempt(w, monkeypatch)  # no run row: nobody will try it again
    assert w.on_servers(dav_user) == {"Algebra": 15, "Biology": 17}

    assert sweep(now=timezone.now()).settled == 0  # younger than a lease: its run may still come
    report = sweep(now=timezone.now() + timedelta(hours=1))

    assert report.settled == 1
    assert w.on_servers(dav_user) == {"Algebra": 14, "Biology": 16}
    assert w.hours() == BEFORE
    assert not RemoteIntent.objects.filter(owner=w.owner).exists()
    sync_account(w.dav.account)  # and the mirrors stay as the servers are
    assert w.hours() == BEFORE
