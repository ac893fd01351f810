"""Connecting Google Calendar from Settings → Calendars: the real google-auth-oauthlib Flow against the
loopback Google server (its consent stand-in signs in ``consent_account``), the callback through
Django's test client.  Tokens stored encrypted, state and PKCE checked, a refusal stores nothing, a
reconnect renews the same account."""

from __future__ import annotations

import itertools
import logging
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse

from skills.models import Calendar, CalendarAccount, Event
from skills.providers.google import oauth
from skills.providers.google.client import SCOPES
from tests.accounts.google_flow import authorize, callback, consent_settings, google_server, start
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["consent_settings", "google_server"]

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("consent_settings")]

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("America/New_York"))
_people = itertools.count(1)


@pytest.fixture(autouse=True)
def _clock() -> Any:
    with time_machine.travel(NOW, tick=True):
        yield


@pytest.fixture
def person(google_server: GoogleCalendarServer) -> tuple[Client, str]:
    """A signed-in user of the site and the Google account they will consent as (with one event)."""
    n = next(_people)
    email = f"g{n}@gmail.example"
    google_server.add_account(email, time_zone="America/New_York", summary=f"G{n} personal")
    google_server.add_calendar(f"team{n}@group.calendar.google.example", account=email, summary="Team")
    google_server.seed_event(
        {
            "summary": "Dentist",
            "start": {"dateTime": "2026-03-04T10:00:00-05:00", "timeZone": "America/New_York"},
            "end": {"dateTime": "2026-03-04T11:00:00-05:00", "timeZone": "America/New_York"},
        },
        email,
    )
    google_server.consent_account = email
    client = Client()
    client.force_login(get_user_model().objects.create_user(f"guser{n}", f"guser{n}@example.com"))
    return client, email


def connect(client: Client) -> Any:
    path, query = authorize(start(client))
    return callback(client, path, query)


def test_connect_asks_offline_consent_with_pkce_and_stores_the_grant_encrypted(
    google_server: GoogleCalendarServer, person: tuple[Client, str], caplog: pytest.LogCaptureFixture
) -> None:
    client, email = person
    caplog.set_level(logging.DEBUG)
    consent_url = start(client)
    asked = dict(parse_qsl(urlsplit(consent_url).query))
    assert consent_url.startswith(google_server.auth_uri)
    assert asked["access_type"] == "offline"
    assert asked["prompt"] == "consent"
    assert asked["include_granted_scopes"] == "true"
    assert asked["scope"].split() == SCOPES
    assert asked["code_challenge_method"] == "S256"
    assert asked["code_challenge"]
    assert asked["redirect_uri"] == "http://testserver" + reverse("calendars:google_callback")
    # The verifier stays on the server: the browser only ever sees its hash.
    kept = client.session["google_consent"]
    assert kept["state"] == asked["state"]
    assert kept["code_verifier"] not in consent_url

    path, query = authorize(consent_url)
    page = callback(client, path, query)

    account = CalendarAccount.objects.get(owner=page.context["user"])
    assert page.redirect_chain[-1][0].endswith(f"#account-{account.pk}")  # the picker
    assert (account.kind, account.display_name, account.status) == ("google", email, "ok")
    stored = account.credentials
    assert stored["refresh_token"].startswith("1//")
    assert stored["token"].startswith("ya29.")
    assert stored["scopes"] == SCOPES
    assert stored["expiry"]
    for secret in (stored["refresh_token"], stored["token"], kept["code_verifier"]):
        assert secret not in account.encrypted_credentials
        assert secret not in page.content.decode()
        assert secret not in caplog.text
    assert "google_consent" not in client.session  # used once
    # The first sync ran: both calendars and the event are in the mirror.
    assert set(Calendar.objects.filter(account=account).values_list("name", flat=True)) == {
        f"{email.split('@')[0].upper()} personal",
        "Team",
    }
    assert Event.objects.filter(calendar__account=account, summary="Dentist").count() == 1
    assert "Team" in page.content.decode()
    assert "Connected" in page.content.decode()


def test_a_forged_or_stale_state_is_refused_and_nothing_stored(person: tuple[Client, str]) -> None:
    client, _ = person
    path, query = authorize(start(client))
    page = callback(client, path, query, state="forged")
    assert "does not belong to the connection started here" in page.content.decode()
    assert not CalendarAccount.objects.exists()
    # The real code cannot be replayed afterwards: the consent was used up by the refusal.
    page = callback(client, path, query)
    assert "No Google connection was under way" in page.content.decode()
    assert not CalendarAccount.objects.exists()


def test_the_code_is_worthless_without_the_verifier_kept_in_the_session(person: tuple[Client, str]) -> None:
    client, _ = person
    path, query = authorize(start(client))
    session = client.session
    session["google_consent"] = {**session["google_consent"], "code_verifier": "x" * 64}
    session.save()
    page = callback(client, path, query)
    assert "Google refused to complete the connection (invalid_grant)" in page.content.decode()
    assert not CalendarAccount.objects.exists()


def test_a_grant_without_the_calendar_scope_stores_nothing(
    person: tuple[Client, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As when the user unticks Google Calendar on the consent page: another scope comes back."""
    client, _ = person
    with monkeypatch.context() as patch:
        patch.setattr(oauth, "SCOPES", ["https://www.googleapis.com/auth/calendar.readonly"])
        path, query = authorize(start(client))
    page = callback(client, path, query)
    assert "Google did not grant access to your calendars" in page.content.decode()
    assert not CalendarAccount.objects.exists()


def test_denied_consent_stores_nothing(
    google_server: GoogleCalendarServer, person: tuple[Client, str]
) -> None:
    client, _ = person
    google_server.deny_next_consent()
    path, query = authorize(start(client))
    assert query["error"] == "access_denied"
    assert "code" not in query
    page = callback(client, path, query)
    assert page.status_code == 200
    assert "You did not allow access to your Google Calendar" in page.content.decode()
    assert not CalendarAccount.objects.exists()


def test_reconnect_renews_the_same_account(
    google_server: GoogleCalendarServer, person: tuple[Client, str]
) -> None:
    client, email = person
    connect(client)
    account = CalendarAccount.objects.get()
    old_grant = account.credentials["refresh_token"]
    google_server.revoke_refresh_token(account=email)

    page = client.post(reverse("calendars:sync", args=[account.pk]), follow=True)
    account.refresh_from_db()
    assert account.status == CalendarAccount.Status.NEEDS_RECONNECT
    assert "revoked" in account.last_error
    text = page.content.decode()
    assert page.status_code == 200
    assert "Needs reconnecting" in text
    assert "could not be synced" in text
    reconnect = reverse("calendars:reconnect", args=[account.pk])
    assert f'href="{reconnect}"' in text

    path, query = authorize(start(client, reconnect))
    page = callback(client, path, query)
    assert "Reconnected" in page.content.decode()
    account.refresh_from_db()
    assert CalendarAccount.objects.count() == 1
    assert (account.status, account.last_error) == ("ok", "")
    assert account.credentials["refresh_token"] != old_grant
    assert Calendar.objects.filter(account=account).count() == 2  # the same mirror, not a second one


def test_reconnect_signed_in_as_another_google_account_changes_nothing(
    google_server: GoogleCalendarServer, person: tuple[Client, str]
) -> None:
    client, email = person
    connect(client)
    account = CalendarAccount.objects.get()
    CalendarAccount.objects.filter(pk=account.pk).update(status="needs_reconnect", last_error="revoked")
    before = account.encrypted_credentials
    google_server.consent_account = google_server.add_account(f"other-{email}")
    path, query = authorize(start(client, reverse("calendars:reconnect", args=[account.pk])))
    page = callback(client, path, query)
    assert f"You signed in to Google as other-{email}" in page.content.decode()
    account.refresh_from_db()
    assert account.status == "needs_reconnect"
    assert account.encrypted_credentials == before


def test_connecting_the_same_google_account_again_renews_it(person: tuple[Client, str]) -> None:
    client, _ = person
    connect(client)
    connect(client)
    assert CalendarAccount.objects.count() == 1
    assert Calendar.objects.count() == 2


def test_without_a_client_id_the_page_says_what_the_operator_must_set(person: tuple[Client, str]) -> None:
    client, _ = person
    with override_settings(GOOGLE_CLIENT_ID="", GOOGLE_CLIENT_SECRET=""):
        page = client.get(reverse("calendars:page"))
        assert page.status_code == 200
        text = page.content.decode()
        assert "Connect Google Calendar" not in text
        assert "GOOGLE_CLIENT_ID" in text
        assert "http://testserver/settings/calendars/google/callback/" in text
        page = client.post(reverse("calendars:google_connect"), follow=True)
    assert page.status_code == 200
    assert "GOOGLE_CLIENT_SECRET" in page.content.decode()
    assert "google_consent" not in client.session


def test_without_credential_keys_connecting_says_how_to_make_one(person: tuple[Client, str]) -> None:
    client, _ = person
    with override_settings(CREDENTIAL_KEYS=[]):
        page = client.post(reverse("calendars:google_connect"), follow=True)
    text = page.content.decode()
    assert page.status_code == 200
    assert "CREDENTIAL_KEYS" in text
    assert "Fernet.generate_key()" in text
    assert "google_consent" not in client.session
    assert not CalendarAccount.objects.exists()
