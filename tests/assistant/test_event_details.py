"""Questions about an event's place, people and length are answered with them, and a question about an
event named like a habit ("my lunch with Abby", "my lunch meeting") is about the event, not the habit."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.services import chat_turn, conversation_create
from skills.formatting import format_length
from skills.models import Calendar
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

OSLO = ZoneInfo("Europe/Oslo")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=OSLO)


@pytest.fixture
def me() -> Any:
    user, calendar = user_with_calendar("details", timezone="Europe/Oslo")
    start = datetime(2026, 3, 10, 14, 0, tzinfo=OSLO)
    event_create(
        calendar=calendar,
        summary="Board dinner",
        start=start,
        end=start + timedelta(minutes=150),
        location="Grand Hotel",
        attendees=["ingrid.berg@example.com", "ola@example.com"],
    )
    noon = datetime(2026, 3, 11, 12, 0, tzinfo=OSLO)
    event_create(calendar=calendar, summary="Lunch with Abby", start=noon, end=noon + timedelta(hours=1))
    event_create(
        calendar=calendar,
        summary="Piano lesson",
        start=noon + timedelta(days=1),
        end=noon + timedelta(days=1, hours=1),
    )
    return user


def ask(user: Any, text: str) -> str:
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation_create(user=user), text=text)
    assert reply is not None
    assert reply.kind == "answer", reply.text
    return str(reply.text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Where is the board dinner being held?", "at Grand Hotel"),
        ("who is coming to the board dinner?", "with Ingrid Berg and Ola"),
        ("is Ola coming to the board dinner?", "with Ingrid Berg and Ola"),  # asked of its people
        ("are Ingrid and Ola invited to the board dinner?", "with Ingrid Berg and Ola"),
        ("will Ingrid join the board dinner?", "with Ingrid Berg and Ola"),  # "will" opens a question
        ("will Ola be at the board dinner?", "with Ingrid Berg and Ola"),
        ("how long is the board dinner?", "2 hours 30 minutes"),
    ],
)
def test_a_question_about_a_part_of_an_event_is_answered_with_it(me: Any, text: str, said: str) -> None:
    answer = ask(me, text)
    assert said in answer
    assert "Piano lesson" not in answer


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("is Ola coming to the board dinner?", "Yes, Ola is invited."),
        ("is Ingrid going to the board dinner", "Yes, Ingrid is invited."),
        # it looked for board dinners with Bill, and said there were none
        ("is Bill invited to the board dinner?", "No, Bill is not invited."),
    ],
)
def test_whether_someone_is_invited_is_answered_first(me: Any, text: str, said: str) -> None:
    answer = ask(me, text)
    assert answer.startswith(said), answer
    assert answer.count(said) == 1  # said twice for someone asked by name whom the directory knows
    assert "with Ingrid Berg and Ola" in answer


def test_someone_the_directory_knows_is_said_invited_once(me: Any) -> None:
    # "Yes, Ann is invited." was said twice: asked by her address and by the name said
    get_user_model().objects.create_user(
        "ann", email="ann@example.com", first_name="Ann", last_name="Lee", password=None
    )
    start = datetime(2026, 3, 13, 15, 0, tzinfo=OSLO)
    calendar = Calendar.objects.get(owner=me)
    event_create(
        calendar=calendar,
        summary="Design review",
        start=start,
        end=start + timedelta(hours=1),
        attendees=["ann@example.com"],
    )
    answer = ask(me, "is Ann coming to the design review?")
    assert answer.count("is invited") == 1, answer


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "where is the board dinner?",
            "Board dinner is on Tuesday, March 10 2:00 PM – 4:30 PM, at Grand Hotel.",
        ),
        (
            "who is coming to the board dinner?",
            "Board dinner is on Tuesday, March 10 2:00 PM – 4:30 PM, with Ingrid Berg and Ola.",
        ),
        (
            "how long is the board dinner?",
            "Board dinner lasts 2 hours 30 minutes, on Tuesday, March 10 2:00 PM – 4:30 PM.",
        ),
        (
            "where is my lunch with Abby?",
            "Lunch with Abby is on Wednesday, March 11 12:00 PM – 1:00 PM; no place is given.",
        ),
        # when it starts or ends: it was a list of one, the start and end in a span on its line
        (
            "what time does the board dinner end?",
            "Board dinner ends at 4:30 PM on Tuesday, March 10 (2:00 PM – 4:30 PM).",
        ),
        (
            "when is the board dinner over?",
            "Board dinner ends at 4:30 PM on Tuesday, March 10 (2:00 PM – 4:30 PM).",
        ),
        (
            "how late does the board dinner go?",
            "Board dinner ends at 4:30 PM on Tuesday, March 10 (2:00 PM – 4:30 PM).",
        ),
        (
            "when does the board dinner start?",
            "Board dinner starts at 2:00 PM on Tuesday, March 10 (2:00 PM – 4:30 PM).",
        ),
        (
            "what time does my piano lesson begin?",
            "Piano lesson starts at 12:00 PM on Thursday, March 12 (12:00 PM – 1:00 PM).",
        ),
        # when it is: "Coming up:" / "Next:", the day, the line, "1 ... event in all."
        (
            "when is the board dinner?",
            "Board dinner is on Tuesday, March 10 2:00 PM – 4:30 PM, at Grand Hotel.",
        ),
        ("when's my next piano lesson", "Piano lesson is on Thursday, March 12 12:00 PM – 1:00 PM."),
    ],
)
def test_a_question_about_one_event_is_answered_in_a_sentence(me: Any, text: str, sentence: str) -> None:
    # it was a list of one: a heading, the day, the event's line with the part at its end, "1 ... in all"
    assert ask(me, text) == sentence


def test_when_several_events_start_is_their_list(me: Any) -> None:
    answer = ask(me, "when do my events next week start?")
    assert "Board dinner" in answer
    assert "Piano lesson" in answer
    assert "in all" in answer


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "how long was the board dinner?",
            "Board dinner lasted 2 hours 30 minutes, on Tuesday, March 10 2:00 PM – 4:30 PM.",
        ),
        (
            "what time did the board dinner start?",
            "Board dinner started at 2:00 PM on Tuesday, March 10 (2:00 PM – 4:30 PM).",
        ),
    ],
)
def test_a_question_about_a_past_event_is_answered_in_the_past(me: Any, text: str, sentence: str) -> None:
    later = datetime(2026, 3, 20, 9, 0, tzinfo=OSLO)
    with time_machine.travel(later, tick=False):
        reply = chat_turn(user=me, conversation=conversation_create(user=me), text=text)
    assert reply is not None
    # the heading says more than "here it is", so it stays
    assert reply.text == f"The most recent:\n{sentence}"


def test_an_event_without_the_part_asked_says_so(me: Any) -> None:
    assert "no place is given" in ask(me, "where am I having lunch with Abby?")


def test_an_event_named_like_a_habit_is_the_event(me: Any) -> None:
    answer = ask(me, "What time is my lunch with Abby")
    assert "Lunch with Abby" in answer
    assert "12:00 PM" in answer


@pytest.mark.parametrize(
    ("minutes", "words"),
    [(45, "45 minutes"), (60, "1 hour"), (150, "2 hours 30 minutes"), (61, "1 hour 1 minute")],
)
def test_lengths_in_words(minutes: int, words: str) -> None:
    assert format_length(timedelta(minutes=minutes)) == words
