"""Finding events by part of the day keeps to the user's own bounds of the day (``day_parts``).

With "afternoon starts at 1pm", a 12:30 lunch meeting is a morning event and a 5:30 pm check-in still an
afternoon one; the product's bounds (afternoon 12:00-17:00) would say the opposite of both.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.catalog import REGISTRY
from skills.context import SkillContext
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")
pytestmark = pytest.mark.django_db


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=NY)


MINE = {
    "morning": {"start": "06:00", "end": "13:00"},
    "afternoon": {"start": "13:00", "end": "18:00"},
    "evening": {"start": "18:00", "end": "22:00"},
}


@pytest.fixture
def user() -> Any:
    user, cal = user_with_calendar("parts")
    for summary, start, end in (
        ("Lunch meeting", at(4, 12, 30), at(4, 13, 30)),
        ("Design review", at(4, 14), at(4, 15)),
        ("Check-in", at(4, 17, 30), at(4, 17, 45)),
    ):
        event_create(calendar=cal, summary=summary, start=start, end=end, attendees=["ann@example.com"])
    return user


def find(user: Any, **criteria: object) -> list[str]:
    definition = REGISTRY.get("find_events")
    params = definition.input_model.model_validate(
        {"start": at(2, 0).isoformat(), "end": at(9, 0).isoformat(), **criteria}
    )
    found = definition.func(SkillContext(user=user, tz=NY), params)
    return [e.summary for e in found.events]


def test_without_the_preference_the_products_bounds(user: Any) -> None:
    assert find(user, day_part="afternoon") == ["Lunch meeting", "Design review"]
    assert find(user, day_part="evening") == ["Check-in"]


def test_find_events_keeps_to_the_users_day_parts(user: Any) -> None:
    preference_set(user=user, key="day_parts", value=MINE)
    assert find(user, day_part="afternoon") == ["Design review", "Check-in"]
    assert find(user, day_part="morning") == ["Lunch meeting"]
    assert find(user, day_part="evening") == []


def test_asked_in_chat_the_afternoon_is_the_users(user: Any) -> None:
    preference_set(user=user, key="day_parts", value=MINE)
    conversation = conversation_create(user=user)
    with time_machine.travel(at(2, 9), tick=False):
        reply = chat_turn(
            user=user, conversation=conversation, text="What meetings do I have in the afternoons this week?"
        )
    assert reply is not None
    assert "Design review" in reply.text, reply.text
    assert "Check-in" in reply.text
    assert "Lunch meeting" not in reply.text


def test_copying_by_part_of_the_day_keeps_to_the_users_bounds(user: Any) -> None:
    """plan_sync's ``only`` criteria read the day part the same way."""
    preference_set(user=user, key="day_parts", value=MINE)
    calendar_create(owner=user, key="personal", name="Personal", timezone="America/New_York")
    definition = REGISTRY.get("plan_sync")
    params = definition.input_model.model_validate(
        {
            "start": at(2, 0).isoformat(),
            "end": at(9, 0).isoformat(),
            "to": ["personal"],
            "sources": ["work"],
            "only": {"day_part": "afternoon"},
        }
    )
    plan = definition.func(SkillContext(user=user, tz=NY), params)
    assert sorted(c.summary for c in plan.changes) == ["Check-in", "Design review"]
