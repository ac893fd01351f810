"""A write the user refuses in the same words is not made ("actually no, don't cancel it"), and a
request after a refusal is read without it; "delete that <name>" after one event was shown is the
event named, not the one shown."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from assistant.decomposer.intent import classify
from assistant.models import Conversation
from assistant.services import conversation_create
from skills.models import Event
from skills.services import event_create
from tests.assistant.test_reading_guards import say
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def week() -> tuple[Any, Conversation]:
    """A design review tomorrow and the gym on Friday."""
    user, calendar = user_with_calendar("refusals")
    for summary, day, hour in (("Design review", 5, 14), ("Gym session", 6, 7)):
        start = datetime(2026, 3, day, hour, tzinfo=NEW_YORK)
        event_create(calendar=calendar, summary=summary, start=start, end=start + timedelta(hours=1))
    return user, conversation_create(user=user)


@pytest.mark.parametrize(
    "text", ["actually no dont cancel it", "please don't delete the meeting", "No, do not add this event."]
)
def test_a_refused_write_is_no_write(text: str) -> None:
    assert classify(text)[0] == "no"


def test_a_refusal_then_another_request_is_that_request() -> None:
    # "don't cancel the standup, cancel the review": the second verb is what is asked
    assert classify("don't cancel the standup, cancel the review")[0] == "delete"


@pytest.mark.parametrize("text", ["actually no dont cancel it", "please don't delete the design review"])
def test_nothing_is_deleted_or_previewed_when_the_user_says_not_to(week: Any, text: str) -> None:
    say(week, "When is the design review?")
    reply = say(week, text)
    assert reply.kind == "answer", reply.text
    assert "Delete" not in reply.text
    assert Event.objects.filter(summary="Design review").count() == 1


def test_a_new_event_asked_for_after_a_refusal_is_named_by_its_own_words(week: Any) -> None:
    reply = say(week, "Don't add it, but let's schedule the apartment visit.")
    assert reply.kind == "clarify"
    assert "'Apartment visit'" in reply.text  # was "Don't", the refusal read as the title


def test_delete_that_with_a_name_is_the_event_named_not_the_one_shown(week: Any) -> None:
    say(week, "When is the design review?")
    reply = say(week, "Never mind, delete that gym session")
    assert reply.kind == "confirm", reply.text
    assert "Delete 'Gym session'" in reply.text
    assert Event.objects.filter(summary="Design review").count() == 1


@pytest.mark.parametrize(
    ("text", "to"),
    [
        ("No, just move it to Friday.", "Friday, March 6 2:00 PM"),
        ("Can we please change it to 4 pm?", "4:00 PM"),
    ],
)
def test_it_after_a_look_up_is_the_event_shown_however_the_request_opens(
    week: Any, text: str, to: str
) -> None:
    say(week, "When is the design review?")
    reply = say(week, text)
    assert reply.kind in ("confirm", "done"), reply.text
    assert "Move 'Design review'" in reply.text
    assert to in reply.text


def test_move_that_with_a_name_is_the_event_named_not_the_one_shown(week: Any) -> None:
    say(week, "When is the design review?")
    reply = say(week, "move that gym session to Saturday")
    assert "Move 'Gym session'" in reply.text, reply.text
    assert "Design review" not in reply.text
