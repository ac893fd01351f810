"""The deterministic, offline decomposer: understand the sentence, then compile the frame."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from assistant.decomposer.changes import compile_change, undo_decision
from assistant.decomposer.compiler import compile_frame
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from workflows.definition import Decision

__all__ = ["RuleDecomposer"]


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
            # The answer to "when should I schedule it?": read together with the request it completes.
            text = f"{pending['text']} {text}"
            frame = understand(text, now=now, world=world)
        if frame.operation in ("create", "move", "delete"):
            decision = compile_change(frame, text=text, now=now, tz=tz, world=world, context=context)
            return decision.model_copy(update={"frame": frame.as_json()})
        if frame.operation == "undo" and context.get("last_applied_run"):
            return undo_decision(context["last_applied_run"], frame)
        return compile_frame(frame, now=now, tz=tz)
