"""The deterministic, offline decomposer: understand the sentence, then compile the frame."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.utils import timezone

from assistant.decomposer.compiler import compile_frame
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from workflows.definition import Decision

__all__ = ["RuleDecomposer"]


class RuleDecomposer:
    name = "rules"

    def decompose(self, *, text: str, user: object, timezone_name: str) -> Decision:
        tz = ZoneInfo(timezone_name)
        now = timezone.now().astimezone(tz)
        frame = understand(text, now=now, world=World(user=user, now=now))
        return compile_frame(frame, now=now, tz=tz)
