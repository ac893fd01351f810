"""Copies of events at a later time, said in chat: previewed, made on approval, never duplicated."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.models import Conversation, Message
from assistant.services import chat_turn, conversation_create
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=NEW_YORK)  # Wednesday; this week is March 2-8


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=NEW_YORK)


@pytest.fixture
def week() -> tuple[Any, Conversation]:
    """A piano lesson on Tuesday and a review on Thursday this week, a weekly standup series."""
    user, cal = user_with_calendar("copier", timezone="America/New_York")
    event_create(calendar=cal, summary="Piano lesson", start=at(3, 17), end=at(3, 18), location="Studio 2")
    event_create(calendar=cal, summary="Design review", start=at(5, 14), end=at(5, 15, 30))
    event_create(
        calendar=cal, summary="Standup", start=at(2, 9, 30), end=at(2, 9, 45), rrule="FREQ=WEEKLY;BYDAY=MO"
    )
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Message:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def preview_of(week: tuple[Any, Conversation], text: str) -> str:
    """The preview ``text`` gets at the fixed time: copies are always shown first."""
    with time_machine.travel(NOW, tick=False):
        preview = say(*week, text)
    assert preview.kind == "confirm", preview.text
    return str(preview.text)


def test_copying_this_weeks_event_to_next_week_is_previewed_then_made_at_its_own_time(week: Any) -> None:
    user, conversation = week
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, "copy this week's piano lesson to next week")
        assert preview.kind == "confirm"
        assert "Create 'Piano lesson': Tuesday, March 10 5:00 PM – 6:00 PM" in preview.text
        assert Event.objects.filter(summary="Piano lesson").count() == 1  # nothing before the yes
        done = say(user, conversation, "yes")
    assert done.kind == "done"
    copy = Event.objects.exclude(start=at(3, 17)).get(summary="Piano lesson")
    assert (copy.start, copy.end, copy.location) == (at(10, 17), at(10, 18), "Studio 2")


def test_a_week_said_alone_copies_from_the_week_before_it_only_what_was_named(week: Any) -> None:
    preview = preview_of(week, "duplicate my design review into next week")
    assert "Design review': Thursday, March 12 2:00 PM – 3:30 PM" in preview
    assert "Piano lesson" not in preview


def test_a_series_already_there_is_not_copied_twice(week: Any) -> None:
    user, conversation = week
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "copy my standup to next week")
    assert "already there" in reply.text
    assert "Create" not in reply.text
    assert Event.objects.filter(summary="Standup").count() == 1


@pytest.mark.parametrize(
    "text",
    [
        "copy my events from this week to next week",
        "copy this week to the following week",
        "duplicate this week's events into the week after",
    ],
)
def test_where_copies_go_said_from_the_week_copied(week: Any, text: str) -> None:
    """ "From this week to next week" is one interval to the time reader, and "the week after" names no
    date of its own: both say the week copied and the week after it."""
    preview = preview_of(week, text)
    assert "Create 'Piano lesson': Tuesday, March 10 5:00 PM – 6:00 PM" in preview
    assert "Create 'Design review': Thursday, March 12 2:00 PM – 3:30 PM" in preview
    assert "did not use" not in preview


def test_copying_a_day_to_the_day_after_it(week: Any) -> None:
    preview = preview_of(week, "copy the design review from thursday to the day after")
    assert "Create 'Design review': Friday, March 6 2:00 PM – 3:30 PM" in preview


@pytest.mark.parametrize(
    "text", ["copy Thursday's review to next week", "copy the review on Thursday into next week"]
)
def test_a_day_copied_to_a_week_goes_to_the_same_weekday_of_that_week(week: Any, text: str) -> None:
    preview = preview_of(week, text)
    assert "Create 'Design review': Thursday, March 12 2:00 PM – 3:30 PM" in preview


def test_copying_to_a_day_without_saying_from_which_asks(week: Any) -> None:
    # (one event named by its title is copied: see below)
    user, conversation = week
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "copy my meetings to Friday")
    assert reply.kind == "clarify"
    assert "from which day" in reply.text


def test_copying_to_an_earlier_day_asks_where_the_copies_go(week: Any) -> None:
    user, conversation = week
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "copy Thursday's design review to Monday March 2")
    assert reply.kind == "clarify"
    assert Event.objects.filter(summary="Design review").count() == 1


def test_an_event_named_with_a_time_and_no_day_is_the_next_one_at_that_time(week: Any) -> None:
    """Not a copy, but the same week: "my 5pm piano lesson" on a Wednesday is Tuesday's, a week on
    (the one at 5 PM from today on), never a question about today."""
    user, conversation = week
    cal = Event.objects.get(summary="Piano lesson").calendar
    event_create(calendar=cal, summary="Piano lesson", start=at(10, 17), end=at(10, 18))
    event_create(calendar=cal, summary="Piano lesson", start=at(11, 8), end=at(11, 9))
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "move my 5pm piano lesson to 6pm")
        if reply.kind == "confirm":
            reply = say(user, conversation, "yes")
    assert reply.kind == "done", reply.text
    lessons = sorted((e.start, e.end) for e in Event.objects.filter(summary="Piano lesson"))
    # Tuesday's moved; last week's (gone) and the 8 AM one (not at five) left as they were
    assert lessons == [(at(3, 17), at(3, 18)), (at(10, 18), at(10, 19)), (at(11, 8), at(11, 9))]


def test_one_event_named_is_copied_to_the_day_said_at_its_own_time_and_place(week: Any) -> None:
    # asked "Copy from which day or week?": only periods were copied from
    user, conversation = week
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, "copy the piano lesson to Friday")
        assert preview.kind == "confirm", preview.text
        assert "Create 'Piano lesson': Friday, March 6 5:00 PM – 6:00 PM" in preview.text
        assert Event.objects.filter(summary="Piano lesson").count() == 1  # nothing before the yes
        done = say(user, conversation, "yes")
    assert done.kind == "done", done.text
    copy = Event.objects.exclude(start=at(3, 17)).get(summary="Piano lesson")
    assert (copy.start, copy.end, copy.location) == (at(6, 17), at(6, 18), "Studio 2")
