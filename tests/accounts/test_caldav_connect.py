"""Connecting a CalDAV server from Settings → Calendars against the real Radicale: the form, its
refusals (the password never sent back), the picker, Sync now, reconnecting and disconnecting."""

from __future__ import annotations

import itertools
import socket
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import niquests
import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from skills.models import Calendar, CalendarAccount, Event
from tests.providers.caldav_fixtures import caldav_settings
from tests.providers.radicale_server import DavUser, dav_user, radicale_server

__all__ = ["caldav_settings", "dav_user", "radicale_server"]

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("caldav_settings")]

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)
_people = itertools.count(1)

LUNCH = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:{uid}
DTSTAMP:20260301T120000Z
DTSTART:20260305T170000Z
DTEND:20260305T180000Z
SUMMARY:{summary}
END:VEVENT
END:VCALENDAR
"""


@pytest.fixture(autouse=True)
def _clock() -> Any:
    with time_machine.travel(NOW, tick=True):
        yield


@pytest.fixture
def client() -> Client:
    n = next(_people)
    client = Client()
    client.force_login(get_user_model().objects.create_user(f"cuser{n}", f"cuser{n}@example.com"))
    return client


def put(dav: DavUser, slug: str, uid: str, summary: str) -> None:
    """Another device writing to the server."""
    body = LUNCH.format(uid=uid, summary=summary).replace("\n", "\r\n").encode()
    response = niquests.put(
        f"{dav.calendars[slug]}{uid}.ics",
        data=body,
        auth=(dav.name, dav.password),
        headers={"Content-Type": "text/calendar"},
    )
    assert response.status_code in (201, 204)


def connect(client: Client, dav: DavUser, **fields: str) -> Any:
    data = {"url": dav.server.url, "username": dav.name, "password": dav.password, "display_name": "Radicale"}
    return client.post(reverse("calendars:caldav_connect"), {**data, **fields}, follow=True)


def test_connect_discovers_calendars_stores_the_password_encrypted_and_lands_on_the_picker(
    client: Client, dav_user: DavUser
) -> None:
    put(dav_user, "work", "lunch-1", "Lunch with Ann")
    page = connect(client, dav_user)
    account = CalendarAccount.objects.get()
    assert page.redirect_chain[-1][0].endswith(f"#account-{account.pk}")
    assert (account.kind, account.display_name, account.status) == ("caldav", "Radicale", "ok")
    assert account.credentials["password"] == dav_user.password
    assert dav_user.password not in account.encrypted_credentials
    text = page.content.decode()
    assert dav_user.password not in text
    assert "Work" in text
    assert "Home" in text
    assert "1 event changed" in text
    assert Event.objects.filter(calendar__account=account, summary="Lunch with Ann").count() == 1
    assert page.context["user"] == account.owner


def test_a_wrong_password_is_refused_keeping_what_was_typed_but_the_password(
    client: Client, dav_user: DavUser
) -> None:
    page = connect(client, dav_user, password="not-the-password")
    text = page.content.decode()
    assert page.status_code == 400
    assert "The server refused that user name or password" in text
    assert f'value="{dav_user.server.url}"' in text
    assert f'value="{dav_user.name}"' in text
    assert "not-the-password" not in text
    assert not CalendarAccount.objects.exists()


def test_an_unreachable_server_says_so(client: Client) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    page = client.post(
        reverse("calendars:caldav_connect"),
        {"url": f"http://127.0.0.1:{port}/", "username": "ann", "password": "secret-pw"},
    )
    text = page.content.decode()
    assert page.status_code == 400
    assert "reach a CalDAV server at that address" in text
    assert "secret-pw" not in text
    assert not CalendarAccount.objects.exists()


def test_the_picker_saves_what_may_be_read_and_changed_and_the_default(
    client: Client, dav_user: DavUser
) -> None:
    put(dav_user, "home", "gym-1", "Gym")
    connect(client, dav_user)
    account = CalendarAccount.objects.get()
    work = Calendar.objects.get(account=account, name="Work")
    home = Calendar.objects.get(account=account, name="Home")
    assert Event.objects.filter(calendar=home).count() == 1
    choices = reverse("calendars:choices")

    # The default has to be a calendar the assistant may change: nothing is saved.
    page = client.post(choices, {f"c{work.pk}-read": "on", f"c{home.pk}-read": "on", "default": str(work.pk)})
    assert page.status_code == 400
    assert "has to be allowed to change it" in page.content.decode()
    work.refresh_from_db()
    assert work.writable
    assert not work.is_default

    # Work read and changed, the default; Home not read at all.
    page = client.post(
        choices, {f"c{work.pk}-read": "on", f"c{work.pk}-write": "on", "default": str(work.pk)}
    )
    assert page.status_code == 302
    work.refresh_from_db()
    assert work.is_default
    assert work.writable
    assert not Calendar.objects.filter(pk=home.pk).exists()
    assert not Event.objects.filter(summary="Gym").exists()
    account.refresh_from_db()
    assert dav_user.calendars["home"] in account.sync_state["unread"]

    # Sync now leaves it out; the picker still offers it, unticked.
    client.post(reverse("calendars:sync", args=[account.pk]))
    assert not Calendar.objects.filter(account=account, name="Home").exists()
    page = client.get(reverse("calendars:page"))
    assert "Home" in page.content.decode()
    assert "(not read)" in page.content.decode()

    # Work read only; Home read again (read only), its events synced back at once.
    prefix = next(c.prefix for s in page.context["form"].summaries for c in s.choices if not c.read)
    page = client.post(
        choices, {f"c{work.pk}-read": "on", f"c{work.pk}-write": "on", f"{prefix}-read": "on"}, follow=True
    )
    assert "Synced Radicale: 1 event changed" in page.content.decode()
    home = Calendar.objects.get(account=account, name="Home")
    assert not home.writable
    assert Event.objects.filter(calendar=home, summary="Gym").count() == 1
    account.refresh_from_db()
    assert account.sync_state["unread"] == {}


def test_sync_now_shows_how_many_events_changed_and_when(client: Client, dav_user: DavUser) -> None:
    connect(client, dav_user)
    account = CalendarAccount.objects.get()
    put(dav_user, "work", "lunch-2", "Lunch with Raj")
    put(dav_user, "home", "lunch-3", "Lunch with Mom")
    with time_machine.travel(datetime(2026, 3, 2, 9, 30, tzinfo=NY), tick=False):
        page = client.post(reverse("calendars:sync", args=[account.pk]), follow=True)
        assert "Synced Radicale: 2 events changed." in page.content.decode()
    with time_machine.travel(datetime(2026, 3, 2, 9, 50, tzinfo=NY), tick=False):
        page = client.get(reverse("calendars:page"))
    assert "Last synced 20\xa0minutes ago" in page.content.decode()


def test_a_refused_password_needs_reconnecting_and_reconnect_restores_it(
    client: Client, dav_user: DavUser
) -> None:
    connect(client, dav_user)
    account = CalendarAccount.objects.get()
    account.credentials = {**account.credentials, "password": "changed-elsewhere"}
    account.save()
    page = client.post(reverse("calendars:sync", args=[account.pk]), follow=True)
    account.refresh_from_db()
    assert account.status == "needs_reconnect"
    text = page.content.decode()
    assert page.status_code == 200
    assert "Needs reconnecting" in text
    assert "refused" in text

    reconnect = reverse("calendars:reconnect", args=[account.pk])
    form = client.get(reconnect)
    text = form.content.decode()
    assert f'value="{dav_user.name}"' in text
    assert "changed-elsewhere" not in text
    page = client.post(reconnect, {"url": dav_user.server.url, "username": dav_user.name, "password": "nope"})
    assert page.status_code == 400
    assert "The server refused that user name or password" in page.content.decode()
    page = client.post(
        reconnect, {"url": dav_user.server.url, "username": dav_user.name, "password": dav_user.password}
    )
    assert page.status_code == 302
    account.refresh_from_db()
    assert (account.status, account.last_error) == ("ok", "")
    assert account.credentials["password"] == dav_user.password


def test_disconnect_asks_first_then_removes_the_mirror_but_nothing_on_the_server(
    client: Client, dav_user: DavUser
) -> None:
    put(dav_user, "work", "lunch-4", "Lunch with Zoe")
    connect(client, dav_user)
    account = CalendarAccount.objects.get()
    url = reverse("calendars:disconnect", args=[account.pk])
    confirm = client.get(url)
    assert confirm.status_code == 200
    assert "Nothing is changed in CalDAV" in confirm.content.decode()
    assert CalendarAccount.objects.exists()  # asking is not doing

    page = client.post(url, follow=True)
    assert "its 2 calendars and 1 event were removed from here" in page.content.decode()
    assert not CalendarAccount.objects.exists()
    assert not Calendar.objects.exists()
    assert not Event.objects.exists()
    still = niquests.get(f"{dav_user.calendars['work']}lunch-4.ics", auth=(dav_user.name, dav_user.password))
    assert still.status_code == 200
    assert "Lunch with Zoe" in (still.text or "")
