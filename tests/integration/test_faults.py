"""Workers that die: an approved change of 300 events is finished exactly once whatever the crash.

A real worker (prefork, with the sweeper in an embedded beat) on Redis and on RabbitMQ is killed
with SIGKILL, its whole process group at once, at three points of the apply (see
``tests.integration.fault_settings``); a new worker is started, as a supervisor would.  Each time
the run must finish within a minute of the approval, with every event moved once, none twice, no
change half-applied, and one reply.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.utils import timezone
from kombu import Connection

from assistant.models import Conversation, Message
from assistant.services import chat_turn
from preferences.services import preference_set
from skills.models import Calendar, CalendarAccount, ChangeRecord, Event, RemoteIntent
from skills.providers.base import EventData
from skills.providers.caldav import CaldavProvider, connect_account
from skills.providers.caldav import sync_account as caldav_sync
from skills.providers.google import GoogleProvider
from skills.providers.google.sync import sync_account as google_sync
from skills.services import calendar_create, event_create
from tests.brokers import point_app_at
from tests.integration.conftest import Worker, chat_listener_error, spawn_worker, stop_worker, wait_for
from tests.providers.google_fixtures import google_server
from tests.providers.google_server import GoogleCalendarServer
from tests.providers.radicale_server import DavUser, dav_user, radicale_server
from workflows.models import RunStatus, WorkflowRun
from workflows.tasks import run_workflow

__all__ = ["dav_user", "google_server", "radicale_server"]

pytestmark = [pytest.mark.integration, pytest.mark.reliability, pytest.mark.django_db(transaction=True)]

ZONE = "Europe/Berlin"
OCCURRENCES = 300
LEASE_SECONDS = 3
FINISH_SECONDS = 60
RABBITMQ = "amqp://guest:guest@127.0.0.1:5672//"


@pytest.fixture(scope="module")
def queue() -> str:
    """A queue of this module's own: the RabbitMQ server is shared with whatever else runs here."""
    return f"faults-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def broker(request: pytest.FixtureRequest, redis_url: str, queue: str) -> Iterator[str]:
    """The broker of the test's parameter, with this process's tasks sent to it."""
    if request.param == "rabbitmq":
        try:
            with Connection(RABBITMQ, connect_timeout=2) as probe:
                probe.ensure_connection(max_retries=1)
        except Exception as exc:
            pytest.skip(f"RabbitMQ is not reachable at {RABBITMQ} ({exc}); these tests need it")
        url = RABBITMQ
    else:
        url = redis_url
    app = run_workflow.app
    saved = (app.conf.broker_url, app.conf.task_always_eager, app.conf.task_default_queue)
    point_app_at(app, broker_url=url, eager=False)
    app.conf.task_default_queue = queue
    try:
        yield url
    finally:
        if request.param == "rabbitmq":
            with Connection(url) as conn:
                conn.default_channel.queue_delete(queue)
        point_app_at(app, broker_url=saved[0], eager=saved[1])
        app.conf.task_default_queue = saved[2]


@pytest.fixture
def standups() -> tuple[Any, Conversation, dict[int, datetime]]:
    """A user with a daily standup for the next 300 days, and where each one starts."""
    if chat_listener_error():
        pytest.skip(f"the chat listener does not import: {chat_listener_error()}")
    user = get_user_model().objects.create_user("faults", "faults@example.com")
    preference_set(user=user, key="timezone", value=ZONE)
    calendar = calendar_create(owner=user, key="work", name="Work", timezone=ZONE, is_default=True)
    tz = ZoneInfo(ZONE)
    first = (timezone.now().astimezone(tz) + timedelta(days=1)).replace(
        hour=9, minute=0, second=0, microsecond=0
    )
    starts = {}
    for day in range(OCCURRENCES):
        start = datetime.combine(first.date() + timedelta(days=day), first.timetz())
        event = event_create(
            calendar=calendar, summary="Standup", start=start, end=start + timedelta(minutes=15)
        )
        starts[event.pk] = start
    return user, Conversation.objects.create(user=user), starts


def start_worker(
    url: str, redis_url: str, queue: str, tmp: Path, point: str, env: dict[str, str] | None = None
) -> Worker:
    return spawn_worker(
        broker_url=url,
        redis_url=redis_url,
        log=tmp / "worker.log",
        settings_module="tests.integration.fault_settings",
        extra_env={
            "FAULT_KILL_AT": point,
            "FAULT_DIR": str(tmp),
            "FAULT_QUEUE": queue,
            "WORKFLOW_LEASE_SECONDS": str(LEASE_SECONDS),
            "WORKFLOW_SWEEP_SECONDS": "1",
            **(env or {}),
        },
        pool="prefork",
        beat_schedule=tmp / "beat-schedule",
    )


def finished(pk: Any) -> WorkflowRun | None:
    fresh = WorkflowRun.objects.get(pk=pk)
    return fresh if fresh.status in (RunStatus.SUCCEEDED, RunStatus.FAILED) else None


def waiting_run(conversation: Conversation) -> WorkflowRun | None:
    conversation.refresh_from_db()
    run = conversation.pending_run
    return run if run is not None and run.status == RunStatus.PAUSED else None


@pytest.mark.parametrize("broker", ["redis", "rabbitmq"], indirect=True)
@pytest.mark.parametrize("point", ["in_apply", "after_apply", "before_reply"])
def test_a_worker_killed_during_an_approved_change_finishes_it_exactly_once(
    broker: str,
    point: str,
    redis_url: str,
    queue: str,
    standups: tuple[Any, Conversation, dict[int, datetime]],
    tmp_path: Path,
) -> None:
    user, conversation, starts = standups
    workers = [start_worker(broker, redis_url, queue, tmp_path, point)]
    try:
        chat_turn(user=user, conversation=conversation, text="Move all my standups one hour later")
        run = wait_for(
            lambda: waiting_run(conversation), timeout=30, what="the preview of 300 moves", worker=workers[0]
        )
        assert len((run.pause_payload or {}).get("preview") or []) == OCCURRENCES

        (tmp_path / "armed").touch()
        approved = time.monotonic()
        chat_turn(user=user, conversation=conversation, text="yes")
        wait_for(
            lambda: True if workers[0].process.poll() is not None else None,
            timeout=30,
            what=f"the worker to crash at {point}",
        )
        assert (tmp_path / "fired").exists()
        workers.append(start_worker(broker, redis_url, queue, tmp_path, point))

        done = wait_for(
            lambda: finished(run.pk), timeout=FINISH_SECONDS, what="the run to finish", worker=workers[1]
        )
        elapsed = time.monotonic() - approved
    finally:
        for worker in workers:
            stop_worker(worker)

    assert done.status == RunStatus.SUCCEEDED, done.error
    assert elapsed < FINISH_SECONDS
    assert done.attempts == 2  # the dead worker's, then the one that finished it
    records = ChangeRecord.objects.filter(owner=user)
    assert records.count() == OCCURRENCES  # each event changed once: none missed, none twice
    moved = {e.pk: e.start for e in Event.objects.filter(calendar__owner=user)}
    assert moved == {pk: start + timedelta(hours=1) for pk, start in starts.items()}
    replies = Message.objects.filter(conversation=conversation, run=done, role="assistant", kind="done")
    assert replies.count() == 1, list(
        Message.objects.filter(conversation=conversation).values_list("kind", "text")
    )[-2:]


MIXED = 20


@pytest.fixture
def mixed(
    dav_user: DavUser, google_server: GoogleCalendarServer
) -> Iterator[tuple[Any, Conversation, dict[str, Any]]]:
    """A user whose standups are on a built-in calendar (20 days), a CalDAV server (one, on a real
    Radicale) and Google (one, on the loopback server), both accounts connected and mirrored."""
    if chat_listener_error():
        pytest.skip(f"the chat listener does not import: {chat_listener_error()}")
    key = Fernet.generate_key().decode()
    google = {
        "GOOGLE_API_ENDPOINT": google_server.api_endpoint,
        "GOOGLE_TOKEN_URI": google_server.token_uri,
        "GOOGLE_CLIENT_ID": google_server.client_id,
        "GOOGLE_CLIENT_SECRET": google_server.client_secret,
    }
    with override_settings(CREDENTIAL_KEYS=[key], **google):
        user = get_user_model().objects.create_user("mixed", "mixed@example.com")
        preference_set(user=user, key="timezone", value=ZONE)
        work = calendar_create(owner=user, key="work", name="Work", timezone=ZONE, is_default=True)
        tz = ZoneInfo(ZONE)
        first = (timezone.now().astimezone(tz) + timedelta(days=1)).replace(
            hour=9, minute=0, second=0, microsecond=0
        )
        for day in range(MIXED):
            start = first + timedelta(days=day)
            event_create(calendar=work, summary="Standup", start=start, end=start + timedelta(minutes=15))
        dav = connect_account(
            owner=user, url=dav_user.server.url, username=dav_user.name, password=dav_user.password
        )
        dav_work = Calendar.objects.get(account=dav, remote_id=dav_user.calendars["work"])
        start = first + timedelta(hours=2)
        CaldavProvider(user).create_event(
            calendar_id=str(dav_work.pk),
            data=EventData(summary="Standup", start=start, end=start + timedelta(minutes=15)),
            operation_id="seed-dav",
        )
        email = "mixed@gmail.example"
        google_server.add_account(email, time_zone=ZONE, summary="Google")
        account = CalendarAccount(owner=user, kind=CalendarAccount.Kind.GOOGLE, display_name=email)
        account.credentials = {"refresh_token": google_server.issue_refresh_token(email)}
        account.save()
        google_sync(account)
        google_calendar = Calendar.objects.get(account=account, remote_id=email)
        start = first + timedelta(hours=4)
        GoogleProvider(user).create_event(
            calendar_id=str(google_calendar.pk),
            data=EventData(summary="Standup", start=start, end=start + timedelta(minutes=15), timezone=ZONE),
            operation_id="seed-google",
        )
        env = {"CREDENTIAL_KEYS": key, **{f"FAULT_{k}": v for k, v in google.items()}}
        yield user, Conversation.objects.create(user=user), {
            "env": env,
            "dav": dav,
            "dav_calendar": dav_work,
            "google": account,
            "google_calendar": google_calendar,
            "first": first,
        }


def _starts(user: Any, world: dict[str, Any], dav_user: DavUser, google_server: GoogleCalendarServer) -> Any:
    """The standups' starts as the built-in store, and each server, hold them now (a fresh read)."""
    tz = ZoneInfo(ZONE)
    built_in = Event.objects.filter(calendar__owner=user, calendar__account__isnull=True)
    local = sorted(e.start for e in built_in)
    reader = get_user_model().objects.create_user(f"reader-{uuid.uuid4().hex[:8]}")
    fresh = connect_account(
        owner=reader, url=dav_user.server.url, username=dav_user.name, password=dav_user.password
    )
    caldav_sync(fresh)
    [dav] = [e.start.astimezone(tz) for e in Event.objects.filter(calendar__account=fresh, summary="Standup")]
    google = [
        datetime.fromisoformat(item["start"]["dateTime"]).astimezone(tz)
        for item in google_server.stored_events(world["google_calendar"].remote_id)
        if item.get("status") != "cancelled"
    ]
    return local, dav, google


@pytest.mark.parametrize("broker", ["redis"], indirect=True)
@pytest.mark.parametrize("point", ["caldav", "google", "in_apply", "after_apply", "before_reply"])
def test_a_worker_killed_in_a_mixed_change_finishes_it_once_and_it_can_be_undone(
    broker: str,
    point: str,
    redis_url: str,
    queue: str,
    mixed: tuple[Any, Conversation, dict[str, Any]],
    dav_user: DavUser,
    google_server: GoogleCalendarServer,
    tmp_path: Path,
) -> None:
    """The probe's case: a move approved across built-in, CalDAV and Google calendars, the worker
    SIGKILLed at each point (a remote part sent and the rest not; every write sent and nothing
    committed; committed and not reported; reported and not finished).  Each time the new worker
    finishes it: every standup moved once, on the servers as here, one change record each, one
    reply; and "undo" puts all of them back, on the servers too."""
    user, conversation, world = mixed
    before = _starts(user, world, dav_user, google_server)
    workers = [start_worker(broker, redis_url, queue, tmp_path, point, world["env"])]
    try:
        chat_turn(user=user, conversation=conversation, text="Move all my standups one hour later")
        run = wait_for(lambda: waiting_run(conversation), timeout=60, what="the preview", worker=workers[0])
        assert len((run.pause_payload or {}).get("preview") or []) == MIXED + 2

        (tmp_path / "armed").touch()
        chat_turn(user=user, conversation=conversation, text="yes")
        wait_for(
            lambda: True if workers[0].process.poll() is not None else None,
            timeout=60,
            what=f"the worker to crash at {point}",
        )
        assert (tmp_path / "fired").exists()
        workers.append(start_worker(broker, redis_url, queue, tmp_path, point, world["env"]))

        done = wait_for(lambda: finished(run.pk), timeout=FINISH_SECONDS, what="the run", worker=workers[1])
        assert done.status == RunStatus.SUCCEEDED, done.error
        assert done.attempts == 2
        assert ChangeRecord.objects.filter(owner=user, run_id=done.pk).count() == MIXED + 2
        assert not RemoteIntent.objects.filter(owner=user).exists()
        hour = timedelta(hours=1)
        local, dav, google = _starts(user, world, dav_user, google_server)
        assert local == [start + hour for start in before[0]]
        assert (dav, google) == (before[1] + hour, [start + hour for start in before[2]])
        mirrored = sorted(e.start for e in Event.objects.filter(calendar__owner=user, summary="Standup"))
        assert mirrored == sorted([*local, dav, *google])
        replies = Message.objects.filter(conversation=conversation, run=done, role="assistant", kind="done")
        assert replies.count() == 1

        chat_turn(user=user, conversation=conversation, text="undo that")
        wait_for(
            lambda: ChangeRecord.objects.filter(owner=user, undone_by__isnull=False).count() == MIXED + 2
            or None,
            timeout=FINISH_SECONDS,
            what="the undo",
            worker=workers[1],
        )
        assert _starts(user, world, dav_user, google_server) == before
    finally:
        for worker in workers:
            stop_worker(worker)
