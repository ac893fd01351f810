"""Settings → Calendars as a whole: signed-in only, one user never sees or touches another's accounts,
CSRF on every change, the Google mirror keeps out calendars not read, built-in calendars in the picker."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from skills.models import Calendar, CalendarAccount, Event
from tests.factories import user_with_calendar
from tests.providers.google_fixtures import connect, google_server, google_settings
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["google_server", "google_settings"]

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("google_settings")]


def signed_in(user: Any, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def test_the_pages_need_signing_in(google_server: GoogleCalendarServer) -> None:
    account = connect(google_server, "anon").account
    client = Client()
    for url in (
        reverse("calendars:page"),
        reverse("calendars:caldav_connect"),
        reverse("calendars:google_callback"),
        reverse("calendars:disconnect", args=[account.pk]),
        reverse("calendars:reconnect", args=[account.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    response = client.post(reverse("calendars:disconnect", args=[account.pk]))
    assert response.status_code == 302
    assert CalendarAccount.objects.filter(pk=account.pk).exists()


def test_another_users_account_is_a_404_everywhere(google_server: GoogleCalendarServer) -> None:
    theirs = connect(google_server, "owner1")
    mine = connect(google_server, "intruder1")
    client = signed_in(mine.user)
    page = client.get(reverse("calendars:page"))
    assert theirs.account.display_name not in page.content.decode()
    for name in ("sync", "disconnect", "reconnect"):
        url = reverse(f"calendars:{name}", args=[theirs.account.pk])
        assert client.get(url).status_code in (404, 405), name
        assert client.post(url).status_code == 404, name
    assert CalendarAccount.objects.filter(pk=theirs.account.pk).exists()
    # Their calendars cannot be picked: unknown fields are ignored, an unknown default refused.
    theirs_calendar = theirs.calendar
    response = client.post(
        reverse("calendars:choices"),
        {
            f"c{mine.calendar.pk}-read": "on",
            f"c{mine.calendar.pk}-write": "on",
            "default": str(theirs_calendar.pk),
        },
    )
    assert response.status_code == 400
    response = client.post(reverse("calendars:choices"), {f"c{mine.calendar.pk}-read": "on"})
    assert response.status_code == 302
    assert Calendar.objects.filter(pk=theirs_calendar.pk, writable=True).exists()
    # A consent started by someone else's reconnect cannot be slipped into the session either.
    session = client.session
    session["google_consent"] = {
        "state": "s",
        "code_verifier": "v",
        "redirect_uri": "r",
        "account": theirs.account.pk,
    }
    session.save()
    assert client.get(reverse("calendars:google_callback"), {"state": "s", "code": "c"}).status_code == 404


def test_every_change_needs_the_csrf_token(google_server: GoogleCalendarServer) -> None:
    mine = connect(google_server, "csrf1")
    client = signed_in(mine.user, enforce_csrf_checks=True)
    for url in (
        reverse("calendars:sync", args=[mine.account.pk]),
        reverse("calendars:disconnect", args=[mine.account.pk]),
        reverse("calendars:choices"),
        reverse("calendars:google_connect"),
        reverse("calendars:caldav_connect"),
    ):
        assert client.post(url).status_code == 403, url
    assert CalendarAccount.objects.filter(pk=mine.account.pk).exists()
    text = client.get(reverse("calendars:page")).content.decode()
    assert text.count('method="post"') == text.count("csrfmiddlewaretoken") == 3  # connect, sync, choices


def test_a_google_calendar_not_read_stays_out_of_the_mirror(google_server: GoogleCalendarServer) -> None:
    mine = connect(google_server, "picky1")
    email = mine.calendar.remote_id
    team = google_server.add_calendar(account=email, summary="Team")
    google_server.seed_event(
        {
            "summary": "Retro",
            "start": {"dateTime": "2026-03-04T10:00:00Z", "timeZone": "UTC"},
            "end": {"dateTime": "2026-03-04T11:00:00Z", "timeZone": "UTC"},
        },
        team,
    )
    mine.sync()
    team_row = Calendar.objects.get(account=mine.account, remote_id=team)
    assert Event.objects.filter(calendar=team_row, summary="Retro").exists()
    client = signed_in(mine.user)
    response = client.post(
        reverse("calendars:choices"), {f"c{mine.calendar.pk}-read": "on", f"c{mine.calendar.pk}-write": "on"}
    )
    assert response.status_code == 302
    assert not Calendar.objects.filter(remote_id=team).exists()
    assert not Event.objects.filter(summary="Retro").exists()
    google_server.reset_log()
    client.post(reverse("calendars:sync", args=[mine.account.pk]))
    assert not Calendar.objects.filter(remote_id=team).exists()
    assert not any(entry.path.endswith(f"{team}/events") for entry in google_server.log)  # not even listed

    # Read again: listed from scratch (its old sync token was dropped), so Retro comes back.
    page = client.get(reverse("calendars:page"))
    prefix = next(c.prefix for s in page.context["form"].summaries for c in s.choices if not c.read)
    page = client.post(
        reverse("calendars:choices"),
        {f"c{mine.calendar.pk}-read": "on", f"c{mine.calendar.pk}-write": "on", f"{prefix}-read": "on"},
        follow=True,
    )
    assert "1 event changed" in page.content.decode()
    assert Event.objects.filter(calendar__remote_id=team, summary="Retro").count() == 1


def test_built_in_calendars_are_in_the_picker_for_the_default(google_server: GoogleCalendarServer) -> None:
    user, work = user_with_calendar("builtin1")
    client = signed_in(user)
    page = client.get(reverse("calendars:page"))
    text = page.content.decode()
    assert page.status_code == 200
    assert "Built-in calendars" in text
    assert "Work" in text
    assert f'name="c{work.pk}-read"' not in text  # always read
    assert f'value="{work.pk}" form="calendar-choices"' in text
    assert "checked" in text
    response = client.post(reverse("calendars:choices"), {"default": str(work.pk)})
    assert response.status_code == 400  # a default the assistant may not change
    response = client.post(reverse("calendars:choices"), {f"c{work.pk}-write": "on", "default": str(work.pk)})
    assert response.status_code == 302
    work.refresh_from_db()
    assert work.is_default
    assert work.writable


def test_the_preferences_page_links_here() -> None:
    client = signed_in(get_user_model().objects.create_user("linker", "linker@example.com"))
    page = client.get(reverse("preferences:settings"))
    assert reverse("calendars:page") in page.content.decode()
    page = client.get(reverse("calendars:page"))
    assert page.status_code == 200
    assert "You have no calendars yet" in page.content.decode()
