"""Two tabs answering the same question at the same instant: the run continues exactly once.

Runs on whichever database the suite runs on; CI runs it on PostgreSQL, where the two threads hold
two real connections and race on the row lock of the conditional UPDATE.
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from tests.workflows import skillset
from tests.workflows.skillset import registry
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.engine import run_advance, run_resume, run_start
from workflows.models import RunStatus, TaskRun, WorkflowRun

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _engine_only(settings: object) -> None:
    settings.WORKFLOW_RUN_LISTENERS = []  # type: ignore[attr-defined]


def test_two_threads_resuming_one_pause_continue_it_once() -> None:
    user = get_user_model().objects.create_user("racer", "racer@example.com")
    definition = WorkflowDefinition(
        name="race",
        tasks=(
            TaskSpec(id="q", skill="ask", params={"question": "Apply?"}),
            TaskSpec(id="after", skill="add", params={"value": 1}, depends_on=("q",)),
        ),
    )
    run = run_start(user=user, definition=definition, timezone_name="UTC", registry=registry)
    run = run_advance(run.pk, registry=registry)
    assert run.status == RunStatus.PAUSED
    skillset.calls.clear()

    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def answer(text: str) -> None:
        try:
            barrier.wait(timeout=5)
            outcomes.append(
                run_resume(run_id=run.pk, pause_id=run.pause_id, user=user, answer=text, registry=registry)
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=answer, args=(text,)) for text in ("yes", "yes please")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)

    winners = [o for o in outcomes if o is not None]
    assert len(outcomes) == 2
    assert len(winners) == 1
    assert skillset.calls.get("add") == 1
    assert WorkflowRun.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED
    assert (TaskRun.objects.get(run=run, task_id="q").output or {})["answer"] in ("yes", "yes please")
