"""What the engine hands a replanner when a step fails because the plan is wrong rather than late.

The replanner is named by a dotted path in ``WORKFLOW_REPLANNER`` (as listeners are in
``WORKFLOW_RUN_LISTENERS``), so the engine never imports whoever plans turns: the chat sets it to
its own, and a run without one fails as it always did.  It gets an :class:`Escalation` and answers
with a revised :class:`~workflows.definition.WorkflowDefinition` (the run goes on with it), a question
for the user (the run ends with it), or None (the run fails as it would have).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

from workflows.definition import WorkflowDefinition
from workflows.executor import FailureKind
from workflows.models import WorkflowRun

__all__ = ["Escalation", "Replanner", "replanner"]


@dataclass(frozen=True, slots=True)
class Escalation:
    """A plan-wrong failure of one task of a run, with what the run knows so far.

    ``outputs`` are those of the tasks that succeeded; ``inputs`` are the params every task that ran
    was given, as resolved (what a failed search looked for, the change a refused write carried).
    ``previous`` is how many times this run escalated before.
    """

    run: WorkflowRun
    definition: WorkflowDefinition
    task_id: str
    skill: str
    error: str
    failure: FailureKind
    outputs: Mapping[str, Any]
    inputs: Mapping[str, Any]
    previous: int = 0


Replanner = Callable[[Escalation], WorkflowDefinition | str | None]


def replanner() -> Replanner | None:
    """The configured replanner, or None when there is none (runs then fail as they always did)."""
    path = getattr(settings, "WORKFLOW_REPLANNER", "")
    return import_string(path) if path else None
