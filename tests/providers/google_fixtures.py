"""Shared set-up for the Google provider's tests: a loopback server, settings pointing at it, and a
user with a connected account whose calendars have been mirrored once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth import get_user_model
from django.test import override_settings

from skills.models import Calendar, CalendarAccount
from skills.providers.google import GoogleProvider
from skills.providers.google.sync import sync_account
from tests.providers.google_server import GoogleCalendarServer

KEY = Fernet.generate_key().decode()


@dataclass
class Connected:
    server: GoogleCalendarServer
    user: Any
    account: CalendarAccount
    calendar: Calendar
    refresh_token: str

    def provider(self) -> GoogleProvider:
        return GoogleProvider(self.user)

    def sync(self, **kwargs: Any) -> Any:
        self.account.refresh_from_db()
        return sync_account(self.account, **kwargs)


@pytest.fixture(scope="module")
def google_server() -> Iterator[GoogleCalendarServer]:
    with GoogleCalendarServer(account="sam@gmail.example", time_zone="America/New_York") as server:
        yield server


@pytest.fixture
def google_settings(google_server: GoogleCalendarServer) -> Iterator[None]:
    google_server.clear_faults()
    with override_settings(
        GOOGLE_API_ENDPOINT=google_server.api_endpoint,
        GOOGLE_TOKEN_URI=google_server.token_uri,
        GOOGLE_CLIENT_ID=google_server.client_id,
        GOOGLE_CLIENT_SECRET=google_server.client_secret,
        CREDENTIAL_KEYS=[KEY],
        CALENDAR_PROVIDERS={
            "local": "skills.providers.local.LocalProvider",
            "google": "skills.providers.google.GoogleProvider",
        },
    ):
        yield


def connect(server: GoogleCalendarServer, username: str, *, time_zone: str = "America/New_York") -> Connected:
    """A user with a Google account of their own on ``server`` (one empty calendar), synced once."""
    email = f"{username}@gmail.example"
    server.add_account(email, time_zone=time_zone, summary=f"{username} personal")
    user = get_user_model().objects.create_user(username, f"{username}@example.com")
    refresh = server.issue_refresh_token(email)
    account = CalendarAccount(owner=user, kind=CalendarAccount.Kind.GOOGLE, display_name=email)
    account.credentials = {"refresh_token": refresh}
    account.save()
    sync_account(account)
    calendar = Calendar.objects.get(account=account, remote_id=email)
    return Connected(server, user, account, calendar, refresh)
