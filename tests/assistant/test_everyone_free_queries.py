"""People named as the ones who must be free: "when are Ann and Raj both free on Thursday?".

The question form of a time that suits everyone names the people instead of saying "everyone": each
name of the list is read as a person (an attendee of the free-time search), whatever the list's length
or where it stands in the sentence; a list of things ("the room and the projector") is not people.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.planning import DecomposeRequest, decompose
from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.models import Event
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar
from workflows.validation import compile_workflow

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # Monday, March 2


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=BERLIN)


@pytest.fixture
def world() -> tuple[Any, dict[str, Any]]:
    """The user (working 9-19) and four colleagues; on Thursday Ann is busy 9-12 and Raj 13-15."""
    user, _ = user_with_calendar("asker", timezone="Europe/Berlin")
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "19:00"},
    )
    calendars = {}
    for username, first, last in (
        ("ann", "Ann", "Lee"),
        ("raj", "Raj", "Patel"),
        ("ana", "Ana", "Silva"),
        ("bo", "Bo", "Chen"),
    ):
        person = get_user_model().objects.create_user(
            username, f"{username}@example.com", first_name=first, last_name=last
        )
        calendars[username] = calendar_create(
            owner=person, key="work", name="Work", timezone="Europe/Berlin", is_default=True
        )
    event_create(calendar=calendars["ann"], summary="Workshop", start=at(5, 9), end=at(5, 12))
    event_create(calendar=calendars["raj"], summary="Customer visit", start=at(5, 13), end=at(5, 15))
    return user, calendars


def free_search(user: Any, text: str) -> dict[str, Any]:
    with time_machine.travel(NOW, tick=False):
        decision = decompose(DecomposeRequest(text=text, user=user, timezone="Europe/Berlin"))
    assert decision.workflow is not None, decision
    compile_workflow(decision.workflow)
    return next(t.params for t in decision.workflow.tasks if t.skill == "free_slots")


@pytest.mark.parametrize(
    ("text", "people", "first_day"),
    [
        ("find a time when Ann and Raj are both free next week", ["ann", "raj"], 9),
        ("when are Ann and Raj both free on Thursday?", ["ann", "raj"], 5),
        ("is there a slot next week where Ana, Bo and I are all available?", ["ana", "bo"], 9),
        ("When are Ann Lee and Raj Patel free on Thursday?", ["ann", "raj"], 5),
        ("are ann, bo and raj all available tomorrow", ["ann", "bo", "raj"], 3),
        ("when can Ann and Raj both meet next week?", ["ann", "raj"], 9),
        ("find a time that suits Ann, Bo and Raj on Thursday", ["ann", "bo", "raj"], 5),
        ("When are Ann and I free on Thursday?", ["ann"], 5),
    ],
)
def test_every_person_of_the_list_must_be_free(
    world: tuple[Any, dict[str, Any]], text: str, people: list[str], first_day: int
) -> None:
    user, _ = world
    params = free_search(user, text)
    assert params["people"] == [f"{name}@example.com" for name in people]
    assert datetime.fromisoformat(params["start"]).astimezone(BERLIN).day == first_day


@pytest.mark.parametrize(
    "text",
    ["are the room and projector available tomorrow", "when are my mornings and evenings free next week"],
)
def test_a_list_of_things_is_no_people(world: tuple[Any, dict[str, Any]], text: str) -> None:
    user, _ = world
    assert "people" not in free_search(user, text)


def test_the_answer_is_the_time_everyone_named_is_free(world: tuple[Any, dict[str, Any]]) -> None:
    user, _ = world
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(
            user=user, conversation=conversation, text="When are Ann and Raj both free on Thursday?"
        )
    assert reply is not None
    assert reply.kind == "answer", reply.text
    # Ann until 12, Raj 13-15, the user's working hours until 19: Ann alone would leave 9-12 out, Raj
    # alone 13-15.
    assert "Thursday, March 5: 12:00 PM – 1:00 PM, 3:00 PM – 7:00 PM" in reply.text


def test_a_new_event_for_when_the_people_named_are_free(world: tuple[Any, dict[str, Any]]) -> None:
    """The statement form with names: "book a call when Ann and Raj are both free on Thursday" searches
    (no question for a time) and the cue is no part of the title."""
    user, _ = world
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(
            user=user,
            conversation=conversation,
            text="Book a call when Ann and Raj are both free on Thursday",
        )
        assert reply is not None
        if reply.kind == "confirm":
            reply = chat_turn(user=user, conversation=conversation, text="yes")
    assert reply is not None
    assert reply.kind == "done", reply.text
    call = Event.objects.get(calendar__owner=user)
    assert call.summary == "Call with Ann and Raj"
    assert sorted(call.attendees) == ["ann@example.com", "raj@example.com"]
    assert (call.start.astimezone(BERLIN), call.end.astimezone(BERLIN)) == (at(5, 12), at(5, 13))


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Meeting with Ann, Bo and Raj tomorrow at 3", "Meeting with Ann, Bo and Raj"),
        # the comma after "lunch with Ann" is inside the list, not after a clause of its own
        ("lunch with Ann, Bo and Raj tomorrow at 1", "Lunch with Ann, Bo and Raj"),
    ],
)
def test_every_name_of_a_list_after_with_is_invited(
    world: tuple[Any, dict[str, Any]], text: str, title: str
) -> None:
    user, _ = world
    with time_machine.travel(NOW, tick=False):
        decision = decompose(DecomposeRequest(text=text, user=user, timezone="Europe/Berlin"))
    assert decision.workflow is not None
    plan = next(t.params for t in decision.workflow.tasks if t.skill == "plan_create")
    assert plan["attendees"] == ["ann@example.com", "bo@example.com", "raj@example.com"]
    assert plan["summary"] == title
