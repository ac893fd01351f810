"""An event and its copy in another calendar are one commitment: "any conflicts?" never pairs them, and
an event that overlaps both is named once.  Which event is a copy is what the links say, not titles."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.services import chat_turn, conversation_create
from skills.models import CopyLink, Event
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # Monday


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=NY)


@pytest.fixture
def chat() -> tuple[Any, Any]:
    """Work: sprint planning Tuesday 10-11, copied to Personal; Personal: a dentist Tuesday 10:30-11:30
    and, with the same title as the sprint planning but no link, a second 'Sprint planning' Thursday
    that overlaps a Work 'Sprint planning' then (two events, not a copy)."""
    user, work = user_with_calendar("copier", key="work", name="Work")
    personal = calendar_create(owner=user, key="personal", name="Personal", timezone="America/New_York")
    event_create(calendar=work, summary="Sprint planning", start=at(3, 10), end=at(3, 11))
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        assert (
            chat_turn(user=user, conversation=conversation, text="Copy my work week to personal") is not None
        )
        done = chat_turn(user=user, conversation=conversation, text="yes")
    assert done is not None
    assert done.kind == "done", done.text
    assert CopyLink.objects.filter(owner=user).count() == 1
    event_create(calendar=personal, summary="Dentist", start=at(3, 10, 30), end=at(3, 11, 30))
    event_create(calendar=work, summary="Sprint planning", start=at(5, 14), end=at(5, 15))
    event_create(calendar=personal, summary="Sprint planning", start=at(5, 14, 30), end=at(5, 15, 30))
    return user, conversation


def say(chat: tuple[Any, Any], text: str) -> Any:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def test_a_copy_and_its_original_are_no_conflict(chat: tuple[Any, Any]) -> None:
    reply = say(chat, "Any conflicts this week?")
    assert reply.kind == "answer", reply.text
    pairs = [line for line in reply.text.splitlines() if line.strip().startswith("•")]
    assert pairs == [
        "  • Tuesday, March 3: Sprint planning (10:00 AM – 11:00 AM) and Dentist (10:30 AM – 11:30 AM)",
        # not linked: two events that happen to share a title do overlap
        "  • Thursday, March 5: Sprint planning (2:00 PM – 3:00 PM) and Sprint planning (2:30 PM – 3:30 PM)",
    ]
    assert Event.objects.filter(summary="Sprint planning").count() == 4  # nothing was changed


def test_am_i_free_names_an_event_and_its_copy_once(chat: tuple[Any, Any]) -> None:
    reply = say(chat, "Am I free Tuesday at 10am?")
    assert reply.text == (
        "No, on Tuesday, March 3 at 10:00 AM you have Sprint planning (10:00 AM – 11:00 AM), "
        "Dentist (10:30 AM – 11:30 AM)."
    )


def test_a_copy_whose_original_is_not_in_view_is_kept(chat: tuple[Any, Any]) -> None:
    """Asked about the Personal calendar only, the copy is the one event there."""
    reply = say(chat, "Any conflicts in my personal calendar this week?")
    assert "Sprint planning (10:00 AM – 11:00 AM) and Dentist (10:30 AM – 11:30 AM)" in reply.text
