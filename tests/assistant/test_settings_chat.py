"""Preferences said in chat: stored in canonical form, restated in words, asked about when incomplete,
never turned into events."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.models import Preference
from preferences.services import preference_set
from skills.models import Event
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

SYDNEY = ZoneInfo("Australia/Sydney")
NOW = datetime(2026, 5, 4, 9, 0, tzinfo=SYDNEY)  # a Monday


@pytest.fixture
def chat() -> tuple[Any, Conversation]:
    user, _ = user_with_calendar("settings", timezone="Australia/Sydney")
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def stored(user: Any, key: str) -> Any:
    row = Preference.objects.filter(user=user, key=key).first()
    return row.value if row else None


@pytest.mark.parametrize(
    ("text", "key", "value", "words"),
    [
        (
            "My gym is Monday, Wednesday and Friday from 6 to 7:30pm",
            "gym_schedule",
            [{"day": d, "start": "18:00", "end": "19:30"} for d in ("MO", "WE", "FR")],
            "Monday, Wednesday and Friday, 6 PM to 7:30 PM",
        ),
        ("I go to the gym Tuesdays and Thursdays 7-8am", "gym_schedule", None, "Tuesday and Thursday"),
        (
            "change my lunch to 12:30-1:30",
            "lunch_hours",
            {"start": "12:30", "end": "13:30"},
            "12:30 PM to 1:30 PM",
        ),
        (
            "my working hours are 8 to 4 Monday to Thursday",
            "working_hours",
            {"days": ["MO", "TU", "WE", "TH"], "start": "08:00", "end": "16:00"},
            "Monday to Thursday, 8 AM to 4 PM",
        ),
        # the days read as a repetition is: "workdays", "every day"
        (
            "my working hours are workdays 7 to 3",
            "working_hours",
            {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "07:00", "end": "15:00"},
            "7 AM to 3 PM",
        ),
        ("I go to the gym every day 6-7am", "gym_schedule", None, "every day"),
        ("set my timezone to Europe/London", "timezone", "Europe/London", "Europe/London"),
        ("change my time zone to tokyo", "timezone", "Asia/Tokyo", "Asia/Tokyo"),
        ("no meetings before 10am", "meeting_hours", {"earliest": "10:00"}, "10 AM"),
        ("I'd prefer no meetings on Fridays please", "meeting_hours", {"no_meeting_days": ["FR"]}, "Friday"),
        # previewed a new event called "Don't" at 9 AM
        ("don't book anything before 9am", "meeting_hours", {"earliest": "09:00"}, "9 AM"),
        ("no calls after 6pm", "meeting_hours", {"latest": "18:00"}, "6 PM"),
        # said in passing: "fyi" asked when on September 5 to schedule 'Fyi work hours'
        (
            "fyi my work hours are 9-5",
            "working_hours",
            {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
            "9 AM to 5 PM",
        ),
        # a dislike is a rule: it listed the meetings before 10 today
        ("I don't like meetings before 10", "meeting_hours", {"earliest": "10:00"}, "10 AM"),
        ("i hate having calls after 5pm", "meeting_hours", {"latest": "17:00"}, "5 PM"),
        ("I don't do meetings on fridays", "meeting_hours", {"no_meeting_days": ["FR"]}, "Friday"),
        # the days said first: it listed the free times of this Friday
        ("keep my Fridays meeting-free", "meeting_hours", {"no_meeting_days": ["FR"]}, "Friday"),
        (
            "keep mondays and fridays free of meetings",
            "meeting_hours",
            {"no_meeting_days": ["MO", "FR"]},
            "Mondays and Fridays",
        ),
        # a preference named as the lexicon names it anywhere (PREFERENCE_WORDS), not only "gym"/"lunch"
        (
            "my focus block is tuesdays 9 to 11am",
            "writing_block",
            {"days": ["TU"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": False},
            "Tuesday, 9 AM to 11 AM",
        ),
        (
            "my workouts are monday and thursday 6-7am",
            "gym_schedule",
            [{"day": d, "start": "06:00", "end": "07:00"} for d in ("MO", "TH")],
            "Monday and Thursday",
        ),
        ("my lunch time is 12:30 to 1:30", "lunch_hours", {"start": "12:30", "end": "13:30"}, "12:30 PM"),
    ],
)
def test_a_preference_said_is_stored_and_restated_in_words(
    chat: Any, text: str, key: str, value: Any, words: str
) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "done", reply.text
    assert words in reply.text
    assert "MO" not in reply.text  # days in words, never codes
    assert "FR" not in reply.text
    if value is not None:
        assert stored(user, key) == value
    assert not Event.objects.filter(calendar__owner=user).exists()


def test_meeting_hours_said_twice_add_up(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "no meetings before 10am")
        say(user, conversation, "no meetings after 4pm")
    assert stored(user, "meeting_hours") == {"earliest": "10:00", "latest": "16:00"}


@pytest.mark.parametrize("said", ["I usually start work at 9", "btw I start working at 9"])
def test_when_work_starts_said_as_a_fact_asks_until_when_and_keeps_the_start(chat: Any, said: str) -> None:
    # answered "You have no events on Wednesday", as if asked what was on
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, said)
        assert asked.kind == "clarify", asked.text
        assert "working hours" in asked.text
        say(user, conversation, "until 5")
    assert stored(user, "working_hours") == {
        "days": ["MO", "TU", "WE", "TH", "FR"],
        "start": "09:00",
        "end": "17:00",
    }


def test_approving_exceptions_said_as_a_fact_is_the_writing_blocks_rule(chat: Any) -> None:
    # "I can approve exceptions when something is urgent" showed the week's events
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "I can approve exceptions when something is urgent")
        assert asked.kind == "clarify", asked.text
        assert "writing block" in asked.text
        say(user, conversation, "Tuesdays 9-11")  # a bare 9-11 is the hours, not September 11
    assert stored(user, "writing_block") == {
        "days": ["TU"],
        "start": "09:00",
        "end": "11:00",
        "allow_exceptions_with_approval": True,
    }


def test_removing_a_preference_says_what_it_was(chat: Any) -> None:
    user, conversation = chat
    preference_set(user=user, key="gym_schedule", value=[{"day": "MO", "start": "07:00", "end": "08:00"}])
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "I no longer go to the gym")
    assert reply.kind == "done"
    assert "Monday, 7 AM to 8 AM" in reply.text
    assert stored(user, "gym_schedule") is None


def test_a_missing_part_is_asked_and_the_answer_completes_it(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "Never schedule anything during my writing block, no exceptions")
        assert asked.kind == "clarify"
        assert stored(user, "writing_block") is None
        done = say(user, conversation, "Mondays and Wednesdays 9 to 11:30am")
    assert done.kind == "done", done.text
    assert stored(user, "writing_block") == {
        "days": ["MO", "WE"],
        "start": "09:00",
        "end": "11:30",
        "allow_exceptions_with_approval": False,
    }
    assert not Event.objects.filter(calendar__owner=user).exists()


def test_an_unknown_zone_is_asked_about_and_nothing_is_stored(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "set my timezone to Atlantis/Lost_City")
    assert reply.kind == "clarify"
    assert "Atlantis" in reply.text
    assert stored(user, "timezone") == "Australia/Sydney"


def test_what_are_my_preferences_lists_them_in_words(chat: Any) -> None:
    user, conversation = chat
    preference_set(user=user, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "what are my preferences?")
    assert reply.kind == "answer"
    assert "noon to 1 PM" in reply.text


def test_a_preference_of_one_user_never_touches_another(chat: Any) -> None:
    user, conversation = chat
    other, _ = user_with_calendar("someone-else", timezone="Australia/Sydney")
    preference_set(user=other, key="lunch_hours", value={"start": "11:00", "end": "12:00"})
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "change my lunch to 12:30-1:30")
    assert stored(other, "lunch_hours") == {"start": "11:00", "end": "12:00"}


def test_a_request_leaning_on_an_unset_preference_asks_for_it_and_keeps_the_answer(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "book a 30 minute call with Sam during my lunch on Wednesday")
        assert asked.kind == "clarify"
        assert "lunch" in asked.text
        assert not Event.objects.filter(calendar__owner=user).exists()
        saved = say(user, conversation, "12:30 to 1:30")
    assert saved.kind == "done"
    assert stored(user, "lunch_hours") == {"start": "12:30", "end": "13:30"}


@pytest.mark.parametrize(
    ("said", "key", "value"),
    [
        ("my workday ends at 5", "working_hours", {"start": "08:30", "end": "17:00"}),
        ("I start work at 10", "working_hours", {"start": "10:00", "end": "18:00"}),
        ("btw I usually eat at 1", "lunch_hours", {"start": "13:00", "end": "13:30"}),
        ("my lunch is at 12:45", "lunch_hours", {"start": "12:45", "end": "13:15"}),
    ],
)
def test_one_time_said_of_a_habit_moves_that_end_and_keeps_the_rest(
    chat: Any, said: str, key: str, value: dict[str, str]
) -> None:
    """A fact said in passing names one end: lunch keeps its length, the working day its other end."""
    user, conversation = chat
    preference_set(
        user=user, key="working_hours", value={"days": ["MO", "TU", "WE"], "start": "08:30", "end": "18:00"}
    )
    preference_set(user=user, key="lunch_hours", value={"start": "12:00", "end": "12:30"})
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, said)
    assert reply.kind == "done", reply.text
    assert {k: stored(user, key)[k] for k in ("start", "end")} == value
    if key == "working_hours":
        assert stored(user, key)["days"] == ["MO", "TU", "WE"]


@pytest.mark.parametrize(
    "said", ["I'm usually at the gym 6-7am on weekdays", "fyi I usually hit the gym weekdays 6-7am"]
)
def test_being_at_the_gym_as_a_habit_is_the_gym_schedule_not_an_event(chat: Any, said: str) -> None:
    """It was a new series previewed as 'Usually at the gym'."""
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, said)
    assert reply.kind == "done", reply.text
    assert [d["day"] for d in stored(user, "gym_schedule")] == ["MO", "TU", "WE", "TH", "FR"]
    assert not Event.objects.filter(calendar__owner=user).exists()


def test_being_somewhere_for_work_is_no_working_hours(chat: Any) -> None:
    """ "I'm ..." is a habit only of being at the gym: working from home says no hours to ask for."""
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "I'm working from home on Fridays")
    assert "From when to when are your working hours" not in reply.text
    assert stored(user, "working_hours") is None


def test_a_first_lunch_said_by_its_start_lasts_an_hour_and_says_so(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "I normally have lunch around 1")
    assert stored(user, "lunch_hours") == {"start": "13:00", "end": "14:00"}
    assert "1 PM to 2 PM" in reply.text


def test_working_hours_said_with_a_habit_word_are_stored_not_answered_great(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "I tend to work 9 to 6")
    assert stored(user, "working_hours") == {
        "days": ["MO", "TU", "WE", "TH", "FR"],
        "start": "09:00",
        "end": "18:00",
    }


@pytest.mark.parametrize(
    ("said", "kept", "value"),
    [
        (
            "I usually go to the gym at 7am on tuesdays and thursdays",
            None,
            [
                {"day": "TU", "start": "07:00", "end": "08:00"},
                {"day": "TH", "start": "07:00", "end": "08:00"},
            ],
        ),
        (
            "my gym is at 6pm on mondays",
            [{"day": "FR", "start": "07:00", "end": "08:30"}],
            [{"day": "MO", "start": "18:00", "end": "19:30"}],
        ),
    ],
)
def test_the_gym_said_by_its_start_keeps_its_length(chat: Any, said: str, kept: Any, value: Any) -> None:
    """It asked "From when to when is your gym schedule?" though the days and the start were said."""
    user, conversation = chat
    if kept is not None:
        preference_set(user=user, key="gym_schedule", value=kept)
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, said)
    assert reply.kind == "done", reply.text
    assert stored(user, "gym_schedule") == value


def test_a_plural_preference_not_set_is_said_so(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "what are my working hours?")
    assert reply.text == "Your working hours are not set."


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("my timezone is pacific", "America/Los_Angeles"),  # was: I don't know a time zone called "pacific"
        ("set my time zone to Eastern time", "America/New_York"),
        ("my time zone is ET", "America/New_York"),
    ],
)
def test_a_time_zone_said_by_its_region_is_set(chat: Any, text: str, zone: str) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, text)
    assert stored(user, "timezone") == zone


def test_working_hours_said_for_some_days_do_not_drop_the_others_unasked(chat: Any) -> None:
    """One set of working hours is kept: "I work from 8 to 4 on Fridays" replaced Monday to Friday with
    Friday alone at once; now it is asked, and the answer is what is stored."""
    user, conversation = chat
    weekdays = {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"}
    preference_set(user=user, key="working_hours", value=weekdays)
    with time_machine.travel(NOW, tick=False):
        ask = say(user, conversation, "I work from 8 to 4 on Fridays")
        kept = stored(user, "working_hours")
        done = say(user, conversation, "Monday to Friday from 8 to 4")
    assert ask.kind == "clarify"
    assert "Monday to Friday, 9 AM to 5 PM" in ask.text
    assert '"Fridays only from 8 to 4"' in ask.text
    assert kept == weekdays
    assert done.kind == "done"
    assert stored(user, "working_hours") == {**weekdays, "start": "08:00", "end": "16:00"}


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("I hate early meetings", "From what time may meetings start?"),
        ("no late calls please", "By what time should meetings end?"),
    ],
)
def test_meetings_disliked_at_one_end_of_the_day_ask_for_the_time(chat: Any, text: str, asked: str) -> None:
    """ "I hate early meetings" listed the week's meetings: it is a bound of the meeting hours whose
    time was not said, asked for with an example; nothing is stored yet."""
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "clarify"
    assert reply.text.startswith(asked)
    assert stored(user, "meeting_hours") is None


@pytest.mark.parametrize(
    ("said", "key", "value"),
    [
        # answered with what the assistant can do: "lunch" said without "my" was no habit
        ("lunch is usually 12 to 1", "lunch_hours", {"start": "12:00", "end": "13:00"}),
        # answered "no free time on Tuesday": the time kept for a habit on days that repeat is the habit
        (
            "keep Tuesday and Thursday mornings 9-11 free for writing",
            "writing_block",
            {"days": ["TU", "TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": False},
        ),
    ],
)
def test_a_habit_said_as_a_fact_or_as_time_kept_for_it_is_stored(
    chat: Any, said: str, key: str, value: dict[str, Any]
) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, said)
    assert reply.kind == "done", reply.text
    assert stored(user, key) == value


def test_time_kept_once_for_writing_is_an_event_not_the_writing_block(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "block Friday afternoon for writing")
    assert "Create 'Writing'" in reply.text
    assert stored(user, "writing_block") is None


def test_one_day_kept_free_of_meetings_is_no_rule_for_every_such_day(chat: Any) -> None:
    """ "keep this Friday free of meetings" is about one Friday: no meeting hours are stored for all."""
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "keep this friday free of meetings")
    assert reply.kind != "done", reply.text
    assert stored(user, "meeting_hours") is None


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("I prefer meetings in the afternoon", {"earliest": "12:00", "latest": "17:00"}),
        ("btw I prefer afternoon meetings", {"earliest": "12:00", "latest": "17:00"}),
        ("I'd like my calls to be in the morning", {"latest": "12:00"}),
    ],
)
def test_meetings_preferred_in_a_part_of_the_day_are_the_meeting_hours(
    chat: Any, said: str, value: dict[str, str]
) -> None:
    # "I prefer meetings in the afternoon" listed the week's meetings
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, said)
    assert reply.kind == "done", reply.text
    assert stored(user, "meeting_hours") == value


def test_meetings_preferred_in_the_users_own_afternoon_keep_its_bounds(chat: Any) -> None:
    user, conversation = chat
    parts = {
        "morning": {"start": "06:00", "end": "12:00"},
        "afternoon": {"start": "13:00", "end": "18:00"},
        "evening": {"start": "18:00", "end": "22:00"},
    }
    preference_set(user=user, key="day_parts", value=parts)
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "I prefer meetings in the afternoon")
    assert stored(user, "meeting_hours") == {"earliest": "13:00", "latest": "18:00"}


def test_a_day_off_said_as_a_fact_takes_it_from_the_working_days(chat: Any) -> None:
    # "I don't work on fridays" got the help answer
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "my working hours are 9 to 5 on weekdays")
        reply = say(user, conversation, "I don't work on fridays")
    assert reply.kind == "done", reply.text
    assert stored(user, "working_hours") == {
        "days": ["MO", "TU", "WE", "TH"],
        "start": "09:00",
        "end": "17:00",
    }


def test_a_day_off_with_no_working_hours_kept_asks_for_them(chat: Any) -> None:
    user, conversation = chat
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "I don't work on fridays")
        done = say(user, conversation, "Monday to Thursday, 9 to 5")
    assert asked.kind == "clarify"
    assert '"Monday to Thursday, 9 AM to 5 PM"' in asked.text
    assert done.kind == "done", done.text
    assert stored(user, "working_hours") == {
        "days": ["MO", "TU", "WE", "TH"],
        "start": "09:00",
        "end": "17:00",
    }
