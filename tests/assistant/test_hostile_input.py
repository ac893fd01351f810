"""Input no one means but someone sends: NUL characters, dates past year 9999. Never a 500."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.models import Message
from assistant.services import chat_turn, clean_text, conversation_create
from assistant.timeexpr import find_times
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("Europe/Berlin"))


def test_a_nul_character_is_dropped_and_the_turn_answered() -> None:
    user, _ = user_with_calendar("nul", timezone="Europe/Berlin")
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text="hello\x00world, what's on today?")
    assert reply is not None
    stored = Message.objects.filter(conversation=conversation, role=Message.Role.USER).get()
    assert stored.text == "helloworld, what's on today?"


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("lunch\x1b[31m at noon\x07", "lunch[31m at noon"),  # a terminal escape and a bell
        ("line one\r\nline two\rthree", "line one\nline two\nthree"),
        ("\tindented\x0bwith\x0cfeeds\x85", "indentedwithfeeds"),
        ("\x00\x01\x02", ""),
    ],
)
def test_control_characters_are_dropped_and_line_breaks_kept(raw: str, kept: str) -> None:
    assert clean_text(raw) == kept


@pytest.mark.parametrize("text", ["what do I have in 10000 years?", "remind me in 99999999999 minutes"])
def test_a_date_past_year_9999_is_asked_about(text: str) -> None:
    user, _ = user_with_calendar("far", timezone="Europe/Berlin")
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    assert reply.kind == "clarify"
    assert "further away than a calendar goes" in reply.text


def test_the_resolver_reports_an_out_of_range_expression_instead_of_raising() -> None:
    found = find_times("see you in 10000 years", now=NOW)
    assert [m.error is not None for m in found] == [True]
    assert found[0].start is None
