"""Yes or no for other people at one moment: "Are Ann and Raj free on Thursday at 10?".

The question about one moment used to read only the user's own calendar ("Yes, you are free ..."
although Ann is busy 9-12). With people of this instance named, their free/busy is read too:

- "Are Ann and Raj free ...?", "Is Ann free ...?" is about them: yes only if every one of them is
  free; the user's own events do not turn it into a no (they are mentioned, so nobody is surprised).
- "Are Ann, Raj and I free ...?", "Can we all meet ...?", "Can Ann, Raj and I all meet ...?" include
  the user: yes only if the user is free too.
- A no names who is busy and when ("No: Ann Lee is busy then (9:00 AM – 12:00 PM)."), never what
  another person's event is; the user's own events are named as before.
- Someone whose calendar cannot be seen (not a user here) is named as such, and then there is no
  plain yes.
- "Am I free ...?" reads as before.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.planning import DecomposeRequest, decompose
from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
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
    """The user (working 9-19, a dentist on Thursday 4-5 PM) and two colleagues; on Thursday Ann is
    busy 9-12 ("Workshop"), Raj 13-15 ("Customer visit")."""
    user, calendar = user_with_calendar("asker", timezone="Europe/Berlin")
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "19:00"},
    )
    event_create(calendar=calendar, summary="Dentist", start=at(5, 16), end=at(5, 17))
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


def ask(user: Any, text: str) -> Any:
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    assert reply.kind == "answer", reply.text
    return reply


def _no_titles(reply: Any) -> None:
    """Nothing of what the others' events are: not in the text, not in the data sent with it."""
    said = reply.text + json.dumps(reply.data, default=str)
    assert "Workshop" not in said
    assert "Customer visit" not in said


def test_a_busy_person_makes_it_a_no_naming_them_and_when(world: tuple[Any, dict[str, Any]]) -> None:
    reply = ask(world[0], "Are Ann and Raj free on Thursday at 10?")
    assert reply.text.startswith("No: Ann Lee is busy then (9:00 AM – 12:00 PM)."), reply.text
    assert "Raj Patel is free" in reply.text, reply.text
    assert "you are free" not in reply.text.casefold()
    _no_titles(reply)


def test_all_of_them_free_is_a_yes(world: tuple[Any, dict[str, Any]]) -> None:
    reply = ask(world[0], "Are Ann and Raj free on Thursday at 12pm?")
    assert reply.text.startswith(
        "Yes, Ann Lee and Raj Patel are both free on Thursday, March 5 at 12:00 PM."
    ), reply.text


def test_several_busy_are_all_named(world: tuple[Any, dict[str, Any]]) -> None:
    reply = ask(world[0], "Are Ann and Raj free on Thursday at 11 for 3 hours?")
    assert reply.text.startswith(
        "No: Ann Lee (9:00 AM – 12:00 PM) and Raj Patel (1:00 PM – 3:00 PM) are busy then."
    ), reply.text
    _no_titles(reply)


def test_one_person_named(world: tuple[Any, dict[str, Any]]) -> None:
    assert ask(world[0], "Is Ann free on Thursday at 10?").text.startswith(
        "No: Ann Lee is busy then (9:00 AM – 12:00 PM)."
    )
    assert ask(world[0], "Is Ann Lee available on Thursday at 2pm?").text.startswith(
        "Yes, Ann Lee is free on Thursday, March 5 at 2:00 PM."
    )


def test_the_question_about_them_does_not_include_the_user(world: tuple[Any, dict[str, Any]]) -> None:
    """ "Are Ann and Raj free" asks about them: the user's dentist at 4 leaves it a yes, and is said."""
    reply = ask(world[0], "Are Ann and Raj free on Thursday at 4pm?")
    assert reply.text.startswith(
        "Yes, Ann Lee and Raj Patel are both free on Thursday, March 5 at 4:00 PM"
    ), reply.text
    assert "You have Dentist (4:00 PM – 5:00 PM) then." in reply.text, reply.text


@pytest.mark.parametrize(
    "text",
    [
        "Are Ann, Raj and I free on Thursday at 4pm?",
        "are ann, raj and i all available thursday at 4pm",
        "Can Ann, Raj and I all meet on Thursday at 4pm?",
        "Can we all meet with Ann and Raj on Thursday at 4pm?",
    ],
)
def test_the_user_named_among_them_is_included(world: tuple[Any, dict[str, Any]], text: str) -> None:
    reply = ask(world[0], text)
    assert reply.text.startswith("No: you have Dentist (4:00 PM – 5:00 PM)."), reply.text
    assert "Ann Lee and Raj Patel are both free" in reply.text, reply.text


def test_the_user_and_them_all_free(world: tuple[Any, dict[str, Any]]) -> None:
    reply = ask(world[0], "Are Ann, Raj and I free on Thursday at 12pm?")
    assert reply.text.startswith(
        "Yes, you, Ann Lee and Raj Patel are all free on Thursday, March 5 at 12:00 PM."
    ), reply.text


def test_the_user_and_someone_busy(world: tuple[Any, dict[str, Any]]) -> None:
    """2:30-3:30: the user is free (the dentist is at 4), Raj is not."""
    reply = ask(world[0], "Are Raj and I free on Thursday at 2:30pm for an hour?")
    assert reply.text == "No: Raj Patel is busy then (1:00 PM – 3:00 PM). You are free.", reply.text
    reply = ask(world[0], "Are Ann, Raj and I free on Thursday at 10?")
    assert reply.text == "No: Ann Lee is busy then (9:00 AM – 12:00 PM). You and Raj Patel are both free.", (
        reply.text
    )


def test_someone_whose_calendar_cannot_be_seen_leaves_no_plain_yes(world: tuple[Any, dict[str, Any]]) -> None:
    reply = ask(world[0], "Are ann@example.com and zoe@elsewhere.org free on Thursday at 12pm?")
    assert reply.text.startswith("Ann Lee is free on Thursday, March 5 at 12:00 PM"), reply.text
    assert "I cannot see the calendar of Zoe." in reply.text, reply.text
    assert not reply.text.startswith("Yes")


def test_a_name_nobody_here_has_is_named_as_unseen(world: tuple[Any, dict[str, Any]]) -> None:
    reply = ask(world[0], "Is Zoe free on Thursday at 12pm?")
    assert reply.text.startswith("I cannot see the calendar of Zoe, so I cannot tell whether Zoe is free"), (
        reply.text
    )
    assert "you are free" not in reply.text.casefold()
    assert not reply.text.startswith("Yes")


def test_a_busy_one_and_an_unseen_one(world: tuple[Any, dict[str, Any]]) -> None:
    reply = ask(world[0], "Are ann@example.com and zoe@elsewhere.org free on Thursday at 10?")
    assert reply.text.startswith("No: Ann Lee is busy then (9:00 AM – 12:00 PM)."), reply.text
    assert "I cannot see the calendar of Zoe." in reply.text, reply.text


def test_the_users_own_question_reads_as_before(world: tuple[Any, dict[str, Any]]) -> None:
    assert (
        ask(world[0], "Am I free on Thursday at 10?").text
        == "Yes, you are free on Thursday, March 5 at 10:00 AM."
    )
    text = ask(world[0], "Am I free on Thursday at 4pm?").text
    assert text == "No, on Thursday, March 5 at 4:00 PM you have Dentist (4:00 PM – 5:00 PM).", text


def test_the_workflow_reads_their_free_busy(world: tuple[Any, dict[str, Any]]) -> None:
    user, _ = world
    with time_machine.travel(NOW, tick=False):
        decision = decompose(
            DecomposeRequest(
                text="Are Ann and Raj free on Thursday at 10?", user=user, timezone="Europe/Berlin"
            )
        )
    assert decision.workflow is not None, decision
    compile_workflow(decision.workflow)
    busy = next(t.params for t in decision.workflow.tasks if t.skill == "people_busy")
    assert busy["people"] == ["ann@example.com", "raj@example.com"]
    assert (busy["start"], busy["end"]) == (at(5, 10).isoformat(), at(5, 11).isoformat())
    reply = next(t.params for t in decision.workflow.tasks if t.skill == "compose_reply")
    assert reply["style"] == "free_at"
    assert reply["with_you"] is False
