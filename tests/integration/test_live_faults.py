"""Faults of the deployed shape: a broker down for 20 s, daphne killed with an approval in flight.

daphne serves the app on the Redis channel layer; a worker (with the sweeper in an embedded beat)
takes runs from a broker the test starts on a port of its own, so it can stop it.  The user's side
is websockets signed in as a browser's are.  Nothing may be lost: every request is answered and
every approval applied, once.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from assistant.models import Conversation, Message
from assistant.services import LATER, LATER_ANSWER
from preferences.services import preference_set
from skills.models import ChangeRecord, Event
from skills.services import calendar_create, event_create
from tests.brokers import point_app_at
from tests.integration.conftest import Worker, spawn_worker, stop_worker, wait_for
from tests.integration.live import Daphne, PrivateRedis, receive_until, session_cookie, socket_for
from workflows.models import RunStatus, WorkflowRun
from workflows.tasks import run_workflow

pytestmark = [pytest.mark.integration, pytest.mark.reliability, pytest.mark.django_db(transaction=True)]

ZONE = "Europe/Berlin"
OUTAGE_SECONDS = 20
IDLE_SECONDS = 30
FAST = {"WORKFLOW_LEASE_SECONDS": "3", "WORKFLOW_SWEEP_SECONDS": "1"}


@dataclass
class Stack:
    broker: PrivateRedis
    worker: Worker
    server: Daphne


@pytest.fixture
def stack(redis_url: str, tmp_path: Path) -> Iterator[Stack]:
    """A private broker, a worker with the sweeper, daphne; this process sends to the same broker."""
    broker = PrivateRedis(tmp_path)
    broker.start()
    app = run_workflow.app
    saved = (app.conf.broker_url, app.conf.task_always_eager)
    point_app_at(app, broker_url=broker.url, eager=False)
    worker = server = None
    try:
        worker = spawn_worker(
            broker_url=broker.url,
            redis_url=redis_url,
            log=tmp_path / "worker.log",
            extra_env=FAST,
            beat_schedule=tmp_path / "beat-schedule",
        )
        server = Daphne.for_test(redis_url=redis_url, broker_url=broker.url, log=tmp_path / "daphne.log")
        server.start()
        yield Stack(broker=broker, worker=worker, server=server)
    finally:
        if server is not None:
            server.kill()
        if worker is not None:
            stop_worker(worker)
        broker.stop()
        point_app_at(app, broker_url=saved[0], eager=saved[1])


def meetings(username: str) -> tuple[Any, str]:
    """A user with a standup and a design sync tomorrow, and their session cookie."""
    user = get_user_model().objects.create_user(username, f"{username}@example.com")
    preference_set(user=user, key="timezone", value=ZONE)
    calendar = calendar_create(owner=user, key="work", name="Work", timezone=ZONE, is_default=True)
    tomorrow = timezone.now().astimezone(ZoneInfo(ZONE)).date() + timedelta(days=1)
    for summary, hour in (("Standup", 9), ("Design sync", 10)):
        start = datetime(tomorrow.year, tomorrow.month, tomorrow.day, hour, tzinfo=ZoneInfo(ZONE))
        event_create(
            calendar=calendar,
            summary=summary,
            start=start,
            end=start + timedelta(minutes=45),
            attendees=["ann@example.com"],
        )
    return user, session_cookie(user)


def frame(text: str) -> str:
    return json.dumps({"type": "chat.send", "text": text})


def test_a_broker_down_for_20_seconds_loses_no_question_and_no_approval(stack: Stack) -> None:
    """During the outage an approval and a question are answered 'I'll get back to you'; when the
    broker is back both are done, on sockets that stayed open (one idle for 30 s) all along."""
    user, cookie = meetings("outage-live")
    moving = Conversation.objects.create(user=user)
    asking = Conversation.objects.create(user=user)
    idle = Conversation.objects.create(user=user)

    async def scenario() -> dict[str, Any]:
        w_move = await socket_for(stack.server, moving.pk, cookie)
        w_ask = await socket_for(stack.server, asking.pk, cookie)
        w_idle = await socket_for(stack.server, idle.pk, cookie)
        opened = time.monotonic()
        await w_move.send(frame("Move all my meetings tomorrow one hour later"))
        await receive_until(w_move, "confirm", timeout=30)

        stack.broker.stop()
        stopped = time.monotonic()
        await w_move.send(frame("yes"))
        held_answer = await receive_until(w_move, "answer", timeout=15)
        await w_ask.send(frame("What do I have tomorrow?"))
        held_question = await receive_until(w_ask, "answer", timeout=15)
        await asyncio.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))
        stack.broker.start()

        done = await receive_until(w_move, "done", timeout=60)
        answered = await receive_until(w_ask, "answer", timeout=60)
        await asyncio.sleep(max(0.0, IDLE_SECONDS - (time.monotonic() - opened)))
        await w_idle.send(frame("hello"))
        greeted = await receive_until(w_idle, "answer", timeout=15)
        idle_for = time.monotonic() - opened
        for ws in (w_move, w_ask, w_idle):
            await ws.close()
        return {
            "held_answer": held_answer["text"],
            "held_question": held_question["text"],
            "done": done["text"],
            "answered": answered["text"],
            "greeted": greeted["text"],
            "idle_for": idle_for,
        }

    seen = asyncio.run(scenario())
    assert seen["held_answer"] == LATER_ANSWER
    assert seen["held_question"] == LATER
    assert seen["done"].startswith("Done: 2 changes.")
    assert "Standup" in seen["answered"]
    assert seen["greeted"]
    assert seen["idle_for"] >= IDLE_SECONDS
    assert ChangeRecord.objects.filter(owner=user).count() == 2
    assert Event.objects.get(summary="Standup").start.astimezone(ZoneInfo(ZONE)).hour == 10
    assert not WorkflowRun.objects.filter(user=user).exclude(status=RunStatus.SUCCEEDED).exists()


def test_daphne_killed_with_an_approval_in_flight_applies_it_once(stack: Stack) -> None:
    """'yes' is sent and daphne dies at once: whether or not the approval was stored before it died,
    after a restart the change is applied exactly once (re-approved if it was never recorded)."""
    user, cookie = meetings("daphne-kill")
    conversation = Conversation.objects.create(user=user)

    async def ask_then_approve_and_crash() -> None:
        ws = await socket_for(stack.server, conversation.pk, cookie)
        await ws.send(frame("Move all my meetings tomorrow one hour later"))
        await receive_until(ws, "confirm", timeout=30)
        await ws.send(frame("yes"))
        stack.server.kill()

    asyncio.run(ask_then_approve_and_crash())
    stack.server.start()
    run = WorkflowRun.objects.get(user=user)

    def settled_or_waiting() -> str | None:
        status = WorkflowRun.objects.get(pk=run.pk).status
        return status if status in (RunStatus.SUCCEEDED, RunStatus.PAUSED) else None

    if wait_for(settled_or_waiting, timeout=30, what="the run to settle or wait") == RunStatus.PAUSED:

        async def approve_again() -> None:
            ws = await socket_for(stack.server, conversation.pk, cookie)
            await ws.send(frame("yes"))
            await receive_until(ws, "done", timeout=30)
            await ws.close()

        asyncio.run(approve_again())
    wait_for(
        lambda: True if WorkflowRun.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED else None,
        timeout=30,
        what="the approved change to be applied",
    )
    assert ChangeRecord.objects.filter(owner=user).count() == 2
    assert Message.objects.filter(conversation=conversation, kind="done").count() == 1
