"""The chat path: the rule decomposer per turn, and a whole read-only chat turn on the server.

``assistant.decomposer`` and ``assistant.services`` are imported inside the functions: they depend
on modules that may be mid-rewrite, and a bench that cannot import them should still measure the
engine and the free-slot search (the runner turns the ImportError into an "n/a" row).
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

from assistant.bench.timing import Timing, measure, summarise
from preferences.selectors import user_timezone

__all__ = ["CHAT_TEXT", "TURNS", "chat_turn_readonly", "decompose_per_turn"]

CHAT_TEXT = "What's my week look like?"

# Read-only turns of the kinds the product answers: agendas, counts, free time, next occurrences,
# people, calendars, preferences; short and long, with and without dates.
TURNS = [
    CHAT_TEXT,
    "Find events on Friday and tell me how many there are",
    "When am I free tomorrow afternoon for an hour?",
    "Do I have any classes on Monday?",
    "What's on my calendar today?",
    "How many meetings do I have this week?",
    "When is my next dentist appointment?",
    "What do I have tomorrow morning?",
    "Show me my schedule for next week",
    "Am I free on Thursday at 3pm?",
    "How many classes do I have this month?",
    "When is my next Calculus lecture?",
    "What meetings do I have with Ann?",
    "Find a free 30 minute slot on Wednesday",
    "What's on my work calendar on Tuesday?",
    "What are my lunch hours?",
    "Anything in the evening this weekend?",
    "Do I have anything on Saturday?",
    "How many events are on my School calendar next week?",
    "When is the team sync?",
]


def decompose_per_turn(*, user: Any, repeat: int) -> tuple[Timing, str]:
    """Every turn decomposed ``repeat`` times; returns the pooled timing and what the turns became."""
    from assistant.decomposer import DecomposeRequest, decompose

    tz_name = user_timezone(user=user)
    samples: list[float] = []
    kinds: Counter[str] = Counter()
    for text in TURNS:
        request = DecomposeRequest(text=text, user=user, timezone=tz_name)
        kinds[decompose(request).kind] += 1
        samples.extend(measure(partial(decompose, request), repeat=repeat, warmup=1).samples)
    made = ", ".join(f"{kind} ×{n}" for kind, n in kinds.most_common())
    return summarise(samples), f"{len(TURNS)} turns → {made}"


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
