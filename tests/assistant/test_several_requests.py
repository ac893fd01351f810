"""Several requests in one turn become one plan: previewed together, applied together, undone together;
more than four are asked about, and a clause that points back at another stays one request."""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.decomposer.several import MAX_PARTS, Part, _parts, several_requests
from assistant.services import chat_turn, conversation_create
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

TORONTO = ZoneInfo("America/Toronto")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=TORONTO)  # a Wednesday


@pytest.fixture
def me() -> Any:
    user, calendar = user_with_calendar("several", timezone="America/Toronto")
    for title, day, hour in (
        ("Dentist", 5, 10),
        ("Design review", 6, 14),
        ("Gym", 9, 7),
        ("Team sync", 10, 11),
    ):
        start = datetime(2026, 3, day, hour, 0, tzinfo=TORONTO)
        event_create(calendar=calendar, summary=title, start=start, end=start + timedelta(hours=1))
    return user


def _starts(user: Any) -> dict[str, datetime | None]:
    events = Event.objects.filter(calendar__owner=user)
    return {e.summary: (e.start.astimezone(TORONTO) if e.status != "cancelled" else None) for e in events}


def test_two_moves_are_previewed_applied_and_undone_together(me: Any) -> None:
    before = _starts(me)
    conversation = conversation_create(user=me)
    with time_machine.travel(NOW, tick=False):
        preview = chat_turn(
            user=me,
            conversation=conversation,
            text="move the dentist to Friday at 9 and the gym to Tuesday at 8",
        )
        assert preview is not None
        assert preview.kind == "confirm", preview.text
        assert "Dentist" in preview.text
        assert "Gym" in preview.text
        assert _starts(me) == before  # nothing written before the yes
        done = chat_turn(user=me, conversation=conversation, text="yes")
        assert done is not None
        assert done.kind == "done", done.text
        after = _starts(me)
        assert after["Dentist"] == datetime(2026, 3, 6, 9, 0, tzinfo=TORONTO)
        assert after["Gym"] == datetime(2026, 3, 10, 8, 0, tzinfo=TORONTO)
        assert after["Design review"] == before["Design review"]
        undone = chat_turn(user=me, conversation=conversation, text="undo that")
        assert undone is not None
        assert _starts(me) == before, undone.text


def _previewed_then_approved(me: Any, text: str) -> None:
    """The turn is previewed (nothing written before a yes), then approved."""
    conversation = conversation_create(user=me)
    with time_machine.travel(NOW, tick=False):
        preview = chat_turn(user=me, conversation=conversation, text=text)
        assert preview is not None
        assert preview.kind == "confirm", preview.text
        chat_turn(user=me, conversation=conversation, text="yes")


def test_a_cancel_and_a_move_in_one_turn(me: Any) -> None:
    _previewed_then_approved(me, "cancel the gym on Monday and move the team sync to Thursday at 3pm")
    after = _starts(me)
    assert after.get("Gym") is None
    assert after["Team sync"] == datetime(2026, 3, 5, 15, 0, tzinfo=TORONTO)  # the Thursday coming


def test_a_part_that_names_no_day_is_not_held_to_anothers_day(me: Any) -> None:
    # "... and delete the gym" left the gym alone: "it is not on Friday, which you named"
    _previewed_then_approved(me, "move the dentist to friday 3pm, and delete the gym")
    after = _starts(me)
    assert after.get("Gym") is None
    assert after["Dentist"] == datetime(2026, 3, 6, 15, 0, tzinfo=TORONTO)


def test_more_than_four_requests_are_asked_about_and_nothing_changes(me: Any) -> None:
    before = _starts(me)
    text = (
        "move the dentist to Friday at 9, the gym to Tuesday, the team sync to Thursday, "
        "the design review to Monday and the dentist to Saturday"
    )
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=me, conversation=conversation_create(user=me), text=text)
    assert reply is not None
    assert reply.kind == "clarify"
    assert f"up to {MAX_PARTS}" in reply.text
    assert _starts(me) == before


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # a part without a verb of its own is in its own words, and carries the verb said before it
        ("move the dentist to friday and the review to monday", [("move the dentist to friday", None), ("the review to monday", "move")]),  # noqa: E501
        ("please cancel my 3pm call; then add yoga on sunday at 9", [("cancel my 3pm call", None), ("add yoga on sunday at 9", None)]),  # noqa: E501
        ("cancel the gym and add yoga on sunday at 9", [("cancel the gym", None), ("add yoga on sunday at 9", None)]),  # noqa: E501
        ("cancel the standup and the design review", [("cancel the standup", None), ("the design review", "delete")]),  # noqa: E501
        ("delete the gym, my 1:1 and the crit", [("delete the gym", None), ("my 1:1", "delete"), ("the crit", "delete")]),  # noqa: E501
        ("delete the meetings with ann and bob", []),  # people joined by "and", one request
        ("delete the video chat on tuesday. the other guy never responded", []),  # a sentence, no item
        # one request: a clause that points back, a replacement, names joined by "and", no verb at all
        ("cancel thursday's call with bill and put it on friday at 10 instead", []),
        ("cancel the standup and schedule a new one at 2pm", []),
        # a new event of its own said "instead" is a request of its own
        ("cancel the gym and add yoga at 7 instead", [("cancel the gym", None), ("add yoga at 7 instead", None)]),  # noqa: E501
        ("add lunch with ann and tom on friday at 1", []),
        ("what do i have on friday and monday", []),
    ],
)  # fmt: skip
def test_where_a_turn_is_cut_into_requests(text: str, parts: list[tuple[str, str | None]]) -> None:
    assert [(part.words, part.carried) for part in _parts(text)] == parts


def test_a_cancel_and_an_unrelated_new_event_are_two_requests(me: Any) -> None:
    """ "Cancel the gym and add yoga": yoga is its own event, not a copy of the gym at another time."""
    _previewed_then_approved(me, "cancel the gym on Monday and add yoga on Sunday at 9")
    after = _starts(me)
    assert after.get("Gym") is None
    assert after["Yoga"] == datetime(2026, 3, 8, 9, 0, tzinfo=TORONTO)


@pytest.mark.parametrize(
    "text", ["cancel the dentist and schedule a new one at 4pm", "cancel the dentist and book another at 4pm"]
)
def test_a_new_one_said_with_a_time_alone_is_on_the_cancelled_ones_day(me: Any, text: str) -> None:
    """The dentist is tomorrow: its replacement at 4 is tomorrow at 4, not today."""
    _previewed_then_approved(me, text)
    kept = Event.objects.filter(calendar__owner=me, summary="Dentist").exclude(status="cancelled")
    assert [e.start.astimezone(TORONTO) for e in kept] == [datetime(2026, 3, 5, 16, 0, tzinfo=TORONTO)]


def test_a_new_event_in_the_place_of_a_cancelled_one_overlaps_nothing(me: Any) -> None:
    """Each part is planned against the calendar as it is: together, the gym cancelled leaves its hour
    free for the 1:1 said "instead", and the preview says no overlap."""
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(
            user=me,
            conversation=conversation_create(user=me),
            text="cancel the gym on monday and add a 1:1 with Ann at 7am on monday instead",
        )
    assert reply is not None
    assert reply.kind == "confirm", reply.text
    assert "Create '1:1 with Ann': Monday, March 9 7:00 AM" in reply.text
    assert "overlaps" not in reply.text


def test_an_edit_in_place_beside_a_cancel_overlaps_not_itself(me: Any) -> None:
    """The conflicts found again over the whole set are those of the events made or moved: a renamed
    event stays where it is and is no overlap of its own."""
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(
            user=me,
            conversation=conversation_create(user=me),
            text="cancel the gym on monday and rename the dentist to Checkup",
        )
    assert reply is not None
    assert reply.kind == "confirm", reply.text
    assert "Change 'Dentist': rename to" in reply.text
    assert "overlaps" not in reply.text


@pytest.mark.parametrize(
    ("text", "listed", "changed", "new_start"),
    [
        # the change names no day: it is on the day the question asked about
        (
            "what's on friday and can you add a haircut at 4",
            "Design review",
            "Haircut",
            datetime(2026, 3, 6, 16, 0),
        ),
        # the event named is found where it is, not on the day asked about
        (
            "what do I have tomorrow? also move the team sync to 3pm",
            "Dentist",
            "Team sync",
            datetime(2026, 3, 10, 15, 0),
        ),
        (
            "am I free on monday? then book a call with Ann at 3 on Monday",
            "Gym",
            "Call with Ann",
            datetime(2026, 3, 9, 15, 0),
        ),
        # "it" in the change is the one event the question asks about
        (
            "how long is the design review and can you move it to 4",
            "1 hour",
            "Design review",
            datetime(2026, 3, 6, 16, 0),
        ),
    ],
)
def test_a_question_and_a_change_in_one_turn_are_answered_and_previewed_together(
    me: Any, text: str, listed: str, changed: str, new_start: datetime
) -> None:
    """Neither is dropped: the answer is said above the preview, nothing is written before the yes,
    and the answer is not said again once the change is made."""
    before = _starts(me)
    conversation = conversation_create(user=me)
    with time_machine.travel(NOW, tick=False):
        preview = chat_turn(user=me, conversation=conversation, text=text)
        assert preview is not None
        assert preview.kind == "confirm", preview.text
        answer, _, asked = preview.text.partition("Here is what I would do:")
        assert listed in answer, preview.text
        assert changed in asked, preview.text
        assert _starts(me) == before
        done = chat_turn(user=me, conversation=conversation, text="yes")
        assert done is not None
        assert done.kind == "done", done.text
        assert listed not in done.text
        assert _starts(me)[changed] == new_start.replace(tzinfo=TORONTO)


@pytest.mark.parametrize(
    "text",
    [
        "find the team sync and delete it",  # one request: "it" is the event found
        "thursday of next week, I want to book a haircut at 3pm",  # a day, not a question
    ],
)
def test_a_request_that_only_opens_like_a_question_is_not_answered_first(me: Any, text: str) -> None:
    conversation = conversation_create(user=me)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=me, conversation=conversation, text=text)
    assert reply is not None
    assert "Here is your schedule" not in reply.text, reply.text


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        # a statement before a request is no question: only the question a turn opens with is planned
        ("the event is at 2290 california street. put it as hairdresser", []),
        ("every tuesday and thursday at 7am, add a 45 minute run", []),
        ("what's on friday and can you add a haircut at 4", ["what's on friday"]),
    ],
)
def test_only_a_clause_read_as_a_question_is_planned_as_one(text: str, planned: list[str]) -> None:
    asked: list[str] = []

    def decide(part: Part, update: dict[str, Any]) -> Any:
        asked.append(part.words)
        raise LookupError("planned")  # the plan itself is not what is tested

    with pytest.raises(LookupError) if planned else contextlib.nullcontext():
        several_requests(text, decide=decide)
    assert asked == planned
