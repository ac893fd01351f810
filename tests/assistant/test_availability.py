"""'Any conflicts?' names only overlapping pairs; 'am I free at 3?' says yes or no, then what is there."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.services import chat_turn, conversation_create
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

TOKYO = ZoneInfo("Asia/Tokyo")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=TOKYO)  # a Monday


@pytest.fixture
def user() -> Any:
    me, cal = user_with_calendar("free-asker", timezone="Asia/Tokyo")
    for summary, day, start, end in (
        ("Dentist", 4, (14, 0), (15, 0)),
        ("Yoga", 4, (14, 30), (15, 30)),
        ("Standup", 5, (9, 0), (9, 15)),
        ("Lunch", 5, (12, 0), (13, 0)),
    ):
        event_create(
            calendar=cal,
            summary=summary,
            start=datetime(2026, 3, day, *start, tzinfo=TOKYO),
            end=datetime(2026, 3, day, *end, tzinfo=TOKYO),
            timezone="Asia/Tokyo",
        )
    return me


def ask(user: Any, text: str) -> Any:
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation_create(user=user), text=text)
    assert reply is not None
    return reply


@pytest.mark.parametrize(
    "text",
    [
        "Do I have any overlapping events this week?",
        "any conflicts this week?",
        "am I double booked anywhere this week?",  # "no event called 'anywhere'"
    ],
)
def test_conflicts_name_only_the_overlapping_pair(user: Any, text: str) -> None:
    reply = ask(user, text)
    assert reply.kind == "answer"
    assert "Dentist" in reply.text
    assert "Yoga" in reply.text
    assert "Standup" not in reply.text
    assert "Lunch" not in reply.text


@pytest.fixture
def piano(user: Any) -> Any:
    """A second overlapping pair (Lunch and Piano, Thursday) that questions about the first leave out."""
    event_create(
        calendar=user.calendars.get(),
        summary="Piano",
        start=datetime(2026, 3, 5, 12, 30, tzinfo=TOKYO),
        end=datetime(2026, 3, 5, 13, 30, tzinfo=TOKYO),
        timezone="Asia/Tokyo",
    )
    return user


@pytest.mark.parametrize(
    "text",
    ["does the dentist clash with yoga?", "do the dentist and yoga overlap", "does yoga clash with anything"],
)
def test_a_question_about_named_events_names_only_their_overlaps(piano: Any, text: str) -> None:
    reply = ask(piano, text)
    assert reply.kind == "answer"
    assert reply.text.startswith("These overlap"), reply.text
    assert "Dentist" in reply.text
    assert "Yoga" in reply.text
    assert "Piano" not in reply.text
    assert "Lunch" not in reply.text


def test_two_named_events_that_do_not_overlap_are_said_not_to(piano: Any) -> None:
    reply = ask(piano, "does the dentist conflict with the standup?")
    assert reply.text.startswith("'dentist' and 'standup' do not overlap"), reply.text


def test_an_event_that_is_not_there_is_said_to_be_missing_not_free_of_overlaps(piano: Any) -> None:
    # "calculus" is nobody of the directory: an event, not someone the events are with
    reply = ask(piano, "does the dentist clash with calculus")
    assert reply.text.startswith("I found no event called 'calculus'"), reply.text


def test_double_bookings_are_overlaps(user: Any) -> None:
    reply = ask(user, "any double bookings this week?")
    assert reply.text.startswith("These overlap"), reply.text
    assert "Dentist" in reply.text
    assert "Yoga" in reply.text


def test_no_conflicts_says_so(user: Any) -> None:
    reply = ask(user, "Are there any clashes next week?")
    assert reply.kind == "answer"
    assert reply.text.startswith("Nothing overlaps")


def test_am_i_free_at_a_busy_hour_says_no_and_names_what_is_there(user: Any) -> None:
    reply = ask(user, "Am I free on Wednesday at 3pm?")
    assert reply.kind == "answer"
    assert reply.text.startswith("No")
    assert "Yoga" in reply.text
    assert "Dentist" not in reply.text  # it ends at 3:00, before the hour asked about


def test_am_i_free_at_a_free_hour_says_yes(user: Any) -> None:
    reply = ask(user, "am I free thursday at 10am?")
    assert reply.text.startswith("Yes")
    assert "Thursday, March 5 at 10:00 AM" in reply.text


@pytest.mark.parametrize(
    "text", ["how much free time do I have on Thursday?", "how many free hours do I have on Thursday"]
)
def test_how_much_free_time_is_the_free_time_in_all(user: Any, text: str) -> None:
    """It counted the day's events ("You have 2 events on Thursday")."""
    reply = ask(user, text)
    assert reply.kind == "answer"
    assert "free on Thursday, March 5" in reply.text, reply.text
    assert reply.text.endswith(" in all."), reply.text
    assert "You have 2 events" not in reply.text


def test_one_event_counted_over_several_days_is_named_with_its_day(user: Any) -> None:
    """'You have 1 Dentist event this week: Dentist (2:00 PM – 3:00 PM)' left out which day."""
    reply = ask(user, "how many dentist appointments do I have this week?")
    assert "Dentist (Wednesday, March 4 2:00 PM – 3:00 PM)" in reply.text, reply.text
