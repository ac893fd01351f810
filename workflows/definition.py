"""The contracts a decomposer produces: a :class:`Decision` and, inside it, a :class:`WorkflowDefinition`.

Definitions are frozen pydantic models carrying a schema version ``v``, so a paused workflow stored
today can still be read after the format evolves (see ``workflows.persistence``).  Field names follow
the JSON a decomposer (rules or LLM) emits: ``dependsOn`` on the wire, ``depends_on`` in Python.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["SCHEMA_VERSION", "Decision", "TaskSpec", "WorkflowDefinition"]

SCHEMA_VERSION: Literal[1] = 1


class TaskSpec(BaseModel):
    """One node of the DAG: which skill to run with which params, after which tasks.

    A param value may reference an earlier task's output: a string that is exactly
    ``"{{task_id.output.path.to.field}}"`` is replaced by that value with its type; a reference inside a
    longer string is formatted into it.  ``when`` is a condition over such references
    (``"{{count.output.count}} > 0"``, ``"not {{check.output.conflicts}}"``); a false one skips the task.
    """

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9][\w-]{0,63}$")
    skill: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    depends_on: tuple[str, ...] = Field(default=(), alias="dependsOn")
    when: str | None = None
    summary: str = ""


class WorkflowDefinition(BaseModel):
    """A named DAG of tasks; ``output`` names the task whose output is the run's result (the reply)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")

    v: Literal[1] = SCHEMA_VERSION
    name: str = Field(min_length=1, max_length=120)
    summary: str = ""
    tasks: tuple[TaskSpec, ...]
    output: str | None = None

    def task(self, task_id: str) -> TaskSpec:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(task_id)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=False)


class Decision(BaseModel):
    """What a decomposer makes of one chat turn.

    ``answer`` and ``clarify`` carry the text to show (and, for clarify, what is missing); ``workflow``
    carries the definition to validate and run.  ``reply_kind`` lets a decomposer answer with ``error``
    (an impossible request) rather than a plain answer.  ``trace_id`` ties logs, the stored run and
    the reply together.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["answer", "clarify", "workflow"]
    text: str = ""
    reply_kind: Literal["answer", "clarify", "error"] | None = None
    workflow: WorkflowDefinition | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    trace_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    notes: tuple[str, ...] = ()
    frame: dict[str, Any] = Field(default_factory=dict)
    context_update: dict[str, Any] = Field(
        default_factory=dict, description="What the conversation should remember for the next turn."
    )

    @model_validator(mode="after")
    def _workflow_present(self) -> Decision:
        if (self.kind == "workflow") != (self.workflow is not None):
            raise ValueError("a decision carries a workflow exactly when its kind is 'workflow'")
        return self
