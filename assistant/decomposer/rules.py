"""The deterministic, offline decomposer: understand the sentence, then compile the frame."""

from __future__ import annotations

import re
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from assistant.decomposer.changes import compile_change, undo_decision
from assistant.decomposer.compiler import compile_frame
from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.intent import normalise
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from assistant.timeexpr import find_durations, find_times
from workflows.definition import Decision

__all__ = ["RuleDecomposer"]


_CORRECTION = re.compile(
    r"\b(?:actually|instead|rather|better|can we do|could we do|let's do|let's say|how about|what about)\b"
)


def _inside(span: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= span[0] and span[1] <= outer[1]


def _corrects_last(frame: RequestFrame, text: str, context: dict[str, Any]) -> bool:
    """A new time for the one event just made or changed, said without a verb ("how about 3pm instead?")."""
    return (
        frame.operation in ("unknown", "query")
        and frame.at_time is not None
        and not frame.title_words
        and len(context.get("last_events") or []) == 1
        and bool(_CORRECTION.search(normalise(text)))
    )


class RuleDecomposer:
    name = "rules"

    def decompose(
        self, *, text: str, user: object, timezone_name: str, context: dict[str, Any] | None = None
    ) -> Decision:
        tz = ZoneInfo(timezone_name)
        now = timezone.now().astimezone(tz)
        context = context or {}
        world = World(user=user, now=now)
        frame = understand(text, now=now, world=world)
        pending = context.get("pending_create")
        if pending and frame.operation in ("unknown", "query") and frame.start is not None:
            # The answer to "when should I schedule it?": its times and lengths read together with the
            # request it completes (the rest, "let's do" or "thanks", would only blur the title).
            times = find_times(text, now=now, daytime=True)
            lengths = [d for d in find_durations(text) if not any(_inside(d.span, m.span) for m in times)]
            text = " ".join([pending["text"], *(m.text for m in times), *(d.text for d in lengths)])
            frame = understand(text, now=now, world=world)
        elif _corrects_last(frame, text, context):
            # "Actually 12:30 works better" right after one event was made: move that one there.
            text = "move it to " + " ".join(m.text for m in find_times(text, now=now, daytime=True))
            frame = understand(text, now=now, world=world)
        if frame.operation in ("create", "move", "delete"):
            decision = compile_change(frame, text=text, now=now, tz=tz, world=world, context=context)
            return decision.model_copy(update={"frame": frame.as_json()})
        if frame.operation == "undo" and context.get("last_applied_run"):
            return undo_decision(context["last_applied_run"], frame)
        return compile_frame(frame, now=now, tz=tz)
