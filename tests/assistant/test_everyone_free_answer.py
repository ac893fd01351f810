"""The answer to "when are Ann and Raj both free on Thursday?" names who was considered.

"You are free ..." would hide that Ann's and Raj's calendars were read too: the answer says "You, Ann
Lee and Raj Patel are all free ..." (names as the people are known here, the user first). When nothing
suits everyone it says so and offers the nearest times after the range, as the planners of a time that
suits everyone do; someone whose calendar cannot be seen is named as such. A question about the user's
own free time reads as before.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.catalog import REGISTRY
from skills.context import SkillContext
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # Monday, March 2


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=BERLIN)


@pytest.fixture
def world() -> tuple[Any, dict[str, Any]]:
    """The user (working 9-19) and two colleagues; on Thursday Ann is busy 9-12 and Raj 13-15."""
    user, _ = user_with_calendar("asker", timezone="Europe/Berlin")
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "19:00"},
    )
    calendars = {}
    for username, first, last in (("ann", "Ann", "Lee"), ("raj", "Raj", "Patel")):
        person = get_user_model().objects.create_user(
            username, f"{username}@example.com", first_name=first, last_name=last
        )
        calendars[username] = calendar_create(
            owner=person, key="work", name="Work", timezone="Europe/Berlin", is_default=True
        )
    event_create(calendar=calendars["ann"], summary="Workshop", start=at(5, 9), end=at(5, 12))
    event_create(calendar=calendars["raj"], summary="Customer visit", start=at(5, 13), end=at(5, 15))
    return user, calendars


def ask(user: Any, text: str) -> str:
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    assert reply.kind == "answer", reply.text
    return reply.text


def test_two_people_named_are_in_the_answer(world: tuple[Any, dict[str, Any]]) -> None:
    text = ask(world[0], "When are Ann and Raj both free on Thursday?")
    assert (
        "You, Ann Lee and Raj Patel are all free on Thursday, March 5: 12:00 PM – 1:00 PM, 3:00 PM – 7:00 PM."
        in text
    ), text
    assert "You are free" not in text


def test_one_person_named_is_both(world: tuple[Any, dict[str, Any]]) -> None:
    text = ask(world[0], "When are Ann and I free on Thursday?")
    assert "You and Ann Lee are both free on Thursday, March 5: 12:00 PM – 7:00 PM." in text, text


def test_over_several_days_the_heading_names_them(world: tuple[Any, dict[str, Any]]) -> None:
    text = ask(world[0], "find a time when Ann and Raj are both free next week")
    assert text.startswith(
        "You, Ann Lee and Raj Patel are all free from Monday, March 9 to Sunday, March 15:"
    ), text


def test_nothing_fits_names_them_and_the_nearest_times(world: tuple[Any, dict[str, Any]]) -> None:
    """Thursday: Ann is busy until 12 and 15-17, Raj 13-15; no 3 hours suit all three. The nearest
    times after are Friday's from 10 (Ann is busy 9-10), then Monday and Tuesday (working hours 9-19)."""
    user, calendars = world
    event_create(calendar=calendars["ann"], summary="Review", start=at(5, 15), end=at(5, 17))
    event_create(calendar=calendars["ann"], summary="Standup", start=at(6, 9), end=at(6, 10))
    text = ask(user, "When are Ann and Raj both free for 3 hours on Thursday?")
    assert "No time on Thursday, March 5 suits you, Ann Lee and Raj Patel; the nearest after that:" in text, (
        text
    )
    assert "  • Friday, March 6: 10:00 AM – 7:00 PM\n  • Monday, March 9: free all day\n" in text, text
    assert "I found no free time" not in text


def test_a_person_whose_calendar_cannot_be_seen_is_named(world: tuple[Any, dict[str, Any]]) -> None:
    text = ask(world[0], "When are ann@example.com and zoe@elsewhere.org free on Thursday?")
    assert "You and Ann Lee are both free on Thursday, March 5: 12:00 PM – 7:00 PM." in text, text
    assert "I cannot see the calendar of Zoe." in text, text


def test_the_users_own_free_time_reads_as_before(world: tuple[Any, dict[str, Any]]) -> None:
    text = ask(world[0], "When am I free on Thursday?")
    assert "You are free all day on Thursday, March 5." in text, text
    text = ask(world[0], "When am I free next week?")
    assert text.startswith("You are free from Monday, March 9 to Sunday, March 15:"), text


def test_free_slots_says_whose_time_it_read(world: tuple[Any, dict[str, Any]]) -> None:
    user, _ = world
    definition = REGISTRY.get("free_slots")
    params = definition.input_model.model_validate(
        {
            "start": at(5, 0).isoformat(),
            "end": at(6, 0).isoformat(),
            "duration_minutes": 60,
            "people": ["raj@example.com", "nobody@example.org", "ann@example.com"],
        }
    )
    with time_machine.travel(NOW, tick=False):
        found = definition.func(SkillContext(user=user, tz=BERLIN), params)
    assert found.people == ["Raj Patel", "Ann Lee"]  # in the order asked
    assert found.unseen == ["Nobody"]
    assert found.nearest == []
    assert found.nearest_days == 0
