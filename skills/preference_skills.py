"""Reading the user's preferences (working hours, lunch, gym, writing block, default calendars)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from skills.context import SkillContext
from skills.errors import SkillError
from skills.registry import REGISTRY, skill
from skills.reply_skills import Reply
from skills.schemas import SkillInput

__all__ = ["describe_preferences", "get_preference", "set_preference"]

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


class PreferenceChange(SkillInput):
    key: str = Field(description="A known preference key (see get_preference).")
    value: Any = Field(default=None, description="Its new value in the canonical shape; null removes it.")


@skill(service="preferences", kind="write")
def set_preference(ctx: SkillContext, params: PreferenceChange) -> Reply:
    """Store (or, with no value, remove) one of the user's preferences, validated by the key's schema,
    and say the stored value in words with what it was before."""
    from preferences.schema import KEYS, PreferenceError
    from preferences.services import preference_delete, preference_set
    from preferences.wording import describe_preference, preference_label

    if params.key not in KEYS:
        raise SkillError(f"I don't keep a preference called {params.key!r}.")
    label = preference_label(params.key)
    before = ctx.preferences.get(params.key)
    was = f" (It was {describe_preference(params.key, before)}.)" if before is not None else ""
    data: dict[str, Any] = {"preference": {"key": params.key, "before": before}}
    if params.value is None:
        if not preference_delete(user=ctx.user, key=params.key):
            return Reply(
                kind="answer", text=f"You had no {label} set, so there was nothing to remove.", data=data
            )
        return Reply(kind="done", text=f"Done: I removed your {label}.{was}", data=data)
    try:
        stored = preference_set(user=ctx.user, key=params.key, value=params.value).value
    except PreferenceError as exc:
        raise SkillError(f"I couldn't save your {label}: " + "; ".join(exc.messages)) from exc
    data["preference"]["value"] = stored
    said = describe_preference(params.key, stored)
    return Reply(kind="done", text=f"Saved your {label}: {said}.{was}", data=data)


class NoInput(SkillInput):
    """Nothing to say: the skill reads the user's own data."""


@skill(service="preferences", kind="read")
def describe_preferences(ctx: SkillContext, params: NoInput) -> Reply:
    """All of the user's preferences in words ("what are my preferences?"), the ignored ones with why."""
    from preferences.selectors import preferences_described

    lines = preferences_described(user=ctx.user)
    if not lines:
        return Reply(
            kind="answer", text='You have no preferences set yet. Tell me, e.g. "my lunch is 12 to 1".'
        )
    return Reply(kind="answer", text="Your preferences:\n" + "\n".join(f"  • {line}" for line in lines))
