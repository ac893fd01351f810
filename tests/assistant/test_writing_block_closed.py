"""A writing block that allows no exceptions is never broken, not even with approval; one that allows
exceptions with approval is broken only after a preview that names it.

Through the chat (``chat_turn``), New York, Monday March 2 2026; the writing block is Tuesdays and
Thursdays 9-11 am.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.selectors import preferences_for
from preferences.services import preference_set
from skills.models import Event
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # Monday


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=NY)


def block(allow: bool | None) -> dict[str, Any]:
    value: dict[str, Any] = {"days": ["TU", "TH"], "start": "09:00", "end": "11:00"}
    if allow is not None:
        value["allow_exceptions_with_approval"] = allow
    return value


@pytest.fixture
def chat() -> tuple[Any, Any, Conversation]:
    user, cal = user_with_calendar("writer", key="personal", name="Personal")
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
    )
    get_user_model().objects.create_user("dana", "dana@example.com", first_name="Dana", last_name="Cruz")
    event_create(calendar=cal, summary="Standup", start=at(3, 13), end=at(3, 13, 15))
    event_create(calendar=cal, summary="Review", start=at(5, 11), end=at(5, 12))
    event_create(calendar=cal, summary="Planning", start=at(5, 14), end=at(5, 15))
    return user, cal, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def when(summary: str) -> tuple[datetime, datetime]:
    event = Event.objects.get(summary=summary)
    return event.start.astimezone(NY), event.end.astimezone(NY)


@pytest.mark.parametrize("allow", [False, None])  # no exceptions said, or the flag not stored at all
def test_a_new_event_in_a_block_without_exceptions_is_refused(
    chat: tuple[Any, Any, Conversation], allow: bool | None
) -> None:
    user, _, conversation = chat
    preference_set(user=user, key="writing_block", value=block(allow))
    reply = say(user, conversation, "Schedule a call with Dana on Tuesday at 10am")
    assert reply.kind == "answer", reply.text
    assert "I did not schedule 'Call with Dana' on Tuesday, March 3 at 10:00 AM" in reply.text
    assert "your writing block (Tuesday 9:00–11:00 AM)" in reply.text
    assert "your writing block preference allows no exceptions" in reply.text
    assert "The first free time that day outside it is 11:00 AM" in reply.text
    assert not Event.objects.filter(summary__icontains="Dana").exists()
    assert say(user, conversation, "yes").kind != "done"  # nothing waits to be approved
    assert not Event.objects.filter(summary__icontains="Dana").exists()


def test_a_move_into_a_block_without_exceptions_is_refused(chat: tuple[Any, Any, Conversation]) -> None:
    user, _, conversation = chat
    preference_set(user=user, key="writing_block", value=block(False))
    reply = say(user, conversation, "Move the standup to Tuesday at 10am")
    assert reply.kind == "answer", reply.text
    assert "I did not move 'Standup' to Tuesday, March 3 at 10:00 AM" in reply.text
    assert "your writing block preference allows no exceptions" in reply.text
    assert when("Standup") == (at(3, 13), at(3, 13, 15))
    # outside the block it goes ahead at once
    assert say(user, conversation, "Move the standup to Tuesday at 11am").kind == "done"
    assert when("Standup") == (at(3, 11), at(3, 11, 15))


def test_a_bulk_move_leaves_out_what_would_land_in_the_block_and_says_so(
    chat: tuple[Any, Any, Conversation],
) -> None:
    user, _, conversation = chat
    preference_set(user=user, key="writing_block", value=block(False))
    asked = say(user, conversation, "Move all my events on Thursday one hour earlier")
    assert asked.kind == "confirm", asked.text
    assert "Move 'Planning'" in asked.text
    assert "Leaving 'Review' (Thursday, March 5) alone: it would be in your writing block" in asked.text
    assert "Move 'Review'" not in asked.text
    assert say(user, conversation, "yes").kind == "done"
    assert when("Planning") == (at(5, 13), at(5, 14))
    assert when("Review") == (at(5, 11), at(5, 12))


def test_with_exceptions_allowed_the_preview_names_the_block_and_waits(
    chat: tuple[Any, Any, Conversation],
) -> None:
    user, _, conversation = chat
    preference_set(user=user, key="writing_block", value=block(True))
    moved = say(user, conversation, "Move the standup to Tuesday at 10am")
    assert moved.kind == "confirm"
    assert "breaks your writing block (Tuesday 9:00–11:00 AM)" in moved.text
    assert when("Standup") == (at(3, 13), at(3, 13, 15))
    assert say(user, conversation, "yes").kind == "done"
    assert when("Standup") == (at(3, 10), at(3, 10, 15))
    created = say(user, conversation, "Schedule a call with Dana on Thursday at 9am")
    assert created.kind == "confirm"
    assert "breaks your writing block (Thursday 9:00–11:00 AM)" in created.text
    assert say(user, conversation, "yes").kind == "done"
    assert when("Call with Dana") == (at(5, 9), at(5, 10))


def test_allowing_exceptions_by_chat_after_a_refusal(chat: tuple[Any, Any, Conversation]) -> None:
    """The refusal says how to allow exceptions; said so, the same request is previewed instead."""
    user, _, conversation = chat
    preference_set(user=user, key="writing_block", value=block(False))
    assert say(user, conversation, "Schedule a call with Dana on Tuesday at 10am").kind == "answer"
    say(user, conversation, "Protect my writing block, but let me approve exceptions")
    assert preferences_for(user=user)["writing_block"] == block(True)
    again = say(user, conversation, "Schedule a call with Dana on Tuesday at 10am")
    assert again.kind == "confirm"
    assert "breaks your writing block (Tuesday 9:00–11:00 AM)" in again.text


def test_a_copy_made_by_a_sync_is_no_new_time_in_the_block(chat: tuple[Any, Any, Conversation]) -> None:
    """A copy holds the time its original already holds: copying is never refused for the block."""
    user, _, conversation = chat
    preference_set(user=user, key="writing_block", value=block(False))
    work = calendar_create(owner=user, key="work", name="Work", timezone="America/New_York")
    event_create(calendar=work, summary="Vendor call", start=at(3, 10), end=at(3, 10, 30))
    asked = say(user, conversation, "Copy my work week to personal")
    assert asked.kind == "confirm", asked.text
    assert say(user, conversation, "yes").kind == "done"
    assert Event.objects.filter(summary="Vendor call").count() == 2
