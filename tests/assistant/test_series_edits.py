"""Changes to a series from a day on ("from now on", "starting next week", "end it after May") and
moves by whole weeks ("the same time next week"), in several phrasings, previewed before they apply."""

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

TOKYO = ZoneInfo("Asia/Tokyo")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=TOKYO)  # a Wednesday


@pytest.fixture
def calendar() -> tuple[Any, Conversation]:
    """A seminar every Tuesday at 10 since last week, and a one-off dentist on Thursday at 8."""
    user, cal = user_with_calendar("series", timezone="Asia/Tokyo")
    event_create(
        calendar=cal,
        summary="Seminar",
        start=datetime(2026, 2, 24, 10, 0, tzinfo=TOKYO),
        end=datetime(2026, 2, 24, 11, 30, tzinfo=TOKYO),
        timezone="Asia/Tokyo",
        rrule="FREQ=WEEKLY;BYDAY=TU;COUNT=20",
    )
    event_create(
        calendar=cal,
        summary="Dentist",
        start=datetime(2026, 3, 5, 8, 0, tzinfo=TOKYO),
        end=datetime(2026, 3, 5, 9, 0, tzinfo=TOKYO),
        timezone="Asia/Tokyo",
    )
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def _starts(user: Any, summary: str) -> list[str]:
    rows = Event.objects.filter(calendar__owner=user, summary=summary, series__isnull=True).order_by("start")
    return [r.start.astimezone(TOKYO).strftime("%m-%d %H:%M") for r in rows]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("move the seminar to 2pm from now on", "03-10"),
        ("push the seminar to 2pm going forward", "03-10"),
        ("starting next week, move the seminar to 2pm", "03-10"),
        ("move the seminar to 2pm starting March 17", "03-17"),
        ("reschedule the seminar to 2pm from March 24 onwards", "03-24"),
        # a repetition said last, of the change: it moved the next seminar only, at once
        ("move the seminar to 2pm every week", "03-10"),
        ("the seminar is at 2pm every week now", "03-10"),
    ],
)
def test_a_change_from_a_day_on_splits_the_series_and_keeps_the_past(
    calendar: Any, text: str, first: str
) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "(from Tuesday, March" in asked.text
        assert _starts(user, "Seminar") == ["02-24 10:00"]  # nothing written before the yes
        done = say(user, conversation, "yes")
    assert done.kind == "done"
    assert _starts(user, "Seminar") == ["02-24 10:00", f"{first} 14:00"]


@pytest.mark.parametrize(
    "text",
    ["end the seminar after April", "stop the seminar at the end of April", "make the seminar end in April"],
)
def test_ending_a_series_after_a_period_cancels_from_then_on(calendar: Any, text: str) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "Delete 'Seminar' (from Tuesday, May 5 on)" in asked.text
        say(user, conversation, "yes")
    master = Event.objects.get(calendar__owner=user, summary="Seminar")
    assert "UNTIL=" in master.rrule or "COUNT=10" in master.rrule  # Feb 24 .. Apr 28: ten Tuesdays


@pytest.mark.parametrize(
    "text",
    [
        "delete all my seminars",
        "cancel every seminar",
        "remove the recurring seminar",  # these two offered its occurrences to pick from
        "cancel my seminar series",
    ],
)
def test_all_of_a_series_named_with_no_time_is_the_series_from_its_next_one(calendar: Any, text: str) -> None:
    # it previewed deleting each seminar of the coming year one by one (and any after, kept)
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "Delete 'Seminar' (from Tuesday, March 10 on)" in asked.text
        say(user, conversation, "yes")
    master = Event.objects.get(calendar__owner=user, summary="Seminar")
    assert "COUNT=2" in master.rrule or "UNTIL=" in master.rrule  # the two seminars before today stay


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("move the dentist to the same time next week", "03-12"),
        ("push the dentist to same time in two weeks", "03-19"),
    ],
)
def test_the_same_time_a_week_later_keeps_the_weekday_and_hour(calendar: Any, text: str, day: str) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "done", reply.text
    assert _starts(user, "Dentist") == [f"{day} 08:00"]


def test_a_move_to_where_it_already_is_writes_nothing(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "move the dentist to the same time tomorrow")
    assert reply.kind == "answer"
    assert "already" in reply.text
    assert Event.objects.get(summary="Dentist").sequence == 0


@pytest.mark.parametrize(
    ("text", "interval"),
    [
        ("make the seminar biweekly", "INTERVAL=2"),
        ("change the seminar to every other week", "INTERVAL=2"),
        ("switch the seminar to every 3 weeks", "INTERVAL=3"),
        ("make the seminar biweekly going forward", "INTERVAL=2"),  # "from now on" only was read
    ],
)
def test_a_series_rule_changes_after_a_preview_and_is_undone(calendar: Any, text: str, interval: str) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "(every occurrence)" in asked.text
        assert "INTERVAL" not in Event.objects.get(summary="Seminar").rrule
        done = say(user, conversation, "yes")
        assert done.kind == "done"
        assert interval in Event.objects.get(summary="Seminar").rrule
        undone = say(user, conversation, "undo that")
    assert undone.kind == "done", undone.text
    assert "INTERVAL" not in Event.objects.get(summary="Seminar").rrule


def test_a_rule_change_of_a_one_off_event_says_it_does_not_repeat(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "make the dentist biweekly")
    assert reply.kind == "answer"
    assert "does not repeat weekly" in reply.text
    assert Event.objects.get(summary="Dentist").rrule == ""


def _lengths(user: Any, summary: str) -> list[int]:
    rows = Event.objects.filter(calendar__owner=user, summary=summary, series__isnull=True).order_by("start")
    return [int((r.end - r.start).total_seconds() // 60) for r in rows]


@pytest.mark.parametrize(
    "text",
    [
        "make the seminar 30 minutes from next week on",
        "change the seminar to 30 minutes starting next week",
        "make the seminar 30 minutes long from now on",
    ],
)
def test_a_new_length_from_a_day_on_splits_the_series(calendar: Any, text: str) -> None:
    """A length said with its scope changes the series from then on; the seminars before keep theirs
    (it was read as a question, or as a place called "30 minutes")."""
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "(from Tuesday, March 10 on)" in asked.text
        assert _lengths(user, "Seminar") == [90]
        done = say(user, conversation, "yes")
    assert done.kind == "done", done.text
    assert _starts(user, "Seminar") == ["02-24 10:00", "03-10 10:00"]
    assert _lengths(user, "Seminar") == [90, 30]


@pytest.mark.parametrize(
    "text", ["move the seminar to Thursdays going forward", "move the seminar to thursdays"]
)
def test_a_series_moved_to_a_weekday_goes_forward_from_its_next_occurrence(calendar: Any, text: str) -> None:
    """Tuesday's seminar moved to Thursdays with no day said starts on the Thursday after its next
    Tuesday (March 12), never on a Thursday before it (tomorrow, March 5, which would make two this
    week)."""
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "→ Thursday, March 12 10:00 AM" in asked.text
        say(user, conversation, "yes")
    assert _starts(user, "Seminar") == ["02-24 10:00", "03-12 10:00"]


@pytest.mark.parametrize(
    "text", ["delete everything from thursday onwards", "cancel all my events from Thursday on"]
)
def test_everything_from_a_day_on_is_every_series_and_event_from_then_asked_first(
    calendar: Any, text: str
) -> None:
    """ "Everything from Thursday onwards" is every event from that day on: the one-off dentist and the
    seminars from then on (not one series to pick, as "the seminar from Thursday on" would be); the
    seminars before it stay, and nothing goes before the user says yes."""
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text
        assert "Dentist" in asked.text
        assert "Seminar" in asked.text
        assert Event.objects.filter(calendar__owner=user).count() == 2  # nothing gone yet
        done = say(user, conversation, "yes")
    assert done.kind == "done", done.text
    assert not Event.objects.filter(summary="Dentist").exists()
    assert _starts(user, "Seminar") == ["02-24 10:00"]
    assert "UNTIL=20260310T00" in Event.objects.get(summary="Seminar").rrule  # none from March 10 on


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("cancel the seminar on the 10th and the 17th", "confirm"),
        ("cancel the seminar on the 10th or the 17th", "choose"),
    ],
)
def test_days_listed_with_and_are_each_changed_and_with_or_one_is_picked(
    calendar: Any, text: str, kind: str
) -> None:
    # "and" asked which one of the two to cancel
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
    assert asked.kind == kind, asked.text
    if kind == "confirm":
        assert "Delete 'Seminar' (Tuesday, March 10" in asked.text
        assert "Delete 'Seminar' (Tuesday, March 17" in asked.text


@pytest.mark.parametrize(
    "text",
    [
        "cancel yoga on thursdays from now on",
        "starting next week, cancel yoga on thursdays",
        "no yoga on thursdays anymore",  # was 52 to pick one from, "anymore" unread
    ],
)
def test_one_weekday_of_a_series_cancelled_from_a_day_on_keeps_the_others(calendar: Any, text: str) -> None:
    """Yoga on Tuesdays and Thursdays: "cancel yoga on thursdays from now on" deleted the series from its
    first Thursday on, Tuesdays and all (previewed as "from Thursday, March 5 on"). Each Thursday's is
    cancelled, previewed first; every Tuesday stays."""
    user, conversation = calendar
    event_create(
        calendar=user.calendars.get(),
        summary="Yoga",
        start=datetime(2026, 3, 3, 7, 0, tzinfo=TOKYO),
        end=datetime(2026, 3, 3, 8, 0, tzinfo=TOKYO),
        timezone="Asia/Tokyo",
        rrule="FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12",
    )
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm"
        assert "from Thursday" not in asked.text
        done = say(user, conversation, "yes")
        tuesday = say(user, conversation, "what do I have on tuesday march 17?")
        thursday = say(user, conversation, "what do I have on thursday march 19?")
    assert done.kind == "done"
    assert "Yoga" in tuesday.text
    assert "Yoga" not in thursday.text


@pytest.mark.parametrize("text", ["I'm not doing the seminar anymore", "cancel the seminar from now on"])
def test_a_series_given_up_is_cancelled_from_its_next_one_asked_first(calendar: Any, text: str) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
    assert asked.kind == "confirm", asked.text
    assert "Delete 'Seminar' (from Tuesday, March 10 on)" in asked.text
    assert "did not use" not in asked.text
    assert _starts(user, "Seminar") == ["02-24 10:00"]  # nothing written yet
