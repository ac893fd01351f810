"""A workflow run and its task runs are rows, so a run survives restarts and can wait days for an answer."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

__all__ = ["RunStatus", "TaskRun", "WorkflowRun"]


class RunStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    PAUSED = "paused"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class WorkflowRun(models.Model):
    """One execution of a :class:`~workflows.definition.WorkflowDefinition` for one user.

    ``definition`` is the versioned JSON of the definition (``definition_version`` says which layout,
    see ``workflows.persistence``).  ``channel_group`` is where progress is streamed, so the engine
    never needs to know what a conversation is.  A pause is identified by ``pause_id``: a resume must
    name it, which is what makes answering twice, or from two tabs, continue the run exactly once.
    At most one run of a channel group waits for an answer (a constraint, so two requests sent at
    once cannot both wait: the later pause sets the earlier aside).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workflow_runs")
    name = models.CharField(max_length=120)
    definition = models.JSONField()
    definition_version = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(
        max_length=16, choices=RunStatus.choices, default=RunStatus.PENDING, db_index=True
    )
    timezone = models.CharField(max_length=64)
    channel_group = models.CharField(max_length=100, blank=True)
    trace_id = models.CharField(max_length=64, blank=True, db_index=True)
    pause_id = models.UUIDField(null=True, blank=True)
    pause_task_id = models.CharField(max_length=64, blank=True)
    pause_payload = models.JSONField(null=True, blank=True)
    # Who works on the run and until when (renewed as it goes); an expired lease may be taken over.
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # How many times a worker took the run up; past WORKFLOW_MAX_ATTEMPTS it fails for good.
    attempts = models.PositiveSmallIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Each time a step failed because the plan was wrong and the replanner was asked (see
    # workflows.engine): when, which task, its failure and error, and what came back.
    replans = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["user", "status"]),
            # The sweeper's scan: runs not finished, by when they were last touched.
            models.Index(
                fields=["status", "updated_at"],
                name="workflowrun_unsettled",
                condition=models.Q(status__in=["pending", "running"]),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["channel_group"],
                condition=models.Q(status="paused") & ~models.Q(channel_group=""),
                name="workflowrun_one_paused_per_group",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"

    @property
    def question(self) -> str:
        """The question the run ended with, when a replanner answered a failure with one (what the
        user is told instead of the failure); empty otherwise."""
        last = self.replans[-1] if self.replans else None
        if self.status != RunStatus.FAILED or not isinstance(last, dict) or last.get("outcome") != "question":
            return ""
        return str(last.get("question") or "")


class TaskRun(models.Model):
    """The state of one task of a run: inputs as resolved, output, attempts, timings, error."""

    run = models.ForeignKey(WorkflowRun, on_delete=models.CASCADE, related_name="task_runs")
    task_id = models.CharField(max_length=64)
    skill = models.CharField(max_length=100)
    position = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, default="pending")
    inputs = models.JSONField(null=True, blank=True)
    output = models.JSONField(null=True, blank=True)
    answer = models.JSONField(null=True, blank=True)
    has_answer = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "task_id"], name="taskrun_unique_task")]

    def __str__(self) -> str:
        return f"{self.task_id} ({self.status})"

    @property
    def duration_ms(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds() * 1000
        return None
