"""Workflow runs in the admin: what ran, with which inputs, what came out, how long it took, what failed."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from workflows.models import TaskRun, WorkflowRun


class TaskRunInline(admin.TabularInline):
    model = TaskRun
    extra = 0
    can_delete = False
    fields = ("position", "task_id", "skill", "status", "attempts", "duration", "error", "inputs", "output")
    readonly_fields = fields
    ordering = ("position",)

    @admin.display(description="ms")
    def duration(self, obj: TaskRun) -> str:
        ms = obj.duration_ms
        return "" if ms is None else f"{ms:.1f}"

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(WorkflowRun)
class WorkflowRunAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "status", "replanned", "created_at", "finished_at", "trace_id")
    list_filter = ("status", "name")
    search_fields = ("id", "trace_id", "user__username", "name")
    date_hierarchy = "created_at"
    inlines = [TaskRunInline]
    readonly_fields = (
        "id",
        "user",
        "name",
        "status",
        "timezone",
        "channel_group",
        "trace_id",
        "definition",
        "definition_version",
        "pause_id",
        "pause_task_id",
        "pause_payload",
        "result",
        "error",
        "replans",
        "created_at",
        "updated_at",
        "finished_at",
    )

    @admin.display(description="replans")
    def replanned(self, obj: WorkflowRun) -> int:
        """How many times a failure that made the plan wrong was escalated (the entries: ``replans``)."""
        return len(obj.replans or [])

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
