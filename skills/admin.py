"""Admin for the local calendar store: browsing and support edits of calendars and events.

Edits of events are saved through :func:`skills.services.event_save`, so an admin change gets a new
etag (the expansion cache and pending workflows notice it) and a recomputed ``series_end``.
Calendar accounts are shown with their status and last error, never their credentials.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.db.models import QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest, HttpResponse

from skills.ics import calendar_export_ics
from skills.models import Calendar, CalendarAccount, ChangeRecord, CopyLink, Event
from skills.services import event_save

__all__ = [
    "CalendarAccountAdmin",
    "CalendarAdmin",
    "ChangeRecordAdmin",
    "CopyLinkAdmin",
    "EventAdmin",
    "EventInline",
]


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
    list_display = ("name", "key", "owner", "account", "writable", "timezone", "is_default", "created_at")
    list_filter = ("is_default", "writable", "account__kind", "timezone")
    search_fields = ("name", "key", "owner__username", "owner__email")
    list_select_related = ("owner", "account")
    raw_id_fields = ("owner", "account")
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


def _row_ids(ids: Iterable[str]) -> set[int]:
    """The ids that can be rows of the local store (another provider's ids are not numbers)."""
    return {int(i) for i in ids if i.isascii() and i.isdigit() and len(i) <= 18}


def _resolve(links: Iterable[CopyLink]) -> None:
    """Give each link the calendars and events its ids name (``_named``), read for a whole page at once
    and only among the link owner's own calendars: ids are the provider's, and only the local store's
    (numbers) are rows here."""
    links = list(links)
    owners = {link.owner_id for link in links}
    calendar_ids = _row_ids(i for link in links for i in (link.source_calendar_id, link.copy_calendar_id))
    event_ids = _row_ids(i for link in links for i in (link.source_event_id, link.copy_event_id))
    calendars = {
        (c.owner_id, str(c.pk)): c for c in Calendar.objects.filter(owner_id__in=owners, pk__in=calendar_ids)
    }
    events = {
        (e.calendar.owner_id, str(e.pk)): e
        for e in Event.objects.filter(calendar__owner_id__in=owners, pk__in=event_ids).select_related(
            "calendar"
        )
    }
    for link in links:
        link._named = {  # type: ignore[attr-defined]
            side: (
                calendars.get((link.owner_id, getattr(link, f"{side}_calendar_id"))),
                events.get((link.owner_id, getattr(link, f"{side}_event_id"))),
            )
            for side in ("source", "copy")
        }


def _named(link: CopyLink, side: str) -> tuple[Calendar | None, Event | None]:
    """The calendar and event one side ("source" or "copy") of a link names, None where not found."""
    if not hasattr(link, "_named"):
        _resolve([link])
    found: tuple[Calendar | None, Event | None] = link._named[side]  # type: ignore[attr-defined]
    return found


class _CopyLinkChangeList(ChangeList):
    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        _resolve(self.result_list)  # two queries a page, not two a row


@admin.register(CopyLink)
class CopyLinkAdmin(admin.ModelAdmin):
    """Which event is a copy of which (made by "copy ..." and "sync ..." in the chat), per user.

    Read-only: a link is written with its copy and removed when the copy is undone.  Deleting one (a
    support fix) makes the next sync treat the copy as an event of its own and the original as not
    copied yet.
    """

    list_display = ("created_at", "owner", "original", "copy", "source_recurrence_id", "run_id")
    list_filter = (("source_recurrence_id", admin.EmptyFieldListFilter), "created_at")
    search_fields = (
        "owner__username",
        "owner__email",
        "source_uid",
        "source_event_id",
        "copy_event_id",
        "=run_id",
    )
    list_select_related = ("owner",)
    date_hierarchy = "created_at"
    fields = (
        "owner",
        "original",
        "copy",
        "source_calendar_id",
        "source_event_id",
        "source_uid",
        "source_recurrence_id",
        "source_etag",
        "copy_calendar_id",
        "copy_event_id",
        "run_id",
        "created_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[CopyLink]:
        """Every user's links for a superuser; a staff member who may view links sees only their own."""
        links = super().get_queryset(request)
        user = request.user
        return links if user.is_superuser else links.filter(owner_id=user.pk)

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return _CopyLinkChangeList

    @staticmethod
    def _side(link: CopyLink, side: str) -> str:
        """ "Work: Budget review"; an id the store does not hold as it is ("event 41 (gone)")."""
        calendar, event = _named(link, side)
        where = calendar.name if calendar is not None else getattr(link, f"{side}_calendar_id")
        if event is None:
            gone = " (gone)" if calendar is not None else ""
            return f"{where}: event {getattr(link, f'{side}_event_id')}{gone}"
        return f"{where}: {event.summary}"

    @admin.display(description="original")
    def original(self, obj: CopyLink) -> str:
        return self._side(obj, "source")

    @admin.display(description="copy")
    def copy(self, obj: CopyLink) -> str:
        return self._side(obj, "copy")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: CopyLink | None = None) -> bool:
        return False


@admin.register(CalendarAccount)
class CalendarAccountAdmin(admin.ModelAdmin):
    """Connected calendar accounts and how they are doing; the credentials are never shown.

    Accounts are made by connecting them (which stores their credentials encrypted), so none is
    added here; renaming one is allowed, and deleting one removes the mirror of its calendars.
    """

    list_display = ("display_name", "kind", "owner", "status", "last_error_short", "updated_at")
    list_filter = ("kind", "status")
    search_fields = ("display_name", "owner__username", "owner__email")
    list_select_related = ("owner",)
    fields = (
        "owner",
        "kind",
        "display_name",
        "status",
        "last_error",
        "credentials_stored",
        "sync_state",
        "created_at",
        "updated_at",
    )
    readonly_fields = (
        "owner",
        "kind",
        "status",
        "last_error",
        "credentials_stored",
        "sync_state",
        "created_at",
        "updated_at",
    )

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        """No lookup in the list's query string reaches a secret column: Django allows any lookup on
        the model's own fields, and ``?encrypted_credentials__regex=^gAAAA`` would answer yes or no
        about the ciphertext, one character at a time.  Refused, it is a 400 and shows nothing."""
        if lookup.split(LOOKUP_SEP, 1)[0] in CalendarAccount.SECRET_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)

    def get_queryset(self, request: HttpRequest) -> QuerySet[CalendarAccount]:
        """Every user's accounts for a superuser; a staff member who may view accounts sees only their own."""
        accounts = super().get_queryset(request)
        user = request.user
        return accounts if user.is_superuser else accounts.filter(owner_id=user.pk)

    @admin.display(description="last error")
    def last_error_short(self, obj: CalendarAccount) -> str:
        error = obj.last_error
        return error if len(error) <= 80 else f"{error[:79]}…"

    @admin.display(description="credentials")
    def credentials_stored(self, obj: CalendarAccount) -> str:
        # Whether there are any, never what they are: not even the ciphertext is shown.
        return "stored, encrypted" if obj.has_credentials else "none"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
