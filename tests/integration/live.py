"""The deployed shape on loopback, for the fault and load tests: a broker of the test's own that it can
stop, daphne serving the app, and websocket clients signed in as a browser is.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websockets
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client

from tests.integration.conftest import chat_listener_error, database_url

__all__ = ["Daphne", "PrivateRedis", "free_port", "session_cookie", "socket_for"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_port(port: int, *, up: bool, timeout: float, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if up:
                    return
        except OSError:
            if not up:
                return
        if up and process.poll() is not None:
            raise AssertionError(
                f"the process on port {port} exited:\n{log.read_text(errors='replace')[-3000:]}"
            )
        time.sleep(0.05)
    raise AssertionError(f"port {port} did not come {'up' if up else 'down'} within {timeout}s")


class PrivateRedis:
    """A redis-server on a port of its own, which the test stops and starts (a broker outage)."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.log = directory / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, cwd=self.directory, stdout=out, stderr=subprocess.STDOUT)
        _wait_port(self.port, up=True, timeout=10, process=self.process, log=self.log)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


@dataclass
class Daphne:
    """daphne serving the app on the test database, the Redis channel layer and a real broker."""

    port: int
    log: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None

    @classmethod
    def for_test(
        cls, *, redis_url: str, broker_url: str, log: Path, extra_env: dict[str, str] | None = None
    ) -> Daphne:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "assistant.settings",
            "DEBUG": "1",
            "DATABASE_URL": database_url(connection.settings_dict),
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": broker_url,
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "SECRET_KEY": str(django_settings.SECRET_KEY),
            "PYTHONPATH": str(django_settings.BASE_DIR),
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
        }
        if chat_listener_error():
            raise RuntimeError(chat_listener_error())
        return cls(port=free_port(), log=log, env=env)

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(self.port),
            "assistant.asgi:application",
        ]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                command,
                cwd=django_settings.BASE_DIR,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _wait_port(self.port, up=True, timeout=30, process=self.process, log=self.log)

    def kill(self) -> None:
        """SIGKILL, as a crash or an out-of-memory kill: no shutdown handler runs."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    @property
    def origin(self) -> str:
        return f"http://localhost:{self.port}"


def session_cookie(user: Any) -> str:
    """The session cookie of ``user`` signed in (stored in the database the server reads)."""
    client = Client()
    client.force_login(user)
    return (
        f"{django_settings.SESSION_COOKIE_NAME}={client.cookies[django_settings.SESSION_COOKIE_NAME].value}"
    )


async def socket_for(server: Daphne, conversation_id: Any, cookie: str) -> websockets.ClientConnection:
    """A websocket to a conversation, from a page of the server's own origin, signed in."""
    return await websockets.connect(
        f"ws://localhost:{server.port}/ws/c/{conversation_id}/",
        origin=websockets.Origin(server.origin),
        additional_headers={"Cookie": cookie},
        open_timeout=10,
    )


async def receive_until(ws: websockets.ClientConnection, kind: str, *, timeout: float) -> dict[str, Any]:
    """The first chat message of ``kind`` (its payload), skipping progress and other events."""
    deadline = asyncio.get_running_loop().time() + timeout
    seen: list[str] = []
    while True:
        remaining = deadline - asyncio.get_running_loop().time()
        try:
            if remaining <= 0:
                raise TimeoutError
            event = json.loads(await asyncio.wait_for(ws.recv(), remaining))
        except TimeoutError:
            raise AssertionError(f"no {kind} message within {timeout}s; received {seen}") from None
        message = event.get("message") or {}
        seen.append(f"{event.get('type')}:{message.get('kind', '')}:{str(message.get('text', ''))[:60]}")
        if event.get("type") == "chat.message" and message.get("kind") == kind:
            return dict(message)
