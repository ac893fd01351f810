"""Reads of conversations; every read is scoped to its user, so another user's id is simply not found."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet

from assistant.models import Conversation, Message

__all__ = ["conversation_get", "conversation_list", "message_list"]


def conversation_list(*, user: Any) -> QuerySet[Conversation]:
    return Conversation.objects.filter(user=user)


def conversation_get(*, user: Any, conversation_id: uuid.UUID | str) -> Conversation:
    """The user's conversation; raises Conversation.DoesNotExist for anyone else's."""
    return Conversation.objects.get(user=user, pk=conversation_id)


def message_list(*, conversation: Conversation) -> QuerySet[Message]:
    return conversation.messages.all()
