"""Load: many signed-in websocket users against one daphne and two Celery workers.

Each user has a calendar of their own and a conversation, and loops for the duration: a read-only
user asks questions ("what do I have tomorrow?"); an approve/undo user asks to move a meeting,
approves the preview and undoes the change.  A turn's latency is from sending the frame to the
assistant's reply to it; an error is a reply of kind ``error``, an error frame, a closed socket or
no reply within the timeout.  daphne's memory is read (its RSS) once the first turns warmed it up
and again after ``turns_for_memory`` more turns.

``LoadStack`` starts the processes with the environment of this one (``DATABASE_URL``,
``REDIS_URL``, ``CELERY_BROKER_URL``), so it measures the scaled-out set-up as configured.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import websockets
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from assistant.models import Conversation

__all__ = ["LoadReport", "LoadStack", "LoadUser", "drive", "load_rows", "load_users", "remove_users"]

ZONE = "Europe/Berlin"
READS = ("What do I have tomorrow?", "Am I free tomorrow at 3pm?", "Any conflicts next week?")
# A reply slower than this counts as an error (the p95 of a loaded two-core machine is a few seconds).
# In CI the two cores also run both unit passes beside this test, and one reply in about 1,200 has
# taken over 60 s there (not yet explained; a run recovered by the sweeper would take a lease and a
# sweep); the slowest reply is reported (max_ms) so that such a reply is seen, not only counted.
REPLY_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class LoadUser:
    user_id: int
    conversation_id: str
    cookie: str
    writes: bool


@dataclass(slots=True)
class LoadReport:
    users: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    messages: int = 0
    rss_warm_mb: float | None = None
    rss_after_mb: float | None = None
    turns_at_memory: int = 0

    @property
    def turns(self) -> int:
        return len(self.latencies)

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies) * 1000 if self.latencies else float("nan")

    @property
    def memory_growth_mb(self) -> float | None:
        if self.rss_warm_mb is None or self.rss_after_mb is None:
            return None
        return self.rss_after_mb - self.rss_warm_mb

    def summary(self) -> dict[str, Any]:
        return {
            "users": self.users,
            "seconds": round(self.seconds, 1),
            "turns": self.turns,
            "errors": len(self.errors),
            "p50_ms": round(self.median_ms, 1),
            "p95_ms": round(self.percentile(0.95), 1),
            "max_ms": round(max(self.latencies, default=0.0) * 1000, 1),
            "messages_per_s": round(self.messages / self.seconds, 1) if self.seconds else 0.0,
            "memory_growth_mb": None if self.memory_growth_mb is None else round(self.memory_growth_mb, 1),
            "turns_at_memory": self.turns_at_memory,
        }


STARTUP_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class LoadStack:
    """daphne and ``workers`` Celery workers, started with this process's environment plus ``env``."""

    def __init__(self, *, log_dir: Path, env: dict[str, str] | None = None, workers: int = 2) -> None:
        self.log_dir, self.workers = log_dir, workers
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", "CELERY_TASK_ALWAYS_EAGER": "0", **(env or {})}
        self.port = _free_port()
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def daphne_pid(self) -> int:
        return self.processes[0].pid

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        with (self.log_dir / f"{name}.log").open("ab") as out:
            process = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append(process)
        return process

    @contextmanager
    def running(self) -> Iterator[LoadStack]:
        py = sys.executable
        try:
            self._spawn(
                "daphne",
                [py, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "assistant.asgi:application"],
            )
            for i in range(self.workers):
                self._spawn(
                    f"worker{i}",
                    [py, "-m", "celery", "-A", "assistant", "worker", "--pool=solo", "-l", "warning",
                     "-n", f"load{i}-{self.port}@localhost", "--without-gossip", "--without-mingle"],
                )  # fmt: skip
            self._wait_up()
            yield self
        finally:
            for process in self.processes:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
            for process in self.processes:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)

    def _wait_up(self) -> None:
        # Importing the app takes about 6 s on an idle core (pydantic_ai alone ~2 s); in CI three
        # processes import it at once beside both unit passes on two cores, and once took over 30 s.
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f"a load process exited early; see the logs in {self.log_dir}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    time.sleep(2)  # the workers start beside it; give them the time daphne took
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"daphne did not listen within {STARTUP_SECONDS} s; see {self.log_dir}")


def load_users(count: int, *, prefix: str = "load") -> list[LoadUser]:
    """``count`` users, each with tomorrow's meetings, a conversation and a signed-in session; every
    other one approves and undoes, the rest only read."""
    from preferences.services import preference_set
    from skills.services import calendar_create, event_create

    tz = ZoneInfo(ZONE)
    tomorrow = timezone.now().astimezone(tz).date() + timedelta(days=1)
    users = []
    for i in range(count):
        user = get_user_model().objects.create_user(f"{prefix}-{i}-{os.getpid()}", f"{prefix}{i}@example.com")
        preference_set(user=user, key="timezone", value=ZONE)
        calendar = calendar_create(owner=user, key="work", name="Work", timezone=ZONE, is_default=True)
        for summary, hour in (("Standup", 9), ("Design sync", 11), ("Class", 15)):
            start = datetime(tomorrow.year, tomorrow.month, tomorrow.day, hour, tzinfo=tz)
            event_create(
                calendar=calendar,
                summary=summary,
                start=start,
                end=start + timedelta(minutes=45),
                attendees=["ann@example.com"] if summary != "Class" else [],
            )
        conversation = Conversation.objects.create(user=user)
        client = Client()
        client.force_login(user)
        cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        users.append(LoadUser(user.pk, str(conversation.pk), cookie, writes=i % 2 == 1))
    return users


def remove_users(users: list[LoadUser]) -> None:
    get_user_model().objects.filter(pk__in=[u.user_id for u in users]).delete()


async def _reply(ws: websockets.ClientConnection, report: LoadReport) -> dict[str, Any]:
    """The assistant's next message (progress events counted and skipped)."""
    deadline = asyncio.get_running_loop().time() + REPLY_SECONDS
    while True:
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            raise TimeoutError
        event = json.loads(await asyncio.wait_for(ws.recv(), remaining))
        report.messages += 1
        if event.get("type") == "error":
            raise RuntimeError(f"error frame: {event.get('message')}")
        message = event.get("message") or {}
        if event.get("type") == "chat.message" and message.get("role") == "assistant":
            return dict(message)


async def _turn(
    ws: websockets.ClientConnection, report: LoadReport, payload: dict[str, Any]
) -> dict[str, Any]:
    sent = time.monotonic()
    await ws.send(json.dumps({"type": "chat.send", **payload}))
    reply = await _reply(ws, report)
    report.latencies.append(time.monotonic() - sent)
    if reply.get("kind") == "error":
        raise RuntimeError(f"error reply: {reply.get('text', '')[:120]}")
    return reply


async def _user(port: int, user: LoadUser, report: LoadReport, going: _Clock) -> None:
    origin = f"http://localhost:{port}"
    try:
        async with websockets.connect(
            f"ws://localhost:{port}/ws/c/{user.conversation_id}/",
            origin=websockets.Origin(origin),
            additional_headers={"Cookie": user.cookie},
            open_timeout=15,
            max_size=None,
        ) as ws:
            i = 0
            while going():
                if not user.writes:
                    await _turn(ws, report, {"text": READS[i % len(READS)]})
                else:
                    preview = await _turn(ws, report, {"text": "Move my standup tomorrow one hour later"})
                    if preview.get("kind") != "confirm":
                        raise RuntimeError(
                            f"expected a preview, got {preview.get('kind')}: {preview.get('text', '')[:80]}"
                        )
                    done = await _turn(ws, report, {"text": "yes"})
                    run_id = (done.get("data") or {}).get("undo", {}).get("run_id")
                    if done.get("kind") != "done" or not run_id:
                        raise RuntimeError(
                            f"expected done, got {done.get('kind')}: {done.get('text', '')[:80]}"
                        )
                    await _turn(ws, report, {"text": "Undo", "undo": run_id})
                i += 1
    except Exception as exc:  # every failure of a user is one error, with what it was
        report.errors.append(f"{type(exc).__name__}: {exc}")


class _Clock:
    """Whether the users keep going: at least ``seconds``, and on (up to ``max_seconds``) until daphne's
    memory was read after ``turns_for_memory`` turns past the warm-up."""

    def __init__(self, report: LoadReport, seconds: float, max_seconds: float) -> None:
        now = time.monotonic()
        self.report, self.until, self.cap = report, now + seconds, now + max(seconds, max_seconds)

    def __call__(self) -> bool:
        now = time.monotonic()
        return now < self.until or (self.report.rss_after_mb is None and now < self.cap)


async def _memory(
    pid: int, report: LoadReport, warm_turns: int, turns_for_memory: int, going: _Clock
) -> None:
    while going() and report.turns < warm_turns:
        await asyncio.sleep(0.2)
    report.rss_warm_mb = rss_mb(pid)
    start_turns = report.turns
    while going() and report.turns - start_turns < turns_for_memory:
        await asyncio.sleep(0.2)
    report.rss_after_mb = rss_mb(pid)
    report.turns_at_memory = report.turns - start_turns


async def drive(
    stack: LoadStack,
    users: list[LoadUser],
    *,
    seconds: float,
    max_seconds: float = 0,
    warm_turns: int = 100,
    turns_for_memory: int = 1000,
) -> LoadReport:
    """Run every user for ``seconds`` (longer, up to ``max_seconds``, until daphne's memory was read
    after ``turns_for_memory`` turns past the first ``warm_turns``)."""
    report = LoadReport(users=len(users), seconds=seconds)
    started = time.monotonic()
    going = _Clock(report, seconds, max_seconds)
    await asyncio.gather(
        *(_user(stack.port, user, report, going) for user in users),
        _memory(stack.daphne_pid, report, warm_turns, turns_for_memory, going),
    )
    report.seconds = time.monotonic() - started
    return report


def load_rows(*, users: int = 50, seconds: float = 60, log_dir: Path) -> list[Any]:
    """The bench's load rows: a turn's latency (p50/p95) with its error count, and daphne's memory
    growth over 1,000 turns.  Needs the scaled-out set-up (``REDIS_URL``, ``CELERY_BROKER_URL``)."""
    from assistant.bench.report import Row
    from assistant.bench.timing import summarise

    if not os.environ.get("REDIS_URL") or os.environ.get("CELERY_BROKER_URL", "memory://") == "memory://":
        why = "needs REDIS_URL and CELERY_BROKER_URL (daphne and workers share them)"
        return [Row(name="load: chat turn, 50 websocket users", unavailable=why)]
    people = load_users(users, prefix="bench-load")
    try:
        stack = LoadStack(log_dir=log_dir)
        with stack.running():
            report = asyncio.run(drive(stack, people, seconds=seconds, max_seconds=seconds * 3))
    finally:
        remove_users(people)
    figures = report.summary()
    growth = report.memory_growth_mb
    memory = (
        f"daphne's memory {growth:+.1f} MB over {report.turns_at_memory} turns after the first 100 "
        "(limit 20 MB)"
        if growth is not None
        else "daphne's memory not read"
    )
    return [
        Row(
            name=f"load: chat turn, {users} websocket users",
            timing=summarise([x * 1000 for x in report.latencies]),
            notes=(
                f"{figures['turns']} turns in {figures['seconds']} s, {figures['errors']} errors, "
                f"{figures['messages_per_s']} messages/s; one daphne, two workers; half approve and undo; "
                + memory
            ),
        )
    ]
