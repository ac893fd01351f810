"""Conversations and their messages (each assistant message carries a machine-readable reply kind),
and the log of the questions put to a language model."""

from __future__ import annotations

import uuid
from typing import get_args

from django.conf import settings
from django.db import models

from assistant.llm.calls import CallOutcome

__all__ = ["Conversation", "Message", "ModelCall", "ReplyKind"]


class ReplyKind(models.TextChoices):
    ANSWER = "answer"
    CLARIFY = "clarify"
    CHOOSE = "choose"
    CONFIRM = "confirm"
    DONE = "done"
    ERROR = "error"


class Conversation(models.Model):
    """One chat thread of one user.

    ``pending_run`` is the workflow waiting for this conversation's answer (at most one at a time);
    ``context`` is what follow-up turns may refer to (last results, the pending question), stored so
    that a conversation continues from the database alone after a restart.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    pending_run = models.ForeignKey(
        "workflows.WorkflowRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    context = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"

    @property
    def channel_group(self) -> str:
        """The channel-layer group its websocket listens on (names must be ASCII, under 100 chars)."""
        return f"conversation.{self.pk.hex}"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    kind = models.CharField(max_length=16, choices=ReplyKind.choices, blank=True)
    text = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    run = models.ForeignKey(
        "workflows.WorkflowRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    trace_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:60]}"

    def as_payload(self) -> dict[str, object]:
        """The JSON the page renders, over the websocket and the HTTP fallback alike."""
        return {
            "id": self.pk,
            "role": self.role,
            "kind": self.kind,
            "text": self.text,
            "data": self.data,
            "run_id": str(self.run_id) if self.run_id else None,
            "created_at": self.created_at.isoformat() if self.created_at else None,
        }


class ModelCall(models.Model):
    """One question to the language model (its retries included), saved from a ``CallRecord``.

    ``trace_id`` is the turn's ``Decision.trace_id``: it finds the turn's log lines, its run and its
    reply.  The numbers are kept for usage statistics and the daily budget; ``prompt`` and ``output``
    hold the user's words and calendar data (``error`` may quote the output), so ``prune_model_calls``
    blanks the three after ``LLM_LOG_DAYS`` days.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="model_calls")
    # 64 like Message.trace_id and WorkflowRun.trace_id: Decision.trace_id is a uuid4 hex (32), but
    # nothing bounds it, and PostgreSQL refuses what SQLite would store.
    trace_id = models.CharField(max_length=64, db_index=True)
    phase = models.CharField(max_length=200)
    model = models.CharField(max_length=200)
    outcome = models.CharField(max_length=16, choices=[(value, value) for value in get_args(CallOutcome)])
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    requests = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0.0)
    # Dollars by genai-prices; null when the model has no known price (a local server's model), which
    # the daily cost limit counts as nothing spent.
    cost_usd = models.DecimalField("cost (USD)", max_digits=12, decimal_places=6, null=True, blank=True)
    error = models.TextField(blank=True)
    prompt = models.TextField(blank=True)
    output = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        # The daily budget sums one user's rows of the last 24 hours on every planned turn.
        indexes = [models.Index(fields=["user", "created_at"], name="assistant_modelcall_user_day")]

    def __str__(self) -> str:
        return f"{self.phase} ({self.model}): {self.outcome}"
