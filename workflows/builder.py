"""Writing a :class:`~workflows.definition.WorkflowDefinition` in code: a plan builder with handles.

A task added to a :class:`Plan` returns a :class:`Handle`; ``handle["events"]`` (or ``handle.output``
for the whole output) is a :class:`Ref` to use as a param value, anywhere inside the params (in a list,
in a dict). Building turns each reference into the ``"{{task.output.path}}"`` string the engine
resolves, and every task a task's params refer to becomes one of its ``depends_on``: nobody writes a
reference string or a dependency list by hand, so neither can name a task that is not there or
forget one that is. A task that must wait for another whose output it does not read says so with
``after``.

Ids are the ones asked for (``"find"``, ``"apply"``), made unique by a suffix when a plan holds two
parts that ask for the same one, which is how one plan holds several requests: each part is built by
the same code into the same plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workflows.definition import TaskSpec, WorkflowDefinition

__all__ = ["Handle", "Plan", "Ref"]

_REFERENCE = re.compile(r"^\{\{(?P<task>[A-Za-z0-9][\w-]*)\.output(?:\.(?P<path>[^{}]+))?\}\}$")


@dataclass(frozen=True, slots=True)
class Ref:
    """An earlier task's output (``path`` empty) or a field of it, as a param value."""

    task: str
    path: str = ""

    def __str__(self) -> str:
        return "{{" + self.task + ".output" + (f".{self.path}" if self.path else "") + "}}"

    @classmethod
    def parse(cls, text: str) -> Ref | None:
        """The reference a whole string is (``"{{plan.output}}"``), or None for any other string."""
        m = _REFERENCE.match(text)
        return cls(m["task"], m["path"] or "") if m is not None else None


@dataclass(frozen=True, slots=True)
class Handle:
    """A task of a plan, by its (unique) id."""

    id: str

    def __getitem__(self, path: str) -> Ref:
        return Ref(self.id, path)

    @property
    def output(self) -> Ref:
        return Ref(self.id)


class Plan:
    """Tasks added in the order they run; :meth:`build` makes the definition."""

    def __init__(self) -> None:
        self._tasks: list[TaskSpec] = []

    def __len__(self) -> int:
        return len(self._tasks)

    def add(
        self,
        skill: str,
        params: Mapping[str, Any] | None = None,
        *,
        id: str,
        summary: str = "",
        after: Iterable[Handle] = (),
    ) -> Handle:
        """Add a task; its dependencies are the tasks its params refer to, then those of ``after``."""
        taken = {t.id for t in self._tasks}
        unique, n = id, 1
        while unique in taken:
            n += 1
            unique = f"{id}-{n}"
        needs: list[str] = []
        resolved = {key: _resolved(value, needs) for key, value in (params or {}).items()}
        for handle in after:
            if handle.id not in needs:
                needs.append(handle.id)
        unknown = [task for task in needs if task not in taken]
        if unknown:
            raise ValueError(f"{skill} refers to {', '.join(unknown)}, which this plan does not hold")
        self._tasks.append(
            TaskSpec(id=unique, skill=skill, params=resolved, depends_on=tuple(needs), summary=summary)
        )
        return Handle(unique)

    def include(self, definition: WorkflowDefinition, *, without: Collection[str] = ()) -> dict[str, Handle]:
        """Add the tasks of a definition built elsewhere as a part of this plan, leaving out those
        named in ``without`` (and nothing may depend on them); the handles of the tasks added, by
        their ids in ``definition``. Its references are read back into handles, so the part's ids
        are made unique here like any other."""
        handles: dict[str, Handle] = {}
        for task in definition.tasks:
            if task.id in without:
                continue
            lost = [dep for dep in task.depends_on if dep in without]
            if lost:
                raise ValueError(f"{task.id} depends on {', '.join(lost)}, which is left out")
            params = {key: _as_refs(value, handles) for key, value in task.params.items()}
            after = [handles[dep] for dep in task.depends_on]
            handles[task.id] = self.add(task.skill, params, id=task.id, summary=task.summary, after=after)
        return handles

    def build(self, name: str, *, summary: str = "", output: Handle | None = None) -> WorkflowDefinition:
        return WorkflowDefinition(
            name=name, summary=summary, tasks=tuple(self._tasks), output=output.id if output else None
        )


def _resolved(value: Any, needs: list[str]) -> Any:
    """``value`` with its references as strings, each task referred to added to ``needs`` once."""

    def leaf(item: Any) -> Any:
        if not isinstance(item, Ref):
            return item
        if item.task not in needs:
            needs.append(item.task)
        return str(item)

    return _leaves(value, leaf)


def _as_refs(value: Any, handles: Mapping[str, Handle]) -> Any:
    """``value`` with each whole-string reference to a task of ``handles`` made a :class:`Ref` again."""

    def leaf(item: Any) -> Any:
        ref = Ref.parse(item) if isinstance(item, str) else None
        return Ref(handles[ref.task].id, ref.path) if ref is not None and ref.task in handles else item

    return _leaves(value, leaf)


def _leaves(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """``value`` with ``leaf`` applied to everything inside its mappings, lists and tuples."""
    if isinstance(value, Mapping):
        return {key: _leaves(item, leaf) for key, item in value.items()}
    if isinstance(value, list):
        return [_leaves(item, leaf) for item in value]
    if isinstance(value, tuple):
        return tuple(_leaves(item, leaf) for item in value)
    return leaf(value)
