"""The Content-Security-Policy header, and pages that live within it: no inline script or style anywhere.

A policy without ``'unsafe-inline'`` only protects if the pages need none: an inline ``<script>``, an
``on…=`` handler or a ``style=`` attribute would be blocked by the browser and break the page, so every
page the app renders (and the admin's) is read here for them.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from assistant.models import Message
from assistant.services import conversation_create

pytestmark = pytest.mark.django_db

STATIC = Path(__file__).resolve().parents[2] / "assistant" / "static" / "assistant"
HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(2)><p style='color:red'>"


def policy(response: Any) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{response.request['PATH_INFO']} has no Content-Security-Policy header"
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


class InlineFinder(HTMLParser):
    """What a strict policy would block in a page: inline scripts, inline styles, handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.blocked: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script":
            data_block = (names.get("type") or "").lower() == "application/json"  # data, never run
            if "src" not in names and not data_block:
                self.blocked.append(f"inline <script {names}>")
        if tag == "style":
            self.blocked.append("<style> element")
        for name, value in attrs:
            if name == "style":
                self.blocked.append(f"style attribute on <{tag}>: {value}")
            if name.startswith("on"):
                self.blocked.append(f"{name} handler on <{tag}>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.blocked.append(f"javascript: URL on <{tag}>")


def inline(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.blocked


@pytest.fixture
def ada(client: Client) -> Any:
    user = get_user_model().objects.create_user(username="ada", password="correct horse battery")
    client.force_login(user)
    return user


def test_the_policy_is_strict() -> None:
    directives = policy(Client().get(reverse("login")))

    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert directives["img-src"] == ["'self'", "data:"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["base-uri"] == ["'self'"]
    assert directives["form-action"] == ["'self'"]
    # The chat's websocket: 'self', and this very host spelt out for browsers before CSP3.
    assert directives["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]
    assert not any("unsafe" in value for values in directives.values() for value in values)


def test_over_https_only_the_secure_socket_is_named() -> None:
    response = Client().get(reverse("login"), secure=True)
    assert policy(response)["connect-src"] == ["'self'", "wss://testserver"]


def test_a_host_outside_allowed_hosts_is_never_named() -> None:
    response = Client(HTTP_HOST="evil.example").get(reverse("login"))
    assert response.status_code == 400
    assert "evil.example" not in response.headers.get("Content-Security-Policy", "")


def test_the_chat_page_has_the_header_and_no_inline_script_even_with_hostile_history(
    client: Client, ada: Any
) -> None:
    conversation = conversation_create(user=ada)
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text=HOSTILE)
    conversation.title = HOSTILE
    conversation.save(update_fields=["title"])

    response = client.get(reverse("conversation", kwargs={"conversation_id": conversation.pk}))

    assert response.status_code == 200
    assert policy(response)["script-src"] == ["'self'"]
    html = response.content.decode()
    assert inline(html) == []
    assert re.search(r'<script src="/static/assistant/chat\.js[^"]*" defer>', html)
    assert '<script id="chat-history" type="application/json">' in html  # data, which CSP leaves alone


@pytest.mark.parametrize("name", ["login", "chat", "preferences:settings"])
def test_every_page_of_the_app_carries_the_header_and_nothing_inline(
    client: Client, ada: Any, name: str
) -> None:
    if name == "login":
        client.logout()
    response = client.get(reverse(name), follow=True)

    assert response.status_code == 200
    assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"]
    assert inline(response.content.decode()) == []


def test_the_lockout_page_has_nothing_inline() -> None:
    get_user_model().objects.create_user(username="ada", password="correct horse battery")
    browser = Client()
    for n in range(6):
        response = browser.post(reverse("login"), {"username": "ada", "password": f"wrong {n}"})
    assert response.status_code == 429
    assert policy(response)["script-src"] == ["'self'"]
    assert inline(response.content.decode()) == []


def test_the_admin_works_within_the_policy(client: Client) -> None:
    admin = get_user_model().objects.create_superuser(username="root", password="an admin passphrase")
    conversation = conversation_create(user=admin)
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text=HOSTILE)
    client.force_login(admin)
    pages = [
        reverse("admin:index"),
        reverse("admin:assistant_conversation_changelist"),
        reverse("admin:assistant_conversation_change", args=[conversation.pk]),
        reverse("admin:auth_user_changelist"),
        reverse("admin:auth_user_change", args=[admin.pk]),
        reverse("admin:auth_user_add"),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"]
        assert inline(response.content.decode()) == [], url


def test_the_static_script_writes_no_markup_or_inline_style() -> None:
    """The chat script builds its DOM with createElement and textContent: nothing a policy blocks."""
    script = (STATIC / "chat.js").read_text()
    blocked = (
        r"\.innerHTML\s*=",
        r"insertAdjacentHTML",
        r"\beval\(",
        r"new Function",
        r"setAttribute\(\s*['\"]style",
    )
    for pattern in blocked:
        assert not re.search(pattern, script), pattern


def test_the_stylesheets_exist_where_the_pages_link_them(client: Client, ada: Any) -> None:
    html = client.get(reverse("preferences:settings")).content.decode()
    for href in re.findall(r'<link rel="stylesheet" href="/static/assistant/([\w.-]+)"', html):
        assert (STATIC / href).is_file(), href
    assert "settings.css" in html


@pytest.mark.parametrize("path", ["/static/assistant/chat.js", "/static/admin/css/base.css"])
def test_static_files_carry_the_pages_security_headers(settings: Any, path: str) -> None:
    """WhiteNoise answers before the CSP and X-Frame-Options middlewares; the headers come all the same."""
    settings.WHITENOISE_USE_FINDERS = True  # served from the apps, as in development, no collectstatic
    settings.WHITENOISE_AUTOREFRESH = True
    response = Client().get(path)
    assert response.status_code == 200
    assert policy(response)["frame-ancestors"] == ["'none'"]
    assert policy(response)["script-src"] == ["'self'"]
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"
