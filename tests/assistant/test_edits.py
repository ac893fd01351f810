"""Edits of what an event is (its name, place, people) by chat, previewed or applied, and undone."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.test.utils import override_settings

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.models import Preference
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # a Monday


@pytest.fixture
def calendar() -> tuple[Any, Conversation]:
    """A weekly standup with Kai, a design review with Bo on Thursday, and Lee in the directory."""
    user, cal = user_with_calendar("editor", timezone="Europe/Berlin")
    for email, first in (("kai@example.com", "Kai"), ("bo@example.com", "Bo"), ("lee@example.com", "Lee")):
        get_user_model().objects.create_user(first.casefold(), email, first_name=first)
    event_create(
        calendar=cal,
        summary="Standup",
        start=datetime(2026, 3, 2, 9, 30, tzinfo=BERLIN),
        end=datetime(2026, 3, 2, 9, 45, tzinfo=BERLIN),
        timezone="Europe/Berlin",
        rrule="FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10",
        attendees=["kai@example.com"],
    )
    event_create(
        calendar=cal,
        summary="Design review",
        start=datetime(2026, 3, 5, 14, 0, tzinfo=BERLIN),
        end=datetime(2026, 3, 5, 15, 0, tzinfo=BERLIN),
        timezone="Europe/Berlin",
        attendees=["bo@example.com"],
    )
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def test_rename_of_a_recurring_event_without_a_day_renames_the_series(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "Rename the standup to Daily check-in")
        # A whole series changes: the preview says so and asks before anything is written.
        assert asked.kind == "confirm"
        assert "(every occurrence)" in asked.text
        assert Event.objects.filter(calendar__owner=user, summary="Standup").exists()
        reply = say(user, conversation, "yes")
    assert reply.kind == "done"
    master = Event.objects.get(calendar__owner=user, series__isnull=True, rrule__contains="WEEKLY")
    assert master.summary == "Daily check-in"
    assert not Event.objects.filter(calendar__owner=user, summary="Standup").exists()


def test_a_place_for_it_goes_to_the_event_just_shown(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "When is the design review?")
        reply = say(user, conversation, "put it in room 4B")
    assert reply.kind == "done"
    assert Event.objects.get(summary="Design review").location == "room 4B"


def test_put_with_a_time_is_a_move_not_a_place(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "When is the design review?")
        say(user, conversation, "put it at 4pm")
    review = Event.objects.get(summary="Design review")
    assert review.location == ""
    assert review.start.astimezone(BERLIN).hour in (14, 16)  # moved, or waiting for approval: never a place


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_inviting_asks_first_and_tells_only_the_person_invited(calendar: Any) -> None:
    user, conversation = calendar
    mail.outbox = []
    with time_machine.travel(NOW, tick=False):
        ask = say(user, conversation, "Invite Lee to the design review and let him know")
        assert ask.kind == "confirm"
        assert "invite Lee" in ask.text
        assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]
        done = say(user, conversation, "yes")
    assert done.kind == "done"
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com", "lee@example.com"]
    assert [m.to for m in mail.outbox] == [["lee@example.com"]]
    assert "invited to Design review" in mail.outbox[0].body


def test_taking_someone_off_and_undoing_it_puts_them_back(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        assert say(user, conversation, "Take Bo off the design review").kind == "confirm"
        say(user, conversation, "yes")
        assert Event.objects.get(summary="Design review").attendees == []
        undone = say(user, conversation, "undo that")
    assert undone.kind == "done"
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


def test_an_unknown_person_is_asked_about_and_nothing_changes(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Add Zed to the design review")
    assert reply.kind == "clarify"
    assert "Zed" in reply.text
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


def test_adding_something_to_the_calendar_is_a_new_event_not_an_invite(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Add lunch to my calendar on Friday at 1pm")
    assert reply.kind == "done"
    assert Event.objects.filter(calendar__owner=user, summary__icontains="lunch").count() == 1


def test_a_new_length_keeps_the_start(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Shorten the design review on Thursday to 25 minutes")
    review = Event.objects.get(summary="Design review")
    assert reply.kind == "done"
    assert review.start == datetime(2026, 3, 5, 14, 0, tzinfo=BERLIN)
    assert (review.end - review.start).total_seconds() == 25 * 60


def test_a_length_for_a_weeks_events_asks_first_and_changes_each(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        ask = say(user, conversation, "Make all my events this week 30 minutes")
        assert ask.kind == "confirm"
        say(user, conversation, "yes")
    review = Event.objects.get(summary="Design review")
    assert (review.end - review.start).total_seconds() == 30 * 60


def test_a_title_that_contains_a_category_word_names_the_event_whoever_attends(calendar: Any) -> None:
    """ "the team sync" is found by its title even with nobody else on it ("sync" made it a meeting)."""
    user, conversation = calendar
    cal = Event.objects.get(summary="Design review").calendar
    event_create(
        calendar=cal,
        summary="Team sync",
        start=datetime(2026, 3, 4, 10, 0, tzinfo=BERLIN),
        end=datetime(2026, 3, 4, 11, 0, tzinfo=BERLIN),
        timezone="Europe/Berlin",
    )
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "push the team sync to 11")
    assert reply.kind == "done"
    assert Event.objects.get(summary="Team sync").start == datetime(2026, 3, 4, 11, 0, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        ("Set my timezone to Europe/London", "done", "timezone"),
        ("change my lunch to 12:30-1:30", "done", "lunch_hours"),
        ("update my working hours", "clarify", None),  # to what? asked, nothing stored
    ],
)
def test_words_about_settings_change_the_setting_never_an_event(
    calendar: Any, text: str, kind: str, key: str | None
) -> None:
    user, conversation = calendar
    before = Event.objects.filter(calendar__owner=user).count()
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == kind, reply.text
    assert Event.objects.filter(calendar__owner=user).count() == before
    stored = set(Preference.objects.filter(user=user).values_list("key", flat=True))
    assert (key in stored) if key else not stored - {"timezone"}


def test_time_blocked_for_a_purpose_is_named_for_it(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "block 9-11 tomorrow for deep work")
    assert reply.kind == "done"
    block = Event.objects.get(calendar__owner=user, summary="Deep work")
    assert block.start == datetime(2026, 3, 3, 9, 0, tzinfo=BERLIN)
    assert block.attendees == []
