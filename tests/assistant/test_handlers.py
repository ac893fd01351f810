"""The table of handlers: one reading per turn, restated once where the turn says one request in the
words of another, handed to handlers tried in order; the first decision wins and carries the turn's
frame. Every sentence here is written for the test."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model

from assistant.decomposer.handlers import HANDLERS, Handler, decide, read
from assistant.decomposer.reading import MoveSaid, Reading
from tests.factories import user_with_calendar
from workflows.definition import Decision

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=NEW_YORK)  # a Wednesday
_DENTIST = {"summary": "Dentist", "start": "2026-03-05T10:00:00-05:00", "end": "2026-03-05T11:00:00-05:00"}
# The context after a turn that made the dentist appointment, and after one that only showed it.
_MADE = {"last_events": [_DENTIST], "made": {**_DENTIST, "location": ""}}
_SHOWN = {"last_events": [_DENTIST]}

pytestmark = pytest.mark.django_db


def _reading(text: str, context: dict | None = None) -> Reading:
    user = get_user_model().objects.filter(username="reader").first() or user_with_calendar("reader")[0]
    return read(text, user=user, timezone_name="America/New_York", context=context, now=NOW)


def _first(reading: Reading) -> str:
    """The name of the handler that takes the turn."""
    return next(h.name for h in HANDLERS if h.handle(reading) is not None)


def test_the_table_is_named_and_ends_with_the_look_up_that_answers_everything() -> None:
    names = [h.name for h in HANDLERS]
    assert len(names) == len(set(names))
    assert names[-1] == "look-up"
    assert _first(_reading("blorp")) == "look-up"


@pytest.mark.parametrize(
    ("text", "handler"),
    [
        ("sync my work calendar into my personal one", "sync calendars"),
        ("thanks a lot!", "small talk"),
        ("schedule my notifications for 9am", "setting said as an event"),
        ("cancel the gym on Monday and add yoga on Sunday at 9", "several requests"),
        ("move the dentist to Friday if Ann is free", "condition or two moves"),
        ("add a dinner with Priya on Friday at 7pm", "create"),
        ("move the dentist to Friday at 10", "move or delete"),
        ("what's on Friday?", "look-up"),
    ],
)
def test_each_class_of_turn_is_taken_by_its_handler(text: str, handler: str) -> None:
    assert _first(_reading(text)) == handler


def test_a_new_time_said_without_a_verb_after_an_event_was_made_is_its_move() -> None:
    """Read in the user's words (no "move it to ..." made up and read again): the event talked about,
    and where it goes."""
    reading = _reading("how about 3pm instead?", _MADE)
    assert reading.text == "how about 3pm instead?"
    assert reading.moves == MoveSaid(target="", destination="about 3pm")
    assert reading.frame.operation == "move"
    # with no event just made, the same words are read as they stand
    alone = _reading("how about 3pm instead?")
    assert alone.moves is None
    assert alone.frame.operation != "move"


@pytest.mark.parametrize(
    ("text", "destination"),
    [
        ("no, 11", "11"),
        ("actually 11 instead", "11"),
        ("no, at 11", "at 11"),
        ("no, Friday", "friday"),
        ("what about Friday at 3?", "about friday at 3"),
        ("put it on Friday", "on friday"),  # said with a verb of making
        ("set it for 5pm", "5pm"),
        ("not at 3, at 4", "at 4"),  # what follows the comma replaces what was
        ("not Thursday, Friday", "friday"),
    ],
)
def test_a_no_or_a_bare_hour_after_an_event_was_made_is_its_move(text: str, destination: str) -> None:
    reading = _reading(text, _MADE)
    assert reading.moves == MoveSaid(target="", destination=destination)
    assert reading.frame.operation == "move"
    # said as a question ("what about Friday at 3?"), it may ask what is then: held below acting
    assert (reading.frame.confidence < 0.8) is text.endswith("?")


@pytest.mark.parametrize(
    "text",
    [
        "actually what is on Friday at 3?",
        "no, what's on Friday?",
        "no, thanks",
        "No that's all for now thanks.",  # "for now" is a time, the turn a goodbye
        "What about events on the 10th of this month?",
        "put it in room 4",
        "add lunch on Friday at 1",
    ],
)
def test_a_question_or_a_plain_no_after_an_event_was_made_moves_nothing(text: str) -> None:
    # "actually what is on Friday at 3?" used to move the event just made to Friday at 3
    assert _reading(text, _MADE).frame.operation != "move"


@pytest.mark.parametrize("text", ["What about Thursday next week?", "how about 3pm instead?", "no, 11"])
def test_a_time_said_after_a_look_up_showed_one_event_moves_nothing(text: str) -> None:
    # after "what's on Thursday?" showed one event, "what about Thursday next week?" asks again
    assert _reading(text, _SHOWN).frame.operation != "move"


@pytest.mark.parametrize("text", ["no, make it 11", "ok, make it 11 instead"])
def test_make_it_after_a_word_of_correction_moves_the_event_just_made(text: str) -> None:
    # "no, make it 11" used to look for an event called "no" and ask which one was meant
    decision = decide(_reading(text, _MADE))
    assert decision.kind == "workflow"
    assert decision.workflow is not None
    found = next(t for t in decision.workflow.tasks if t.skill == "find_events")
    assert found.params["text"] == "Dentist"


def test_ending_a_series_is_read_as_cancelling_it_from_then_on_in_the_users_words() -> None:
    """No sentence is made up and read again: the turn's own words, the event's words and the day."""
    reading = _reading("end the history seminar after April")
    assert reading.text == "end the history seminar after April"
    assert reading.ends is not None
    assert (reading.ends.target, reading.ends.onward.date().isoformat()) == (
        "the history seminar",
        "2026-05-01",
    )
    assert reading.frame.operation == "delete"


def test_the_first_decision_is_the_turns_and_carries_its_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    reading = _reading("thanks a lot!")
    seen: list[str] = []

    def never(r: Reading) -> Decision | None:
        seen.append("never")
        return None

    answered = Handler("first", lambda r: Decision(kind="answer", reply_kind="answer", text="first"))
    monkeypatch.setattr(
        "assistant.decomposer.handlers.HANDLERS", (Handler("passes", never), answered, *HANDLERS)
    )
    decision = decide(reading)
    assert seen == ["never"]
    assert decision.text == "first"
    assert decision.frame == reading.frame.as_json()
