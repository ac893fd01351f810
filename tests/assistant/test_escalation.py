"""When a step shows the plan was wrong, the chat asks or proposes anew, and never writes without a yes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.models import Conversation, Message
from assistant.services import chat_turn, conversation_create
from skills.models import Calendar, Event
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)
pytestmark = pytest.mark.django_db


def friday(hour: int) -> datetime:
    return datetime(2026, 3, 6, hour, tzinfo=NY)


@pytest.fixture
def calendar() -> tuple[Any, Calendar, Conversation]:
    """A user whose Personal calendar holds a doctor's appointment and a team sync on Friday, and who
    also has a read-only Holidays calendar."""
    user, personal = user_with_calendar("replanned", key="personal", name="Personal")
    holidays = calendar_create(owner=user, key="holidays", name="Holidays", timezone="America/New_York")
    Calendar.objects.filter(pk=holidays.pk).update(writable=False)
    event_create(calendar=personal, summary="Doctor", start=friday(9), end=friday(10))
    event_create(calendar=personal, summary="Team sync", start=friday(12), end=friday(13))
    return user, personal, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Message:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def _revised_and_approved(
    user: Any,
    conversation: Conversation,
    request: str,
    title: str,
    meanwhile: Callable[[], None] = lambda: None,
) -> tuple[Message, Message]:
    """The request previewed and approved; the plan revised and previewed again, no event ``title``
    written in between; approved again."""
    with time_machine.travel(NOW, tick=False):
        assert say(user, conversation, request).kind == "confirm"
        meanwhile()
        again = say(user, conversation, "yes")
        assert again.kind == "confirm"
        assert not Event.objects.filter(summary=title).exists()
        done = say(user, conversation, "yes")
    assert done.kind == "done"
    return again, done


def test_an_event_that_is_not_there_is_asked_about_with_the_closest_ones(
    calendar: tuple[Any, Calendar, Conversation],
) -> None:
    user, _, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Cancel Dentist")
    assert reply.kind == "clarify"
    assert reply.text.startswith("I couldn't find 'dentist'")
    assert "Did you mean one of these: 'Doctor' (Friday, March 6 9:00 AM)" in reply.text
    assert reply.run is not None
    assert [e["failure"] for e in reply.run.replans] == ["missing"]
    assert Event.objects.filter(summary__in=["Doctor", "Team sync"]).count() == 2


def test_a_time_taken_since_it_was_shown_is_proposed_again_at_the_next_free_time(
    calendar: tuple[Any, Calendar, Conversation],
) -> None:
    user, personal, conversation = calendar

    def put_there_from_another_device() -> None:
        event_create(calendar=personal, summary="Review", start=friday(14), end=friday(15))

    again, done = _revised_and_approved(
        user,
        conversation,
        "Maybe schedule lunch with ann@example.com on Friday at 2pm",  # hedged: previewed first
        "Lunch",
        put_there_from_another_device,
    )
    # not written at 2 PM over Review, nor anywhere without a yes
    assert "2:00 PM is taken now ('Review')" in again.text
    assert "Friday, March 6 3:00 PM – 4:00 PM" in again.text
    lunch = Event.objects.get(summary="Lunch")
    assert (lunch.start, lunch.end) == (friday(15), friday(16))
    assert done.run is not None
    assert [e["failure"] for e in done.run.replans] == ["taken"]


def test_a_calendar_that_refuses_the_write_is_named_and_the_default_one_offered(
    calendar: tuple[Any, Calendar, Conversation],
) -> None:
    user, personal, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        # every word read: written at once, refused, and the revised plan previewed
        again = say(user, conversation, "Add gym to my Holidays calendar on Friday at 6pm")
        assert again.kind == "confirm"
        assert not Event.objects.filter(summary="Gym").exists()
        done = say(user, conversation, "yes")
    assert "I can't write to 'Holidays'" in again.text
    assert "in Personal" in again.text
    gym = Event.objects.get(summary="Gym")
    assert gym.calendar_id == personal.pk
    assert gym.start == friday(18)
    assert done.run is not None
    assert [e["failure"] for e in done.run.replans] == ["refused"]


def test_a_change_to_an_event_of_a_refusing_calendar_is_answered_with_a_question(
    calendar: tuple[Any, Calendar, Conversation],
) -> None:
    user, _, conversation = calendar
    holidays = Calendar.objects.get(key="holidays")
    event_create(calendar=holidays, summary="Carnival", start=friday(16), end=friday(17))
    with time_machine.travel(NOW, tick=False):
        ask = say(user, conversation, "Cancel Carnival")
        assert ask.kind == "confirm"
        reply = say(user, conversation, "yes")
    assert reply.kind == "clarify"
    assert "'Holidays' is read-only for me" in reply.text
    assert "'Personal', your default calendar" in reply.text
    assert Event.objects.filter(summary="Carnival").exists()


def test_without_a_replanner_a_refused_write_fails_as_before(
    calendar: tuple[Any, Calendar, Conversation], settings: Any
) -> None:
    settings.WORKFLOW_REPLANNER = ""
    user, _, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Add gym to my Holidays calendar on Friday at 6pm")
    assert reply.kind == "error"
    assert reply.text == (
        "I couldn't finish that: Nothing was changed: The calendar 'Holidays' is read-only for the assistant."
    )
