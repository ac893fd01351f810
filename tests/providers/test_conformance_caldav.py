"""The CalDAV provider passes the shared conformance suite against a real Radicale server: on its
own and as callers get it (the router, which reads the mirror and hands writes to it)."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from skills.providers import provider_for
from skills.services import calendar_create, event_create
from tests.providers.caldav_fixtures import caldav_settings, connect
from tests.providers.conformance import ZONE, ProviderConformance, ProviderFactory
from tests.providers.radicale_server import DavUser, dav_user, radicale_server

__all__ = ["caldav_settings", "dav_user", "radicale_server"]

_others = itertools.count(1)


def _factory(dav: DavUser, through_router: bool) -> ProviderFactory:
    connected = connect(dav, zone=ZONE)
    user = connected.account.owner

    def make_busy(start: datetime, end: datetime) -> str:
        """Another user of this instance busy then (whom free/busy of other people asks about)."""
        n = next(_others)
        other = get_user_model().objects.create_user(f"davbusy{n}", f"davbusy{n}@example.com")
        theirs = calendar_create(owner=other, key="work", name="Work", timezone=ZONE, is_default=True)
        event_create(calendar=theirs, summary="Private matter", start=start, end=end, timezone=ZONE)
        return str(other.email)

    new: Any = (lambda: provider_for(user)) if through_router else connected.provider
    return ProviderFactory(new=new, calendar_id=str(connected.calendar.pk), make_busy=make_busy)


@pytest.mark.django_db
class TestCaldavConformance(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, db: None, dav_user: DavUser, caldav_settings: None) -> ProviderFactory:
        return _factory(dav_user, through_router=False)


@pytest.mark.django_db
class TestCaldavThroughTheRouter(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, db: None, dav_user: DavUser, caldav_settings: None) -> ProviderFactory:
        return _factory(dav_user, through_router=True)
