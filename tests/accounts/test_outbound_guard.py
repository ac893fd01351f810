"""The CalDAV connect form is no way into the server's own network (skills.outbound).

The probe's cases, against real HTTP servers on loopback that count every connection they accept:
internal targets refused with nothing sent, allowed when the operator lists their network, a 302
and a 500 answered with the one message, and no target's words in any page.
"""

from __future__ import annotations

import itertools
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from skills import outbound
from skills.accounts import CALDAV_UNREACHABLE
from skills.models import CalendarAccount
from skills.providers.base import ProviderError
from skills.providers.caldav.client import DavConnection
from tests.providers.caldav_fixtures import caldav_settings

__all__ = ["caldav_settings"]

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("caldav_settings")]

SECRET_BODY = "<html>internal-admin-panel token=s3cr3t-b0dy</html>"
_people = itertools.count(1)


class Target:
    """An HTTP server on a loopback address that answers every request with one canned response."""

    def __init__(
        self, host: str = "127.0.0.1", status: int = 500, headers: dict[str, str] | None = None
    ) -> None:
        target = self
        self.connections = 0
        self.requests: list[str] = []
        self.status, self.headers = status, headers or {}

        class Handler(BaseHTTPRequestHandler):
            def handle_one_request(self) -> None:
                super().handle_one_request()

            def _answer(self) -> None:
                target.requests.append(f"{self.command} {self.path}")
                body = SECRET_BODY.encode()
                self.send_response(target.status)
                for name, value in target.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PROPFIND = do_PUT = do_REPORT = do_OPTIONS = _answer  # noqa: N815 (http.server's names)

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

            def get_request(self) -> Any:
                target.connections += 1
                return super().get_request()

        self.server = Server((host, 0), Handler)
        port = self.server.server_address[1]
        self.url = f"http://[{host}]:{port}/dav/" if ":" in host else f"http://{host}:{port}/dav/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def target() -> Iterator[Target]:
    server = Target()
    yield server
    server.close()


@pytest.fixture
def client() -> Client:
    n = next(_people)
    client = Client()
    client.force_login(get_user_model().objects.create_user(f"guard{n}", f"guard{n}@example.com"))
    return client


def connect(client: Client, url: str) -> Any:
    return client.post(
        reverse("calendars:caldav_connect"), {"url": url, "username": "ann", "password": "app-password-1"}
    )


def assert_the_one_message(page: Any) -> None:
    text = page.content.decode()
    assert page.status_code == 400
    assert CALDAV_UNREACHABLE.replace("'", "&#x27;") in text
    assert "s3cr3t-b0dy" not in text
    assert "internal-admin-panel" not in text
    assert "Internal Server Error" not in text
    assert "Found" not in text
    assert not CalendarAccount.objects.exists()


def test_a_loopback_target_is_refused_with_nothing_sent(
    client: Client, target: Target, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    assert_the_one_message(connect(client, target.url))
    https = target.url.replace("http://", "https://")  # TLS does not make an internal address reachable
    assert_the_one_message(connect(client, https))
    assert target.connections == 0
    logged = [r.getMessage() for r in caplog.records if r.levelno > 10]
    assert any("outbound request refused" in line for line in logged)  # the operator learns why
    assert not any("127.0.0.1" in line or "app-password" in line for line in logged)  # not the target


def test_a_name_resolving_to_loopback_is_refused_with_nothing_sent(
    client: Client, target: Target, settings: Settings
) -> None:
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    url = target.url.replace("127.0.0.1", "localhost").replace("http://", "https://")
    assert_the_one_message(connect(client, url))
    assert target.connections == 0


def test_an_ipv6_loopback_target_is_refused_with_nothing_sent(client: Client, settings: Settings) -> None:
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    try:
        server = Target("::1")
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    try:
        assert_the_one_message(connect(client, server.url.replace("http://", "https://")))
        assert server.connections == 0
    finally:
        server.close()


@pytest.mark.parametrize(
    "address",
    [
        "0.0.0.0",
        "127.0.0.2",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.10",
        "169.254.169.254",  # a cloud's metadata service
        "100.64.0.1",
        "224.0.0.1",
        "[::]",
        "[fe80::1]",
        "[fd00::1]",
        "[::ffff:127.0.0.1]",
    ],
)
def test_internal_addresses_are_refused_before_any_connection(address: str, settings: Settings) -> None:
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    connecting: list[Any] = []
    original = socket.socket.connect

    def record(sock: socket.socket, where: Any) -> Any:
        connecting.append(where)
        return original(sock, where)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", record)
        with pytest.raises(ProviderError):
            DavConnection(f"https://{address}:8443/dav/", "ann", "pw").calendars()
    assert connecting == []


@pytest.mark.parametrize("url", ["ftp://files.example.org/", "file:///etc/passwd", "gopher://x.example/"])
def test_only_http_and_https_are_reached(url: str) -> None:
    with pytest.raises(outbound.OutboundRefusedError):
        outbound.check_url(url)


def test_plain_http_is_refused_outside_the_operators_networks(settings: Settings) -> None:
    settings.OUTBOUND_ALLOWED_NETWORKS = ["192.168.1.0/24"]
    with pytest.raises(outbound.OutboundRefusedError):
        outbound.check_url("http://93.184.215.14/dav/")  # a public address, credentials in the clear
    outbound.check_url("https://93.184.215.14/dav/")
    outbound.check_url("http://192.168.1.20:5232/")


def test_the_operator_can_allow_a_network(client: Client, target: Target, settings: Settings) -> None:
    """A Radicale on this machine or the home network: listed, it is reached (here it answers 500)."""
    settings.OUTBOUND_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    assert_the_one_message(connect(client, target.url))
    assert target.connections >= 1
    assert target.requests[0].startswith("PROPFIND /dav/")


def test_a_500_target_gets_the_one_message_and_none_of_its_words(client: Client, target: Target) -> None:
    assert_the_one_message(connect(client, target.url))  # development: loopback allowed
    assert target.requests


def test_a_302_without_a_place_to_go_is_the_one_message_not_a_500(client: Client) -> None:
    server = Target(status=302)
    try:
        assert_the_one_message(connect(client, server.url))
        assert server.requests
    finally:
        server.close()


def test_a_redirect_to_a_refused_address_is_not_followed(client: Client, settings: Settings) -> None:
    settings.OUTBOUND_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    inside = Target("127.0.0.2")  # loopback too, but not in the allowance
    outside = Target(status=302, headers={"Location": inside.url})
    try:
        assert_the_one_message(connect(client, outside.url))
        assert outside.requests
        assert inside.connections == 0
    finally:
        inside.close()
        outside.close()


def test_a_redirect_to_plain_http_on_the_internet_is_not_followed(
    client: Client, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The password would cross the internet in the clear: refused before connecting."""
    settings.OUTBOUND_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    outside = Target(status=301, headers={"Location": "http://93.184.215.14/dav/"})
    connecting: list[Any] = []
    original = socket.socket.connect

    def record(sock: socket.socket, where: Any) -> Any:
        connecting.append(where[0])
        return original(sock, where)

    monkeypatch.setattr(socket.socket, "connect", record)
    try:
        assert_the_one_message(connect(client, outside.url))
        assert outside.requests
        assert "93.184.215.14" not in connecting
    finally:
        outside.close()


def test_a_redirect_to_an_allowed_address_is_followed(client: Client, settings: Settings) -> None:
    settings.OUTBOUND_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    inside = Target("127.0.0.2")
    outside = Target(status=307, headers={"Location": inside.url})
    try:
        assert_the_one_message(connect(client, outside.url))  # the place it leads answers 500
        assert inside.requests
        assert inside.requests[0].startswith("PROPFIND /dav/")
    finally:
        inside.close()
        outside.close()


def test_an_answer_past_the_size_limit_is_dropped(target: Target, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbound, "MAX_BODY_BYTES", 10)
    with pytest.raises(ProviderError):
        DavConnection(target.url, "ann", "pw").calendars()
    assert target.requests


def test_reconnecting_goes_through_the_same_guard(client: Client, target: Target, settings: Settings) -> None:
    from skills import accounts

    owner = get_user_model().objects.create_user("reconnector")
    account = CalendarAccount.objects.create(
        owner=owner, kind=CalendarAccount.Kind.CALDAV, display_name="Mine"
    )
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    with pytest.raises(accounts.ConnectError, match="reach a CalDAV server"):
        accounts.reconnect_caldav(account, url=target.url, username="ann", password="pw")
    assert target.connections == 0
