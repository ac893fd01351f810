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
from django.contrib.auth import get_user_model
from django.utils import timezone
from kombu import Connection

from assistant.models import Conversation, Message
from assistant.services import chat_turn
from preferences.services import preference_set
from skills.models import ChangeRecord, Event
from skills.services import calendar_create, event_create
from tests.brokers import point_app_at
from tests.integration.conftest import Worker, chat_listener_error, spawn_worker, stop_worker, wait_for
from workflows.models import RunStatus, WorkflowRun
from workflows.tasks import run_workflow

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


def start_worker(url: str, redis_url: str, queue: str, tmp: Path, point: str) -> Worker:
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
        },
        pool="prefork",
        beat_schedule=tmp / "beat-schedule",
    )


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

        def finished() -> WorkflowRun | None:
            fresh = WorkflowRun.objects.get(pk=run.pk)
            return fresh if fresh.status in (RunStatus.SUCCEEDED, RunStatus.FAILED) else None

        done = wait_for(finished, timeout=FINISH_SECONDS, what="the run to finish", worker=workers[1])
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
