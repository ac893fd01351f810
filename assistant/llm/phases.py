"""The planner's three output contracts, built from the skill registry, and their prompts.

Each phase answers with a pydantic model whose choices are ``Literal``s of the catalog: phase 1 may
only name a service that exists, phase 2 only a skill of the service it was given, the single-phase
planner only a registered skill. The schema itself, which the model is shown as its output tool,
rules out an unknown name, and pydantic-ai sends a wrong one back with the error.

The prompts hold the catalog at the phase's level of detail and the turn as data: a JSON block the
instructions call untrusted, so text in it (a title in an earlier reply, a pasted email) is never an
instruction. Calendar events never reach the planner; only the LLM skills see them, and their output
is data that changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from assistant.llm.examples import examples_for
from assistant.llm.untrusted import UNTRUSTED, untrusted_block
from skills.registry import REGISTRY, SkillDefinition, SkillRegistry

__all__ = [
    "ID_PATTERN",
    "Contracts",
    "StepParams",
    "Turn",
    "contracts",
    "replying_skills",
]

ID_PATTERN = r"^[a-z][a-z0-9_]{0,23}$"
MAX_SUBTASKS = 6
MAX_STEPS = 4
HISTORY_TURNS = 6
HISTORY_CHARS = 400


@dataclass(frozen=True, slots=True)
class Turn:
    """What the planner is told of a turn; every field is data, none is an instruction."""

    text: str
    now: datetime
    timezone: str
    history: list[tuple[str, str]] = field(default_factory=list)
    calendars: list[str] = field(default_factory=list)
    preferences: list[str] = field(default_factory=list)

    def data(self) -> str:
        """The turn as the JSON block every prompt ends with."""
        state = {
            "now": self.now.strftime("%A %Y-%m-%d %H:%M"),
            "timezone": self.timezone,
            "calendars": self.calendars,
            "preferences": self.preferences,
            "conversation": [
                {"from": who, "text": said[:HISTORY_CHARS]} for who, said in self.history[-HISTORY_TURNS:]
            ],
            "request": self.text,
        }
        return untrusted_block("turn", state)


class StepParams(BaseModel):
    """Phase 3's answer: the params of one task, and an optional condition on earlier outputs."""

    params: dict[str, Any] = Field(
        description="Values for the skill's input schema; a value taken from an earlier task is written \""
        '{{task_id.output.field}}".'
    )
    when: str | None = Field(
        default=None, description='Run only if true, e.g. "{{count.output.count}} > 0". Usually null.'
    )


@dataclass(frozen=True, slots=True)
class Contracts:
    """The output models of every phase for one state of the registry."""

    orchestration: type[BaseModel]
    selections: dict[str, type[BaseModel]]
    single: type[BaseModel]
    services: tuple[str, ...]


def replying_skills(registry: SkillRegistry = REGISTRY) -> frozenset[str]:
    """Skills whose output is a reply (``kind`` and ``text``): the only ones a plan may end with."""
    return frozenset(
        d.name for d in registry.definitions() if {"kind", "text"} <= set(d.output_model.model_fields)
    )


def contracts(registry: SkillRegistry = REGISTRY) -> Contracts:
    """The phases' output models for ``registry`` (built once per set of skill names)."""
    names = tuple(sorted((d.name, d.service) for d in registry.definitions()))
    return _contracts(names)


@lru_cache(maxsize=4)
def _contracts(names: tuple[tuple[str, str], ...]) -> Contracts:
    services = tuple(sorted({service for _, service in names}))
    subtask = create_model(
        "Subtask",
        id=(str, Field(pattern=ID_PATTERN)),
        service=(_one_of(services), ...),
        instruction=(str, Field(description="What it must do, with the request's concrete values.")),
        dependsOn=(list[str], Field(default_factory=list)),
    )
    orchestration = create_model(
        "Orchestration",
        __doc__="The request split into services' subtasks, or a direct answer or question.",
        kind=(_one_of(("plan", "answer", "clarify")), ...),
        text=(str, Field(default="", description="The answer, or the question.")),
        confidence=(float, Field(ge=0, le=1, description="How sure you are of what the user wants.")),
        subtasks=(list[subtask], Field(default_factory=list, max_length=MAX_SUBTASKS)),
    )
    selections: dict[str, type[BaseModel]] = {}
    for service in services:
        skills = tuple(name for name, s in names if s == service)
        step = create_model(
            f"Step_{service}",
            id=(str, Field(pattern=ID_PATTERN)),
            skill=(_one_of(skills), ...),
            instruction=(str, Field(description="What this step does, with concrete values.")),
            dependsOn=(list[str], Field(default_factory=list, description="Earlier steps of this subtask.")),
        )
        selections[service] = create_model(
            f"Selection_{service}",
            __doc__=f"The skills of service {service} that do the subtask, in order.",
            steps=(list[step], Field(min_length=1, max_length=MAX_STEPS)),
        )
    every = tuple(name for name, _ in names)
    task = create_model(
        "Task",
        id=(str, Field(pattern=ID_PATTERN)),
        skill=(_one_of(every), ...),
        params=(dict[str, Any], Field(default_factory=dict)),
        dependsOn=(list[str], Field(default_factory=list)),
        when=(str | None, None),
    )
    single = create_model(
        "SinglePlan",
        __doc__="The whole workflow, or a direct answer or question.",
        kind=(_one_of(("plan", "answer", "clarify")), ...),
        text=(str, ""),
        confidence=(float, Field(ge=0, le=1)),
        tasks=(list[task], Field(default_factory=list)),
    )
    return Contracts(orchestration=orchestration, selections=selections, single=single, services=services)


def _one_of(names: tuple[str, ...]) -> Any:
    """``Literal[names]``: the schema's enum of the names a phase may choose."""
    return Literal[names]


# -- prompts ------------------------------------------------------------------------------------------

ORCHESTRATE = (
    "You plan calendar requests. Split the request in the data into subtasks, each done by one service "
    "below, with dependsOn naming the subtasks whose results it needs. The last subtask (the one no "
    "other depends on) writes the reply: service reply, or changes when it applies changes. Use kind "
    "answer only for what needs no calendar data, and clarify when the request is unclear. "
)


def orchestrate_prompt(turn: Turn, registry: SkillRegistry = REGISTRY) -> tuple[str, str]:
    """Phase 1: the service catalog only, a line per service (its skills are phase 2's)."""
    catalog = "\n".join(f"- {s['service']}: {s['description']}" for s in registry.catalog_services())
    return ORCHESTRATE + UNTRUSTED, f"Services:\n{catalog}\n\n{turn.data()}"


SELECT = (
    "Choose the skills of one service that do the subtask, in order, each with a concrete instruction. "
    "dependsOn names earlier steps of this subtask whose output a step uses. "
)


def select_prompt(
    turn: Turn, service: str, instruction: str, upstream: list[str], registry: SkillRegistry = REGISTRY
) -> tuple[str, str]:
    """Phase 2: one service's skills with their descriptions, and the subtask."""
    skills = "\n".join(
        f"- {s['name']} ({s['kind']}): {s['description']}" for s in registry.catalog_service(service)
    )
    before = "\n".join(f"- {line}" for line in upstream) or "- none"
    prompt = (
        f"Service {service}:\n{skills}\n\nEarlier subtasks (their results are available):\n{before}\n\n"
        f"Subtask: {instruction}\n\n{turn.data()}"
    )
    return SELECT + UNTRUSTED, prompt


PARAMS = (
    "Write the params of one task for the skill below, valid against its input schema. A value that "
    'comes from an earlier task is the exact string "{{task_id.output.field}}" (for example '
    '"{{find.output.events}}"), using only the tasks listed, whose outputs are given. Times are ISO 8601 '
    "with the user's offset. Leave out params whose default is right. "
)


def params_prompt(
    turn: Turn,
    skill: SkillDefinition,
    instruction: str,
    upstream: list[tuple[str, SkillDefinition]],
) -> tuple[str, str]:
    """Phase 3: one skill's full input schema, the outputs it may reference, and the step."""
    outputs = (
        "\n".join(f"- {tid} ({d.name}) output: {_compact(dict(d.output_schema))}" for tid, d in upstream)
        or "- none"
    )
    prompt = (
        f"Skill {skill.name}: {skill.description}\nInput schema: {_compact(dict(skill.input_schema))}\n\n"
        f"{_examples(skill.name)}Earlier tasks:\n{outputs}\n\nStep: {instruction}\n\n{turn.data()}"
    )
    return PARAMS + UNTRUSTED, prompt


def _examples(skill: str) -> str:
    """How this skill's params were written for real requests (see :mod:`assistant.llm.examples`)."""
    lines = [
        f"- {e['request']!r} at {e['now']}, earlier tasks "
        + (", ".join(f"{tid} ({name})" for tid, name in e["earlier"].items()) or "none")
        + f": {_compact({'params': e['params']})}"
        for e in examples_for(skill)
    ]
    return "Examples:\n" + "\n".join(lines) + "\n\n" if lines else ""


SINGLE = (
    "You plan calendar requests as one workflow: tasks, each running one skill below with params valid "
    "against its input schema and dependsOn naming the tasks it needs. A value that comes from an "
    'earlier task is the exact string "{{task_id.output.field}}", and that task must be in dependsOn. '
    "The last task writes the reply. Use kind answer only for what needs no calendar data, and clarify "
    "when the request is unclear. "
)


def single_prompt(turn: Turn, registry: SkillRegistry = REGISTRY) -> tuple[str, str]:
    """The whole catalog in one prompt: the comparison the three phases are measured against."""
    catalog = "\n".join(_compact(registry.catalog_skill(d.name)) for d in registry.definitions())
    return SINGLE + UNTRUSTED, f"Skills:\n{catalog}\n\n{turn.data()}"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
