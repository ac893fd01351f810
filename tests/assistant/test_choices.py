"""Choosing among many matches: at most five buttons, each naming its outcome, "all of them" for a
series, and any other candidate by its day, never a wrong pick."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

LA = ZoneInfo("America/Los_Angeles")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=LA)  # a Wednesday


@pytest.fixture
def weekly() -> tuple[Any, Conversation]:
    """A team sync every Monday at 10 with no end, and one other person on it."""
    user, cal = user_with_calendar("chooser", timezone="America/Los_Angeles")
    event_create(
        calendar=cal,
        summary="Team sync",
        start=datetime(2026, 3, 2, 10, 0, tzinfo=LA),
        end=datetime(2026, 3, 2, 10, 30, tzinfo=LA),
        timezone="America/Los_Angeles",
        rrule="FREQ=WEEKLY;BYDAY=MO",
        attendees=["ana@example.com"],
    )
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def test_a_choice_shows_five_options_naming_the_new_time_and_all_of_them(weekly: Any) -> None:
    user, conversation = weekly
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "push the team sync to 11")
    assert reply.kind == "choose"
    labels = [o["label"] for o in reply.data["options"]]
    assert len(labels) == 6  # five occurrences and "all of them"
    assert labels[0].startswith("Move Team sync, Monday, March 9 10:00 AM")
    assert all(label.endswith("→ 11:00 AM") for label in labels)  # "to 11" for a 10 am meeting
    assert labels[-1].startswith("Move all of them, from Monday, March 9 on")
    assert 'say its day (e.g. "the one on Monday, April 13")' in reply.text
    # one event that repeats is asked about as such, not as many events found
    assert reply.text.startswith("'Team sync' repeats (52 to come).")  # a year of Mondays
    assert "Which one do you mean, or all of them from Monday, March 9 on?" in reply.text
    assert not Event.objects.filter(calendar__owner=user, series__isnull=False).exists()


def test_a_day_past_the_buttons_picks_that_occurrence(weekly: Any) -> None:
    user, conversation = weekly
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "push the team sync to 11")
        reply = say(user, conversation, "the one on April 20")
    assert reply.kind == "done"
    override = Event.objects.get(calendar__owner=user, series__isnull=False)
    assert override.start.astimezone(LA) == datetime(2026, 4, 20, 11, 0, tzinfo=LA)


def test_a_day_with_no_occurrence_picks_nothing(weekly: Any) -> None:
    user, conversation = weekly
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "push the team sync to 11")
        reply = say(user, conversation, "the one on April 21")  # a Tuesday: no team sync then
    assert reply.kind != "done"
    assert not Event.objects.filter(calendar__owner=user, series__isnull=False).exists()
    master = Event.objects.get(calendar__owner=user)
    assert master.start.astimezone(LA).hour == 10


@pytest.mark.parametrize("pick", ["the next one", "only the next one", "just the next one please"])
def test_the_next_one_picks_the_first_occurrence_and_keeps_the_move(weekly: Any, pick: str) -> None:
    """While the choice waits, "the next one" picks the earliest option; it was read as a new question
    ("Next: Monday, March 9 ...") and the move asked for was dropped unsaid."""
    user, conversation = weekly
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "push the team sync to 11")
        reply = say(user, conversation, pick)
    assert reply.kind == "done", reply.text
    override = Event.objects.get(calendar__owner=user, series__isnull=False)
    assert override.start.astimezone(LA) == datetime(2026, 3, 9, 11, 0, tzinfo=LA)


@pytest.mark.parametrize("pick", ["all of them", "every one of them", "from now on", "all future ones"])
def test_all_of_them_moves_the_series_from_the_next_one_on_and_keeps_the_past(weekly: Any, pick: str) -> None:
    user, conversation = weekly
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "push the team sync to 11")
        reply = say(user, conversation, pick)
    assert reply.kind == "done"
    assert "(from Monday, March 9 on)" in reply.text
    rows = Event.objects.filter(calendar__owner=user, series__isnull=True).order_by("start")
    assert [r.start.astimezone(LA).strftime("%m-%d %H:%M") for r in rows] == ["03-02 10:00", "03-09 11:00"]


@pytest.mark.parametrize("pick", ["all of them", "both"])
def test_all_of_them_in_a_stretch_named_is_those_only_never_the_series_on(weekly: Any, pick: str) -> None:
    """ "cancel the team sync in the next two weeks" finds 2 and asks which: "all of them" (or "both") is
    those 2; it was the series from the first on, every Monday after the two weeks too."""
    user, conversation = weekly
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "cancel the team sync in the next two weeks")
        assert asked.kind == "choose"
        assert asked.data["options"][-1]["label"] == "Cancel all 2 of them"
        done = say(user, conversation, pick)
        said = say(user, conversation, "what do I have on monday march 23?")
    assert done.kind == "done"
    assert "Monday, March 9" in done.text
    assert "Monday, March 16" in done.text
    assert "Team sync" in said.text  # the series goes on after the stretch
