"""Repeating events created by chat: the rule, its first day and its end come from the words."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.services import chat_turn, conversation_create
from skills.models import Event
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

SYDNEY = ZoneInfo("Australia/Sydney")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=SYDNEY)  # a Wednesday


def create(text: str, *, previewed: bool = False) -> tuple[Any, Event]:
    """The one event ``text`` makes for a new user, at once (or, ``previewed``, after its preview's yes)."""
    user, _ = user_with_calendar("repeater", timezone="Australia/Sydney")
    conversation = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
        assert reply is not None
        assert reply.kind == ("confirm" if previewed else "done"), reply.text
        if previewed:
            chat_turn(user=user, conversation=conversation, text="yes")
    return user, Event.objects.get(calendar__owner=user)


@pytest.mark.parametrize(
    ("text", "rule", "first"),
    [
        ("Set up a weekly reading group every Thursday 6-7pm", "FREQ=WEEKLY;BYDAY=TH", "2026-03-05 18:00"),
        ("Add a run every Tuesday and Thursday at 7am", "FREQ=WEEKLY;BYDAY=TU,TH", "2026-03-05 07:00"),
        ("Block lunch from 12 to 1 every weekday", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "2026-03-04 12:00"),
        ("Add a standup every workday at 9", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "2026-03-05 09:00"),
        ("Add yoga every other Monday at 10", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", "2026-03-09 10:00"),
        # "recurring" says how often, no word of the name: 'Recurring sync'
        ("Set up a recurring sync on Thursdays at 11", "FREQ=WEEKLY;BYDAY=TH", "2026-03-05 11:00"),
        # a kind of day before a day part in the plural: read as "weekday" and not used (one Gym)
        ("block weekday mornings 7-8 for the gym", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "2026-03-05 07:00"),
    ],
)
def test_the_rule_and_the_first_day_come_from_the_words(text: str, rule: str, first: str) -> None:
    _, event = create(text)
    assert not event.summary.casefold().startswith("recurring")
    assert event.rrule.startswith(rule)
    assert f"{event.start.astimezone(SYDNEY):%Y-%m-%d %H:%M}" == first


def test_until_the_end_of_a_month_ends_on_its_last_day() -> None:
    _, event = create("Add a 45 minute run every Tuesday at 7am until the end of May")
    assert "UNTIL=20260531T" in event.rrule  # 23:59:59 on May 31 in Sydney is still May 31 in UTC
    assert (event.end - event.start).total_seconds() == 45 * 60


def test_an_end_it_cannot_read_is_asked_about_and_nothing_is_made() -> None:
    user, _ = user_with_calendar("repeater-unclear", timezone="Australia/Sydney")
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(
            user=user,
            conversation=conversation_create(user=user),
            text="Add a run every Tuesday until whenever",
        )
    assert reply is not None
    assert reply.kind == "clarify"
    assert "Until when" in reply.text
    assert not Event.objects.filter(calendar__owner=user).exists()


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Add a standup every weekday at 9:15 except Fridays", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH"),
        ("Add a run daily at 7am but not on weekends", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
        ("Add stretching every day at 8am except Sundays", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA"),
    ],
)
def test_days_a_repetition_leaves_out_are_taken_out_of_its_rule(text: str, rule: str) -> None:
    _, event = create(text)
    assert event.rrule.startswith(rule)


@pytest.mark.parametrize(
    ("text", "rule", "first"),
    [
        ("yoga every tuesday 6pm", "FREQ=WEEKLY;BYDAY=TU", "2026-03-10 18:00"),
        ("gym daily at 7am", "FREQ=DAILY", "2026-03-05 07:00"),
        # "on weekends" was not understood at all; "weekend evenings" a kind of day before a day part
        ("yoga on weekends at 9am", "FREQ=WEEKLY;BYDAY=SA,SU", "2026-03-07 09:00"),
        ("tennis weekend evenings at 6", "FREQ=WEEKLY;BYDAY=SA,SU", "2026-03-07 18:00"),
        # the "next" of "starting next week" is a day, not "my next meeting" (a year of events was listed)
        ("yoga every wednesday 7am starting next week", "FREQ=WEEKLY;BYDAY=WE", "2026-03-11 07:00"),
        (
            "team retro every other friday 4pm starting next week",
            "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR",
            "2026-03-13 16:00",
        ),
    ],
)
def test_a_repeating_event_written_as_shorthand_is_previewed_then_made(
    text: str, rule: str, first: str
) -> None:
    _, event = create(text, previewed=True)
    assert event.rrule.startswith(rule)
    assert f"{event.start.astimezone(SYDNEY):%Y-%m-%d %H:%M}" == first
