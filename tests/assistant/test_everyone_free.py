"""Times that suit everyone, asked for in chat, and previews that name the preference a time breaks.

The real chat path (``chat_turn``), the clock fixed, the user in Berlin.  Ann, Raj and Lee are other
users of the instance: their calendars are read as free/busy, nothing more.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.models import Event
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # Monday, March 2


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=BERLIN)


def colleague(username: str, name: str) -> Any:
    first, last = name.split()
    user = get_user_model().objects.create_user(
        username, f"{username}@example.com", first_name=first, last_name=last
    )
    return calendar_create(owner=user, key="work", name="Work", timezone="Europe/Berlin", is_default=True)


@pytest.fixture
def chat() -> tuple[Any, Conversation]:
    """This Friday a budget review with Ann and Raj and a vendor call with Lee; a weekly team sync on
    Mondays; gym on Monday and Wednesday evenings.  Next week Ann is away Monday and in a workshop
    Tuesday morning, Raj visits a customer Tuesday afternoon, Lee works on site every day until 17:30."""
    user, cal = user_with_calendar("planner", timezone="Europe/Berlin")
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "19:00"},
    )
    preference_set(
        user=user,
        key="gym_schedule",
        value=[
            {"day": "MO", "start": "18:00", "end": "19:30"},
            {"day": "WE", "start": "18:00", "end": "19:30"},
        ],
    )
    ann, raj, lee = colleague("ann", "Ann Lee"), colleague("raj", "Raj Patel"), colleague("lee", "Lee Wong")
    event_create(calendar=ann, summary="Offsite", start=at(9, 9), end=at(9, 17))
    event_create(calendar=ann, summary="Workshop", start=at(10, 9), end=at(10, 12))
    event_create(calendar=raj, summary="Customer visit", start=at(10, 13), end=at(10, 17))
    event_create(
        calendar=lee, summary="Site work", start=at(9, 9), end=at(9, 17, 30), rrule="FREQ=DAILY;COUNT=5"
    )
    event_create(
        calendar=cal,
        summary="Budget review",
        start=at(6, 10),
        end=at(6, 11),
        attendees=["ann@example.com", "raj@example.com"],
    )
    event_create(
        calendar=cal, summary="Vendor call", start=at(6, 16), end=at(6, 17), attendees=["lee@example.com"]
    )
    event_create(calendar=cal, summary="Focus block", start=at(6, 13), end=at(6, 15))
    event_create(
        calendar=cal,
        summary="Team sync",
        start=at(2, 17),
        end=at(2, 17, 30),
        rrule="FREQ=WEEKLY;BYDAY=MO;COUNT=8",
    )
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def span(summary: str) -> tuple[str, str]:
    event = Event.objects.get(summary=summary, series__isnull=True)
    return (
        event.start.astimezone(BERLIN).strftime("%a %d %H:%M"),
        event.end.astimezone(BERLIN).strftime("%a %d %H:%M"),
    )


def test_friday_meetings_move_to_times_when_everyone_is_free(chat: tuple[Any, Conversation]) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        asked = say(
            user,
            conversation,
            "Can you move my Friday meetings to a time when everyone is available next week, "
            "but make sure I don't miss my gym?",
        )
        assert asked.kind == "confirm"
        assert span("Budget review") == ("Fri 06 10:00", "Fri 06 11:00")  # nothing written yet
        # Why each time: everyone named, and what the search kept to.
        assert (
            "the first time Ann Lee, Raj Patel and you are all free within your working hours" in asked.text
        )
        assert "the first time Lee Wong and you are both free" in asked.text
        assert "Focus block" not in asked.text  # a solo block is no meeting
        done = say(user, conversation, "yes")
    assert done.kind == "done"
    # Monday: Ann's offsite until 17:00, the user's own team sync until 17:30, the gym from 18:00. Tuesday
    # 12:00-13:00 is the first hour Ann (workshop until 12) and Raj (visit from 13) are both free.
    assert span("Budget review") == ("Tue 10 12:00", "Tue 10 13:00")
    # Lee works on site until 17:30 every day; Monday and Wednesday evenings are the gym.
    assert span("Vendor call") == ("Tue 10 17:30", "Tue 10 18:30")
    assert span("Focus block") == ("Fri 06 13:00", "Fri 06 15:00")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Reschedule the budget review for when we're all free next week", ("Tue 10 12:00", "Tue 10 13:00")),
        (
            "Move the budget review to a slot that works for everyone next week",
            ("Tue 10 12:00", "Tue 10 13:00"),
        ),
        (
            "Push the budget review to an afternoon when everybody is available next week",
            ("Tue 10 12:00", "Tue 10 13:00"),
        ),
        (
            "Move the budget review to a morning when everyone can make it next week",
            ("Wed 11 09:00", "Wed 11 10:00"),
        ),
    ],
)
def test_other_ways_of_asking_for_a_time_that_suits_everyone(
    chat: tuple[Any, Conversation], text: str, expected: tuple[str, str]
) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "Ann Lee, Raj Patel and you are all free" in asked.text
        assert say(user, conversation, "yes").kind == "done"
    assert span("Budget review") == expected


def test_when_nothing_fits_the_reply_says_so_and_offers_the_nearest_times(
    chat: tuple[Any, Conversation],
) -> None:
    user, conversation = chat
    lee = get_user_model().objects.get(username="lee")
    event_create(calendar=lee.calendars.get(), summary="Travel", start=at(9, 17), end=at(14, 0))
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Move the vendor call to a time when everyone is free next week")
    assert reply.kind == "answer"
    assert "no time from Monday, March 9 to Sunday, March 15 suits Lee Wong and you" in reply.text
    assert "the nearest after that: Monday, March 16 at 9:00 AM" in reply.text
    assert span("Vendor call") == ("Fri 06 16:00", "Fri 06 17:00")


def test_a_preview_names_the_preference_a_time_breaks(chat: tuple[Any, Conversation]) -> None:
    user, conversation = chat
    preference_set(
        user=user,
        key="writing_block",
        value={
            "days": ["TU", "TH"],
            "start": "09:00",
            "end": "11:00",
            "allow_exceptions_with_approval": True,
        },
    )
    preference_set(user=user, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    preference_set(user=user, key="meeting_hours", value={"earliest": "10:00", "no_meeting_days": ["FR"]})
    with time_machine.travel(NOW, tick=False):
        writing = say(user, conversation, "Schedule a call with Ann on Tuesday at 10am")
        assert writing.kind == "confirm"
        assert "breaks your writing block (Tuesday 9:00–11:00 AM)" in writing.text
        say(user, conversation, "no")
        lunch = say(user, conversation, "Schedule lunch with Raj on Wednesday at 12:30pm")
        assert lunch.kind == "confirm"
        assert "breaks your lunch (12:00–1:00 PM)" in lunch.text
        say(user, conversation, "no")
        early = say(user, conversation, "Schedule a call with Raj on Wednesday at 9am")
        assert early.kind == "confirm"
        assert "outside your meeting hours (no meetings before 10:00 AM)" in early.text
        say(user, conversation, "no")
        friday = say(user, conversation, "Schedule a call with Raj on Friday at 11am")
        assert "outside your meeting hours (no meetings on Fridays)" in friday.text
        say(user, conversation, "no")
        busy = say(user, conversation, "Schedule a call with Ann next Monday at 11am")
        assert busy.kind == "confirm"
        assert "Ann Lee is busy then" in busy.text
        say(user, conversation, "no")
        late = say(user, conversation, "Move the focus block to 8pm")
        assert "outside your working hours" in late.text
    assert not Event.objects.filter(summary__icontains="call with").exists()


@pytest.mark.parametrize(
    ("text", "window"),
    [
        (
            "schedule a 30-minute call with Lee when we're both free tomorrow",
            {"search_start": at(3, 0), "search_end": at(4, 0)},
        ),
        (
            "book the retro at a morning that works for everyone next week",
            {"search_start": at(9, 0), "search_end": at(16, 0), "day_part": "morning"},
        ),
        ("find a slot where all of us are available", {"search_start": NOW, "search_end": at(16, 9)}),
        ("lunch with Ann tomorrow at noon", None),
    ],
)
def test_the_search_a_time_that_suits_everyone_needs_is_read_from_any_request(
    text: str, window: dict[str, Any] | None
) -> None:
    from assistant.decomposer.changes import everyone_window

    found = everyone_window(text, NOW, BERLIN)
    if window is None:
        assert found is None
        return
    assert found is not None
    assert {k: datetime.fromisoformat(v) if k.startswith("search") else v for k, v in found.items()} == window


def test_a_new_call_when_we_are_both_free_takes_the_first_time_both_are_free_without_asking() -> None:
    """Created by chat, not moved: "... when we're both free tomorrow" searches instead of asking a time."""
    user, _ = user_with_calendar("both-free", timezone="Europe/Berlin")
    lee = get_user_model().objects.create_user("lee-bf", "lee-bf@example.com", first_name="Lee")
    lee_cal = calendar_create(
        owner=lee, key="personal", name="Personal", timezone="Europe/Berlin", is_default=True
    )
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
    )
    event_create(
        calendar=lee_cal,
        summary="Busy",
        start=datetime(2026, 3, 3, 9, 0, tzinfo=ZoneInfo("Europe/Berlin")),
        end=datetime(2026, 3, 3, 11, 0, tzinfo=ZoneInfo("Europe/Berlin")),
        timezone="Europe/Berlin",
    )
    conversation = conversation_create(user=user)
    with time_machine.travel(datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("Europe/Berlin")), tick=False):
        reply = chat_turn(
            user=user,
            conversation=conversation,
            text="Schedule a 30-minute call with Lee when we're both free tomorrow",
        )
    assert reply is not None
    assert reply.kind in ("done", "confirm"), reply.text
    assert "11:00 AM" in reply.text  # Lee is busy until 11, working hours start at 9
