"""Helpers for CalDAV provider tests: settings with a credential key, an account connected to the
in-process Radicale server (see radicale_server.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from skills.crypto import generate_key
from skills.models import Calendar, CalendarAccount
from skills.providers.caldav import CaldavProvider, connect_account
from tests.providers.radicale_server import DavUser

__all__ = ["Connected", "caldav_settings", "connect"]

_people = itertools.count(1)


@pytest.fixture
def caldav_settings() -> Iterator[None]:
    """A credential key to encrypt app passwords with."""
    with override_settings(CREDENTIAL_KEYS=[generate_key()]):
        yield


@dataclass
class Connected:
    account: CalendarAccount
    calendar: Calendar  # the mirror of the user's "work" calendar
    home: Calendar

    def provider(self) -> CaldavProvider:
        return CaldavProvider(self.account.owner)


def connect(dav: DavUser, *, zone: str = "America/New_York") -> Connected:
    """A user of this instance with ``dav``'s account connected (its calendars discovered)."""
    n = next(_people)
    user = get_user_model().objects.create_user(f"dav{n}", f"dav{n}@example.com")
    account = connect_account(
        owner=user, url=dav.server.url, username=dav.name, password=dav.password, display_name="Radicale"
    )
    calendars = {c.remote_id: c for c in account.calendars.all()}
    work, home = calendars[dav.calendars["work"]], calendars[dav.calendars["home"]]
    Calendar.objects.filter(account=account).update(timezone=zone)
    Calendar.objects.filter(pk=work.pk).update(is_default=True)
    work.refresh_from_db()
    home.refresh_from_db()
    return Connected(account=account, calendar=work, home=home)
