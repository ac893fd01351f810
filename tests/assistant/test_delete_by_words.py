"""Deletions that name their events by the words said, their people or as "the next one", without a
title the calendar already knows: planned all the same, previewed and asked before anything is deleted,
and answered with "no such event" when nothing matches."""

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

TORONTO = ZoneInfo("America/Toronto")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=TORONTO)  # a Monday


@pytest.fixture
def calendar() -> tuple[Any, Conversation]:
    """A haircut on Wednesday, John's birthday on Friday, coffee with Ted next week."""
    user, cal = user_with_calendar("deleter", timezone="America/Toronto")
    for summary, day, attendees in (
        ("Haircut", 4, []),
        ("John's birthday", 6, []),
        ("Coffee", 10, ["ted@example.com"]),
    ):
        event_create(
            calendar=cal,
            summary=summary,
            start=datetime(2026, 3, day, 15, 0, tzinfo=TORONTO),
            end=datetime(2026, 3, day, 16, 0, tzinfo=TORONTO),
            timezone="America/Toronto",
            attendees=attendees,
        )
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def test_the_next_event_is_previewed_and_asked_about_before_it_is_deleted(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "erase my next calendar event")
        assert "Haircut" in reply.text
        assert Event.objects.filter(summary="Haircut").exists()
        say(user, conversation, "yes")
    assert not Event.objects.filter(summary="Haircut").exists()
    assert Event.objects.count() == 2


def test_an_event_named_by_words_no_title_was_known_for_is_found_by_them(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "remove john's birthday from the calendar")
        assert "John's birthday" in reply.text
        assert Event.objects.count() == 3


def test_an_event_named_by_a_person_not_in_the_directory_is_found_by_its_attendee(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "erase my appointment with ted")
        assert "Coffee" in reply.text
        assert Event.objects.count() == 3


def test_a_deletion_of_something_that_is_not_there_says_so_and_deletes_nothing(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "delete my dentist appointment")
    assert "couldn't find" in reply.text
    assert Event.objects.count() == 3


def test_this_event_with_nothing_shown_before_offers_the_coming_weeks_events_to_pick(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "please delete this calendar event")
        assert reply.kind == "choose", reply.text
        assert reply.text.startswith("Which event should I cancel?")
        labels = [o["label"] for o in reply.data["options"]]
        assert [label.split(",")[0] for label in labels] == ["Cancel Haircut", "Cancel John's birthday"]
        assert Event.objects.count() == 3  # nothing goes before a pick
        done = say(user, conversation, "the one on March 4")
    assert done.kind == "done", done.text
    assert sorted(Event.objects.values_list("summary", flat=True)) == ["Coffee", "John's birthday"]


def test_delete_that_with_one_event_coming_is_previewed_not_done(calendar: Any) -> None:
    user, conversation = calendar
    Event.objects.exclude(summary="Haircut").delete()
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "delete that")
        assert reply.kind == "confirm", reply.text
        assert "Haircut" in reply.text
        assert Event.objects.count() == 1
        say(user, conversation, "no")
    assert Event.objects.count() == 1


@pytest.mark.parametrize("text", ["delete them", "cancel both", "delete all of them", "remove them both"])
def test_them_after_a_list_previews_deleting_each_event_it_showed_and_no_other(
    calendar: Any, text: str
) -> None:
    # "delete all of them" previewed deleting every event of the coming year, as whole series;
    # "cancel both" looked for an event called "both"; "delete them" asked which one.
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        shown = say(user, conversation, "what's on this week?")
        assert "Haircut" in shown.text
        assert "John's birthday" in shown.text
        # added elsewhere after the list, between the two: not one of "them"
        event_create(
            calendar=Event.objects.get(summary="Haircut").calendar,
            summary="Gym",
            start=datetime(2026, 3, 5, 7, 0, tzinfo=TORONTO),
            end=datetime(2026, 3, 5, 8, 0, tzinfo=TORONTO),
            timezone="America/Toronto",
        )
        reply = say(user, conversation, text)
        assert reply.kind == "confirm", reply.text
        assert "Haircut" in reply.text
        assert "John's birthday" in reply.text
        assert "Gym" not in reply.text
        assert "Coffee" not in reply.text
        assert Event.objects.count() == 4  # nothing goes before the yes
        say(user, conversation, "yes")
    assert sorted(Event.objects.values_list("summary", flat=True)) == ["Coffee", "Gym"]


def test_that_after_a_list_of_several_asks_which_one(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "what's on this week?")
        reply = say(user, conversation, "delete that")
    assert reply.kind == "choose", reply.text
    assert Event.objects.count() == 3


@pytest.mark.parametrize(
    "text",
    [
        "cancel my nail appointment on Wednesday",  # there is a haircut that day, no nail appointment
        "get rid of the dinner on Wednesday",
        "move my dentist appointment on Wednesday to 5pm",
    ],
)
def test_a_kind_of_event_the_day_does_not_have_is_not_taken_for_another(calendar: Any, text: str) -> None:
    # the words of the kind were left unused: every event of the day was offered as the one meant
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "clarify"
    assert reply.text.startswith("I couldn't find")
    assert Event.objects.count() == 3


def test_a_kind_of_event_the_day_has_is_the_one_changed(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "cancel my hair appointment on Wednesday")
        assert reply.kind == "confirm"
        assert "Haircut" in reply.text
        say(user, conversation, "yes")
    assert not Event.objects.filter(summary="Haircut").exists()


@pytest.mark.parametrize("text", ["cancel my yoga classes next week", "cancel the yoga sessions next week"])
def test_a_kind_of_event_in_the_plural_after_its_title_is_every_one_of_them(text: str) -> None:
    # "classes" after 'Yoga' asked which of the two was meant, and was left unused ("I did not use")
    user, cal = user_with_calendar("yogi", timezone="America/Toronto")
    event_create(
        calendar=cal,
        summary="Yoga",
        start=datetime(2026, 3, 3, 7, 0, tzinfo=TORONTO),
        end=datetime(2026, 3, 3, 8, 0, tzinfo=TORONTO),
        timezone="America/Toronto",
        rrule="FREQ=WEEKLY;BYDAY=TU,TH",
    )
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "confirm"
    assert "did not use" not in reply.text
    assert "Tuesday, March 10" in reply.text
    assert "Thursday, March 12" in reply.text
