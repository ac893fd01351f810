"""Real Redis, a real Celery worker and the test database they share, for the integration tests.

Everything here is the production path with nothing faked: the channel layer is
``channels_redis``, the broker is Redis, the worker is ``celery worker`` in its own process reading
the same test database as the test.  Each module claims a Redis database of its own, so two suites
running side by side on one machine (SQLite and PostgreSQL, two developers) never take each other's
tasks or events, and empties it when done.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection
from django.utils.module_loading import import_string
from pytest_django.fixtures import Settings

from assistant.settings import redis_channel_layers
from tests.brokers import point_app_at
from workflows.tasks import run_workflow

__all__ = [
    "Subscriber",
    "Worker",
    "chat_listener_error",
    "layer_at",
    "redis_layer_settings",
    "spawn_worker",
    "stop_worker",
    "wait_for",
]

REDIS_SERVER = os.environ.get("INTEGRATION_REDIS_SERVER", "redis://127.0.0.1:6379")
# The high database numbers, which nothing else in the project uses (REDIS_URL defaults to 0).
CANDIDATE_DBS = range(15, 7, -1)
LOCK_KEY = "calendar-assistant:integration:lock"
MARKER_KEY = "calendar-assistant:integration:owned"
LOCK_SECONDS = 600
# A worker takes about 3 s of CPU to start; in CI the two cores are shared with both test passes
# and the reliability suite, and 20 s was once not enough.  The wait ends as soon as it answers.
WORKER_START_SECONDS = 60
WORKER_STOP_SECONDS = 10

T = TypeVar("T")


def _claim_db(token: str) -> int | None:
    """Take a database number nobody else holds; None if all are taken.

    A database still holding our marker but no lock is what a killed session left behind, so it is
    ours to empty; one holding keys without the marker belongs to someone else and is left alone.
    """
    for db in CANDIDATE_DBS:
        client = redis.Redis.from_url(f"{REDIS_SERVER}/{db}", socket_connect_timeout=2)
        try:
            if not client.set(LOCK_KEY, token, nx=True, ex=LOCK_SECONDS):
                continue
            if client.dbsize() > 1:
                if not client.exists(MARKER_KEY):
                    client.delete(LOCK_KEY)
                    continue
                client.flushdb()
                client.set(LOCK_KEY, token, ex=LOCK_SECONDS)
            client.set(MARKER_KEY, "1")
            return db
        finally:
            client.close()
    return None


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """The URL of a Redis database this module has to itself, emptied afterwards.

    Skips the module, with the reason, when no Redis server answers: the integration tests need one
    (CI starts it) and faking it would defeat their purpose.
    """
    probe = redis.Redis.from_url(REDIS_SERVER, socket_connect_timeout=2)
    try:
        probe.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is not reachable at {REDIS_SERVER} ({exc}); the integration tests need it")
    finally:
        probe.close()
    token = uuid.uuid4().hex
    db = _claim_db(token)
    if db is None:
        pytest.skip(f"every Redis database in {list(CANDIDATE_DBS)} is held by another test session")
    url = f"{REDIS_SERVER}/{db}"
    yield url
    client = redis.Redis.from_url(url)
    try:
        if client.get(LOCK_KEY) == token.encode():
            client.flushdb()
    finally:
        client.close()


def redis_layer_settings(url: str) -> dict[str, Any]:
    """``CHANNEL_LAYERS`` as ``assistant.settings`` builds it when ``REDIS_URL`` is set."""
    return redis_channel_layers(url)


@pytest.fixture
def redis_layer(settings: Settings, redis_url: str) -> str:
    """Points this process's channel layer at Redis (``channels`` drops its cached layer on change)."""
    settings.CHANNEL_LAYERS = redis_layer_settings(redis_url)
    return redis_url


def layer_at(url: str) -> Any:
    """A channel layer instance of its own, as ``assistant.settings`` configures it, at ``url``."""
    config = redis_layer_settings(url)["default"]
    return import_string(config["BACKEND"])(**config["CONFIG"])


class Subscriber:
    """One channel subscribed to a group, on a channel layer instance of its own.

    It stands for the websocket consumer of another process: it shares nothing with the publisher but
    the Redis server, so whatever it receives went through Redis.  Pub/sub keeps nothing for a channel
    nobody listens on, so, like a consumer, it listens from the moment it subscribed until it is
    closed: in an event loop of its own, in a daemon thread, putting what arrives in ``inbox``.
    """

    def __init__(self, url: str, group: str) -> None:
        self.layer = layer_at(url)
        self.group = group
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.received: list[dict[str, Any]] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=f"subscriber {group}", daemon=True)
        self.thread.start()
        self.channel: str = self._call(self._subscribe())
        self.listening = asyncio.run_coroutine_threadsafe(self._listen(), self.loop)

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=10)

    async def _subscribe(self) -> str:
        channel: str = await self.layer.new_channel()
        await self.layer.group_add(self.group, channel)
        return channel

    async def _listen(self) -> None:
        while True:
            self.inbox.put(await self.layer.receive(self.channel))

    def receive_until(
        self,
        event_type: str,
        *,
        where: Callable[[dict[str, Any]], bool] = lambda event: True,
        timeout: float = 15,
    ) -> list[dict[str, Any]]:
        """Receive events until one of ``event_type`` (and ``where``) arrives; returns this call's."""
        deadline = time.monotonic() + timeout
        batch: list[dict[str, Any]] = []
        while True:
            try:
                message = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                kinds = [m["type"] for m in batch]
                raise AssertionError(
                    f"no {event_type} on {self.group} within {timeout}s; received {kinds}"
                ) from None
            batch.append(message)
            self.received.append(message)
            if message["type"] == event_type and where(message):
                return batch

    def close(self) -> None:
        self.listening.cancel()
        self._call(self._close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    async def _close(self) -> None:
        await self.layer.group_discard(self.group, self.channel)
        await self.layer.flush()  # closes its connections


@pytest.fixture
def subscribe(redis_url: str) -> Iterator[Callable[[str], Subscriber]]:
    """Subscribes channels to groups, and unsubscribes them when the test ends."""
    subscribers: list[Subscriber] = []

    def make(group: str) -> Subscriber:
        subscriber = Subscriber(redis_url, group)
        subscribers.append(subscriber)
        return subscriber

    yield make
    for subscriber in subscribers:
        subscriber.close()


def wait_for(check: Callable[[], T | None], *, timeout: float, what: str, worker: Worker | None = None) -> T:
    """Poll ``check`` until it returns something, failing after ``timeout`` seconds.

    A worker that died is reported at once with its log, rather than after the whole timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None:
            return value
        if worker is not None and worker.process.poll() is not None:
            raise AssertionError(f"the worker exited while waiting for {what}:\n{worker.log_tail()}")
        if time.monotonic() > deadline:
            tail = f"\nworker log:\n{worker.log_tail()}" if worker is not None else ""
            raise AssertionError(f"{what} did not happen within {timeout}s{tail}")
        time.sleep(0.05)


def database_url(settings_dict: dict[str, Any]) -> str:
    """A ``DATABASE_URL`` naming the database this process's connection uses (the test database)."""
    engine, name = settings_dict["ENGINE"], str(settings_dict["NAME"])
    if engine == "django.db.backends.sqlite3":
        if name == ":memory:" or name.startswith("file:") or "mode=memory" in name:
            pytest.skip("an in-memory SQLite test database cannot be shared with a worker process")
        return f"sqlite:///{Path(name).resolve()}"
    if engine == "django.db.backends.postgresql":
        user = quote(settings_dict.get("USER") or "", safe="")
        password = quote(settings_dict.get("PASSWORD") or "", safe="")
        credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or ""
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        return f"postgres://{credentials}{host}{port}/{quote(name, safe='')}"
    pytest.skip(f"no DATABASE_URL form for {engine} in the integration tests")


def chat_listener_error() -> str:
    """Why the chat's run listener cannot be imported, or an empty string if it can.

    ``assistant.services`` imports the decomposer, which needs ``assistant.timeexpr``; until that is
    complete the worker runs without the listener and the chat test skips.
    """
    for path in django_settings.WORKFLOW_RUN_LISTENERS:
        module = path.rpartition(".")[0]
        try:
            importlib.import_module(module)
        except ImportError as exc:
            return f"{module} does not import: {exc}"
    return ""


@dataclass
class Worker:
    """A running ``celery worker`` process and where its output goes."""

    process: subprocess.Popen[bytes]
    hostname: str
    log: Path
    env: dict[str, str] = field(repr=False)

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:]) or "(empty)"

    @property
    def has_chat_listener(self) -> bool:
        return self.env.get("INTEGRATION_CHAT_LISTENER") == "1"


def spawn_worker(
    *,
    broker_url: str,
    redis_url: str,
    log: Path,
    settings_module: str = "tests.integration.worker_settings",
    extra_env: dict[str, str] | None = None,
    pool: str = "solo",
    beat_schedule: Path | None = None,
) -> Worker:
    """Start ``celery worker`` on the test database and ``broker_url``, and wait until it consumes.

    It runs in a process group of its own, so that a test can kill it whole (parent, pool children
    and an embedded beat) as a crash or an out-of-memory kill would.  ``beat_schedule``: also run
    celery beat inside it (the sweeper), keeping its schedule there.
    """
    hostname = f"integration-{uuid.uuid4().hex[:8]}@localhost"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DEBUG": os.environ.get("DEBUG", "1"),
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": broker_url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_RESULT_BACKEND": "",
        "INTEGRATION_CHAT_LISTENER": "0" if chat_listener_error() else "1",
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(django_settings.BASE_DIR), os.environ.get("PYTHONPATH")])
        ),
        "PYTHONUNBUFFERED": "1",
        "INTEGRATION_PARENT_PID": str(os.getpid()),
        **(extra_env or {}),
    }
    command = [
        sys.executable, "-m", "celery", "-A", "assistant", "worker",
        f"--pool={pool}", "--concurrency=1", "-l", "warning", "-n", hostname,
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    if beat_schedule is not None:
        command += ["--beat", f"--schedule={beat_schedule}"]
    with log.open("ab") as out:
        process = subprocess.Popen(
            command,
            cwd=django_settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = Worker(process=process, hostname=hostname, log=log, env=env)
    app = run_workflow.app
    try:
        # A ping answered proves the worker consumes from the broker: tasks sent now will run.
        wait_for(
            lambda: app.control.ping(destination=[running.hostname], timeout=0.5) or None,
            timeout=WORKER_START_SECONDS,
            what="the worker answering a ping",
            worker=running,
        )
    except BaseException:
        stop_worker(running)
        raise
    return running


def stop_worker(worker: Worker) -> None:
    """Warm shutdown (the worker finishes its task, acks and exits), killed if it will not."""
    if worker.process.poll() is not None:
        return
    worker.process.terminate()
    try:
        worker.process.wait(timeout=WORKER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(worker.process.pid, signal.SIGKILL)
        worker.process.wait(timeout=WORKER_STOP_SECONDS)


@pytest.fixture(scope="module")
def worker(
    redis_url: str,
    django_db_setup: None,
    django_db_blocker: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Worker]:
    """A real Celery worker on the test database, and this process enqueuing to it.

    Depends on ``django_db_setup`` so the test database exists before the worker connects, and so
    the worker is stopped (and its connections gone) before pytest-django drops that database.
    """
    app = run_workflow.app
    saved = {"broker_url": app.conf.broker_url, "task_always_eager": app.conf.task_always_eager}
    point_app_at(app, broker_url=redis_url, eager=False)
    running = None
    try:
        running = spawn_worker(
            broker_url=redis_url, redis_url=redis_url, log=tmp_path_factory.mktemp("celery") / "worker.log"
        )
        yield running
    finally:
        if running is not None:
            stop_worker(running)
        point_app_at(app, broker_url=saved["broker_url"], eager=saved["task_always_eager"])
        with django_db_blocker.unblock():
            connection.close()
