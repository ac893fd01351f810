"""How long a free slot must be, said with "free" between the number and the unit.

"Find me a free hour on Thursday" searched for 30-minute slots: the duration reader reads "an hour"
and "90 minutes" but not "a free hour" or "90 free minutes", so the length was lost and the default
used. The decomposer reads the length with the adjective set aside ("a free hour", "an hour-long
slot", "90 free minutes", "two free hours", "a spare half hour"), and the search asks for it.
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
from skills.services import event_create
from tests.factories import user_with_calendar
from workflows.validation import compile_workflow

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # Monday, March 2


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=BERLIN)


@pytest.fixture
def user() -> Any:
    """Working 9-19; on Thursday busy 9-13 and 13:30-17: free 13:00-13:30 and 17:00-19:00."""
    user, calendar = user_with_calendar("asker", timezone="Europe/Berlin")
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "19:00"},
    )
    event_create(calendar=calendar, summary="Offsite", start=at(5, 9), end=at(5, 13))
    event_create(calendar=calendar, summary="Planning", start=at(5, 13, 30), end=at(5, 17))
    return user


def search(user: Any, text: str) -> dict[str, Any]:
    with time_machine.travel(NOW, tick=False):
        decision = decompose(DecomposeRequest(text=text, user=user, timezone="Europe/Berlin"))
    assert decision.workflow is not None, decision
    compile_workflow(decision.workflow)
    return next(t.params for t in decision.workflow.tasks if t.skill == "free_slots")


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("find me a free hour on Thursday", 60),
        ("Do I have a free hour on Thursday?", 60),
        ("find an hour-long slot on Thursday", 60),
        ("I need 90 free minutes on Thursday", 90),
        ("find two free hours on Thursday", 120),
        ("when do I have 2 free hours this week", 120),
        ("find me a free hour and a half on Thursday", 90),
        ("any spare half hour on Thursday?", 30),
        ("when do I have 45 spare minutes tomorrow", 45),
        ("find a couple of free hours on Thursday", 120),
        ("when am I free for an hour on Thursday", 60),  # as before
        # "You have no meetings on Thursday": asked as a look-up of meetings
        ("do I have time for a 2 hour meeting on Thursday?", 120),
        ("is there time for a 2 hour meeting on Thursday?", 120),
        # the same asked as room or a fit: a look-up of meetings, and "could we fit" a new 'Sync'
        ("do I have room for a 2 hour meeting on Thursday?", 120),
        ("is there any room for a 90 minute call on Thursday?", 90),
        ("could we fit a 30 minute sync in on Thursday?", 30),
        # "a 2 hour block" is a length of time, not a request to block it: a new event 'Fit' was asked about
        ("can I fit a 2 hour block on Thursday?", 120),
        ("do I have an hour block free on Thursday?", 60),
        # "fit in" makes an event ("fit in a call at 3"); asked, with no time, it asks whether there is room
        ("could I fit in a 45 minute call on Thursday?", 45),
    ],
)
def test_the_length_said_is_the_length_searched(user: Any, text: str, minutes: int) -> None:
    assert search(user, text)["duration_minutes"] == minutes


@pytest.mark.parametrize(
    "text",
    ["when am I free on Thursday", "what are my free hours this week", "can I fit in a call on Thursday?"],
)
def test_no_length_said_keeps_the_default(user: Any, text: str) -> None:
    assert search(user, text)["duration_minutes"] == 30


def test_the_answer_leaves_out_shorter_gaps(user: Any) -> None:
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text="find me a free hour on Thursday")
    assert reply is not None
    assert reply.kind == "answer", reply.text
    assert "You are free on Thursday, March 5: 5:00 PM – 7:00 PM." in reply.text, reply.text
    assert "1:00 PM – 1:30 PM" not in reply.text


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("block 2 hours on Thursday at 5 for writing", "Writing"),  # "block" that blocks time stays a verb
        ("put a 30 minute block on Thursday at 5", "Block"),
        ("can I fit in a call with the bank on Thursday at 5?", "Call with the bank"),  # a time: made there
    ],
)
def test_blocking_time_is_still_a_new_event(user: Any, text: str, title: str) -> None:
    with time_machine.travel(NOW, tick=False):
        decision = decompose(DecomposeRequest(text=text, user=user, timezone="Europe/Berlin"))
    assert decision.workflow is not None, decision
    create = next(t.params for t in decision.workflow.tasks if t.skill == "plan_create")
    assert create["summary"] == title
