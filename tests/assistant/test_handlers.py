"""The table of handlers: one reading per turn, restated once where the turn says one request in the
words of another, handed to handlers tried in order; the first decision wins and carries the turn's
frame. Every sentence here is written for the test."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model

from assistant.decomposer.handlers import HANDLERS, Handler, decide, read
from assistant.decomposer.reading import Reading
from tests.factories import user_with_calendar
from workflows.definition import Decision

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=NEW_YORK)  # a Wednesday
_MADE = {
    "last_events": [
        {
            "summary": "Dentist",
            "start": "2026-03-05T10:00:00-05:00",
            "end": "2026-03-05T11:00:00-05:00",
        }
    ]
}

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


def test_a_new_time_said_without_a_verb_after_an_event_was_made_is_restated_as_its_move() -> None:
    reading = _reading("how about 3pm instead?", _MADE)
    assert reading.said == "how about 3pm instead?"
    assert reading.text == "move it to about 3pm"
    assert reading.frame.operation == "move"
    # with no event just made, the same words are read as they stand
    alone = _reading("how about 3pm instead?")
    assert alone.text == alone.said
    assert alone.frame.operation != "move"


def test_ending_a_series_is_restated_as_cancelling_it_from_then_on() -> None:
    reading = _reading("end the history seminar after April")
    assert reading.text == "cancel the history seminar starting 2026-05-01"
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
