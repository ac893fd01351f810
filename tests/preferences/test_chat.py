"""A stored preference that no longer validates (older data, a raw SQL write) never crashes the chat:
the reply comes as usual, ignores that preference and says so, once per conversation."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.models import Conversation, Message
from assistant.services import chat_turn, conversation_create
from preferences.models import Preference
from preferences.services import preference_set
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # a Monday
HOURS = {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"}
BAD_HOURS = {"days": ["XX"], "start": "25:00", "end": "banana"}


@pytest.fixture
def berliner() -> tuple[Any, Conversation]:
    """A user in Berlin with a standup on Wednesday, March 4 (10:00-10:30), working 9 to 5."""
    user, cal = user_with_calendar("berliner", timezone="Europe/Berlin")
    event_create(
        calendar=cal,
        summary="Standup",
        start=datetime(2026, 3, 4, 10, 0, tzinfo=BERLIN),
        end=datetime(2026, 3, 4, 10, 30, tzinfo=BERLIN),
    )
    preference_set(user=user, key="working_hours", value=HOURS)
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Message:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def test_valid_preferences_add_nothing_to_the_reply(berliner: tuple[Any, Conversation]) -> None:
    user, conversation = berliner
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "When am I free on Wednesday?")
    assert reply.kind == "answer"
    assert "9:00 AM – 10:00 AM" in reply.text  # inside the working hours
    assert "ignored" not in reply.text


def test_invalid_working_hours_are_ignored_and_named_once(berliner: tuple[Any, Conversation]) -> None:
    user, conversation = berliner
    Preference.objects.filter(user=user, key="working_hours").update(value=BAD_HOURS)
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "When am I free on Wednesday?")
        assert reply.kind == "answer"
        assert "Wednesday, March 4" in reply.text
        # Without working hours the day is searched from 8 AM to 9 PM.
        assert "8:00 AM – 10:00 AM" in reply.text
        assert "10:30 AM – 9:00 PM" in reply.text
        assert "I ignored your saved working hours (working_hours.days[0]: 'XX' is not a day" in reply.text
        assert "working_hours.start: '25:00' is not a time; use HH:MM, 00:00-23:59" in reply.text
        assert "settings page (/settings/)" in reply.text
        again = say(user, conversation, "When am I free on Thursday?")
    assert again.kind == "answer"
    assert "Thursday, March 5" in again.text
    assert "ignored" not in again.text  # said once


def test_a_reply_without_a_workflow_says_it_too(berliner: tuple[Any, Conversation]) -> None:
    user, conversation = berliner
    Preference.objects.filter(user=user, key="working_hours").update(value=BAD_HOURS)
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "thanks")
        assert "I ignored your saved working hours" in reply.text
        assert "I ignored" not in say(user, conversation, "What do I have on Wednesday?").text


def test_a_new_conversation_is_told_again_and_a_fixed_value_is_not_mentioned(
    berliner: tuple[Any, Conversation],
) -> None:
    user, conversation = berliner
    Preference.objects.filter(user=user, key="working_hours").update(value=BAD_HOURS)
    with time_machine.travel(NOW, tick=False):
        assert "I ignored" in say(user, conversation, "What do I have on Wednesday?").text
        other = conversation_create(user=user)
        assert "I ignored your saved working hours" in say(user, other, "What do I have on Wednesday?").text
        preference_set(user=user, key="working_hours", value=HOURS)
        third = conversation_create(user=user)
        assert "I ignored" not in say(user, third, "What do I have on Wednesday?").text


def test_an_invalid_time_zone_falls_back_to_the_default_and_says_so(
    berliner: tuple[Any, Conversation],
) -> None:
    user, conversation = berliner
    Preference.objects.filter(user=user, key="timezone").update(value="Mars/Olympus")
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "What do I have on Wednesday?")
    assert reply.kind == "answer"
    assert "Standup" in reply.text
    # 10:00 in Berlin is 4:00 AM in New York, the instance default (ASSISTANT_DEFAULT_TIMEZONE).
    assert "4:00 AM" in reply.text
    assert "I ignored your saved time zone (timezone: 'Mars/Olympus' is not a known time zone" in reply.text
    assert "and used America/New_York instead" in reply.text
