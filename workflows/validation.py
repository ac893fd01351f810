"""Static checks of a workflow before anything runs, gathered and raised once.

``compile_workflow`` turns a :class:`WorkflowDefinition` into a :class:`CompiledWorkflow` (topological
order, the dependency map, parsed conditions, the skill of every task), or raises
:class:`WorkflowValidationError` listing *every* problem found, so that a decomposer (or a person
reading the admin) can fix them all in one go.  It runs in a few milliseconds for 1,000 tasks: the
cost is linear in tasks plus edges, with ancestor sets kept as integer bitsets.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Collection, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType, NoneType, UnionType
from typing import Any

from django.conf import settings
from pydantic import BaseModel, TypeAdapter, ValidationError

from skills.registry import REGISTRY, SkillDefinition, SkillRegistry
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.references import Condition, Reference, find_references, parse_condition, parse_references

__all__ = ["CompiledWorkflow", "WorkflowValidationError", "compile_workflow", "dependency_order"]

_UNCHECKED = object()  # a missing_paths miss (None there means the path is fine)


class WorkflowValidationError(ValueError):
    """A workflow is not runnable; ``errors`` holds one readable sentence per problem."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True, slots=True)
class CompiledWorkflow:
    """A validated definition with everything the scheduler and executor need precomputed."""

    definition: WorkflowDefinition
    order: tuple[str, ...]
    tasks: Mapping[str, TaskSpec]
    skills: Mapping[str, SkillDefinition]
    depends_on: Mapping[str, tuple[str, ...]]
    conditions: Mapping[str, Condition]

    @property
    def output_task(self) -> str:
        return self.definition.output or self.order[-1]


def compile_workflow(
    definition: WorkflowDefinition, *, registry: SkillRegistry = REGISTRY, max_tasks: int | None = None
) -> CompiledWorkflow:
    limit = max_tasks if max_tasks is not None else settings.WORKFLOW_MAX_TASKS
    errors: list[str] = []
    tasks = definition.tasks
    if not tasks:
        raise WorkflowValidationError(["The workflow has no tasks."])
    if len(tasks) > limit:
        errors.append(f"The workflow has {len(tasks)} tasks; at most {limit} are allowed.")

    by_id: dict[str, TaskSpec] = {}
    skills: dict[str, SkillDefinition] = {}
    known: dict[str, SkillDefinition | None] = {}
    inputs: dict[str, _InputFields] = {}
    # Plans nearly always list tasks after their dependencies; then the list is the order and the
    # ancestor sets (integer bitsets over positions) come in this same pass.  A dependency not seen
    # yet is looked at after it: a self-dependency, a missing task, or a plan listed out of order,
    # which Kahn's algorithm then orders (or finds a cycle in).
    position: dict[str, int] = {}
    ancestors: dict[str, int] | None = {}
    later: list[tuple[str, str]] = []
    for i, t in enumerate(tasks):
        tid = t.id
        if tid in by_id:
            errors.append(f"Task {tid} is defined more than once.")
        else:
            position[tid] = i
        by_id[tid] = t
        if t.skill not in known:
            known[t.skill] = registry.get(t.skill) if t.skill in registry else None
            if (definition_of := known[t.skill]) is not None:
                inputs[t.skill] = _input_fields(definition_of.input_model)
        found = known[t.skill]
        if found is not None:
            skills[tid] = found
        else:
            close = difflib.get_close_matches(t.skill, [d.name for d in registry.definitions()], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            errors.append(f"Task {tid} uses unknown skill {t.skill!r}{hint}.")
        acc = 0
        for dep in t.depends_on:
            at = position.get(dep)
            if at is None or dep == tid:
                later.append((tid, dep))
            elif ancestors is not None:
                acc |= ancestors[dep] | (1 << at)
        if ancestors is not None:
            ancestors[tid] = acc
        if later:
            ancestors = None
    for tid, dep in later:
        if dep == tid:
            errors.append(f"Task {tid} depends on itself.")
        elif dep not in by_id:
            errors.append(f"Task {tid} depends on non-existent task {dep}.")
    if ancestors is not None:
        order = list(by_id)
    else:
        order, cycle = dependency_order({t.id: t.depends_on for t in tasks})
        if cycle:
            errors.append("Tasks form a cycle: " + " -> ".join(cycle) + ".")
        else:
            position = {tid: i for i, tid in enumerate(order)}
            ancestors = _ancestor_bits(order, by_id, position)

    conditions: dict[str, Condition] = {}
    # The output path a reference names, checked once per output model and path however often it recurs.
    missing_paths: dict[tuple[type[BaseModel], tuple[str, ...]], str | None] = {}
    for t in tasks:
        # One walk over the params finds the references, for the ancestry/output checks and to tell
        # _check_params which params are only known at run time.
        referenced: dict[str, tuple[Reference, ...] | list[Reference]] = {}
        for name, value in t.params.items():
            found_refs = parse_references(value) if isinstance(value, str) else find_references(value)
            if found_refs:
                referenced[name] = found_refs
        if t.when:
            try:
                cond = parse_condition(t.when)
            except ValueError as exc:
                errors.append(f"Task {t.id}: {exc}.")
            else:
                conditions[t.id] = cond
                referenced[""] = (cond.reference,)
        if ancestors is not None and referenced:
            mine = ancestors.get(t.id, 0)
            for refs in referenced.values():
                for ref in refs:
                    at = position.get(ref.task_id)
                    if at is None:
                        errors.append(
                            f"Task {t.id} references non-existent task {ref.task_id} in {ref.text}."
                        )
                    elif not (mine >> at) & 1:
                        errors.append(
                            f"Task {t.id} references task {ref.task_id} in {ref.text} but does not depend on "
                            f"it; add {ref.task_id} to its dependsOn."
                        )
                    elif (source := skills.get(ref.task_id)) is not None:
                        key = (source.output_model, ref.path)
                        missing = missing_paths.get(key, _UNCHECKED)
                        if missing is _UNCHECKED:
                            missing = missing_paths[key] = _missing_path(*key)
                        if missing is not None:
                            errors.append(
                                f"Task {t.id} references {ref.text}, "
                                f"but skill {source.name} has no output {missing}."
                            )
        skill = skills.get(t.id)
        if skill is not None:
            fields = inputs[skill.name]
            given = t.params.keys()
            # The common case, every param a reference the run will resolve, needs no further look.
            if not (given <= referenced.keys() and given <= fields.names and fields.required <= given):
                errors.extend(_check_params(t, skill, fields, referenced.keys()))

    if definition.output is not None and definition.output not in by_id:
        errors.append(f"The workflow's output names non-existent task {definition.output}.")
    if errors:
        raise WorkflowValidationError(errors)

    return CompiledWorkflow(
        definition=definition,
        order=tuple(order),
        tasks=MappingProxyType(by_id),
        skills=MappingProxyType(skills),
        depends_on=MappingProxyType({t.id: t.depends_on for t in tasks}),
        conditions=MappingProxyType(conditions),
    )


def dependency_order(deps: Mapping[str, Collection[str]]) -> tuple[list[str], list[str]]:
    """Kahn's algorithm over ``id -> the ids it depends on`` (unknown ids and a node's dependency on
    itself are left to the caller to report); on a cycle, also one cycle's path for the message.

    Public for the LLM planner, whose subtasks form a dependency graph of their own before they
    become tasks: both report a cycle the same way.
    """
    indegree = dict.fromkeys(deps, 0)
    children: dict[str, list[str]] = {node: [] for node in deps}
    for node, needs in deps.items():
        for dep in set(needs):
            if dep in deps and dep != node:
                indegree[node] += 1
                children[dep].append(node)
    queue = [node for node, n in indegree.items() if n == 0]
    order: list[str] = []
    while queue:
        node = queue.pop()
        order.append(node)
        for child in children[node]:
            indegree[child] -= 1
            if indegree[child] == 0:
                queue.append(child)
    if len(order) == len(indegree):
        return order, []
    return order, _find_cycle({node for node, n in indegree.items() if n > 0}, deps)


def _find_cycle(remaining: set[str], deps: Mapping[str, Collection[str]]) -> list[str]:
    # Every node left after Kahn's algorithm has a dependency among the remaining ones, so walking
    # dependencies from any of them must revisit a node: that loop is a cycle.
    start = min(remaining)
    path: list[str] = []
    seen: dict[str, int] = {}
    node = start
    while node not in seen:
        seen[node] = len(path)
        path.append(node)
        node = next(d for d in deps[node] if d in remaining and d != node)
    cycle = path[seen[node] :]
    cycle.reverse()  # report in execution direction: a -> b means b depends on a
    return [*cycle, cycle[0]]


def _ancestor_bits(
    order: list[str], by_id: Mapping[str, TaskSpec], position: Mapping[str, int]
) -> dict[str, int]:
    bits: dict[str, int] = {}
    for tid in order:
        acc = 0
        for dep in by_id[tid].depends_on:
            if dep in bits:
                acc |= bits[dep] | (1 << position[dep])
        bits[tid] = acc
    return bits


@lru_cache(maxsize=4096)
def _missing_path(model: type[BaseModel], path: tuple[str, ...]) -> str | None:
    """The first part of ``path`` the output model cannot have, or None if the path is plausible."""
    annotation: Any = model
    for i, part in enumerate(path):
        annotation = _strip_optional(annotation)
        origin = typing.get_origin(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(part)
            if field is None:
                return ".".join(path[: i + 1])
            annotation = field.annotation
        elif origin in (list, tuple) or annotation in (list, tuple):
            if not part.lstrip("-").isdigit():
                return ".".join(path[: i + 1])
            args = typing.get_args(annotation)
            annotation = args[0] if args else Any
        else:
            return None  # dicts and Any: keys are only known at run time
    return None


def _strip_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, UnionType):
        args = [a for a in typing.get_args(annotation) if a is not NoneType]
        if len(args) == 1:
            return args[0]
    return annotation


@dataclass(frozen=True, slots=True)
class _InputFields:
    adapters: Mapping[str, TypeAdapter[Any]]
    names: frozenset[str]
    required: frozenset[str]


@lru_cache(maxsize=512)
def _input_fields(model: type[BaseModel]) -> _InputFields:
    fields = model.model_fields
    return _InputFields(
        adapters={
            name: TypeAdapter(field.annotation if field.annotation is not None else Any)
            for name, field in fields.items()
        },
        names=frozenset(fields),
        required=frozenset(name for name, field in fields.items() if field.is_required()),
    )


def _check_params(
    task: TaskSpec, skill: SkillDefinition, fields: _InputFields, referenced: AbstractSet[str]
) -> list[str]:
    """Params against the skill's input model; params holding references are checked at run time."""
    params = task.params
    if not referenced:
        try:
            skill.input_model.model_validate(params)
        except ValidationError as exc:
            return [_param_error(task, skill, err) for err in exc.errors()]
        return []
    given = params.keys()
    errors = [
        f"Task {task.id}: skill {skill.name} has no param {name!r} "
        f"(its params: {', '.join(sorted(fields.names)) or 'none'})."
        for name in sorted(given - fields.names)
    ]
    errors.extend(
        f"Task {task.id}: skill {skill.name} needs param {name!r}."
        for name in sorted(fields.required - given)
    )
    for name in given - referenced:
        adapter = fields.adapters.get(name)
        if adapter is None:
            continue
        try:
            adapter.validate_python(params[name])
        except ValidationError as exc:
            errors.extend(_param_error(task, skill, err, prefix=(name,)) for err in exc.errors())
    return errors


def _param_error(task: TaskSpec, skill: SkillDefinition, err: Any, prefix: tuple[str, ...] = ()) -> str:
    loc = ".".join(str(p) for p in (*prefix, *err["loc"])) or "params"
    if err["type"] == "missing":
        return f"Task {task.id}: skill {skill.name} needs param {loc!r}."
    if err["type"] == "extra_forbidden":
        return f"Task {task.id}: skill {skill.name} has no param {loc!r}."
    return f"Task {task.id}: param {loc!r} of skill {skill.name}: {err['msg']}."
