"""Rules of the reading that no line of the shared material needs, each pinned by a turn of the class
it serves.

Switching any of these regexes off changed no golden decision (the shared corpora never say such a
turn) and, before these tests, failed no test either; switched off, each of these turns goes wrong,
some of them with a write nobody asked for.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.models import Preference
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=NEW_YORK)  # a Wednesday


@pytest.fixture
def week() -> tuple[Any, Conversation]:
    """A standup, a design review and a team meeting tomorrow, the gym on Friday."""
    user, calendar = user_with_calendar("guards")
    for summary, day, hour in (
        ("Standup", 5, 9),
        ("Design review", 5, 14),
        ("Team meeting", 5, 16),
        ("Gym", 6, 7),
    ):
        start = datetime(2026, 3, day, hour, 0, tzinfo=NEW_YORK)
        event_create(calendar=calendar, summary=summary, start=start, end=start + timedelta(hours=1))
    return user, conversation_create(user=user)


def say(week: tuple[Any, Conversation], text: str) -> Any:
    user, conversation = week
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("clear Thursday for travel", "Travel"),
        ("wipe Friday for the offsite", "offsite"),
        ("clear Friday for quarterly planning", "Quarterly planning"),
        ("clear Friday for travel all day", "Travel"),  # was a block on today: "all day" read as today's
    ],
)
def test_a_day_cleared_for_a_reason_is_blocked_for_it(week: Any, text: str, block: str) -> None:
    reply = say(week, text)
    assert reply.kind == "confirm"
    assert f"Create '{block}" in reply.text or f"Create 'The {block}" in reply.text, reply.text


def test_a_repetition_for_a_number_of_weeks_ends_after_them(week: Any) -> None:
    reply = say(week, "add yoga every Monday at 6pm for 4 weeks")
    assert "every Monday until April 1" in reply.text, reply.text  # March 9, 16, 23 and 30


def test_delete_them_after_a_list_previews_the_events_shown(week: Any) -> None:
    say(week, "what's on tomorrow?")
    reply = say(week, "delete them")
    assert reply.kind == "confirm", reply.text  # all three, asked first (it asked which one before)
    assert reply.text.count("Delete '") == 3  # the three shown, not the gym on Friday too
    assert "Gym" not in reply.text
    assert Event.objects.count() == 4


def test_a_time_word_after_to_is_no_new_place(week: Any) -> None:
    reply = say(week, "move the design review to the next room")
    assert reply.kind == "clarify", reply.text
    assert Event.objects.get(summary="Design review").location == ""  # no place 'the next room' written


def test_a_note_to_the_calendar_is_no_note_on_an_event_called_calendar(week: Any) -> None:
    before = list(Event.objects.values_list("summary", "description"))
    reply = say(week, "add a note to my calendar: call mom")
    # a new event named by what the colon leads to ("Call", with mom as whom it is with, as "call Omar"
    # makes "Call with Omar"), asked when; not a note, and not 'Note'
    assert reply.kind == "clarify", reply.text
    assert "When should I schedule 'Call" in reply.text, reply.text
    assert list(Event.objects.values_list("summary", "description")) == before


def test_words_before_a_colon_that_only_say_what_is_added_are_no_title(week: Any) -> None:
    reply = say(week, "new event: lunch with Sam at 1 tomorrow")
    assert "Lunch with Sam" in reply.text, reply.text  # once 'Meeting with Sam', 'event' taken for the name
    reply = say(week, "add a reminder to my calendar: pay rent on friday")
    assert "'Pay rent'" in reply.text, reply.text


@pytest.mark.parametrize(
    "text",
    [
        "invite Ann and Raj to the design review",
        "invite Ann, Raj & Wei to the design review",  # once read as a new event called 'Design review'
        "invite Ann, Raj and Wei to the design review",
    ],
)
def test_each_person_invited_is_asked_about_alone(week: Any, text: str) -> None:
    reply = say(week, text)
    assert reply.kind == "clarify"
    assert "Ann and Raj" not in reply.text
    assert "Who is Ann?" in reply.text


def test_asking_whether_someone_sees_the_availability_changes_nothing(week: Any) -> None:
    user, _ = week
    reply = say(week, "can ann@example.com see my availability?")
    assert reply.kind == "answer", reply.text
    assert not Preference.objects.filter(user=user, key="busy_visible_to").exists()


def test_sharing_with_my_colleague_takes_the_address_not_the_words_before_it(week: Any) -> None:
    reply = say(week, "share my availability only with ann@example.com and my colleague raj@example.com")
    assert reply.kind == "done", reply.text
    assert "only with ann@example.com and raj@example.com" in reply.text


def test_sharing_with_them_names_nobody(week: Any) -> None:
    reply = say(week, "share my availability with them")
    assert "Them" not in reply.text


def test_another_persons_calendar_is_never_copied(week: Any) -> None:
    reply = say(week, "copy from ann's work calendar to mine")
    assert "never into or out of another person's" in reply.text, reply.text
    assert Event.objects.count() == 4
