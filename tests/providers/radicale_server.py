"""A real Radicale CalDAV server for tests, run in-process on a free loopback port.

Radicale's own WSGI application (``radicale.Application``) is served by a threaded ``wsgiref``
server in a daemon thread, with explicit authentication (an htpasswd file with an APR-MD5 entry per
user, ``htpasswd_encryption = md5``), ``owner_only`` rights and its multifilesystem storage in a
temporary folder.  Every request the server answers is counted in :attr:`RadicaleServer.requests`
(method and path), so a test can assert how many HTTP requests a change cost.

A fault hook, :meth:`RadicaleServer.fail`, makes the Nth request of a method from now answer an
error without reaching Radicale (a CalDAV write failing midway through a batch).

Start one per test module (it takes well under a second)::

    @pytest.fixture(scope="module")
    def radicale(tmp_path_factory):
        with RadicaleServer(tmp_path_factory.mktemp("radicale")) as server:
            yield server

    def test_something(radicale):
        user, password = radicale.add_user()           # a fresh user, htpasswd entry written
        url = radicale.make_calendar(user, "work", "Work")   # an empty calendar collection
"""

from __future__ import annotations

import itertools
import secrets
import socketserver
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest
import radicale
import radicale.config
from passlib.hash import apr_md5_crypt

__all__ = ["DavUser", "RadicaleServer", "Request", "dav_user", "radicale_server"]

_MKCALENDAR = """<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">
  <D:set><D:prop>
    <D:displayname>{name}</D:displayname>
    <C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>"""


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    status: int


class _ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class RadicaleServer:
    """One Radicale instance; use as a context manager (or call start/stop)."""

    folder: Path
    host: str = "127.0.0.1"
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        self.htpasswd = self.folder / "users"
        self.htpasswd.write_text("")
        self.storage = self.folder / "collections"
        self.storage.mkdir(exist_ok=True)
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._faults: list[list[Any]] = []  # [method, requests to let through, status, times left]
        self._server: _ThreadingWSGIServer | None = None
        self._thread: threading.Thread | None = None

    # -- life ------------------------------------------------------------------------------------------
    def start(self) -> RadicaleServer:
        configuration = radicale.config.load()
        configuration.update(
            {
                "auth": {
                    "type": "htpasswd",
                    "htpasswd_filename": str(self.htpasswd),
                    "htpasswd_encryption": "md5",
                    "delay": "0",
                    "cache_logins": "False",
                },
                "rights": {"type": "owner_only"},
                "storage": {"filesystem_folder": str(self.storage)},
                "logging": {"level": "error", "mask_passwords": "True"},
                "web": {"type": "none"},
            },
            "test",
            privileged=True,
        )
        application = radicale.Application(configuration)

        def counted(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
            failed = self._fault_for(environ["REQUEST_METHOD"])
            if failed:
                with self._lock:
                    self.requests.append(
                        Request(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), failed)
                    )
                start_response(f"{failed} Injected", [("Content-Type", "text/plain")])
                return [b"injected fault"]

            def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                with self._lock:
                    self.requests.append(
                        Request(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), int(status[:3]))
                    )
                return start_response(status, headers, exc_info)

            return application(environ, start)

        self._server = make_server(
            self.host, 0, counted, server_class=_ThreadingWSGIServer, handler_class=_QuietHandler
        )
        self._thread = threading.Thread(target=self._server.serve_forever, name="radicale", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> RadicaleServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what tests use --------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._server is not None, "the server is not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def add_user(self, name: str = "", password: str = "") -> tuple[str, str]:
        """A new user in the htpasswd file (APR-MD5); returns (name, password)."""
        name = name or f"user{next(self._numbers)}"
        password = password or secrets.token_urlsafe(12)
        with self._lock, self.htpasswd.open("a") as out:
            out.write(f"{name}:{apr_md5_crypt.hash(password)}\n")
        return name, password

    def make_calendar(self, user: str, password: str, slug: str, name: str) -> str:
        """Create the calendar collection ``/<user>/<slug>/`` (MKCALENDAR as that user); its URL."""
        import niquests

        url = f"{self.url}{user}/{slug}/"
        response = niquests.request(
            "MKCALENDAR",
            url,
            data=_MKCALENDAR.format(name=name),
            auth=(user, password),
            headers={"Content-Type": "application/xml; charset=utf-8"},
        )
        if response.status_code != 201:
            raise RuntimeError(f"MKCALENDAR {url} answered {response.status_code}: {response.text}")
        return url

    def fail(self, method: str = "PUT", *, nth: int = 1, status: int = 500, times: int = 1) -> None:
        """The ``nth`` request of ``method`` from now (and the ``times - 1`` after it) answers
        ``status`` and changes nothing."""
        with self._lock:
            self._faults.append([method, nth - 1, status, times])

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _fault_for(self, method: str) -> int:
        with self._lock:
            for fault in self._faults:
                if fault[0] != method or fault[3] <= 0:
                    continue
                if fault[1] > 0:
                    fault[1] -= 1
                    continue
                fault[3] -= 1
                return int(fault[2])
        return 0

    def count(self, method: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if method is None or r.method == method)

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()


@dataclass(frozen=True)
class DavUser:
    """A Radicale user and the calendar collections made for them (slug → URL)."""

    server: RadicaleServer
    name: str
    password: str
    calendars: dict[str, str]


@pytest.fixture(scope="module")
def radicale_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """One Radicale server for the module (import this fixture into a test module)."""
    with RadicaleServer(tmp_path_factory.mktemp("radicale")) as server:
        yield server


@pytest.fixture
def dav_user(radicale_server: RadicaleServer) -> DavUser:
    """A fresh Radicale user with two empty calendars, ``work`` and ``home``."""
    name, password = radicale_server.add_user()
    calendars = {
        slug: radicale_server.make_calendar(name, password, slug, title)
        for slug, title in (("work", "Work"), ("home", "Home"))
    }
    return DavUser(radicale_server, name, password, calendars)
