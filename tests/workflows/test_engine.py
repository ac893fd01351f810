from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model

from tests.workflows import skillset
from tests.workflows.skillset import registry
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.engine import run_advance, run_cancel, run_resume, run_start
from workflows.models import RunStatus, TaskRun, WorkflowRun

pytestmark = pytest.mark.django_db
NEVER = datetime.max.replace(tzinfo=UTC)


@pytest.fixture(autouse=True)
def _engine_only(settings: object) -> None:
    """These tests are about the engine alone: no chat listener turns runs into messages."""
    settings.WORKFLOW_RUN_LISTENERS = []  # type: ignore[attr-defined]


@pytest.fixture
def user() -> object:
    return get_user_model().objects.create_user("engine-user", "engine@example.com")


def start(user: object, *tasks: TaskSpec, output: str | None = None) -> WorkflowRun:
    definition = WorkflowDefinition(name="test", tasks=tasks, output=output)
    run = run_start(user=user, definition=definition, timezone_name="America/New_York", registry=registry)
    return run_advance(run.pk, registry=registry)


def rows(run: WorkflowRun) -> dict[str, TaskRun]:
    return {r.task_id: r for r in TaskRun.objects.filter(run=run)}


def test_fan_out_fan_in_passes_outputs_along(user: object) -> None:
    tasks = [TaskSpec(id="root", skill="emit", params={"value": 2})]
    tasks += [
        TaskSpec(
            id=f"w{i}",
            skill="add",
            params={"value": i, "values": ["{{root.output.value}}"]},
            depends_on=("root",),
        )
        for i in range(5)
    ]
    tasks.append(
        TaskSpec(
            id="sum",
            skill="add",
            params={"values": [f"{{{{w{i}.output.value}}}}" for i in range(5)]},
            depends_on=tuple(f"w{i}" for i in range(5)),
        )
    )
    run = start(user, *tasks)
    assert run.status == RunStatus.SUCCEEDED
    assert run.result == {"value": sum(i + 2 for i in range(5)), "items": []}
    stored = rows(run)
    assert all(r.status == "succeeded" and r.attempts == 1 and r.finished_at for r in stored.values())
    assert stored["w3"].inputs == {"value": 3, "values": [2]}


def test_failure_fails_dependants_with_a_clear_message_and_others_still_run(user: object) -> None:
    run = start(
        user,
        TaskSpec(id="bad", skill="fail", params={"message": "calendar is read-only"}),
        TaskSpec(id="after", skill="emit", depends_on=("bad",)),
        TaskSpec(id="independent", skill="emit", params={"value": 7}),
        output="after",
    )
    stored = rows(run)
    assert run.status == RunStatus.FAILED
    assert stored["bad"].error == "calendar is read-only"
    assert stored["after"].status == "failed"
    assert stored["after"].error == "not run because task bad failed"
    assert stored["independent"].status == "succeeded"
    assert "bad: calendar is read-only" in run.error


def test_transient_errors_are_retried_with_backoff(user: object) -> None:
    run = start(user, TaskSpec(id="f", skill="flaky", params={"value": 3}))
    assert run.status == RunStatus.SUCCEEDED
    assert rows(run)["f"].attempts == 3
    assert run.result == {"value": 3, "items": []}


def test_transient_errors_give_up_after_the_last_attempt(user: object) -> None:
    run = start(user, TaskSpec(id="f", skill="flaky", params={"value": 9}))
    assert run.status == RunStatus.FAILED
    assert rows(run)["f"].attempts == 3


def test_false_condition_skips_task_and_its_dependants(user: object) -> None:
    run = start(
        user,
        TaskSpec(id="n", skill="emit", params={"value": 0}),
        TaskSpec(id="only_if", skill="emit", when="{{n.output.value}} > 0", depends_on=("n",)),
        TaskSpec(id="after", skill="emit", depends_on=("only_if",)),
        TaskSpec(
            id="else", skill="emit", when="not {{n.output.value}}", depends_on=("n",), params={"value": 5}
        ),
        output="else",
    )
    stored = rows(run)
    assert stored["only_if"].status == "skipped"
    assert stored["after"].status == "skipped"
    assert stored["else"].status == "succeeded"
    assert run.status == RunStatus.SUCCEEDED


def test_concurrent_skills_run_in_worker_threads_side_by_side(user: object) -> None:
    run = start(
        user,
        *[TaskSpec(id=f"s{i}", skill="sleepy", params={"value": 50}) for i in range(4)],
        TaskSpec(
            id="join",
            skill="add",
            params={"values": [f"{{{{s{i}.output.value}}}}" for i in range(4)]},
            depends_on=tuple(f"s{i}" for i in range(4)),
        ),
    )
    stored = rows(run)
    threads = {(stored[f"s{i}"].output or {})["value"] for i in range(4)}
    assert run.status == RunStatus.SUCCEEDED
    assert len(threads) > 1  # not all on one thread: they ran concurrently
    starts = sorted(stored[f"s{i}"].started_at or NEVER for i in range(4))
    ends = sorted(stored[f"s{i}"].finished_at or NEVER for i in range(4))
    assert starts[-1] < ends[0]  # every one started before any finished


def test_pause_is_stored_and_resume_continues_from_the_database(user: object) -> None:
    skillset.calls.clear()
    run = start(
        user,
        TaskSpec(id="q", skill="ask", params={"question": "Which day?"}),
        TaskSpec(id="use", skill="emit", params={"value": 1}, depends_on=("q",)),
    )
    assert run.status == RunStatus.PAUSED
    assert run.pause_payload is not None
    assert run.pause_payload["text"] == "Which day?"
    assert run.pause_payload["pause_id"] == str(run.pause_id)
    assert rows(run)["use"].status == "pending"
    pause_id = run.pause_id

    fresh = WorkflowRun.objects.get(pk=run.pk)  # as after a restart: nothing but the row
    resumed = run_resume(run_id=fresh.pk, pause_id=pause_id, user=user, answer="Friday", registry=registry)
    assert resumed is not None
    assert resumed.status == RunStatus.SUCCEEDED
    assert rows(resumed)["q"].output == {"answer": "Friday"}
    assert skillset.calls["ask"] == 2  # asked once, re-run once with the answer


def test_resuming_the_same_pause_twice_continues_once(user: object) -> None:
    run = start(user, TaskSpec(id="q", skill="ask", params={"question": "Sure?"}))
    first = run_resume(run_id=run.pk, pause_id=run.pause_id, user=user, answer="yes", registry=registry)
    second = run_resume(run_id=run.pk, pause_id=run.pause_id, user=user, answer="no", registry=registry)
    assert first is not None
    assert first.status == RunStatus.SUCCEEDED
    assert second is None
    assert rows(first)["q"].output == {"answer": "yes"}


def test_another_user_cannot_resume_or_cancel(user: object) -> None:
    other = get_user_model().objects.create_user("intruder", "intruder@example.com")
    run = start(user, TaskSpec(id="q", skill="ask", params={"question": "Sure?"}))
    assert (
        run_resume(run_id=run.pk, pause_id=run.pause_id, user=other, answer="yes", registry=registry) is None
    )
    assert not run_cancel(run_id=run.pk, user=other)
    assert WorkflowRun.objects.get(pk=run.pk).status == RunStatus.PAUSED
    assert run_cancel(run_id=run.pk, user=user)
    assert WorkflowRun.objects.get(pk=run.pk).status == RunStatus.CANCELLED


def test_a_run_is_claimed_once(user: object) -> None:
    definition = WorkflowDefinition(name="t", tasks=(TaskSpec(id="a", skill="emit"),))
    run = run_start(user=user, definition=definition, timezone_name="UTC", registry=registry)
    skillset.calls.clear()
    run_advance(run.pk, registry=registry)
    again = run_advance(run.pk, registry=registry)
    assert again.status == RunStatus.SUCCEEDED
    assert skillset.calls.get("emit") == 1
