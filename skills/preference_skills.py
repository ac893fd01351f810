"""Reading the user's preferences (working hours, lunch, gym, writing block, default calendars)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from skills.context import SkillContext
from skills.registry import REGISTRY, skill
from skills.schemas import SkillInput

__all__ = ["get_preference"]

REGISTRY.service(
    "preferences", "Read and change the user's preferences, which act as scheduling constraints."
)


class PreferenceKey(SkillInput):
    key: str = Field(
        description="working_hours, lunch_hours, gym_schedule, writing_block, work_calendar, ..."
    )


class PreferenceValue(BaseModel):
    key: str
    value: Any = None
    is_set: bool


@skill(service="preferences", kind="read")
def get_preference(ctx: SkillContext, params: PreferenceKey) -> PreferenceValue:
    """Read one of the user's preferences by key."""
    value = ctx.preferences.get(params.key)
    return PreferenceValue(key=params.key, value=value, is_set=params.key in ctx.preferences)
