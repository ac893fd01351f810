"""Admin for the local calendar store: browsing and support edits of calendars and events.

Edits of events are saved through :func:`skills.services.event_save`, so an admin change gets a new
etag (the expansion cache and pending workflows notice it) and a recomputed ``series_end``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from skills.ics import calendar_export_ics
from skills.models import Calendar, ChangeRecord, Event
from skills.services import event_save

__all__ = ["CalendarAdmin", "ChangeRecordAdmin", "EventAdmin", "EventInline"]


class EventInline(admin.TabularInline):
    """The calendar's one-off events and series, for orientation; changes go through the event page."""

    model = Event
    fields = ("summary", "start", "end", "all_day", "rrule", "status")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("start",)

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).filter(series__isnull=True)

    def has_add_permission(self, request: HttpRequest, obj: Calendar | None = None) -> bool:
        return False


@admin.register(Calendar)
class CalendarAdmin(admin.ModelAdmin):
    list_display = ("name", "key", "owner", "timezone", "is_default", "created_at")
    list_filter = ("is_default", "timezone")
    search_fields = ("name", "key", "owner__username", "owner__email")
    raw_id_fields = ("owner",)
    inlines = (EventInline,)
    actions = ("export_ics",)

    @admin.action(description="Download the selected calendar as .ics")
    def export_ics(self, request: HttpRequest, queryset: QuerySet[Calendar]) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one calendar to export.", level=messages.WARNING)
            return None
        calendar = queryset.get()
        response = HttpResponse(
            calendar_export_ics(calendar=calendar), content_type="text/calendar; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{calendar.key}.ics"'
        return response


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("summary", "calendar", "start", "end", "all_day", "is_recurring", "status", "sequence")
    list_filter = ("status", "all_day", "visibility", "transparency")
    search_fields = ("summary", "uid", "location", "operation_id", "calendar__name", "calendar__owner__email")
    date_hierarchy = "start"
    list_select_related = ("calendar",)
    raw_id_fields = ("calendar", "series")
    readonly_fields = ("etag", "sequence", "series_end", "operation_id", "created_at", "updated_at")

    @admin.display(boolean=True, description="recurring")
    def is_recurring(self, obj: Event) -> bool:
        return obj.is_recurring

    def save_model(self, request: HttpRequest, obj: Event, form: Any, change: bool) -> None:
        event_save(event=obj, revise=change)


@admin.register(ChangeRecord)
class ChangeRecordAdmin(admin.ModelAdmin):
    """The change log: what each run changed, with before and after; read-only, since undo relies on it."""

    list_display = ("created_at", "owner", "action", "scope", "summary", "run_id", "undone_by")
    list_filter = ("action",)
    search_fields = ("summary", "run_id", "owner__username")
    readonly_fields = (
        "owner",
        "run_id",
        "operation_id",
        "position",
        "action",
        "scope",
        "summary",
        "event_id",
        "recurrence_id",
        "before",
        "after",
        "restore_image",
        "after_etag",
        "undone_by",
        "created_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ChangeRecord | None = None) -> bool:
        return False
