"""The built-in store passes the provider conformance suite, on its own and as callers get it.

``TestLocalConformance`` runs the suite against :class:`~skills.providers.local.LocalProvider`;
``TestBuiltInThroughTheRouter`` against :func:`skills.providers.provider_for`, the router every
caller uses, over built-in calendars: it must behave exactly as the store it routes to.
"""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from skills.providers import provider_for
from skills.providers.local import LocalProvider
from skills.services import calendar_create, event_create
from tests.providers.conformance import ZONE, ProviderConformance, ProviderFactory


def _factory(make: Any) -> ProviderFactory:
    user = get_user_model().objects.create_user("sam", "sam@example.com")
    calendar = calendar_create(owner=user, key="work", name="Work", timezone=ZONE, is_default=True)
    numbers = itertools.count(1)

    def make_busy(start: datetime, end: datetime) -> str:
        """Another user of this instance with an event then: whom the built-in store knows."""
        n = next(numbers)
        other = get_user_model().objects.create_user(f"busy{n}", f"busy{n}@example.com")
        theirs = calendar_create(owner=other, key="work", name="Work", timezone=ZONE, is_default=True)
        event_create(calendar=theirs, summary="Private matter", start=start, end=end, timezone=ZONE)
        return str(other.email)

    return ProviderFactory(new=lambda: make(user), calendar_id=str(calendar.pk), make_busy=make_busy)


@pytest.mark.django_db
class TestLocalConformance(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, db: None) -> ProviderFactory:
        return _factory(LocalProvider)


@pytest.mark.django_db
class TestBuiltInThroughTheRouter(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, db: None) -> ProviderFactory:
        return _factory(provider_for)
