"""The same requests in the other words people use: offsets, reasons, lighter days, corrections, picks.

Each case here once fell through to the wrong operation or the wrong target; the scenario variants in
``tests/scenarios`` cover them end to end, these pin the reading itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.answers import NOT_AN_ANSWER, answer_for
from assistant.decomposer.intent import classify
from assistant.planning import DecomposeRequest, decompose
from assistant.timeexpr import find_times
from skills.services import calendar_create, event_create
from workflows.definition import Decision
from workflows.validation import compile_workflow

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday


@pytest.fixture
def user() -> Iterator[Any]:
    with time_machine.travel(NOW, tick=False):
        me = get_user_model().objects.create_user("phrasing-user", "me@example.com")
        work = calendar_create(
            owner=me, key="work", name="Work", timezone="America/New_York", is_default=True
        )
        for summary, day, hour in [("Check-in", 5, 10), ("Check-in", 5, 16), ("Team meeting", 5, 11)]:
            event_create(
                calendar=work,
                summary=summary,
                start=datetime(2026, 3, day, hour, tzinfo=NY),
                end=datetime(2026, 3, day, hour, 30, tzinfo=NY),
            )
        yield me


def decide(user: Any, text: str, context: dict[str, Any] | None = None) -> Decision:
    with time_machine.travel(NOW, tick=False):
        request = DecomposeRequest(text=text, user=user, timezone="America/New_York", context=context or {})
        decision = decompose(request)
    if decision.workflow is not None:
        compile_workflow(decision.workflow)
    return decision


def task(decision: Decision, skill: str) -> dict[str, Any]:
    assert decision.workflow is not None, decision
    return next(t.params for t in decision.workflow.tasks if t.skill == skill)


@pytest.mark.parametrize(
    ("text", "operation"),
    [
        ("Next Friday: please wipe my whole calendar for travel", "delete"),
        ("I won't make it on Thursday, cancel all my meetings", "delete"),
        ("Thursday is way too packed, can you help?", "move"),
        ("can you free up thursday a bit", "move"),
        ("free up all of next friday for travel", "delete"),
        ("I want to meet with Priya", "create"),
        ("yes, cancel them", "yes"),
        ("nope, never mind", "no"),
        ("no don't do that", "no"),
        ("put them back", "undo"),
        ("move it back an hour", "move"),
        ("is thursday too busy?", "query"),
    ],
)
def test_operation_of_other_phrasings(text: str, operation: str) -> None:
    assert classify(text)[0] == operation


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("push all my meetings tomorrow back by an hour", 60),
        ("delay tomorrow's meetings by 1h", 60),
        ("shift all my meetings tomorrow by 90 min", 90),
        ("bring tomorrow's meetings forward by 30 minutes", -30),
        ("move every meeting tomorrow an hour earlier", -60),
    ],
)
def test_offsets_with_and_without_a_direction(user: Any, text: str, minutes: int) -> None:
    decision = decide(user, text)
    assert task(decision, "plan_move")["shift_minutes"] == minutes
    assert task(decision, "choose_event")["expect_one"] is False


@pytest.mark.django_db
def test_a_title_of_common_words_is_found_when_said_whole(user: Any) -> None:
    decision = decide(user, "cancel the check-in on thursday")
    assert task(decision, "find_events")["text"] == "check in"
    assert task(decision, "choose_event")["expect_one"] is True


@pytest.mark.django_db
def test_a_crowded_day_offers_its_events_to_move_elsewhere(user: Any) -> None:
    decision = decide(user, "Thursday is too packed, could you lighten it up a bit?")
    assert task(decision, "choose_event") == {
        "events": "{{find.output.events}}",
        "action": "Move",
        "expect_one": True,
        "question": "Which one should I move to a lighter day?",
        "scope": "occurrence",
    }
    assert task(decision, "plan_move")["other_day"] is True


@pytest.mark.django_db
def test_a_reason_said_without_for_still_blocks_the_day(user: Any) -> None:
    decision = decide(user, "I'm traveling next Friday. Cancel everything that day.")
    assert decision.workflow is not None
    block = next(t for t in decision.workflow.tasks if t.id == "block")
    assert block.params["summary"] == "Travel"


@pytest.mark.django_db
def test_a_verbless_correction_moves_the_event_just_made(user: Any) -> None:
    last = [
        {
            "summary": "Lunch with Sam",
            "start": "2026-03-10T13:00:00-04:00",
            "end": "2026-03-10T14:00:00-04:00",
        }
    ]
    # as the chat remembers a turn that made one event: shown, and made (a look-up only shows it)
    made = {**last[0], "location": ""}
    decision = decide(user, "Actually 12:30 works better", context={"last_events": last, "made": made})
    assert task(decision, "plan_move")["at_time"] == "12:30"


@pytest.mark.django_db
def test_a_time_range_gives_a_new_event_its_start_and_length(user: Any) -> None:
    decision = decide(user, "add lunch with Sam next tuesday from 1 to 2pm")
    plan = task(decision, "plan_create")
    assert plan["start"].startswith("2026-03-10T13:00")
    assert plan["duration_minutes"] == 60


def test_an_hour_without_am_pm_is_read_in_the_daytime_for_the_calendar() -> None:
    (calendar,) = find_times("thursday at 3", now=NOW, daytime=True)
    (duckling,) = find_times("thursday at 3", now=NOW)
    (morning,) = find_times("thursday at 3 in the morning", now=NOW, daytime=True)
    assert [m.start.hour if m.start else None for m in (calendar, duckling, morning)] == [15, 3, 3]


CHOOSE = {
    "kind": "choose",
    "options": [
        {
            "label": "Move Team meeting, Thursday, March 5 10:00 AM",
            "value": "a",
            "start": "2026-03-05T10:00:00-05:00",
        },
        {
            "label": "Move Check-in with Priya, Thursday, March 5 4:00 PM",
            "value": "b",
            "start": "2026-03-05T16:00:00-05:00",
        },
    ],
}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the later one", "b"),
        ("the earlier one", "a"),
        ("2", "b"),
        ("option one", "a"),
        ("the team meeting, not the check-in with Priya", "a"),
        ("not the morning one", NOT_AN_ANSWER),
    ],
)
def test_picks_by_position_and_by_what_is_not_meant(text: str, value: Any) -> None:
    assert answer_for(text, CHOOSE, tz=NY, now=NOW) == value
