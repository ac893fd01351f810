"""Admin for conversations and model calls: read-only, because both are a record of what happened.

Editing a message here would make the history disagree with the calendar changes it led to, so
operators can look and delete, not rewrite; the same holds for the log of questions put to the model.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from assistant.models import Conversation, Message, ModelCall

__all__ = ["ConversationAdmin", "MessageAdmin", "MessageInline", "ModelCallAdmin"]

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


@admin.register(ModelCall)
class ModelCallAdmin(admin.ModelAdmin):
    """Every question put to the language model: phase, model, tokens, cost, latency and how it ended.

    A turn's calls share its trace id (search for it, as in the log lines).  The prompt and output are
    blank for calls older than LLM_LOG_DAYS; the numbers stay.  Only a superuser may delete a row: the
    rows are what the daily budget is counted from.
    """

    list_display = (
        "created_at",
        "user",
        "phase",
        "model",
        "outcome",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "latency_ms",
    )
    list_filter = ("outcome", "phase", "model", "created_at")
    search_fields = ("=trace_id", "user__username")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    fields = (
        "created_at",
        "user",
        "trace_id",
        "phase",
        "model",
        "outcome",
        "input_tokens",
        "output_tokens",
        "requests",
        "cost_usd",
        "latency_ms",
        "error",
        "prompt",
        "output",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)
