"""How much of a calendar a request means, said in words written for this test: a title said in the
plural ("my calculus lectures"), days said as how long ("for the rest of the week"), "the next" one,
an exception in a question ("besides the standups"), and how long a new series lasts ("for the next
6 weeks")."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
import time_machine
from dateutil.rrule import rrulestr

from assistant.decomposer.recurrence import read_repeat
from assistant.decomposer.world import World
from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 30, tzinfo=NEW_YORK)  # a Wednesday, after its standup


@pytest.fixture
def term() -> tuple[Any, Conversation]:
    """A standup every weekday at 9, a calculus lecture every Tuesday and Thursday at 2, and a design
    review with Ann tomorrow at 4."""
    user, calendar = user_with_calendar("term")
    for summary, day, start, end, rule, attendees in (
        ("Standup", 2, (9, 0), (9, 15), "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=40", []),
        ("Calculus lecture", 3, (14, 0), (15, 15), "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=20", []),
        ("Design review", 5, (16, 0), (17, 0), "", ["ann@example.com"]),
    ):
        event_create(
            calendar=calendar,
            summary=summary,
            start=datetime(2026, 3, day, *start, tzinfo=NEW_YORK),
            end=datetime(2026, 3, day, *end, tzinfo=NEW_YORK),
            timezone="America/New_York",
            rrule=rule,
            attendees=attendees,
        )
    return user, conversation_create(user=user)


def say(term: tuple[Any, Conversation], text: str) -> Any:
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=term[0], conversation=term[1], text=text)
    assert reply is not None
    return reply


def preview_of(term: tuple[Any, Conversation], text: str) -> str:
    reply = say(term, text)
    assert reply.kind == "confirm", reply.text
    assert Event.objects.count() == 3  # nothing written before the yes
    return str(reply.text)


@pytest.mark.parametrize(
    "text", ["move my calculus lectures next week to 10am", "move next week's calculus lectures to 10am"]
)
def test_a_title_word_said_in_the_plural_means_every_occurrence_in_the_period(term: Any, text: str) -> None:
    """It offered to pick one of the two; and "lectures" was "not used", though it names them."""
    preview = preview_of(term, text)
    assert "Tuesday, March 10 2:00 PM – 3:15 PM → Tuesday, March 10 10:00 AM" in preview
    assert "Thursday, March 12 2:00 PM – 3:15 PM → Thursday, March 12 10:00 AM" in preview
    assert "did not use" not in preview


def test_an_exception_leaves_one_of_the_plural_out(term: Any) -> None:
    preview = preview_of(term, "move my calculus lectures next week to 10am except the one on thursday")
    assert "→ Tuesday, March 10 10:00 AM" in preview
    assert "→ Thursday" not in preview


@pytest.mark.parametrize(
    "text", ["cancel everything tomorrow but the design review", "clear tomorrow but the design review"]
)
def test_but_before_what_is_left_out_is_an_exception(term: Any, text: str) -> None:
    """ "everything tomorrow but the design review": the preview deleted the design review alone, the
    one event the user asked to keep."""
    preview = preview_of(term, text)
    assert "Delete 'Standup'" in preview
    assert "Delete 'Design review'" not in preview


@pytest.mark.parametrize(
    "text", ["cancel standup for the rest of the week", "skip the standup for the rest of this week"]
)
def test_days_said_as_how_long_hold_every_occurrence_of_the_title(term: Any, text: str) -> None:
    """The standups still ahead this week (Thursday and Friday), previewed; it asked which one."""
    preview = preview_of(term, text)
    assert preview.count("Delete 'Standup'") == 2
    assert "Thursday, March 5" in preview
    assert "Friday, March 6" in preview


@pytest.mark.parametrize(
    "text",
    ["move the next calculus lecture to friday at 11", "move just the next calculus lecture to friday at 11"],
)
def test_the_next_one_of_a_series_is_the_one_moved(term: Any, text: str) -> None:
    """Tomorrow's lecture, not a choice among the nineteen still to come."""
    reply = say(term, text)
    assert reply.kind in ("confirm", "done"), reply.text
    assert "Thursday, March 5 2:00 PM – 3:15 PM → Friday, March 6 11:00 AM – 12:15 PM" in reply.text


@pytest.mark.parametrize(
    ("text", "kept", "left"),
    [
        ("what's on my calendar next week besides the standups?", "Calculus lecture", "Standup"),
        ("what do I have tomorrow other than the standup?", "Design review", "Standup"),
        ("show me tomorrow except the calculus lecture", "Design review", "Calculus lecture"),
        ("what's on tomorrow apart from the meeting with Ann?", "Calculus lecture", "Design review"),
    ],
)
def test_a_question_leaves_out_what_its_exception_names(term: Any, text: str, kept: str, left: str) -> None:
    reply = say(term, text)
    assert reply.kind == "answer", reply.text
    listed, said = _listed_and_left_out(str(reply.text))
    assert kept in listed
    assert left not in listed
    assert said  # the answer names what it left out, so a misread exception shows


def _listed_and_left_out(text: str) -> tuple[str, str]:
    """An agenda's event lines, and its last line naming what was left out ("" without one)."""
    listed = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("•"))
    said = text.splitlines()[-1] if text.splitlines()[-1].startswith("Left out, as you asked:") else ""
    return listed, said


@pytest.mark.parametrize(
    ("said", "last"),
    [
        ("every monday at 10 for the next 6 weeks", "2026-04-13"),
        ("every monday at 10 over the coming six weeks", "2026-04-13"),
        ("every day at 7am for the next ten days", "2026-03-14"),
        ("every friday at 4 for 3 months", "2026-05-29"),
        ("every monday at 10 for a week", "2026-03-09"),
    ],
)
def test_how_long_a_series_lasts_bounds_it(said: str, last: str) -> None:
    """ "for the next 6 weeks" was not read (the series ran for a year), nor "a week" or "ten days"."""
    repeat = read_repeat(said, NOW)
    assert repeat is not None
    assert repeat.until is not None
    days = rrulestr(repeat.rule, dtstart=datetime(2026, 3, 5, 7, 0))
    within = [
        d.date()
        for d in days.between(datetime(2026, 3, 4), datetime.combine(repeat.until, datetime.max.time()))
    ]
    assert str(within[-1]) == last


def test_a_weekly_meeting_for_the_next_six_weeks_is_made_with_six(term: Any) -> None:
    say(term, "set up a weekly 1:1 with Ann on mondays at 10 for the next 6 weeks")
    made = Event.objects.get(summary="1:1 with Ann")
    starts = list(rrulestr(made.rrule, dtstart=made.start.astimezone(NEW_YORK)))
    assert len(starts) == 6
    assert starts[-1].date() == datetime(2026, 4, 13).date()


def test_days_said_beside_a_destination_are_no_stretch_of_the_target(term: Any) -> None:
    """ "move the standup for this week to 10am" previewed a move of every standup for a year."""
    reply = say(term, "move the standup for this week to 10am")
    assert reply.kind == "choose", reply.text
    assert Event.objects.count() == 3


def test_an_exception_that_repeats_the_target_leaves_out_only_what_it_adds(term: Any) -> None:
    """It left out every standup ("I found nothing to change")."""
    preview = preview_of(term, "cancel all my standups next week except the standup on friday")
    assert preview.count("Delete 'Standup'") == 4
    assert "Friday, March 13 9:00 AM" not in preview


def test_many_exceptions_are_each_read_once(term: Any) -> None:
    """Each exception read every later one again: 2^n readings of the clause (minutes for 20)."""
    from assistant.decomposer import understand as module

    calls = 0
    real = module.understand

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)

    text = "what's on next week " + " ".join(f"except x{i}" for i in range(20))
    with mock.patch.object(module, "understand", counted), time_machine.travel(NOW, tick=False):
        module.understand(text, now=NOW, world=World(user=term[0], now=NOW))
    assert calls <= 21


def test_a_move_to_a_late_part_of_the_day_goes_into_it(term: Any) -> None:
    """A move to the late morning or the late afternoon searched the whole part (the standup went to
    noon; a 1 PM event was "already in the afternoon"): now the stretch said."""
    review = preview_of(term, "move the design review to the late morning")
    assert "→ Thursday, March 5 10:00 AM – 11:00 AM" in review
    say(term, "no")
    reply = say(term, "move tomorrow's standup to the late afternoon")
    assert "→ Thursday, March 5 3:15 PM – 3:30 PM" in reply.text, reply.text  # the lecture ends at 3:15


def test_a_rename_beside_another_request_about_it_is_asked_first(term: Any) -> None:
    """ "rename the design review to Checkup and move it to friday" was renamed at once, the move dropped."""
    preview = preview_of(term, "rename the design review to Checkup and move it to friday")
    assert "rename to 'Checkup'" in preview
    say(term, "no")
    whole = say(term, "rename the design review to Stretch and Move class")  # a name, not a second request
    assert "rename to 'Stretch and Move class'" in whole.text, whole.text


def test_a_scope_inside_the_words_of_a_rename_is_the_target_s(term: Any) -> None:
    """ "rename the design review starting tomorrow to Budget review" asked where it should go."""
    reply = say(term, "rename the design review starting tomorrow to Budget review")
    assert "rename to 'Budget review'" in reply.text, reply.text


@pytest.mark.parametrize(
    "said",
    [
        "every tuesday at 6pm starting next week",
        "every wednesday at 7pm starting next month",
        "every tuesday at 6pm from next week on",
    ],
)
def test_the_period_a_series_starts_in_does_not_end_it(said: str) -> None:
    """It made one occurrence: "starting next week" was read as "in next week"."""
    repeat = read_repeat(said, NOW)
    assert repeat is not None
    assert repeat.until is None


def test_a_series_said_to_happen_in_a_week_ends_with_it() -> None:
    repeat = read_repeat("every day next week at 7am", NOW)
    assert repeat is not None
    assert str(repeat.until) == "2026-03-15"
