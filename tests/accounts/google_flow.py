"""Driving the Google consent as a browser would: the site's Connect button, the loopback server's
consent stand-in (which redirects back with a code), then the site's callback through the test client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests
from django.test import Client, override_settings
from django.urls import reverse

from tests.providers.google_fixtures import KEY, google_server
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["authorize", "callback", "consent_settings", "google_server", "start"]


@pytest.fixture
def consent_settings(google_server: GoogleCalendarServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The site's OAuth client is the loopback server's; oauthlib allows its plain http."""
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")
    google_server.clear_faults()
    with override_settings(
        GOOGLE_API_ENDPOINT=google_server.api_endpoint,
        GOOGLE_AUTH_URI=google_server.auth_uri,
        GOOGLE_TOKEN_URI=google_server.token_uri,
        GOOGLE_CLIENT_ID=google_server.client_id,
        GOOGLE_CLIENT_SECRET=google_server.client_secret,
        CREDENTIAL_KEYS=[KEY],
    ):
        yield


def start(client: Client, url: str | None = None) -> str:
    """Press Connect (or follow a Reconnect link): the consent page's URL the site redirects to."""
    response = client.post(reverse("calendars:google_connect")) if url is None else client.get(url)
    assert response.status_code == 302, response
    return str(response["Location"])


def authorize(consent_url: str) -> tuple[str, dict[str, str]]:
    """The browser at Google's consent page: where it is sent back to, and with what query."""
    answer = requests.get(consent_url, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, answer.text
    back = urlsplit(answer.headers["Location"])
    return back.path, dict(parse_qsl(back.query))


def callback(client: Client, path: str, query: dict[str, str], **changes: Any) -> Any:
    """The browser arriving back at the site (with ``changes`` made to the query), redirects followed."""
    return client.get(path, {**query, **changes}, follow=True)
