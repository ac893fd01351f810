"""Users with a calendar, as most tests start: one place that knows how a user is set up."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model

from assistant.models import Conversation
from assistant.services import conversation_create
from preferences.services import preference_set
from skills.models import Calendar
from skills.services import calendar_create, event_create

__all__ = ["two_meetings", "user_with_calendar"]


def user_with_calendar(
    username: str, *, key: str = "work", name: str = "Work", timezone: str = "America/New_York"
) -> tuple[Any, Calendar]:
    """A user living in ``timezone`` whose one (default) calendar is ``key``."""
    user = get_user_model().objects.create_user(username, f"{username}@example.com")
    preference_set(user=user, key="timezone", value=timezone)
    calendar = calendar_create(owner=user, key=key, name=name, timezone=timezone, is_default=True)
    return user, calendar


def two_meetings(username: str = "mover") -> tuple[Any, Conversation]:
    """Two meetings with Ann on Tuesday, March 3 2026 (New York) at 9:00 and 10:00, and a new conversation."""
    user, cal = user_with_calendar(username)
    ny = ZoneInfo("America/New_York")
    for name, hour in (("Standup", 9), ("Design sync", 10)):
        event_create(
            calendar=cal,
            summary=name,
            start=datetime(2026, 3, 3, hour, tzinfo=ny),
            end=datetime(2026, 3, 3, hour, 45, tzinfo=ny),
            attendees=["ann@example.com"],
        )
    return user, conversation_create(user=user)
