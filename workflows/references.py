"""The one reference syntax of workflow params: ``{{task_id.output.path}}``.

Kept apart so validation (which checks references statically) and execution (which resolves them
against stored outputs) cannot disagree about what a reference is.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "Condition",
    "Reference",
    "UnresolvedReferenceError",
    "evaluate_condition",
    "find_references",
    "parse_condition",
    "parse_references",
    "resolve_params",
]

REF_RE = re.compile(r"\{\{\s*([A-Za-z0-9][\w-]*)\.output((?:\.[\w-]+)*)\s*\}\}")
_WHOLE_REF_RE = re.compile(r"^\s*" + REF_RE.pattern + r"\s*$")
_CONDITION_RE = re.compile(
    r"^\s*(?P<neg>not\s+)?(?P<ref>\{\{[^}]*\}\})\s*(?:(?P<op>==|!=|>=|<=|>|<)\s*(?P<lit>.+?))?\s*$"
)
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}


class UnresolvedReferenceError(ValueError):
    """A reference cannot be resolved against the outputs at hand."""


@dataclass(frozen=True, slots=True)
class Reference:
    task_id: str
    path: tuple[str, ...]
    text: str

    def resolve(self, outputs: Mapping[str, Any]) -> Any:
        if self.task_id not in outputs:
            raise UnresolvedReferenceError(f"{self.text} refers to task {self.task_id}, which has no output")
        value = outputs[self.task_id]
        for i, part in enumerate(self.path):
            if isinstance(value, Mapping) and part in value:
                value = value[part]
            elif (
                isinstance(value, list)
                and part.lstrip("-").isdigit()
                and -len(value) <= int(part) < len(value)
            ):
                value = value[int(part)]
            else:
                where = ".".join(self.path[: i + 1])
                raise UnresolvedReferenceError(
                    f"{self.text}: the output of task {self.task_id} has no {where}"
                )
        return value


@dataclass(frozen=True, slots=True)
class Condition:
    reference: Reference
    negate: bool = False
    op: str | None = None
    literal: Any = None


def _ref(match: re.Match[str]) -> Reference:
    path = tuple(p for p in match.group(2).split(".") if p)
    return Reference(task_id=match.group(1), path=path, text=match.group(0))


@lru_cache(maxsize=16384)
def parse_references(text: str) -> tuple[Reference, ...]:
    """The references inside one string; cached, since a plan repeats the same few many times."""
    return tuple(_ref(m) for m in REF_RE.finditer(text)) if "{{" in text else ()


def find_references(value: Any) -> list[Reference]:
    """Every reference inside a params value, however deeply nested."""
    found: list[Reference] = []
    _collect(value, found)
    return found


def _collect(value: Any, found: list[Reference]) -> None:
    if isinstance(value, str):
        if "{{" in value:
            found.extend(parse_references(value))
    elif isinstance(value, Mapping):
        for v in value.values():
            _collect(v, found)
    elif isinstance(value, list | tuple):
        for v in value:
            # Lists of reference strings (a join's inputs) are the common case: no call per item.
            if isinstance(v, str):
                if "{{" in v:
                    found.extend(parse_references(v))
            else:
                _collect(v, found)


def resolve_params(value: Any, outputs: Mapping[str, Any]) -> Any:
    """A copy of ``value`` with each reference replaced by the output it names."""
    if isinstance(value, str):
        if "{{" not in value:
            return value
        whole = _WHOLE_REF_RE.match(value)
        if whole:
            return _ref(whole).resolve(outputs)
        return REF_RE.sub(lambda m: _as_text(_ref(m).resolve(outputs)), value)
    if isinstance(value, Mapping):
        return {k: resolve_params(v, outputs) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [resolve_params(v, outputs) for v in value]
    return value


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def parse_condition(text: str) -> Condition:
    """Parse a ``when`` condition; raises ValueError with a message that shows the accepted forms."""
    m = _CONDITION_RE.match(text)
    ref = REF_RE.fullmatch(m.group("ref")) if m else None
    if m is None or ref is None:
        raise ValueError(
            f"condition {text!r} is not of the form '{{{{task.output.field}}}}', "
            "'not {{task.output.field}}' or '{{task.output.field}} > 0'"
        )
    literal: Any = None
    if m.group("op"):
        raw = m.group("lit")
        try:
            literal = json.loads(raw)
        except json.JSONDecodeError:
            literal = raw.strip("'\"")
    return Condition(reference=_ref(ref), negate=bool(m.group("neg")), op=m.group("op"), literal=literal)


def evaluate_condition(condition: Condition, outputs: Mapping[str, Any]) -> bool:
    value = condition.reference.resolve(outputs)
    if condition.op is None:
        result = bool(value)
    else:
        try:
            result = _OPS[condition.op](value, condition.literal)
        except TypeError as exc:
            raise UnresolvedReferenceError(
                f"cannot compare {value!r} {condition.op} {condition.literal!r}"
            ) from exc
    return not result if condition.negate else result
