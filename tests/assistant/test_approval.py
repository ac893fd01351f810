"""Approving a pending change through the chat: from two connections at once, and days later after a restart.

``transaction=True``: the threads hold their own database connections (two real connections on
PostgreSQL, where CI runs this too), so the data must be committed for them to see it.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection

from assistant.models import Conversation, Message
from assistant.services import chat_turn, conversation_create
from skills.models import ChangeRecord, Event
from skills.recurrence import clear_cache
from skills.services import event_create
from tests.factories import two_meetings, user_with_calendar

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday
pytestmark = pytest.mark.django_db(transaction=True)


def test_yes_from_two_connections_at_once_applies_the_changes_once() -> None:
    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings("twotabs")
        ask = chat_turn(
            user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later"
        )
        assert ask is not None
        assert ask.kind == "confirm"

        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def approve(text: str) -> None:
            try:
                tab = Conversation.objects.get(pk=conversation.pk)  # each tab reads its own copy
                barrier.wait(timeout=5)
                chat_turn(user=user, conversation=tab, text=text)
            except BaseException as exc:  # surfaced by the assertion below
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=approve, args=(text,)) for text in ("yes", "Approve")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

    assert errors == []
    assert ChangeRecord.objects.filter(owner=user).count() == 2
    assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 10, tzinfo=NY)
    assert Event.objects.get(summary="Design sync").start == datetime(2026, 3, 3, 11, tzinfo=NY)
    replies = list(
        Message.objects.filter(conversation=conversation, role="assistant").values_list("kind", "text")
    )
    assert [kind for kind, _ in replies].count("done") == 1
    # The slower tab is told, whether it raced the claim (PostgreSQL) or came after it (SQLite's lock).
    late = {"That question was already answered.", "There is nothing waiting for your answer right now."}
    assert [kind for kind, text in replies if text in late] == ["answer"]


def test_an_answer_days_later_after_a_restart_moves_exactly_the_previewed_occurrences() -> None:
    with time_machine.travel(NOW, tick=False):
        user, cal = user_with_calendar("patient")
        series = event_create(
            calendar=cal,
            summary="Chemistry class",
            start=datetime(2026, 3, 3, 14, tzinfo=NY),
            end=datetime(2026, 3, 3, 15, tzinfo=NY),
            rrule="FREQ=WEEKLY;BYDAY=TU,TH",
        )
        conversation = conversation_create(user=user)
        ask = chat_turn(
            user=user, conversation=conversation, text="Move my afternoon classes this week to mornings"
        )
    assert ask is not None
    assert ask.kind == "confirm"
    previewed = [(row["before"]["start"], row["after"]["start"]) for row in ask.data["preview"]]
    assert [before for before, _ in previewed] == ["2026-03-03T14:00:00-05:00", "2026-03-05T14:00:00-05:00"]

    # A restart: no connection, no cache, no Python object survives; only the database does.
    connection.close()
    clear_cache()
    del conversation, ask

    with time_machine.travel(NOW + timedelta(days=1, hours=-1), tick=False):  # Tuesday 8:00, before class
        conversation = Conversation.objects.get(user=user)
        done = chat_turn(user=user, conversation=conversation, text="yes")

    assert done is not None
    assert done.kind == "done"
    overrides = Event.objects.filter(series=series).order_by("recurrence_id")
    assert [(o.recurrence_id, o.start) for o in overrides] == [
        (datetime.fromisoformat(before), datetime.fromisoformat(after)) for before, after in previewed
    ]
    series.refresh_from_db()
    assert series.start == datetime(2026, 3, 3, 14, tzinfo=NY)  # the series itself is untouched
    assert series.rrule.startswith("FREQ=WEEKLY")
