"""A step that fails because the plan is wrong is escalated to the replanner; a transient one is not."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from skills.errors import SkillError
from skills.providers.base import (
    ConflictError,
    NotFoundError,
    NotPutBack,
    PartlyAppliedError,
    PermissionDeniedError,
    TransientProviderError,
)
from tests.workflows import skillset
from tests.workflows.skillset import registry
from workflows.builder import Plan
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.engine import run_advance, run_start
from workflows.executor import failure_kind
from workflows.models import RunStatus, TaskRun, WorkflowRun
from workflows.replanning import Escalation

pytestmark = pytest.mark.django_db
NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)

escalations: list[Escalation] = []
answer: Callable[[Escalation], WorkflowDefinition | str | None] = lambda e: None  # noqa: E731


def replanner(escalation: Escalation) -> WorkflowDefinition | str | None:
    """The replanner these tests configure: records what it was handed and answers as told."""
    escalations.append(escalation)
    return answer(escalation)


@pytest.fixture(autouse=True)
def _engine_with_replanner(settings: object) -> None:
    global answer
    settings.WORKFLOW_RUN_LISTENERS = []  # type: ignore[attr-defined]
    settings.WORKFLOW_REPLANNER = f"{__name__}.replanner"  # type: ignore[attr-defined]
    settings.WORKFLOW_MAX_REPLANS = 3  # type: ignore[attr-defined]
    escalations.clear()
    skillset.calls.clear()
    answer = lambda e: None  # noqa: E731


@pytest.fixture
def user() -> object:
    return get_user_model().objects.create_user("escalating", "escalating@example.com")


def start(user: object, *tasks: TaskSpec, output: str | None = None) -> WorkflowRun:
    with time_machine.travel(NOW, tick=False):
        definition = WorkflowDefinition(name="test", tasks=tasks, output=output)
        run = run_start(user=user, definition=definition, timezone_name="America/New_York", registry=registry)
        return run_advance(run.pk, registry=registry)


def emitting(value: int) -> WorkflowDefinition:
    plan = Plan()
    out = plan.add("emit", {"value": value}, id="instead")
    return plan.build("revised", output=out)


def rows(run: WorkflowRun) -> dict[str, TaskRun]:
    return {r.task_id: r for r in TaskRun.objects.filter(run=run)}


def test_a_missing_event_goes_to_the_replanner_and_its_plan_runs(user: object) -> None:
    global answer
    answer = lambda e: emitting(7)  # noqa: E731
    run = start(
        user,
        TaskSpec(id="read", skill="emit", params={"value": 4}),
        TaskSpec(id="look", skill="look_up", params={"message": "no dentist"}, depends_on=("read",)),
    )
    assert run.status == RunStatus.SUCCEEDED
    assert run.result == {"value": 7, "items": []}
    [escalation] = escalations
    assert (escalation.task_id, escalation.failure, escalation.error) == ("look", "missing", "no dentist")
    assert escalation.outputs == {"read": {"value": 4, "items": []}}
    assert escalation.inputs["look"] == {"message": "no dentist"}
    stored = WorkflowRun.objects.get(pk=run.pk)
    assert [t["id"] for t in stored.definition["tasks"]] == ["instead"]
    assert set(rows(run)) == {"instead"}  # the old plan's rows were replaced with the new plan's


def test_each_escalation_is_recorded_on_the_run(user: object) -> None:
    global answer
    answer = lambda e: emitting(1)  # noqa: E731
    run = start(user, TaskSpec(id="look", skill="look_up", params={"message": "not there"}))
    [entry] = WorkflowRun.objects.get(pk=run.pk).replans
    assert entry["task"] == "look"
    assert entry["skill"] == "look_up"
    assert entry["failure"] == "missing"
    assert entry["error"] == "not there"
    assert entry["outcome"] == "plan"
    assert [t["id"] for t in entry["plan"]["tasks"]] == ["instead"]
    assert [t["id"] for t in entry["replaced"]["tasks"]] == ["look"]
    assert datetime.fromisoformat(entry["at"]) == NOW


def test_a_question_ends_the_run_with_it(user: object) -> None:
    global answer
    answer = lambda e: "Did you mean the doctor?"  # noqa: E731
    run = start(
        user,
        TaskSpec(id="look", skill="look_up", params={"message": "no dentist"}),
        TaskSpec(id="after", skill="emit", depends_on=("look",)),
    )
    stored = WorkflowRun.objects.get(pk=run.pk)
    assert stored.status == RunStatus.FAILED
    assert stored.question == "Did you mean the doctor?"
    assert stored.replans[-1]["outcome"] == "question"
    assert stored.error == "look: no dentist"
    assert rows(run)["after"].status == "skipped"


def test_three_escalations_then_the_fourth_failure_fails_the_run_with_its_error(user: object) -> None:
    global answer

    def again(escalation: Escalation) -> WorkflowDefinition:
        plan = Plan()
        n = escalation.previous + 1
        out = plan.add("look_up", {"message": f"still missing {n}"}, id=f"look{n}")
        return plan.build("again", output=out)

    answer = again
    run = start(user, TaskSpec(id="look", skill="look_up", params={"message": "missing"}))
    stored = WorkflowRun.objects.get(pk=run.pk)
    assert len(escalations) == 3
    assert [e["outcome"] for e in stored.replans] == ["plan", "plan", "plan"]
    assert skillset.calls["look_up"] == 4
    assert stored.status == RunStatus.FAILED
    assert stored.error == "look3: still missing 3"
    assert stored.question == ""


def test_the_limit_is_a_setting(user: object, settings: object) -> None:
    global answer
    settings.WORKFLOW_MAX_REPLANS = 1  # type: ignore[attr-defined]
    answer = lambda e: WorkflowDefinition(  # noqa: E731
        name="again", tasks=(TaskSpec(id=f"look{e.previous + 1}", skill="look_up"),)
    )
    run = start(user, TaskSpec(id="look", skill="look_up", params={"message": "missing"}))
    assert run.status == RunStatus.FAILED
    assert len(escalations) == 1
    assert skillset.calls["look_up"] == 2


def test_a_transient_error_is_retried_as_today_and_never_escalated(user: object) -> None:
    global answer
    answer = lambda e: emitting(7)  # noqa: E731
    run = start(user, TaskSpec(id="call", skill="unreachable", params={"message": "503"}))
    assert run.status == RunStatus.FAILED
    assert rows(run)["call"].attempts == 3
    assert escalations == []
    assert WorkflowRun.objects.get(pk=run.pk).replans == []


def test_without_a_replanner_the_run_fails_as_today(user: object, settings: object) -> None:
    settings.WORKFLOW_REPLANNER = ""  # type: ignore[attr-defined]
    run = start(
        user,
        TaskSpec(id="look", skill="look_up", params={"message": "no dentist"}),
        TaskSpec(id="after", skill="emit", depends_on=("look",)),
    )
    assert run.status == RunStatus.FAILED
    assert run.error == "look: no dentist; after: not run because task look failed"
    assert WorkflowRun.objects.get(pk=run.pk).replans == []


def test_a_replanner_answering_nothing_fails_the_run_as_today_and_is_recorded(user: object) -> None:
    run = start(user, TaskSpec(id="look", skill="look_up", params={"message": "no dentist"}))
    stored = WorkflowRun.objects.get(pk=run.pk)
    assert stored.status == RunStatus.FAILED
    assert stored.error == "look: no dentist"
    assert [e["outcome"] for e in stored.replans] == ["nothing"]


def test_an_invalid_revised_plan_fails_the_run_as_today(user: object) -> None:
    global answer
    answer = lambda e: WorkflowDefinition(name="bad", tasks=(TaskSpec(id="x", skill="no_such_skill"),))  # noqa: E731
    run = start(user, TaskSpec(id="look", skill="look_up", params={"message": "no dentist"}))
    stored = WorkflowRun.objects.get(pk=run.pk)
    assert stored.status == RunStatus.FAILED
    assert stored.replans[-1]["outcome"] == "invalid"
    assert set(rows(run)) == {"look"}


def test_after_a_write_a_plan_that_writes_again_is_refused(user: object) -> None:
    global answer

    def write_again(escalation: Escalation) -> WorkflowDefinition:
        plan = Plan()
        out = plan.add("write", {"value": 1}, id="write-again")
        return plan.build("again", output=out)

    answer = write_again
    run = start(
        user,
        TaskSpec(id="w", skill="write", params={"value": 1}),
        TaskSpec(id="look", skill="look_up", params={"message": "gone"}, depends_on=("w",)),
    )
    stored = WorkflowRun.objects.get(pk=run.pk)
    assert stored.status == RunStatus.FAILED
    assert skillset.calls["write"] == 1
    assert stored.replans[-1]["outcome"] == "refused"
    assert set(rows(run)) == {"w", "look"}


def test_after_a_write_a_question_is_not_asked_and_the_run_fails_as_today(user: object) -> None:
    global answer
    answer = lambda e: "Which one?"  # noqa: E731
    run = start(
        user,
        TaskSpec(id="w", skill="write", params={"value": 1}),
        TaskSpec(id="look", skill="look_up", params={"message": "gone"}, depends_on=("w",)),
    )
    stored = WorkflowRun.objects.get(pk=run.pk)
    assert stored.status == RunStatus.FAILED
    assert stored.question == ""
    assert stored.replans[-1]["outcome"] == "refused"


def test_after_a_write_a_plan_keeping_it_as_it_was_goes_on_without_writing_twice(user: object) -> None:
    global answer

    def keep_the_write(escalation: Escalation) -> WorkflowDefinition:
        plan = Plan()
        kept = plan.include(escalation.definition, without={"look"})
        out = plan.add("add", {"values": [kept["w"]["value"]], "value": 10}, id="then")
        return plan.build("kept", output=out)

    answer = keep_the_write
    run = start(
        user,
        TaskSpec(id="w", skill="write", params={"value": 1}),
        TaskSpec(id="look", skill="look_up", params={"message": "gone"}, depends_on=("w",)),
    )
    assert run.status == RunStatus.SUCCEEDED
    assert run.result == {"value": 11, "items": []}
    assert skillset.calls["write"] == 1
    assert rows(run)["w"].attempts == 1


def test_a_run_paused_for_an_answer_is_not_escalated(user: object) -> None:
    run = start(
        user,
        TaskSpec(id="q", skill="ask", params={"question": "Sure?"}),
        TaskSpec(id="look", skill="look_up", params={"message": "gone"}, depends_on=("q",)),
    )
    assert run.status == RunStatus.PAUSED
    assert escalations == []
    assert WorkflowRun.objects.get(pk=run.pk).replans == []


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (NotFoundError("no event"), "missing"),
        (ConflictError("taken"), "taken"),
        (PermissionDeniedError("read-only"), "refused"),
        (TransientProviderError("503"), ""),
        (SkillError("What should it be called?"), ""),
        (PartlyAppliedError(left=[NotPutBack("Lunch", "created")], cause=PermissionDeniedError("no")), ""),
    ],
)
def test_failures_are_classified_by_the_error_or_what_it_was_raised_from(error: Exception, kind: str) -> None:
    wrapped = SkillError("Nothing was changed.")
    wrapped.__cause__ = error  # as `raise SkillError(...) from error` leaves it
    assert failure_kind(error) == kind
    assert failure_kind(wrapped) == kind
