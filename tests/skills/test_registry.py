from __future__ import annotations

import pytest
from pydantic import BaseModel

from skills.catalog import REGISTRY
from skills.context import SkillContext
from skills.registry import SkillRegistrationError, SkillRegistry, UnknownSkillError


class In(BaseModel):
    x: int


class Out(BaseModel):
    y: int


def test_bare_and_configured_decorator_register_and_return_the_function() -> None:
    reg = SkillRegistry()

    @reg.skill
    def double(ctx: SkillContext, params: In) -> Out:
        """Double a number."""
        return Out(y=params.x * 2)

    @reg.skill(name="triple", kind="write", service="math")
    def three(ctx: SkillContext, params: In) -> Out:
        """Triple a number.

        Longer text that is not part of the description.
        """
        return Out(y=params.x * 3)

    assert double(None, In(x=2)) == Out(y=4)  # type: ignore[arg-type]
    assert reg.get("double").kind == "read"
    assert reg.get("triple").kind == "write"
    assert reg.get("triple").description == "Triple a number."
    assert reg.get("triple").input_schema["properties"]["x"]["type"] == "integer"


def test_registration_reports_every_problem_at_once() -> None:
    reg = SkillRegistry()
    with pytest.raises(SkillRegistrationError) as info:

        @reg.skill
        def broken(ctx: int, params: dict) -> str:
            return ""

    message = str(info.value)
    assert "first parameter must be annotated SkillContext" in message
    assert "second parameter must be annotated with a pydantic BaseModel" in message
    assert "return annotation must be a pydantic BaseModel" in message
    assert "needs a docstring" in message


def test_duplicate_names_are_rejected() -> None:
    reg = SkillRegistry()

    @reg.skill
    def once(ctx: SkillContext, params: In) -> Out:
        """Once."""
        return Out(y=1)

    with pytest.raises(SkillRegistrationError, match="already registered"):
        reg.skill(name="once")(once)


def test_unknown_skill_lookup_says_how_to_fix_it() -> None:
    with pytest.raises(UnknownSkillError, match="decorated with @skill"):
        SkillRegistry().get("nope")


def test_catalog_has_three_levels_of_detail() -> None:
    services = {s["service"]: s for s in REGISTRY.catalog_services()}
    assert {"calendar", "data", "reply", "preferences", "interaction"} <= services.keys()
    assert "find_events" in services["calendar"]["skills"]
    assert services["calendar"]["description"]
    calendar_skills = {s["name"]: s for s in REGISTRY.catalog_service("calendar")}
    assert calendar_skills["find_events"]["kind"] == "read"
    full = REGISTRY.catalog_skill("free_slots")
    assert "duration_minutes" in full["input_schema"]["properties"]
    assert "slots" in full["output_schema"]["properties"]
