"""A run enqueued here is executed by a real Celery worker in another process.

What only this can show: the task message crosses the broker with nothing but the run id, the worker
re-reads everything else from the shared database, its progress events reach this process through
Redis, and a run it paused can be continued by a different process (this one) from the database
alone.  The tests use real transactions so that the worker sees the rows they commit.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from pytest_django.fixtures import Settings

from assistant.models import Conversation, Message
from preferences.services import preference_set
from skills.models import Calendar, Notification
from skills.services import calendar_create, event_create
from tests.integration.conftest import Subscriber, Worker, chat_listener_error, wait_for
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.engine import run_resume, run_start
from workflows.models import RunStatus, TaskRun, WorkflowRun
from workflows.tasks import dispatch_run, run_workflow

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ZONE = "Europe/Berlin"
RUN_SECONDS = 30
WEEK = {"start": "2030-03-04T00:00:00+01:00", "end": "2030-03-11T00:00:00+01:00"}


@pytest.fixture(autouse=True)
def _listeners_that_import(settings: Settings) -> None:
    """This process resumes runs itself, so it calls the run listeners; keep them only if they import."""
    if chat_listener_error():
        settings.WORKFLOW_RUN_LISTENERS = []


@pytest.fixture
def user(worker: Worker) -> Any:
    """Ada and her work week, committed so the worker reads the same calendar."""
    ada = get_user_model().objects.create_user("ada", "ada@example.com")
    calendar = calendar_create(owner=ada, key="work", name="Work", timezone=ZONE, is_default=True)
    berlin = ZoneInfo(ZONE)
    for day, hour, summary in ((4, 9, "Dentist"), (5, 14, "Design review"), (20, 10, "Quarterly planning")):
        start = datetime(2030, 3, day, hour, tzinfo=berlin)
        event_create(calendar=calendar, summary=summary, start=start, end=start.replace(hour=hour + 1))
    return ada


def agenda_tasks(*, ask: bool) -> tuple[TaskSpec, ...]:
    """Find the week's events and write them as an agenda, optionally asking before the reply."""
    find = TaskSpec(id="find", skill="find_events", params=WEEK, summary="Find this week's events")
    question = TaskSpec(
        id="ask",
        skill="ask_user",
        params={"question": "Show all {{find.output.count}} events?", "kind": "confirm"},
        depends_on=("find",),
    )
    reply = TaskSpec(
        id="reply",
        skill="compose_reply",
        params={
            "style": "agenda",
            "events": "{{find.output.events}}",
            **WEEK,
            **({"text": "You said {{ask.output.answer}}; here they are:"} if ask else {}),
        },
        depends_on=("ask",) if ask else ("find",),
        summary="Write the reply",
    )
    return (find, question, reply) if ask else (find, reply)


def test_worker_runs_the_workflow_and_streams_its_progress_through_redis(
    worker: Worker, user: Any, redis_layer: str, subscribe: Callable[[str], Subscriber]
) -> None:
    definition = WorkflowDefinition(name="week agenda", tasks=agenda_tasks(ask=False))
    run = run_start(user=user, definition=definition, timezone_name=ZONE, channel_group="integration.agenda")
    subscriber = subscribe("integration.agenda")

    run_workflow.delay(str(run.pk))

    finished = wait_for(
        lambda: WorkflowRun.objects.filter(pk=run.pk, status=RunStatus.SUCCEEDED).first(),
        timeout=RUN_SECONDS,
        what="the run succeeding",
        worker=worker,
    )
    text = (finished.result or {}).get("text", "")
    assert "Dentist" in text
    assert "Design review" in text
    assert "Quarterly planning" not in text  # March 20, outside the week
    events = subscriber.receive_until("workflow.finished")
    assert [(e["type"], e.get("task_id")) for e in events] == [
        ("task.started", "find"),
        ("task.finished", "find"),
        ("task.started", "reply"),
        ("task.finished", "reply"),
        ("workflow.finished", None),
    ]
    assert {e["run_id"] for e in events} == {str(run.pk)}
    assert events[-1]["status"] == "succeeded"


def test_run_paused_by_the_worker_resumes_in_another_process_from_the_database(
    worker: Worker, user: Any, redis_layer: str, subscribe: Callable[[str], Subscriber]
) -> None:
    definition = WorkflowDefinition(name="confirm agenda", tasks=agenda_tasks(ask=True))
    run = run_start(user=user, definition=definition, timezone_name=ZONE, channel_group="integration.pause")
    subscriber = subscribe("integration.pause")
    run_workflow.delay(str(run.pk))
    paused = wait_for(
        lambda: WorkflowRun.objects.filter(pk=run.pk, status=RunStatus.PAUSED).first(),
        timeout=RUN_SECONDS,
        what="the run pausing",
        worker=worker,
    )
    assert subscriber.receive_until("workflow.paused")[-1]["run_id"] == str(run.pk)
    assert (paused.pause_payload or {}).get("text") == "Show all 2 events?"
    assert paused.pause_id is not None

    # All this process knows of the paused run is what it just read from the database.
    resumed = run_resume(run_id=run.pk, pause_id=paused.pause_id, user=user, answer="yes")

    assert resumed is not None
    assert resumed.status == RunStatus.SUCCEEDED
    text = (resumed.result or {}).get("text", "")
    assert text.startswith("You said yes; here they are:")
    assert "Dentist" in text
    assert TaskRun.objects.get(run=run, task_id="find").attempts == 1  # its output came from the row
    events = subscriber.receive_until("workflow.finished")
    assert [(e["type"], e.get("task_id")) for e in events] == [
        ("task.started", "ask"),
        ("task.finished", "ask"),
        ("task.started", "reply"),
        ("task.finished", "reply"),
        ("workflow.finished", None),
    ]


def test_worker_writes_the_reply_into_the_conversation(
    worker: Worker, user: Any, redis_layer: str, subscribe: Callable[[str], Subscriber]
) -> None:
    """The chat listener runs where the run settles, in the worker, and posts the reply there."""
    if not worker.has_chat_listener:
        pytest.skip(f"the worker runs without the chat listener: {chat_listener_error()}")
    conversation = Conversation.objects.create(user=user, title="My week")
    definition = WorkflowDefinition(name="week agenda", tasks=agenda_tasks(ask=False))
    run = run_start(
        user=user, definition=definition, timezone_name=ZONE, channel_group=conversation.channel_group
    )
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text="My week?", run=run)
    subscriber = subscribe(conversation.channel_group)

    dispatch_run(run.pk)  # as a chat turn does: enqueued once this (auto)commit is done

    reply = wait_for(
        lambda: Message.objects.filter(conversation=conversation, role=Message.Role.ASSISTANT).first(),
        timeout=RUN_SECONDS,
        what="the worker posting the reply",
        worker=worker,
    )
    assert reply.run_id == run.pk
    assert reply.kind == "answer"
    assert "Dentist" in reply.text
    chat = subscriber.receive_until("chat.message")[-1]
    assert chat["message"]["text"] == reply.text


def test_chat_turn_is_answered_by_the_worker(
    worker: Worker, user: Any, redis_layer: str, subscribe: Callable[[str], Subscriber]
) -> None:
    """The whole chat path with a broker: the turn enqueues after commit and the worker replies."""
    if not worker.has_chat_listener:
        pytest.skip(f"the worker runs without the chat listener: {chat_listener_error()}")
    from assistant.services import chat_turn  # imports the decomposer, which may not import yet

    preference_set(user=user, key="timezone", value=ZONE)
    conversation = Conversation.objects.create(user=user)
    subscriber = subscribe(conversation.channel_group)

    chat_turn(user=user, conversation=conversation, text="What do I have on March 4, 2030?")

    reply = wait_for(
        lambda: Message.objects.filter(conversation=conversation, role=Message.Role.ASSISTANT).first(),
        timeout=RUN_SECONDS,
        what="the worker answering the turn",
        worker=worker,
    )
    assert reply.run is not None
    assert reply.run.status == RunStatus.SUCCEEDED
    assert "Dentist" in reply.text
    assert "Design review" not in reply.text  # March 5
    posted = subscriber.receive_until("chat.message", where=lambda e: e["message"]["role"] == "assistant")
    assert posted[-1]["message"]["id"] == reply.pk


def test_a_mail_refused_once_is_retried_by_the_worker_and_sent_once(worker: Worker, user: Any) -> None:
    """The notify step in the worker: the refused mail waits, the change stands, a retry sends it."""
    flaky, kai = f"lee-{uuid.uuid4().hex[:8]}.flaky@example.com", "kai@example.com"
    start = datetime(2030, 3, 6, 10, tzinfo=ZoneInfo(ZONE))
    event_create(
        calendar=Calendar.objects.get(owner=user),
        summary="Offsite",
        start=start,
        end=start.replace(hour=12),
        attendees=[kai, flaky],
    )
    tasks = (
        TaskSpec(id="find", skill="find_events", params={**WEEK, "text": "Offsite"}),
        TaskSpec(
            id="plan", skill="plan_delete", params={"events": "{{find.output.events}}"}, depends_on=("find",)
        ),
        TaskSpec(
            id="apply",
            skill="apply_changes",
            params={"changes": "{{plan.output}}", "approved": True},
            depends_on=("plan",),
        ),
        TaskSpec(
            id="notify",
            skill="notify_attendees",
            params={"result": "{{apply.output}}"},
            depends_on=("apply",),
        ),
    )
    run = run_start(
        user=user, definition=WorkflowDefinition(name="cancel offsite", tasks=tasks), timezone_name=ZONE
    )

    run_workflow.delay(str(run.pk))

    finished = wait_for(
        lambda: WorkflowRun.objects.filter(pk=run.pk, status=RunStatus.SUCCEEDED).first(),
        timeout=RUN_SECONDS,
        what="the run succeeding",
        worker=worker,
    )
    result = finished.result or {}
    assert result["kind"] == "done"
    assert result["data"]["undo"] == {"run_id": str(run.pk)}
    assert f"I let {kai} know." in result["text"]
    assert f"The mail to {flaky} did not go out; I will try again." in result["text"]
    sent = wait_for(
        lambda: Notification.objects.filter(run_id=run.pk, recipient=flaky, status="sent").first(),
        timeout=RUN_SECONDS,
        what="the worker's retry sending the refused mail",
        worker=worker,
    )
    assert sent.attempts == 2
    assert Notification.objects.get(run_id=run.pk, recipient=kai).attempts == 1  # sent once, not again
