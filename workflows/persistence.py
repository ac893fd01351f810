"""Storing and loading runs: the versioned JSON of definitions, the task rows, and the pause transitions.

Definitions are stored with their layout version.  ``MIGRATIONS[i]`` turns layout ``i + 1`` into
``i + 2`` (position is version, as in LangGraph's Postgres saver), so a run paused before an upgrade
is read after it.  State transitions that must happen once (claiming a run, resuming a pause) are
compare-and-set UPDATEs: the database's row lock makes exactly one of two racing callers win, on
PostgreSQL and SQLite alike.

A worker holds a running run through a lease (an owner and an expiry it renews as it goes).  Every
transition it makes afterwards (pause, finish) names the owner, so a worker that was presumed dead
and taken over changes nothing when it wakes up: the run, and the reply to the user, happen once.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.db.models import F, Field, Q
from django.utils import timezone

from skills.registry import REGISTRY, SkillRegistry
from workflows.definition import SCHEMA_VERSION, WorkflowDefinition
from workflows.models import RunStatus, TaskRun, WorkflowRun
from workflows.scheduler import TaskStatus
from workflows.validation import CompiledWorkflow, compile_workflow

__all__ = [
    "MIGRATIONS",
    "LeaseLostError",
    "RunState",
    "lease_owner",
    "lease_renew",
    "load_definition",
    "run_claim",
    "run_create",
    "run_finish",
    "run_load",
    "run_pause",
    "run_replan",
    "run_replans_record",
    "run_resume_claim",
    "task_rows_save",
]

MIGRATIONS: list[Callable[[dict[str, Any]], dict[str, Any]]] = []

_CREATE_FIELDS = ["run", "task_id", "skill", "position", "status", "error", "attempts", "has_answer"]
_TASK_FIELDS = [
    "status",
    "inputs",
    "output",
    "error",
    "attempts",
    "started_at",
    "finished_at",
    "answer",
    "has_answer",
]


def load_definition(data: dict[str, Any], version: int) -> WorkflowDefinition:
    """Read a stored definition of any past layout."""
    for migrate in MIGRATIONS[version - 1 :]:
        data = migrate(data)
    return WorkflowDefinition.model_validate({**data, "v": SCHEMA_VERSION})


@dataclass(slots=True)
class RunState:
    run: WorkflowRun
    plan: CompiledWorkflow
    rows: dict[str, TaskRun]

    def statuses(self) -> dict[str, TaskStatus]:
        return {tid: TaskStatus(row.status) for tid, row in self.rows.items()}

    def outputs(self) -> dict[str, Any]:
        return {tid: row.output for tid, row in self.rows.items() if row.status == TaskStatus.SUCCEEDED}


def run_create(
    *, user: Any, plan: CompiledWorkflow, timezone_name: str, channel_group: str = "", trace_id: str = ""
) -> WorkflowRun:
    definition = plan.definition
    with transaction.atomic():
        run = WorkflowRun.objects.create(
            user=user,
            name=definition.name,
            definition=definition.to_json(),
            definition_version=SCHEMA_VERSION,
            timezone=timezone_name,
            channel_group=channel_group,
            trace_id=trace_id,
        )
        _executemany(
            _CREATE_FIELDS,
            "INSERT INTO {table} ({columns}) VALUES ({values})",
            [
                TaskRun(run=run, task_id=tid, skill=plan.tasks[tid].skill, position=i)
                for i, tid in enumerate(plan.order)
            ],
        )
    return run


def run_load(run_id: uuid.UUID | str, *, registry: SkillRegistry = REGISTRY) -> RunState:
    run = WorkflowRun.objects.select_related("user").get(pk=run_id)
    definition = load_definition(run.definition, run.definition_version)
    plan = compile_workflow(definition, registry=registry, max_tasks=1000)
    rows = {row.task_id: row for row in run.task_runs.all()}
    return RunState(run=run, plan=plan, rows=rows)


def task_rows_save(rows: Iterable[TaskRun]) -> None:
    """Store the changed fields of task rows."""
    _executemany(_TASK_FIELDS, "UPDATE {table} SET {assignments} WHERE id = %s", list(rows), with_pk=True)


def _executemany(names: list[str], template: str, rows: list[TaskRun], *, with_pk: bool = False) -> None:
    """One prepared statement executed for every row.

    ``bulk_create`` and ``bulk_update`` prepare every value through the query compiler (and
    ``bulk_update`` builds a CASE/WHEN per field over all rows); for the engine, which writes a
    batch of rows per step, that was most of its cost per task.  Values still go through each
    field's ``get_db_prep_save``, so JSON and dates are stored exactly as the ORM stores them.
    """
    if not rows:
        return
    connection = connections[router.db_for_write(TaskRun)]
    quote = connection.ops.quote_name
    fields = [field for name in names if isinstance(field := TaskRun._meta.get_field(name), Field)]
    columns = [quote(f.column or f.attname) for f in fields]
    sql = template.format(
        table=quote(TaskRun._meta.db_table),
        columns=", ".join(columns),
        values=", ".join(["%s"] * len(columns)),
        assignments=", ".join(f"{c} = %s" for c in columns),
    )
    params = [
        [f.get_db_prep_save(getattr(row, f.attname), connection) for f in fields]
        + ([row.pk] if with_pk else [])
        for row in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


class LeaseLostError(Exception):
    """This worker no longer holds the run (its lease expired and another worker took it over)."""


def lease_owner() -> str:
    """A name for one attempt at a run: the host and process, and a token of its own."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def _lease_expiry() -> Any:
    return timezone.now() + timedelta(seconds=settings.WORKFLOW_LEASE_SECONDS)


def run_claim(run_id: uuid.UUID | str, *, owner: str) -> bool:
    """Take a run to work on: a pending one, or a running one whose lease expired (its worker died).

    False if someone else holds it, it is not waiting to run, or it was tried as often as allowed
    (the sweeper then fails it for good and tells the user).
    """
    now = timezone.now()
    return bool(
        WorkflowRun.objects.filter(pk=run_id, attempts__lt=settings.WORKFLOW_MAX_ATTEMPTS)
        .filter(Q(status=RunStatus.PENDING) | Q(status=RunStatus.RUNNING, lease_expires_at__lt=now))
        .update(
            status=RunStatus.RUNNING,
            lease_owner=owner,
            lease_expires_at=_lease_expiry(),
            attempts=F("attempts") + 1,
            updated_at=now,
        )
    )


def lease_renew(run_id: uuid.UUID | str, *, owner: str) -> None:
    """Extend this worker's hold on a run; raises :class:`LeaseLostError` if it was taken over."""
    if not WorkflowRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, lease_owner=owner).update(
        lease_expires_at=_lease_expiry(), updated_at=timezone.now()
    ):
        raise LeaseLostError(str(run_id))


def run_pause(*, run: WorkflowRun, owner: str, task_id: str, payload: dict[str, Any]) -> uuid.UUID:
    """Store the run as waiting for an answer, setting aside another run of its group that waits.

    The database allows one paused run per channel group (one question at a time in a
    conversation).  Two runs pausing at once on PostgreSQL: the second one's transaction did not
    see the first's pause, so the unique index refuses it once the first commits, and it tries
    again, now setting the first aside.
    """
    pause_id = uuid.uuid4()
    pause_payload = {**payload, "pause_id": str(pause_id), "run_id": str(run.pk)}
    for attempt in range(3):
        now = timezone.now()
        try:
            with transaction.atomic():
                if run.channel_group:
                    WorkflowRun.objects.filter(
                        channel_group=run.channel_group, status=RunStatus.PAUSED
                    ).exclude(pk=run.pk).update(
                        status=RunStatus.CANCELLED, pause_id=None, finished_at=now, updated_at=now
                    )
                if not WorkflowRun.objects.filter(
                    pk=run.pk, status=RunStatus.RUNNING, lease_owner=owner
                ).update(
                    status=RunStatus.PAUSED,
                    pause_id=pause_id,
                    pause_task_id=task_id,
                    pause_payload=pause_payload,
                    lease_owner="",
                    lease_expires_at=None,
                    updated_at=now,
                ):
                    raise LeaseLostError(str(run.pk))
            break
        except IntegrityError:
            if attempt == 2:
                raise
    run.status, run.pause_id, run.pause_task_id, run.pause_payload = (
        RunStatus.PAUSED,
        pause_id,
        task_id,
        pause_payload,
    )
    return pause_id


def run_finish(*, run: WorkflowRun, owner: str) -> None:
    """Store a settled run (status, result, error set on ``run``) if this worker still holds it."""
    run.finished_at = timezone.now()
    run.pause_payload = None
    if not WorkflowRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING, lease_owner=owner).update(
        status=run.status,
        result=run.result,
        error=run.error,
        finished_at=run.finished_at,
        pause_payload=None,
        lease_owner="",
        lease_expires_at=None,
        updated_at=run.finished_at,
    ):
        raise LeaseLostError(str(run.pk))


def run_replan(
    *, state: RunState, owner: str, plan: CompiledWorkflow, carried: Collection[str], entry: dict[str, Any]
) -> None:
    """Put a revised plan in place of a running run's, with the escalation recorded, all at once.

    The definition, the trace entry and the task rows change in one transaction, so a worker that
    dies midway leaves either the old plan or the new one, never a mix.  Rows of the tasks in
    ``carried`` (the new plan holds them unchanged and they succeeded) keep their state and output
    and are not run again; every other task starts pending.  ``state`` is updated in place.
    """
    run = state.run
    replans = [*run.replans, entry]
    definition = plan.definition
    with transaction.atomic():
        if not WorkflowRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING, lease_owner=owner).update(
            name=definition.name,
            definition=definition.to_json(),
            definition_version=SCHEMA_VERSION,
            replans=replans,
            updated_at=timezone.now(),
        ):
            raise LeaseLostError(str(run.pk))
        TaskRun.objects.filter(run=run).exclude(task_id__in=list(carried)).delete()
        kept = [state.rows[tid] for tid in plan.order if tid in carried]
        for row in kept:
            row.position = plan.order.index(row.task_id)
        TaskRun.objects.bulk_update(kept, ["position"])
        TaskRun.objects.bulk_create(
            TaskRun(run=run, task_id=tid, skill=plan.tasks[tid].skill, position=i)
            for i, tid in enumerate(plan.order)
            if tid not in carried
        )
    run.name, run.definition, run.definition_version, run.replans = (
        definition.name,
        definition.to_json(),
        SCHEMA_VERSION,
        replans,
    )
    state.plan = plan
    state.rows = {row.task_id: row for row in run.task_runs.all()}


def run_replans_record(*, run: WorkflowRun, owner: str, entry: dict[str, Any]) -> None:
    """Add an escalation that changed no plan (a question, nothing, a plan refused) to the run's trace."""
    replans = [*run.replans, entry]
    if not WorkflowRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING, lease_owner=owner).update(
        replans=replans, updated_at=timezone.now()
    ):
        raise LeaseLostError(str(run.pk))
    run.replans = replans


def run_resume_claim(*, run_id: uuid.UUID | str, pause_id: uuid.UUID | str, user: Any, answer: Any) -> bool:
    """Record the user's answer on the paused task and make the run pending again, exactly once.

    The conditional UPDATE is the lock: of two concurrent resumes of one pause, only one matches the
    ``paused`` row, the other updates nothing and is told so.  The answer is stored before any worker
    is asked to continue, so it survives a broker that is down (the sweeper dispatches the run).
    """
    with transaction.atomic():
        won = WorkflowRun.objects.filter(
            pk=run_id, user=user, status=RunStatus.PAUSED, pause_id=pause_id
        ).update(status=RunStatus.PENDING, pause_id=None, attempts=0, updated_at=timezone.now())
        if not won:
            return False
        task_id = WorkflowRun.objects.filter(pk=run_id).values_list("pause_task_id", flat=True).get()
        TaskRun.objects.filter(run__pk=run_id, task_id=task_id).update(
            status=TaskStatus.PENDING, answer=answer, has_answer=True
        )
    return True
