"""A whole chat turn on the server: one read-only question opening a new conversation.

``assistant.services`` is imported inside the function: it depends on modules that may be
mid-rewrite, and a bench that cannot import it should still measure the engine and the free-slot
search (the runner turns the ImportError into an "n/a" row).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from assistant.bench.timing import Timing, measure

__all__ = ["CHAT_TEXT", "chat_turn_readonly"]

CHAT_TEXT = "What's my week look like?"


def chat_turn_readonly(*, user: Any, repeat: int) -> tuple[Timing, str]:
    """``chat_turn`` end to end, each time as the first turn of a new conversation."""
    from assistant.services import chat_turn, conversation_create

    conversation: list[Any] = []
    replies: Counter[str] = Counter()

    def new_conversation() -> None:
        conversation[:] = [conversation_create(user=user)]

    def turn() -> None:
        reply = chat_turn(user=user, conversation=conversation[0], text=CHAT_TEXT)
        replies[reply.kind if reply is not None else "none (queued for a worker)"] += 1

    timing = measure(turn, repeat=repeat, warmup=2, setup=new_conversation)
    return timing, "reply kind " + " / ".join(kind for kind, _ in replies.most_common())
