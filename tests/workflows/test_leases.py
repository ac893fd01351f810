"""Runs that always finish: leases, take-over of a dead worker's run, the sweeper, one question per group."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from pydantic import BaseModel

from skills.context import SkillContext
from skills.registry import SkillRegistry
from skills.schemas import SkillInput
from tests.workflows import skillset
from tests.workflows.skillset import registry
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.engine import run_advance, run_start
from workflows.models import RunStatus, TaskRun, WorkflowRun
from workflows.persistence import LeaseLostError, run_claim, run_finish, run_pause
from workflows.scheduler import TaskStatus
from workflows.sweeper import GAVE_UP, sweep

pytestmark = pytest.mark.django_db
GROUP = "conversation.leases"


@pytest.fixture(autouse=True)
def _engine_only(settings: object) -> None:
    settings.WORKFLOW_RUN_LISTENERS = []  # type: ignore[attr-defined]
    settings.WORKFLOW_LEASE_SECONDS = 30  # type: ignore[attr-defined]
    settings.WORKFLOW_MAX_ATTEMPTS = 3  # type: ignore[attr-defined]


@pytest.fixture
def user() -> object:
    return get_user_model().objects.create_user("lease-user", "lease@example.com")


def stored(user: object, *tasks: TaskSpec, group: str = "", reg: SkillRegistry = registry) -> WorkflowRun:
    definition = WorkflowDefinition(name="leases", tasks=tasks)
    return run_start(
        user=user, definition=definition, timezone_name="Europe/Paris", channel_group=group, registry=reg
    )


def two_steps(user: object) -> WorkflowRun:
    return stored(
        user,
        TaskSpec(id="root", skill="emit", params={"value": 2}),
        TaskSpec(
            id="sum",
            skill="add",
            params={"value": 1, "values": ["{{root.output.value}}"]},
            depends_on=("root",),
        ),
    )


def expire(run: WorkflowRun) -> None:
    WorkflowRun.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))


def test_a_claimed_run_is_held_until_its_lease_expires_then_taken_over(user: object) -> None:
    run = two_steps(user)
    assert run_claim(run.pk, owner="worker-a")
    assert not run_claim(run.pk, owner="worker-b")  # a live lease: left alone
    expire(run)
    assert run_claim(run.pk, owner="worker-b")
    fresh = WorkflowRun.objects.get(pk=run.pk)
    assert (fresh.lease_owner, fresh.attempts) == ("worker-b", 2)
    assert fresh.lease_expires_at is not None
    assert fresh.lease_expires_at > timezone.now()


def test_a_worker_taken_over_can_neither_finish_nor_pause_the_run(user: object) -> None:
    run = two_steps(user)
    assert run_claim(run.pk, owner="worker-a")
    expire(run)
    assert run_claim(run.pk, owner="worker-b")
    run.status, run.result = RunStatus.SUCCEEDED, {"value": 1}
    with pytest.raises(LeaseLostError):
        run_finish(run=run, owner="worker-a")
    with pytest.raises(LeaseLostError):
        run_pause(run=run, owner="worker-a", task_id="root", payload={})
    assert WorkflowRun.objects.get(pk=run.pk).status == RunStatus.RUNNING


def test_a_dead_workers_run_resumes_from_its_stored_tasks(user: object) -> None:
    """The dead worker had stored ``root``: the take-over runs only ``sum``, once."""
    run = two_steps(user)
    assert run_claim(run.pk, owner="dead-worker")
    TaskRun.objects.filter(run=run, task_id="root").update(
        status=TaskStatus.SUCCEEDED, output={"value": 2, "items": []}
    )
    expire(run)
    before = dict(skillset.calls)
    report = sweep(registry=registry)
    assert report.dispatched == 1
    fresh = WorkflowRun.objects.get(pk=run.pk)
    assert fresh.status == RunStatus.SUCCEEDED
    assert fresh.result == {"value": 3, "items": []}
    assert skillset.calls.get("emit", 0) == before.get("emit", 0)
    assert skillset.calls.get("add", 0) == before.get("add", 0) + 1
    assert (fresh.lease_owner, fresh.lease_expires_at) == ("", None)


def test_the_sweeper_dispatches_a_run_never_taken_but_not_a_fresh_one(user: object) -> None:
    old, fresh = two_steps(user), two_steps(user)
    WorkflowRun.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    report = sweep(registry=registry)
    assert (report.dispatched, report.failed) == (1, 0)
    assert WorkflowRun.objects.get(pk=old.pk).status == RunStatus.SUCCEEDED
    assert WorkflowRun.objects.get(pk=fresh.pk).status == RunStatus.PENDING


def test_a_run_out_of_attempts_fails_for_good_and_says_why(user: object) -> None:
    run = two_steps(user)
    WorkflowRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING,
        attempts=3,
        lease_owner="dead",
        lease_expires_at=timezone.now() - timedelta(1),
    )
    assert not run_claim(run.pk, owner="redelivered")  # a redelivery does not try a fourth time
    report = sweep(registry=registry)
    assert (report.dispatched, report.failed) == (0, 1)
    fresh = WorkflowRun.objects.get(pk=run.pk)
    assert fresh.status == RunStatus.FAILED
    assert fresh.error == GAVE_UP.format(attempts=3)
    assert sweep(registry=registry).failed == 0  # told once


lost = SkillRegistry()


class Nothing(SkillInput):
    pass


class Done(BaseModel):
    done: bool = True


@lost.skill(service="test")
def usurped(ctx: SkillContext, params: Nothing) -> Done:
    """Stand for a worker so slow that it was presumed dead and its run taken over meanwhile."""
    WorkflowRun.objects.filter(pk=ctx.run_id).update(lease_owner="the-other-worker")
    return Done()


@lost.skill(service="test")
def after(ctx: SkillContext, params: Nothing) -> Done:
    """A step the slow worker must not run once it lost the run."""
    raise AssertionError("a worker that lost its lease ran another step")


def test_a_worker_that_lost_its_lease_stops_and_says_nothing(user: object, settings: object) -> None:
    settings.WORKFLOW_LEASE_SECONDS = 0  # type: ignore[attr-defined]  # renewed before every step
    settings.WORKFLOW_RUN_LISTENERS = ["tests.workflows.test_leases.record"]  # type: ignore[attr-defined]
    TOLD.clear()
    run = stored(
        user,
        TaskSpec(id="slow", skill="usurped"),
        TaskSpec(id="next", skill="after", depends_on=("slow",)),
        reg=lost,
    )
    result = run_advance(run.pk, registry=lost)
    assert result.status == RunStatus.RUNNING
    assert result.lease_owner == "the-other-worker"
    assert TOLD == []  # no reply, no event: the worker that holds the run gives them
    assert TaskRun.objects.get(run=run, task_id="next").status == TaskStatus.PENDING


TOLD: list[str] = []


def record(run: WorkflowRun) -> None:
    TOLD.append(str(run.pk))


def asking(user: object) -> WorkflowRun:
    run = stored(user, TaskSpec(id="q", skill="ask", params={"question": "Which day?"}), group=GROUP)
    return run_advance(run.pk, registry=registry)


def test_a_second_question_in_one_group_sets_the_first_aside(user: object) -> None:
    first, second = asking(user), asking(user)
    assert second.status == RunStatus.PAUSED
    assert WorkflowRun.objects.get(pk=first.pk).status == RunStatus.CANCELLED
    assert WorkflowRun.objects.filter(channel_group=GROUP, status=RunStatus.PAUSED).count() == 1


def test_the_database_refuses_two_questions_waiting_in_one_group(user: object) -> None:
    asking(user)
    other = two_steps(user)
    with pytest.raises(IntegrityError), transaction.atomic():
        WorkflowRun.objects.filter(pk=other.pk).update(status=RunStatus.PAUSED, channel_group=GROUP)
