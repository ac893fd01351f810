"""A broker that is down loses nothing: the turn and the approval are stored, the user is told, and
the sweeper finishes them once the broker is back.  Two requests at once leave one question open.

``transaction=True``: the hand-over to the broker happens after commit, as in production.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant import services
from assistant.models import Message
from assistant.services import LATER, LATER_ANSWER, SET_ASIDE, chat_turn
from skills.models import ChangeRecord, Event
from tests.brokers import NO_BROKER, point_app_at
from tests.factories import two_meetings
from workflows.models import RunStatus, TaskRun, WorkflowRun
from workflows.sweeper import GAVE_UP, sweep
from workflows.tasks import run_workflow

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker() -> Iterator[dict[str, bool]]:
    """``broker["down"] = True`` points the app at a port nobody listens on; False brings eager mode back."""
    app = run_workflow.app
    saved = (app.conf.broker_url, app.conf.task_always_eager)
    state = {"down": False}

    class Switch(dict[str, bool]):
        def __setitem__(self, key: str, down: bool) -> None:
            super().__setitem__(key, down)
            point_app_at(app, broker_url=NO_BROKER if down else saved[0], eager=not down and saved[1])

    switch = Switch(state)
    yield switch
    point_app_at(app, broker_url=saved[0], eager=saved[1])


def later(minutes: int = 5) -> datetime:
    return NOW + timedelta(minutes=minutes)


def test_a_request_and_its_approval_survive_a_broker_outage(broker: dict[str, bool]) -> None:
    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings("outage")
        broker["down"] = True
        reply = chat_turn(
            user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later"
        )
        assert reply is not None
        assert (reply.kind, reply.text) == ("answer", LATER)
        run = WorkflowRun.objects.get(user=user)
        assert run.status == RunStatus.PENDING

        broker["down"] = False
        assert sweep(now=later()).dispatched == 1
        run.refresh_from_db()
        assert run.status == RunStatus.PAUSED
        preview = Message.objects.filter(conversation=conversation, run=run, role="assistant").last()
        assert preview is not None
        assert preview.kind == "confirm"

        broker["down"] = True
        reply = chat_turn(user=user, conversation=conversation, text="yes")
        assert reply is not None
        assert reply.text == LATER_ANSWER
        run.refresh_from_db()
        assert run.status == RunStatus.PENDING  # the approval is stored, not lost with the broker
        assert TaskRun.objects.filter(run=run, has_answer=True).count() == 1
        assert ChangeRecord.objects.count() == 0
        again = chat_turn(user=user, conversation=conversation, text="yes")
        assert again is not None
        assert again.kind != "confirm"

        broker["down"] = False
        assert sweep(now=later(10)).dispatched == 1
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert ChangeRecord.objects.filter(owner=user).count() == 2
    assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 10, tzinfo=NY)
    done = Message.objects.filter(conversation=conversation, run=run, role="assistant").last()
    assert done is not None
    assert done.kind == "done"


def test_a_run_given_up_on_tells_the_user() -> None:
    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings("gaveup")
        ask = chat_turn(
            user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later"
        )
        assert ask is not None
        assert ask.kind == "confirm"
        run = WorkflowRun.objects.get(user=user)
        # Approved, then its worker died three times (each time after taking it up).
        WorkflowRun.objects.filter(pk=run.pk).update(
            status=RunStatus.RUNNING, pause_id=None, attempts=3, lease_owner="dead", lease_expires_at=NOW
        )
        assert sweep(now=later()).failed == 1
    told = Message.objects.filter(conversation=conversation, role="assistant").last()
    assert told is not None
    assert told.kind == "error"
    assert told.text == "I couldn't finish that: " + GAVE_UP.format(attempts=3)
    assert ChangeRecord.objects.count() == 0


def test_two_requests_at_once_leave_one_question_open_and_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second request's question is asked while the first still waits on its own: the first is
    set aside with a note, and the conversation waits on the second."""
    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings("twice")
        first = chat_turn(
            user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later"
        )
        assert first is not None
        assert first.kind == "confirm"
        conversation.refresh_from_db()
        waiting = conversation.pending_run
        # The second turn read the conversation before the first paused (sent at once): it did not
        # see the first waiting, so it did not set it aside itself.
        monkeypatch.setattr(services, "_pending", lambda conversation: None)
        second = chat_turn(user=user, conversation=conversation, text="Cancel the design sync tomorrow")
        assert second is not None
        assert second.kind == "confirm"
    assert waiting is not None
    assert WorkflowRun.objects.get(pk=waiting.pk).status == RunStatus.CANCELLED
    assert WorkflowRun.objects.filter(user=user, status=RunStatus.PAUSED).count() == 1
    conversation.refresh_from_db()
    assert conversation.pending_run_id == second.run_id
    texts = list(
        Message.objects.filter(conversation=conversation, role="assistant").values_list("text", flat=True)
    )
    assert SET_ASIDE in texts


def test_a_question_set_aside_before_it_was_shown_says_so_instead() -> None:
    """The other order: the newer request paused first, so the older one's question is never asked."""
    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings("setaside")
        chat_turn(user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later")
        run = WorkflowRun.objects.get(user=user)
        Message.objects.filter(run=run, role="assistant").delete()  # as if its reply was not written yet
        WorkflowRun.objects.filter(pk=run.pk).update(status=RunStatus.CANCELLED, pause_id=None)
        services.run_settled(run)  # its listener, late: the run in hand still says paused
    note = Message.objects.filter(conversation=conversation, role="assistant").last()
    assert note is not None
    assert (note.text, note.run_id) == (SET_ASIDE, run.pk)


def test_an_apply_run_again_after_its_worker_died_reports_what_it_did_once() -> None:
    """The worker died after the apply committed but before its result was stored: the run taken
    over runs the apply again, which writes nothing twice and tells what was done (not 'changed
    meanwhile', which its own writes would otherwise look like)."""
    with time_machine.travel(NOW, tick=False):
        user, conversation = two_meetings("rerun")
        chat_turn(user=user, conversation=conversation, text="Move all my meetings tomorrow one hour later")
        done = chat_turn(user=user, conversation=conversation, text="yes")
        assert done is not None
        assert done.kind == "done"
        run = WorkflowRun.objects.get(user=user)
        apply = TaskRun.objects.get(run=run, skill="apply_changes")
        TaskRun.objects.filter(run=run, position__gte=apply.position).update(status="pending", output=None)
        WorkflowRun.objects.filter(pk=run.pk).update(
            status=RunStatus.RUNNING, attempts=1, lease_owner="dead", lease_expires_at=NOW, result=None
        )
        done.delete()
        assert sweep(now=later()).dispatched == 1
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert ChangeRecord.objects.filter(owner=user).count() == 2
    assert Event.objects.get(summary="Standup").start == datetime(2026, 3, 3, 10, tzinfo=NY)
    again = Message.objects.filter(conversation=conversation, run=run, role="assistant").last()
    assert again is not None
    assert again.kind == "done"
    assert again.text.startswith("Done: 2 changes.")
