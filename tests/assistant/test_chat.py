"""The chat turn end to end on the local calendar: the path the websocket and the HTTP view share."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.models import Conversation, Message
from assistant.services import chat_turn, conversation_create
from skills.services import event_create
from tests.factories import two_meetings, user_with_calendar
from workflows.models import RunStatus, TaskRun

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)
pytestmark = pytest.mark.django_db


def test_week_question_runs_a_persisted_workflow_and_answers() -> None:
    with time_machine.travel(NOW, tick=False):
        user, cal = user_with_calendar("chatter", key="personal", name="Personal")
        event_create(
            calendar=cal,
            summary="Dentist",
            start=datetime(2026, 3, 5, 15, tzinfo=NY),
            end=datetime(2026, 3, 5, 16, tzinfo=NY),
        )
        event_create(
            calendar=cal,
            summary="Flight",
            start=datetime(2026, 3, 9, 7, tzinfo=NY),
            end=datetime(2026, 3, 9, 10, tzinfo=NY),
        )
        conversation = conversation_create(user=user)
        reply = chat_turn(user=user, conversation=conversation, text="What's my week look like?")
    assert reply is not None
    assert reply.kind == "answer"
    assert "Dentist" in reply.text
    assert "Thursday, March 5" in reply.text
    assert "3:00 PM" in reply.text
    assert "Flight" not in reply.text
    assert reply.run is not None
    assert reply.run.status == RunStatus.SUCCEEDED
    assert set(TaskRun.objects.filter(run=reply.run).values_list("status", flat=True)) == {"succeeded"}
    roles = list(Message.objects.filter(conversation=conversation).values_list("role", flat=True))
    assert roles == ["user", "assistant"]


def test_someone_elses_conversation_is_refused() -> None:
    owner = get_user_model().objects.create_user("owner", "owner@example.com")
    intruder = get_user_model().objects.create_user("intruder", "intruder@example.com")
    conversation = conversation_create(user=owner)
    with pytest.raises(PermissionError):
        chat_turn(user=intruder, conversation=conversation, text="What's my week look like?")
    assert not Message.objects.filter(conversation=conversation).exists()


def test_a_bulk_move_asks_first_and_a_second_yes_applies_nothing_more() -> None:
    from skills.models import ChangeRecord, Event

    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings()
        ask = chat_turn(
            user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later"
        )
        assert ask is not None
        assert ask.kind == "confirm"
        assert [row["summary"] for row in ask.data["preview"]] == ["Standup", "Design sync"]
        assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 9, tzinfo=NY)
        done = chat_turn(user=user, conversation=conversation, text="sure, do it")
        again = chat_turn(user=user, conversation=conversation, text="yes")
    assert done is not None
    assert done.kind == "done"
    assert again is not None
    assert again.kind == "answer"
    assert ChangeRecord.objects.filter(owner=user).count() == 2
    assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 10, tzinfo=NY)


def test_a_new_request_while_one_waits_sets_the_old_one_aside() -> None:
    from skills.models import Event

    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings()
        chat_turn(user=user, conversation=conversation, text="Cancel all my meetings tomorrow")
        reply = chat_turn(user=user, conversation=conversation, text="How many meetings do I have tomorrow?")
        conversation.refresh_from_db()
    assert reply is not None
    assert reply.kind == "answer"
    assert conversation.pending_run is None
    assert Event.objects.filter(calendar__owner=user).count() == 2
    assert Message.objects.filter(conversation=conversation, text__contains="set aside").exists()


def test_a_confirm_carries_the_week_view_of_the_changes_and_the_events_around_them() -> None:
    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings()
        cal = user.calendars.get(key="work")
        event_create(
            calendar=cal,
            summary="Lunch with Bo",
            start=datetime(2026, 3, 4, 12, tzinfo=NY),
            end=datetime(2026, 3, 4, 13, tzinfo=NY),
        )
        event_create(  # the next week: outside the week the change touches
            calendar=cal,
            summary="Offsite",
            start=datetime(2026, 3, 10, 9, tzinfo=NY),
            end=datetime(2026, 3, 10, 17, tzinfo=NY),
        )
        ask = chat_turn(
            user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later"
        )
    assert ask is not None
    week = ask.data["week"]
    assert week["timezone"] == "America/New_York"
    assert week["weeks"] == ["2026-03-02"]
    # The moved events are drawn from the preview rows, so they are not listed again as existing.
    assert [e["summary"] for e in week["events"]] == ["Lunch with Bo"]
    assert week["events"][0]["start"] == "2026-03-04T12:00:00-05:00"
    standup = ask.data["preview"][0]
    assert standup["before"]["start"] == "2026-03-03T09:00:00-05:00"
    assert standup["after"]["start"] == "2026-03-03T10:00:00-05:00"


def _moved_an_hour_later(user: Any, conversation: Conversation) -> Message:
    chat_turn(user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later")
    done = chat_turn(user=user, conversation=conversation, text="yes")
    assert done is not None
    assert done.kind == "done"
    return done


def test_the_undo_button_reverts_its_own_run_and_then_redoes_it() -> None:
    from skills.models import Event

    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings()
        done = _moved_an_hour_later(user, conversation)
        assert done.run is not None
        chat_turn(user=user, conversation=conversation, text="What's on tomorrow?")  # a later turn
        undone = chat_turn(
            user=user, conversation=conversation, text="Undo that", undo=done.data["undo"]["run_id"]
        )
        assert undone is not None
        assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 9, tzinfo=NY)
        redone = chat_turn(
            user=user, conversation=conversation, text="Redo that", undo=undone.data["undo"]["run_id"]
        )
    assert done.data["undo"]["run_id"] == str(done.run.pk)
    assert undone.kind == "done"
    assert "Undone: 2 changes" in undone.text
    assert undone.data["reverted"] == str(done.run.pk)
    assert redone is not None
    assert redone.kind == "done"
    assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 10, tzinfo=NY)
    said = list(Message.objects.filter(conversation=conversation, role="user").values_list("text", flat=True))
    assert said[-2:] == ["Undo that", "Redo that"]


def test_the_undo_button_cannot_revert_someone_elses_run() -> None:
    from skills.models import Event

    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings()
        done = _moved_an_hour_later(user, conversation)
        intruder = get_user_model().objects.create_user("intruder", "intruder@example.com")
        theirs = conversation_create(user=intruder)
        run_id = done.data["undo"]["run_id"]
        reply = chat_turn(user=intruder, conversation=theirs, text="Undo that", undo=run_id)
    assert reply is not None
    assert reply.kind == "answer"
    assert "nothing left to undo" in reply.text
    assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 10, tzinfo=NY)


def test_a_bulk_preview_lists_twenty_lines_counts_the_rest_and_keeps_every_row() -> None:
    with time_machine.travel(NOW, tick=False):
        user, cal = user_with_calendar("bulk")
        event_create(
            calendar=cal,
            summary="Standup",
            start=datetime(2026, 3, 3, 9, tzinfo=NY),
            end=datetime(2026, 3, 3, 9, 15, tzinfo=NY),
            rrule="FREQ=DAILY;COUNT=29",
        )
        conversation = conversation_create(user=user)
        ask = chat_turn(
            user=user, conversation=conversation, text="Move all my standups this month one hour later"
        )
    assert ask is not None
    assert ask.kind == "confirm"
    assert len(ask.data["preview"]) == 29
    assert ask.text.count("Move 'Standup'") == 20
    assert "… and 9 more changes like these" in ask.text
    assert len(ask.data["week"]["weeks"]) == 5  # March 2 to March 30: every week is in the week view


def test_a_yes_to_which_one_asks_again_and_the_question_stays_open() -> None:
    """ "Which one do you mean?" -> "yes" agrees without picking: the options are offered again (was:
    the question set aside, then "nothing is waiting for your answer"), and a pick after it is taken."""
    from skills.models import Event

    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings()
        ask = chat_turn(user=user, conversation=conversation, text="cancel my meeting tomorrow")
        assert ask is not None
        assert ask.kind == "choose"
        again = chat_turn(user=user, conversation=conversation, text="yes")
        conversation.refresh_from_db()
        assert again is not None
        assert (again.kind, again.data["options"]) == ("choose", ask.data["options"])
        assert conversation.pending_run_id is not None
        assert not Message.objects.filter(conversation=conversation, text__contains="set aside").exists()
        chat_turn(user=user, conversation=conversation, text="the second one")
    assert sorted(Event.objects.filter(calendar__owner=user).values_list("summary", flat=True)) == ["Standup"]
