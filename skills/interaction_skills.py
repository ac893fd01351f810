"""Skills that ask the user something and pause the workflow until the answer comes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from skills.context import SkillContext
from skills.registry import REGISTRY, skill
from skills.schemas import SkillInput

__all__ = ["ask_user"]

REGISTRY.service("interaction", "Ask the user, have them choose, or have them confirm a change.")


class Question(SkillInput):
    question: str = Field(description="What to ask, in one sentence.")
    kind: str = Field(default="clarify", pattern="^(clarify|choose|confirm)$")
    options: list[str] = Field(default_factory=list, description="Answers to offer, if any.")


class Answer(BaseModel):
    answer: Any


@skill(service="interaction", kind="interaction")
def ask_user(ctx: SkillContext, params: Question) -> Answer:
    """Ask the user a question and wait (minutes or days) for the answer."""
    payload: dict[str, Any] = {"kind": params.kind, "text": params.question}
    if params.options:
        payload["options"] = [{"label": o, "value": o} for o in params.options]
    return Answer(answer=ctx.interrupt(payload))
