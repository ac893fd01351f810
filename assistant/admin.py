"""Admin for conversations: read-only, because messages are a record of what was said and done.

Editing a message here would make the history disagree with the calendar changes it led to, so
operators can look and delete, not rewrite.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from assistant.models import Conversation, Message

__all__ = ["ConversationAdmin", "MessageAdmin", "MessageInline"]

_MESSAGE_FIELDS = ("role", "kind", "text", "data", "run", "trace_id", "created_at")


class MessageInline(admin.TabularInline):
    model = Message
    extra = 0
    can_delete = False
    fields = _MESSAGE_FIELDS
    readonly_fields = _MESSAGE_FIELDS
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ("__str__", "user", "pending_run", "updated_at", "created_at")
    list_filter = ("updated_at",)
    search_fields = ("title", "user__username", "user__email")
    readonly_fields = ("id", "user", "title", "pending_run", "context", "created_at", "updated_at")
    list_select_related = ("user",)
    inlines = [MessageInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Viewing needs "view" permission only; returning False keeps every field read-only.
        return False


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("short_text", "role", "kind", "conversation", "created_at")
    list_filter = ("role", "kind", "created_at")
    search_fields = ("text", "trace_id", "conversation__title", "conversation__user__username")
    readonly_fields = ("conversation", *_MESSAGE_FIELDS)
    list_select_related = ("conversation",)
    date_hierarchy = "created_at"

    @admin.display(description="text")
    def short_text(self, obj: Message) -> str:
        return obj.text if len(obj.text) <= 80 else obj.text[:79] + "…"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
