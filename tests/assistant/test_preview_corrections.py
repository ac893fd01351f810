"""A new event shown for approval and corrected instead of approved: "call it Book club", "yes, but
invite Ann", "make it 4pm instead" go on with the event shown (its day, time and the rest) rather than
start a new one with nothing but the correction; and the verb that may be half of a name ("book club
tuesday 7pm") is shown before it is written. Through the chat, as a user types it."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.services import chat_turn, conversation_create
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday
pytestmark = pytest.mark.django_db


def _world(username: str) -> tuple[Any, Any]:
    """A user whose Friday has a design review at 3 pm (so lunch then is shown first), Ann in the
    directory, and a new conversation."""
    user, calendar = user_with_calendar(username)
    event_create(
        calendar=calendar,
        summary="Design review",
        start=datetime(2026, 3, 6, 15, tzinfo=NY),
        end=datetime(2026, 3, 6, 16, tzinfo=NY),
    )
    get_user_model().objects.create_user(
        f"ann-{username}", "ann@example.com", first_name="Ann", last_name="Lee"
    )
    return user, conversation_create(user=user)


def _say(user: Any, conversation: Any, *texts: str) -> list[Any]:
    replies = []
    with time_machine.travel(NOW, tick=False):
        for text in texts:
            reply = chat_turn(user=user, conversation=conversation, text=text)
            assert reply is not None
            replies.append(reply)
    return replies


def _made(user: Any) -> list[tuple[str, datetime]]:
    return sorted(
        (e.summary, e.start.astimezone(NY))
        for e in Event.objects.filter(calendar__owner=user).exclude(summary="Design review")
    )


def test_a_verb_that_may_be_half_of_the_name_is_shown_first_and_the_name_said_then_keeps_the_time() -> None:
    user, conversation = _world("bookclub")
    shown, made = _say(user, conversation, "book club tuesday 7pm", "no, it's called book club")
    assert shown.kind == "confirm"
    assert "'Club'" in shown.text
    assert '"book"' in shown.text
    assert made.kind == "done"
    assert _made(user) == [("Book club", datetime(2026, 3, 3, 19, tzinfo=NY))]


def test_a_thing_booked_that_names_an_event_on_its_own_is_made_at_once() -> None:
    user, conversation = _world("bookdinner")
    [reply] = _say(user, conversation, "book dinner tuesday 7pm")
    assert reply.kind == "done"
    assert _made(user) == [("Dinner", datetime(2026, 3, 3, 19, tzinfo=NY))]


@pytest.mark.parametrize("rename", ["call it Team lunch", "yes, but call it Team lunch"])
def test_a_new_name_for_the_event_shown_keeps_its_day_and_time(rename: str) -> None:
    user, conversation = _world("rename")
    shown, again = _say(user, conversation, "add lunch friday at 3", rename)
    assert shown.kind == "confirm"  # it overlaps the design review
    assert again.kind == "confirm", again.text
    assert "'Team lunch': Friday, March 6 3:00 PM" in again.text
    assert _made(user) == []
    _say(user, conversation, "yes")
    assert _made(user) == [("Team lunch", datetime(2026, 3, 6, 15, tzinfo=NY))]


@pytest.mark.parametrize("invite", ["yes, but invite Ann", "sure, and add Ann", "add Ann"])
def test_someone_invited_instead_of_a_yes_joins_the_event_shown(invite: str) -> None:
    """ "add Ann" was 'Ann', a new event, asked when: the preview's reply had asked where the lunch is,
    and the name was read as the answer's."""
    user, conversation = _world("invite")
    _, again = _say(user, conversation, "add lunch friday at 3", invite)
    assert again.kind == "confirm", again.text
    assert "Friday, March 6 3:00 PM" in again.text
    assert "Ann" in again.text
    _say(user, conversation, "yes")
    [event] = Event.objects.filter(calendar__owner=user).exclude(summary="Design review")
    assert event.attendees == ["ann@example.com"]
    assert event.start == datetime(2026, 3, 6, 15, tzinfo=NY)


@pytest.mark.parametrize("other_time", ["make it 4pm instead", "fine, but make it 4pm"])
def test_another_time_instead_of_a_yes_moves_the_event_shown(other_time: str) -> None:
    user, conversation = _world("later")
    _, made = _say(user, conversation, "add lunch friday at 3", other_time)
    assert made.kind == "done", made.text  # 4 pm is free
    assert _made(user) == [("Lunch", datetime(2026, 3, 6, 16, tzinfo=NY))]


def test_a_change_to_a_preview_of_anything_but_one_new_event_is_asked_again() -> None:
    user, conversation = _world("moving")
    shown, answer = _say(user, conversation, "move the design review to thursday", "yes, but invite Ann too")
    assert shown.kind == "confirm", shown.text
    assert answer.kind == "clarify"
    assert "changes what I showed you" in answer.text
    assert Event.objects.get(summary="Design review").start == datetime(2026, 3, 6, 15, tzinfo=NY)


def test_another_time_instead_of_a_yes_to_a_move_moves_it_there() -> None:
    """ "Yes, but make it 11" to a move onto Thursday was asked again ("changes what I showed you"): the
    move, at 11 on the Thursday shown (the review has nobody else: made, as any such move is)."""
    user, conversation = _world("moving")
    shown, answer = _say(user, conversation, "move the design review to thursday", "yes, but make it 11")
    assert shown.kind == "confirm", shown.text
    assert answer.kind == "done", answer.text
    assert "→ Thursday, March 5 11:00 AM" in answer.text
    assert Event.objects.get(summary="Design review").start == datetime(2026, 3, 5, 11, tzinfo=NY)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("invite Ann to lunch friday at 4", "Lunch with Ann"),
        ("Invite Ann to dinner on Friday at 7", "Dinner with Ann"),
    ],
)
def test_people_invited_to_an_event_are_its_guests_not_its_name(text: str, title: str) -> None:
    user, conversation = _world("guests")
    [reply] = _say(user, conversation, text)
    assert f"'{title}'" in reply.text, reply.text
