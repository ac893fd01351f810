"""The chat turn end to end on the local calendar: the path the websocket and the HTTP view share."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.models import Message
from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.services import calendar_create, event_create
from workflows.models import RunStatus, TaskRun

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)
pytestmark = pytest.mark.django_db


def test_week_question_runs_a_persisted_workflow_and_answers() -> None:
    with time_machine.travel(NOW, tick=False):
        user = get_user_model().objects.create_user("chatter", "chatter@example.com")
        preference_set(user=user, key="timezone", value="America/New_York")
        cal = calendar_create(
            owner=user, key="personal", name="Personal", timezone="America/New_York", is_default=True
        )
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
