"""A dated part of the day ("tomorrow afternoon", "Thursday evening", "tonight") in the user's own bounds.

The time-expression resolver knows the product's parts only (afternoon 12:00-17:00); a user who set
``day_parts`` means theirs, wherever the range reaches a skill: the events looked up or counted, the
free time searched, the events cancelled or copied. Without the preference, and for what is not one of
the four parts on one day ("after work", "tomorrow afternoon at 3"), nothing changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.planning import DecomposeRequest, decompose
from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # Monday, March 2

MINE = {
    "morning": {"start": "07:00", "end": "11:00"},
    "afternoon": {"start": "13:00", "end": "18:00"},
    "evening": {"start": "18:00", "end": "20:00"},
}


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=NY)


@pytest.fixture
def user() -> Any:
    user, cal = user_with_calendar("dated")
    for summary, start, end in (
        ("Lunch meeting", at(3, 12, 15), at(3, 12, 45)),
        ("Design review", at(3, 14), at(3, 15)),
        ("Check-in", at(3, 17, 15), at(3, 17, 45)),
    ):
        event_create(calendar=cal, summary=summary, start=start, end=end, attendees=["ann@example.com"])
    return user


def mine(user: Any) -> Any:
    preference_set(user=user, key="day_parts", value=MINE)
    return user


def task_params(user: Any, text: str, skill: str) -> dict[str, Any]:
    with time_machine.travel(NOW, tick=False):
        decision = decompose(DecomposeRequest(text=text, user=user, timezone="America/New_York"))
    assert decision.workflow is not None, decision
    return next(t.params for t in decision.workflow.tasks if t.skill == skill)


def span(params: dict[str, Any], start: str = "start", end: str = "end") -> tuple[datetime, datetime]:
    return datetime.fromisoformat(params[start]), datetime.fromisoformat(params[end])


@pytest.mark.parametrize(
    ("text", "skill", "expected"),
    [
        ("what do I have tomorrow afternoon?", "find_events", (at(3, 13), at(3, 18))),
        ("how many meetings tomorrow afternoon", "find_events", (at(3, 13), at(3, 18))),
        ("any meetings on Friday morning?", "find_events", (at(6, 7), at(6, 11))),
        ("find me a free hour on Thursday evening", "free_slots", (at(5, 18), at(5, 20))),
        ("when am I free tomorrow afternoon?", "free_slots", (at(3, 13), at(3, 18))),
        # night runs from the end of the user's evening to the start of their morning
        ("what do I have friday night", "find_events", (at(6, 20), at(7, 7))),
        # tonight is the evening and the night together
        ("what have I got tonight", "find_events", (at(2, 18), at(3, 7))),
        ("cancel everything tomorrow afternoon", "find_events", (at(3, 13), at(3, 18))),
    ],
)
def test_a_dated_part_of_the_day_is_the_users(user: Any, text: str, skill: str, expected: Any) -> None:
    assert span(task_params(mine(user), text, skill)) == expected


@pytest.mark.parametrize(
    ("text", "skill", "expected"),
    [
        ("what do I have tomorrow afternoon?", "find_events", (at(3, 12), at(3, 17))),
        ("any meetings on Friday morning?", "find_events", (at(6, 5), at(6, 12))),
        ("find me a free hour on Thursday evening", "free_slots", (at(5, 17), at(5, 21))),
        ("what do I have friday night", "find_events", (at(6, 21), at(7, 5))),
        ("what have I got tonight", "find_events", (at(2, 17), at(3, 5))),
    ],
)
def test_without_the_preference_the_products_parts(user: Any, text: str, skill: str, expected: Any) -> None:
    assert span(task_params(user, text, skill)) == expected


def test_the_products_parts_stored_as_a_preference_change_nothing(user: Any) -> None:
    preference_set(
        user=user,
        key="day_parts",
        value={
            "morning": {"start": "05:00", "end": "12:00"},
            "afternoon": {"start": "12:00", "end": "17:00"},
            "evening": {"start": "17:00", "end": "21:00"},
        },
    )
    params = task_params(user, "what do I have tomorrow afternoon?", "find_events")
    assert span(params) == (at(3, 12), at(3, 17))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a clock time in the part is that time
        ("what do I have tomorrow afternoon at 3", (at(3, 15), at(3, 15, 1))),
        # "after work" is not the evening, though the product's spans coincide
        ("what do I have thursday after work", (at(5, 17), at(5, 21))),
        # a day with no part
        ("what do I have tomorrow", (at(3, 0), at(4, 0))),
    ],
)
def test_what_is_not_a_part_of_one_day_is_left_as_read(user: Any, text: str, expected: Any) -> None:
    assert span(task_params(mine(user), text, "find_events")) == expected


def test_a_move_to_a_dated_part_passes_the_part_to_the_planner(user: Any) -> None:
    """plan_move reads the part in the user's bounds itself; the decomposer passes the marker."""
    params = task_params(mine(user), "move the design review to Friday morning", "plan_move")
    assert params["to_date"] == "2026-03-06"
    assert params["day_part"] == "morning"


def test_copying_a_dated_part_copies_the_users_part(user: Any) -> None:
    calendar_create(owner=user, key="personal", name="Personal", timezone="America/New_York")
    params = task_params(mine(user), "copy tomorrow afternoon from work to personal", "plan_sync")
    assert span(params) == (at(3, 13), at(3, 18))


def ask(user: Any, text: str) -> str:
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply.text


def test_asked_in_chat_tomorrow_afternoon_is_the_users(user: Any) -> None:
    """Afternoon from 1 to 6 pm: the 12:15 lunch meeting is not in it, the 5:15 check-in is."""
    text = ask(mine(user), "What do I have tomorrow afternoon?")
    assert "Design review" in text, text
    assert "Check-in" in text, text
    assert "Lunch meeting" not in text, text


def test_asked_in_chat_without_the_preference_the_products_afternoon(user: Any) -> None:
    text = ask(user, "What do I have tomorrow afternoon?")
    assert "Lunch meeting" in text, text
    assert "Design review" in text, text
    assert "Check-in" not in text, text


def test_free_time_in_chat_keeps_to_the_users_evening(user: Any) -> None:
    """Evening 6 to 8 pm: free all of it (the product's evening, 5 to 9 pm, is free from 5:45)."""
    text = ask(mine(user), "When am I free tomorrow evening?")
    assert "You are free on Tuesday, March 3: 6:00 PM – 8:00 PM." in text, text


def test_free_time_in_chat_without_the_preference_the_products_evening(user: Any) -> None:
    text = ask(user, "When am I free tomorrow evening?")
    assert "You are free on Tuesday, March 3: 5:45 PM – 9:00 PM." in text, text


@pytest.mark.parametrize(
    ("text", "skill", "expected"),
    [
        # the day said with its week: that week's afternoon, not every afternoon of the week
        ("when am I free next week on tuesday afternoon?", "free_slots", (at(10, 12), at(10, 17))),
        # said apart from the week: still that week's, not this week's Tuesday and all of next week
        ("am I free next week, say tuesday afternoon?", "free_slots", (at(10, 12), at(10, 17))),
        (
            "what did I have last week, on tuesday?",
            "find_events",
            (datetime(2026, 2, 24, tzinfo=NY), datetime(2026, 2, 25, tzinfo=NY)),
        ),
        # a part of the day said with a period and no day filters the period
        ("what do I have in the afternoons next week?", "find_events", (at(9, 0), at(16, 0))),
    ],
)
def test_a_weekday_said_with_its_week_is_that_weeks(user: Any, text: str, skill: str, expected: Any) -> None:
    assert span(task_params(user, text, skill)) == expected
