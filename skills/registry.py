"""The one place skills are registered, and the catalog the decomposers see.

A skill is a function taking a :class:`SkillContext` and exactly one pydantic input model and returning
one pydantic output model.  ``@skill`` checks that when the decorator runs (not at call time), reads the
models from the type hints, builds both JSON schemas with ``model_json_schema()`` and stores a frozen
:class:`SkillDefinition`.  The list of definitions *is* the catalog: no schema is written by hand, so
what the decomposer is told can never drift from what the engine validates.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeVar, overload

from pydantic import BaseModel

from skills.context import SkillContext

__all__ = [
    "REGISTRY",
    "RetryPolicy",
    "SkillDefinition",
    "SkillKind",
    "SkillRegistrationError",
    "SkillRegistry",
    "UnknownSkillError",
    "skill",
]

SkillKind = Literal["read", "write", "interaction", "llm"]
F = TypeVar("F", bound=Callable[..., Any])


class SkillRegistrationError(Exception):
    """A skill's definition is wrong; raised once with every problem found."""


class UnknownSkillError(LookupError):
    """No skill of that name is registered."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Which exceptions are transient for a skill, and how to back off between attempts."""

    on: tuple[type[BaseException], ...]
    max_attempts: int = 3
    initial_delay: float = 0.2
    backoff: float = 2.0
    max_delay: float = 5.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait after the ``attempt``-th failure (1-based)."""
        return min(self.initial_delay * self.backoff ** (attempt - 1), self.max_delay)


@dataclass(frozen=True, slots=True)
class SkillDefinition:
    """What the registry knows of one skill.

    ``metadata`` is for the engine and the admin; it is never part of the catalog an LLM sees.
    ``concurrent`` marks skills that do no ORM work (HTTP to a provider, an LLM call), which the
    executor may run in worker threads beside other ready tasks.
    """

    name: str
    service: str
    description: str
    kind: SkillKind
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    func: Callable[[SkillContext, Any], Any]
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    retry: RetryPolicy | None = None
    concurrent: bool = False
    is_async: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "description": self.description}


class SkillRegistry:
    """Skills by name, grouped in services; the catalog is derived from it at three levels of detail."""

    def __init__(self) -> None:
        self._skills: dict[str, SkillDefinition] = {}
        self._services: dict[str, str] = {}

    # -- registration -----------------------------------------------------------------------------
    def service(self, name: str, description: str) -> None:
        """Declare a service group with the one-line description the catalog shows for it."""
        self._services[name] = description

    @overload
    def skill(self, func: F, /) -> F: ...

    @overload
    def skill(
        self,
        func: None = None,
        /,
        *,
        name: str | None = None,
        service: str = "general",
        kind: SkillKind = "read",
        retry: RetryPolicy | None = None,
        concurrent: bool = False,
        metadata: Mapping[str, Any] | None = None,
    ) -> Callable[[F], F]: ...

    def skill(
        self,
        func: F | None = None,
        /,
        *,
        name: str | None = None,
        service: str = "general",
        kind: SkillKind = "read",
        retry: RetryPolicy | None = None,
        concurrent: bool = False,
        metadata: Mapping[str, Any] | None = None,
    ) -> F | Callable[[F], F]:
        """Register a skill; usable bare (``@skill``) or with options (``@skill(kind="write")``)."""

        def register(fn: F) -> F:
            definition = _build_definition(
                fn,
                name=name or fn.__name__,
                service=service,
                kind=kind,
                retry=retry,
                concurrent=concurrent,
                metadata=metadata or {},
            )
            if definition.name in self._skills:
                raise SkillRegistrationError(f"A skill named {definition.name!r} is already registered.")
            self._skills[definition.name] = definition
            self._services.setdefault(service, "")
            return fn

        return register(func) if func is not None else register

    # -- lookup -----------------------------------------------------------------------------------
    def get(self, name: str) -> SkillDefinition:
        try:
            return self._skills[name]
        except KeyError:
            raise UnknownSkillError(
                f"No skill named {name!r}; was its function decorated with @skill and its module imported?"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._skills

    def definitions(self) -> Iterable[SkillDefinition]:
        return self._skills.values()

    # -- the catalog --------------------------------------------------------------------------------
    def catalog_services(self) -> list[dict[str, Any]]:
        """Level 1: each service, what it is for, and the names of its skills."""
        grouped: dict[str, list[str]] = {}
        for d in self._skills.values():
            grouped.setdefault(d.service, []).append(d.name)
        return [
            {"service": s, "description": self._services.get(s, ""), "skills": sorted(names)}
            for s, names in sorted(grouped.items())
        ]

    def catalog_service(self, service: str) -> list[dict[str, Any]]:
        """Level 2: the skills of one service with their kind and description."""
        return [
            d.summary() for d in sorted(self._skills.values(), key=lambda d: d.name) if d.service == service
        ]

    def catalog_skill(self, name: str) -> dict[str, Any]:
        """Level 3: one skill in full, with its input and output JSON schemas."""
        d = self.get(name)
        return {
            **d.summary(),
            "service": d.service,
            "input_schema": dict(d.input_schema),
            "output_schema": dict(d.output_schema),
        }


def _build_definition(
    fn: Callable[..., Any],
    *,
    name: str,
    service: str,
    kind: SkillKind,
    retry: RetryPolicy | None,
    concurrent: bool,
    metadata: Mapping[str, Any],
) -> SkillDefinition:
    problems: list[str] = []
    try:
        hints = typing.get_type_hints(fn)
    except Exception as exc:  # an unresolvable annotation is itself a registration problem
        raise SkillRegistrationError(f"Skill {name!r}: cannot read its type hints ({exc}).") from exc
    params = list(inspect.signature(fn).parameters.values())
    if len(params) != 2:
        problems.append(f"takes {len(params)} parameters; a skill takes (ctx: SkillContext, params: <Model>)")
    else:
        if hints.get(params[0].name) is not SkillContext:
            problems.append("its first parameter must be annotated SkillContext")
    input_model = hints.get(params[1].name) if len(params) == 2 else None
    output_model = hints.get("return")
    if not _is_model(input_model):
        problems.append("its second parameter must be annotated with a pydantic BaseModel subclass")
    if not _is_model(output_model):
        problems.append("its return annotation must be a pydantic BaseModel subclass")
    description = inspect.cleandoc(fn.__doc__ or "").split("\n\n", 1)[0].replace("\n", " ")
    if not description:
        problems.append("it needs a docstring: its first paragraph is the description the decomposer sees")
    if problems:
        raise SkillRegistrationError(f"Skill {name!r}: " + "; ".join(problems) + ".")
    assert input_model is not None  # narrowed by the checks above
    assert output_model is not None
    return SkillDefinition(
        name=name,
        service=service,
        description=description,
        kind=kind,
        input_model=input_model,
        output_model=output_model,
        func=fn,
        input_schema=MappingProxyType(input_model.model_json_schema()),
        output_schema=MappingProxyType(output_model.model_json_schema()),
        retry=retry,
        concurrent=concurrent or inspect.iscoroutinefunction(fn),
        is_async=inspect.iscoroutinefunction(fn),
        metadata=MappingProxyType(dict(metadata)),
    )


def _is_model(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, BaseModel)


REGISTRY = SkillRegistry()
skill = REGISTRY.skill
