"""The rule-based decomposer on the read-only requests, with a fixed clock in an explicit zone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.decomposer.intent import classify
from assistant.planning import DecomposeRequest, decompose
from skills.services import calendar_create, event_create
from workflows.definition import Decision
from workflows.validation import compile_workflow

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday
pytestmark = pytest.mark.django_db


@pytest.fixture
def user() -> Iterator[Any]:
    with time_machine.travel(NOW, tick=False):
        me = get_user_model().objects.create_user("dec-user", "me@example.com")
        get_user_model().objects.create_user("ana", "ana@example.com", first_name="Ana", last_name="Silva")
        personal = calendar_create(
            owner=me, key="personal", name="Personal", timezone="America/New_York", is_default=True
        )
        school = calendar_create(owner=me, key="school", name="School", timezone="America/New_York")
        event_create(
            calendar=personal,
            summary="Dentist appointment",
            start=datetime(2026, 3, 5, 15, tzinfo=NY),
            end=datetime(2026, 3, 5, 16, tzinfo=NY),
        )
        event_create(
            calendar=school,
            summary="Calculus II Lecture",
            start=datetime(2026, 3, 2, 14, tzinfo=NY),
            end=datetime(2026, 3, 2, 15, 15, tzinfo=NY),
            rrule="FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10",
        )
        yield me


def decide(user: Any, text: str) -> Decision:
    with time_machine.travel(NOW, tick=False):
        decision = decompose(DecomposeRequest(text=text, user=user, timezone="America/New_York"))
    if decision.workflow is not None:
        compile_workflow(decision.workflow)  # every plan the rules make is valid
    return decision


def task(decision: Decision, skill: str) -> dict[str, Any]:
    assert decision.workflow is not None, decision
    return next(t.params for t in decision.workflow.tasks if t.skill == skill)


def test_week_overview_covers_monday_to_sunday(user: Any) -> None:
    d = decide(user, "What's my week look like?")
    params = task(d, "find_events")
    assert datetime.fromisoformat(params["start"]) == datetime(2026, 3, 2, tzinfo=NY)
    assert datetime.fromisoformat(params["end"]) == datetime(2026, 3, 9, tzinfo=NY)
    assert task(d, "compose_reply")["style"] == "agenda"


def test_find_and_count_on_friday(user: Any) -> None:
    d = decide(user, "Find events on Friday and tell me how many there are")
    params = task(d, "find_events")
    assert datetime.fromisoformat(params["start"]).date().isoformat() == "2026-03-06"
    assert [t.skill for t in d.workflow.tasks] == ["find_events", "count_events", "compose_reply"]  # type: ignore[union-attr]


def test_count_classes_next_week(user: Any) -> None:
    d = decide(user, "How many classes do I have next week?")
    params = task(d, "find_events")
    assert params["category"] == "class"
    assert datetime.fromisoformat(params["start"]) == datetime(2026, 3, 9, tzinfo=NY)


def test_free_time_request(user: Any) -> None:
    d = decide(user, "When am I free tomorrow afternoon for an hour?")
    params = task(d, "free_slots")
    assert params["duration_minutes"] == 60
    start = datetime.fromisoformat(params["start"])
    end = datetime.fromisoformat(params["end"])
    assert start.date().isoformat() == "2026-03-03"
    assert (start.hour, end.hour) == (12, 17)


def test_known_title_is_found_and_searched_ahead(user: Any) -> None:
    d = decide(user, "When is my dentist appointment?")
    params = task(d, "find_events")
    assert params["text"] == "dentist"
    assert "Dentist appointment" in d.frame["titles"]


def test_people_are_resolved_from_the_directory(user: Any) -> None:
    d = decide(user, "Do I have any meetings with Ana this week?")
    assert task(d, "find_events")["attendee"] == "ana@example.com"


def test_preference_question(user: Any) -> None:
    d = decide(user, "What are my working hours?")
    assert task(d, "get_preference") == {"key": "working_hours"}


@pytest.mark.parametrize("text", ["What are my lunch plans?", "When is my lunch meeting?"])
def test_a_habit_word_before_an_event_noun_asks_about_events_not_the_habit(user: Any, text: str) -> None:
    d = decide(user, text)
    assert d.workflow is not None, d.text
    skills = [t.skill for t in d.workflow.tasks]
    assert "find_events" in skills
    assert "get_preference" not in skills


def test_impossible_date_gets_a_question_naming_the_problem(user: Any) -> None:
    d = decide(user, "Move my dentist appointment to February 30th")
    assert d.reply_kind in ("clarify", "error")
    assert "February" in d.text
    assert d.workflow is None


def test_out_of_scope_and_gibberish_do_not_crash(user: Any) -> None:
    weather = decide(user, "What's the weather tomorrow?")
    assert weather.reply_kind == "error"
    assert "calendar" in weather.text
    gibberish = decide(user, "asdfgh qwerty zxcv")
    assert gibberish.reply_kind == "clarify"
    assert gibberish.workflow is None


@pytest.mark.parametrize(
    ("text", "operation"),
    [
        ("delete all my appointments for today", "delete"),
        ("cancel tomorrow's meeting", "delete"),
        ("can you remove the dentist from my calendar", "delete"),
        ("schedule a meeting with al on tuesday", "create"),
        ("remind me to call mom at 5pm", "create"),
        ("please add lunch with sam to my calendar", "create"),
        ("what meetings do i have next thursday", "query"),
        ("what's on my schedule today", "query"),
        ("is there anything on friday", "query"),
        ("move my 3pm to 4pm", "move"),
        ("reschedule the team sync to wednesday", "move"),
        ("how many events do i have this week", "count"),
        ("when am i free on thursday", "free"),
        ("yes", "yes"),
        ("no thanks", "no"),
        ("undo that", "undo"),
    ],
)
def test_operation_classification(text: str, operation: str) -> None:
    assert classify(text)[0] == operation


def test_a_bulk_move_becomes_find_plan_apply_with_its_exception_and_destination(user: Any) -> None:
    decision = decide(
        user,
        "Reschedule all my afternoon classes this month to mornings, but don't touch the ones on Mondays",
    )
    assert decision.frame["operation"] == "move"
    find = task(decision, "find_events")
    assert find["category"] == "class"
    assert find["day_part"] == "afternoon"
    assert find["exclude_weekdays"] == [0]
    assert task(decision, "plan_move")["day_part"] == "morning"
    assert task(decision, "choose_event")["expect_one"] is False
    assert decision.workflow is not None
    assert decision.workflow.output == "apply"


def test_an_offset_and_a_second_action_are_read_as_such(user: Any) -> None:
    move = decide(user, "Move all my meetings tomorrow one hour later")
    assert task(move, "plan_move")["shift_minutes"] == 60
    clear = decide(user, "Clear my calendar next Friday for travel and notify anyone I had meetings with")
    assert clear.frame["operation"] == "delete"
    assert "category" not in task(clear, "find_events")
    assert any(t.skill == "notify_attendees" for t in clear.workflow.tasks)  # type: ignore[union-attr]
    block = next(t for t in clear.workflow.tasks if t.id == "block")  # type: ignore[union-attr]
    assert block.params["summary"] == "Travel"
    assert block.params["all_day"] is True


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("What was on Friday?", "2026-02-27"),  # the Friday before this Monday, not the next one
        ("what did I have on thursday", "2026-02-26"),
        ("What do I have on Friday?", "2026-03-06"),  # the present tense looks ahead
        ("What was on next Friday?", "2026-03-13"),  # "next" says which, whatever the tense
        # a month and day gone by days ago, not next year's (NOW is Monday, March 2, 2026)
        ("did I have a dentist appointment on feb 23", "2026-02-23"),
        ("what happened on january 15?", "2026-01-15"),
        ("what did I have in february", "2026-02-01"),
        ("what was on feb 23 2027", "2027-02-23"),  # a year said is that year
        ("what do I have on feb 23", "2027-02-23"),  # the present tense looks ahead
        ("I forgot what my plans were. Can you check March 13th?", "2026-03-13"),  # the nearer one
    ],
)
def test_a_weekday_in_the_past_tense_is_the_most_recent_one(user: Any, text: str, day: str) -> None:
    assert task(decide(user, text), "find_events")["start"][:10] == day


def test_when_was_my_last_event_searches_backwards_for_the_most_recent(user: Any) -> None:
    decision = decide(user, "When was my last dentist appointment?")
    find = task(decision, "find_events")
    assert find["end"][:16] == NOW.isoformat()[:16]
    assert find["start"] < find["end"]
    assert task(decision, "sort_events") == {
        "events": "{{find.output.events}}",
        "descending": True,
        "limit": 1,
    }


@pytest.mark.parametrize(
    ("text", "notifies", "title"),
    [
        ("Cancel the dentist appointment and send Ana a heads-up", True, "dentist"),
        ("Cancel the dentist appointment, then message Ana", True, "dentist"),
        ("Cancel the dentist appointment and make sure Ana is notified", True, "dentist"),
        # a noun, not a request to tell anyone: the title keeps it
        ("Delete my ping pong session", False, "ping pong session"),
    ],
)
def test_a_cancel_reads_telling_others_however_it_is_said(
    user: Any, text: str, notifies: bool, title: str
) -> None:
    """Cancels and edits read 'and tell the others' with one pattern (lexicon.TELL_OTHERS)."""
    decision = decide(user, text)
    assert decision.frame["operation"] == "delete"
    assert task(decision, "find_events")["text"] == title
    skills = [t.skill for t in decision.workflow.tasks]  # type: ignore[union-attr]
    assert ("notify_attendees" in skills) is notifies


@pytest.mark.parametrize(
    "text",
    [
        "nix the dentist appointment",
        "ditch my dentist appointment on Thursday",
        "kill the dentist appointment",
        "I can't make the dentist appointment on Thursday",  # was asked what to do with it
    ],
)
def test_slang_for_cancelling_cancels_rather_than_making_an_event_of_the_verb(user: Any, text: str) -> None:
    """They were previewed as new events called 'Nix' and 'Ditch', or asked about."""
    decision = decide(user, text)
    assert decision.frame["operation"] == "delete"
    assert task(decision, "find_events")["text"] == "dentist"


@pytest.mark.parametrize(
    "text",
    [
        "schedule a call with ana@example.com next wednesday at 2",  # did not use "example.com"
        "add piano lesson tuesdays at 5 on my school calendar",  # did not use "my school calendar"
        "cut the dentist appointment to 30 min",  # did not use "cut"
    ],
)
def test_a_preview_never_says_it_did_not_use_words_the_plan_used(user: Any, text: str) -> None:
    apply = task(decide(user, text), "apply_changes")
    assert "I did not use" not in apply.get("unsure", ""), apply["unsure"]


@pytest.mark.parametrize(
    ("text", "title", "calendar"),
    [
        ("add gym to my school calendar friday at 6", "Gym", "school"),  # was 'Gym to my school'
        ("add gym to school friday at 6", "Gym", "school"),
        ("set up a meeting with ana silva tomorrow at 10 in room 4b", "Meeting with Ana Silva", None),
        ("drinks at the pub friday after work", "Drinks at the pub", None),  # not the Work calendar
    ],
)
def test_a_new_events_title_holds_neither_its_calendar_nor_a_person_twice(
    user: Any, text: str, title: str, calendar: str | None
) -> None:
    with time_machine.travel(NOW, tick=False):
        calendar_create(owner=user, key="work", name="Work", timezone="America/New_York")
    create = task(decide(user, text), "plan_create")
    assert create["summary"] == title
    assert create.get("calendar") == calendar


@pytest.mark.parametrize(
    "text", ["cancel my calculus lecture for good", "delete the calculus lecture permanently"]
)
def test_a_cancel_for_good_ends_the_series_from_now_on(user: Any, text: str) -> None:
    """It cancelled the next lecture only."""
    decision = decide(user, text)
    assert task(decision, "choose_event")["scope"] == "following"
    assert "unsure" not in task(decision, "apply_changes")
