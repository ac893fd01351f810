"""Classes of request the classifier once read as something else: each is pinned by sentences of its
own (not those of the evaluation set), in several wordings."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.decomposer.intent import classify
from assistant.planning import DecomposeRequest, decompose
from skills.services import calendar_create

pytestmark = pytest.mark.django_db

DENVER = ZoneInfo("America/Denver")
NOW = datetime(2026, 10, 28, 8, 30, tzinfo=DENVER)  # a Wednesday, days before clocks go back


def frame_of(text: str) -> dict[str, Any]:
    with time_machine.travel(NOW, tick=False):
        me = get_user_model().objects.create_user("classes", "classes@example.com")
        calendar_create(owner=me, key="home", name="Home", timezone="America/Denver", is_default=True)
        decision = decompose(DecomposeRequest(text=text, user=me, timezone="America/Denver"))
    return decision.frame


@pytest.mark.parametrize(
    "text",
    [
        "ping me half an hour before the parents evening",
        "don't let me forget the plumber on friday",
        "alert me at noon about the pharmacy",
        "send me a notification before my flight tomorrow",
        "can you tell me on monday to renew the parking permit",
    ],
)
def test_asking_to_be_reminded_creates_a_reminder(text: str) -> None:
    assert classify(text)[0] == "create"


@pytest.mark.parametrize(
    "text",
    [
        "look up the yoga class and cancel it",
        "show my next appointment and then delete it",
        "check what's on thursday and remove the lunch",
    ],
)
def test_a_look_that_leads_to_a_change_is_the_change(text: str) -> None:
    assert classify(text)[0] == "delete"


@pytest.mark.parametrize(
    "text",
    [
        "i will no longer be attending the book club tonight",
        "i'm not going to the gala on saturday",
        "i can't make it to the barbecue tomorrow",
    ],
)
def test_saying_one_will_not_be_there_cancels(text: str) -> None:
    assert classify(text)[0] == "delete"


@pytest.mark.parametrize("text", ["do cancel the quiz night", "do delete my next event"])
def test_an_emphatic_do_is_an_order_not_a_question(text: str) -> None:
    assert classify(text)[0] == "delete"


@pytest.mark.parametrize(
    "text",
    ["piano lesson thursday at four", "I have a job interview at 10 tomorrow", "soccer practice on sunday"],
)
def test_one_event_stated_with_its_day_is_added(text: str) -> None:
    assert frame_of(text)["operation"] == "create"


@pytest.mark.parametrize(
    "text",
    [
        "meetings on friday",
        "piano lesson thursday, right",
        "soccer practice on sunday?",
        "dentist calendar november",
        "thanks, bye for now",
    ],
)
def test_events_looked_up_or_a_statement_that_asks_are_not_added(text: str) -> None:
    assert frame_of(text)["operation"] != "create"


def test_no_event_said_with_its_day_is_cancelled() -> None:
    assert frame_of("no band rehearsal tomorrow")["operation"] == "delete"


@pytest.mark.parametrize(
    "text",
    ["today's schedule", "my weekly plan", "make a list of the concerts in town"],
)
def test_a_schedule_or_list_asked_for_is_read_not_written(text: str) -> None:
    assert classify(text)[0] == "query"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("set up a meeting with kofi on friday", ["kofi"]),
        ("lunch with ines and marta tomorrow at noon", ["ines", "marta"]),
        ("book a call with dmitri", ["dmitri"]),
    ],
)
def test_people_after_a_meeting_word_and_with_are_found(text: str, names: list[str]) -> None:
    assert frame_of(text)["person_names"] == names


def test_a_possessive_owner_is_a_person_and_stays_in_the_title() -> None:
    frame = frame_of("add ravi's graduation on june 5")
    assert frame["person_names"] == ["ravi"]
    assert frame["titles"] == ["ravi's graduation"]


@pytest.mark.parametrize("text", ["wait, bring it back", "oops bring it back", "restore it", "put it back"])
def test_asking_for_what_was_just_changed_back_is_an_undo(text: str) -> None:
    """ "bring it back" and "restore it" after a delete were answered "Great!"."""
    assert classify(text)[0] == "undo"


def test_moving_an_event_back_by_some_time_is_no_undo() -> None:
    assert classify("move the hike back an hour")[0] == "move"


@pytest.mark.parametrize(
    ("text", "operation"),
    [
        ("put everything from friday onto monday", "move"),
        ("please put all my calls on tuesday afternoon", "move"),
        ("put every class this week on the following week", "move"),
        # one new thing put somewhere is a new event
        ("put lunch on friday at 1", "create"),
        ("put a call with the bank on tuesday", "create"),
    ],
)
def test_putting_all_of_what_is_there_somewhere_moves_it(text: str, operation: str) -> None:
    assert classify(text)[0] == operation


def test_everything_put_on_another_day_is_moved_after_a_preview() -> None:
    from assistant.services import chat_turn
    from tests.factories import two_meetings

    monday = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("America/New_York"))
    with time_machine.travel(monday, tick=False):
        user, conversation = two_meetings("putter")
        reply = chat_turn(user=user, conversation=conversation, text="put everything from Tuesday on Friday")
    assert reply is not None
    assert reply.kind == "confirm", reply.text
    assert "Move 'Standup'" in reply.text
    assert "Move 'Design sync'" in reply.text
    assert "Friday, March 6" in reply.text


@pytest.mark.parametrize(
    "text",
    [
        "what's the earliest I can meet Priya on Monday",
        "what time works for me and Priya on Monday?",
        "what's the soonest I can see the accountant",
        "is there a time that works for both of us next week",
    ],
)
def test_asking_when_one_can_meet_asks_for_free_time(text: str) -> None:
    assert classify(text)[0] == "free"


@pytest.mark.parametrize(
    ("text", "operation"),
    [
        ("let's do lunch friday at 1", "create"),
        ("lets do a call with ann tomorrow at 4", "create"),
        ("ok let's do coffee on monday", "create"),
        # "do" with a subject still asks
        ("do I have lunch on friday", "query"),
    ],
)
def test_lets_do_an_event_makes_a_plan_not_a_question(text: str, operation: str) -> None:
    """ "Let's" is read as politeness, and what was left ("do lunch friday at 1") opened like "do I
    have ...?": the events at that time were listed."""
    assert classify(text)[0] == operation
