"""A registry of tiny skills for engine tests: real skills, registered the real way, doing little."""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel

from skills.context import SkillContext
from skills.errors import SkillError
from skills.providers.base import NotFoundError, TransientProviderError
from skills.registry import RetryPolicy, SkillRegistry
from skills.schemas import SkillInput

registry = SkillRegistry()
calls: dict[str, int] = {}
_lock = threading.Lock()


class FlakyError(Exception):
    pass


class NumberIn(SkillInput):
    value: int = 0
    values: list[int] = []


class NumberOut(BaseModel):
    value: int
    items: list[int] = []


class FailIn(SkillInput):
    message: str = "boom"


class AskIn(SkillInput):
    question: str


class AskOut(BaseModel):
    answer: Any


def _count(name: str) -> None:
    with _lock:
        calls[name] = calls.get(name, 0) + 1


@registry.skill(service="test")
def emit(ctx: SkillContext, params: NumberIn) -> NumberOut:
    """Return the given number (and list)."""
    _count("emit")
    return NumberOut(value=params.value, items=params.values)


@registry.skill(service="test")
def add(ctx: SkillContext, params: NumberIn) -> NumberOut:
    """Sum a list of numbers plus a value."""
    _count("add")
    return NumberOut(value=params.value + sum(params.values))


@registry.skill(service="test")
def fail(ctx: SkillContext, params: FailIn) -> NumberOut:
    """Always fail with the given message."""
    raise SkillError(params.message)


@registry.skill(service="test", retry=RetryPolicy(on=(FlakyError,), max_attempts=3, initial_delay=0.001))
def flaky(ctx: SkillContext, params: NumberIn) -> NumberOut:
    """Fail transiently until the attempt number reaches the value."""
    _count("flaky")
    if ctx.attempt < params.value:
        raise FlakyError("try again")
    return NumberOut(value=ctx.attempt)


@registry.skill(service="test", kind="interaction")
def ask(ctx: SkillContext, params: AskIn) -> AskOut:
    """Ask the user a question."""
    _count("ask")
    return AskOut(answer=ctx.interrupt({"kind": "clarify", "text": params.question}))


@registry.skill(service="test", concurrent=True)
def sleepy(ctx: SkillContext, params: NumberIn) -> NumberOut:
    """Sleep value milliseconds in a worker thread, returning the thread's name hash."""
    import time

    time.sleep(params.value / 1000)
    return NumberOut(value=threading.get_ident() % 1_000_000)


@registry.skill(service="test")
def look_up(ctx: SkillContext, params: FailIn) -> NumberOut:
    """Fail as a step whose event is not there (the plan is wrong, not late)."""
    _count("look_up")
    raise SkillError(params.message) from NotFoundError("no such event")


@registry.skill(
    service="test", retry=RetryPolicy(on=(TransientProviderError,), max_attempts=3, initial_delay=0.001)
)
def unreachable(ctx: SkillContext, params: FailIn) -> NumberOut:
    """Fail transiently on every attempt (a server that stays down)."""
    _count("unreachable")
    raise TransientProviderError(params.message)


@registry.skill(service="test", kind="write")
def write(ctx: SkillContext, params: NumberIn) -> NumberOut:
    """Stand for a write to a calendar: counted, so a test sees whether it happened twice."""
    _count("write")
    return NumberOut(value=params.value)
