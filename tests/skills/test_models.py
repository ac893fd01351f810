"""The store's own rules: what validating an event row checks, and what it spares."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills import services
from skills.models import Event

NY = ZoneInfo("America/New_York")
pytestmark = pytest.mark.django_db


def _row(**keys: Any) -> Event:
    start = datetime(2026, 3, 3, 9, tzinfo=NY)
    return Event(summary="Standup", start=start, end=start, timezone="America/New_York", **keys)


def test_a_calendar_held_as_a_row_is_not_looked_up_again(django_user_model: Any) -> None:
    user = django_user_model.objects.create_user("sam", "sam@example.com")
    calendar = services.calendar_create(owner=user, key="work", name="Work", timezone="America/New_York")
    event = _row(calendar=calendar)

    with CaptureQueriesContext(connection) as captured:
        event.clean_fields()

    assert len(captured) == 0


def test_a_calendar_given_only_by_id_is_still_checked() -> None:
    with pytest.raises(ValidationError) as raised:
        _row(calendar_id=987654).clean_fields()

    assert "calendar" in raised.value.message_dict
