"""Storing and loading runs: the versioned JSON of definitions, the task rows, and the pause transitions.

Definitions are stored with their layout version.  ``MIGRATIONS[i]`` turns layout ``i + 1`` into
``i + 2`` (position is version, as in LangGraph's Postgres saver), so a run paused before an upgrade
is read after it.  State transitions that must happen once (claiming a run, resuming a pause) are
compare-and-set UPDATEs: the database's row lock makes exactly one of two racing callers win, on
PostgreSQL and SQLite alike.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connections, router, transaction
from django.db.models import Field
from django.utils import timezone

from skills.registry import REGISTRY, SkillRegistry
from workflows.definition import SCHEMA_VERSION, WorkflowDefinition
from workflows.models import RunStatus, TaskRun, WorkflowRun
from workflows.scheduler import TaskStatus
from workflows.validation import CompiledWorkflow, compile_workflow

__all__ = [
    "MIGRATIONS",
    "RunState",
    "load_definition",
    "run_claim",
    "run_create",
    "run_load",
    "run_pause",
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


def run_claim(run_id: uuid.UUID | str) -> bool:
    """Move a pending run to running; False if someone else already did."""
    return bool(
        WorkflowRun.objects.filter(pk=run_id, status=RunStatus.PENDING).update(
            status=RunStatus.RUNNING, updated_at=timezone.now()
        )
    )


def run_pause(*, run: WorkflowRun, task_id: str, payload: dict[str, Any]) -> uuid.UUID:
    pause_id = uuid.uuid4()
    run.status = RunStatus.PAUSED
    run.pause_id = pause_id
    run.pause_task_id = task_id
    run.pause_payload = {**payload, "pause_id": str(pause_id), "run_id": str(run.pk)}
    run.save(update_fields=["status", "pause_id", "pause_task_id", "pause_payload", "updated_at"])
    return pause_id


def run_resume_claim(*, run_id: uuid.UUID | str, pause_id: uuid.UUID | str, user: Any, answer: Any) -> bool:
    """Take a paused run back to running with the answer stored on its paused task, exactly once.

    The conditional UPDATE is the lock: of two concurrent resumes of one pause, only one matches the
    ``paused`` row, the other updates nothing and is told so.
    """
    with transaction.atomic():
        won = WorkflowRun.objects.filter(
            pk=run_id, user=user, status=RunStatus.PAUSED, pause_id=pause_id
        ).update(status=RunStatus.RUNNING, pause_id=None, updated_at=timezone.now())
        if not won:
            return False
        task_id = WorkflowRun.objects.filter(pk=run_id).values_list("pause_task_id", flat=True).get()
        TaskRun.objects.filter(run__pk=run_id, task_id=task_id).update(
            status=TaskStatus.PENDING, answer=answer, has_answer=True
        )
    return True
