"""Work done once per chat turn: a turn's text is read by many rules, and several of them normalise or
classify the same words.

Within :func:`one_turn` a function marked :func:`per_turn` is computed once per argument, and the time
resolver lexes and parses each text once per reference time (:func:`assistant.timeexpr.one_reading`).
Nothing is kept after the turn: the next one, at another clock and with another calendar, starts
afresh. Only pure functions of their argument with immutable results may be marked; :func:`shared`
keeps one value the turn's parts all read (the user's world, looked up lazily) under a key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import wraps
from typing import Any, TypeVar

from django.utils import timezone

from assistant.timeexpr import one_reading

__all__ = ["one_turn", "per_turn", "shared", "turn_now"]

T = TypeVar("T")

_MEMO: ContextVar[dict[tuple[Any, str], Any] | None] = ContextVar("assistant.turnmemo", default=None)


@contextmanager
def one_turn() -> Iterator[None]:
    """The block reads one turn (inside another, it is that one's)."""
    with one_reading():
        if _MEMO.get() is not None:
            yield
            return
        token = _MEMO.set({})
        try:
            yield
        finally:
            _MEMO.reset(token)


def per_turn(fn: Callable[[str], T]) -> Callable[[str], T]:
    """``fn`` computed once per text within a turn, and as it is outside one."""

    @wraps(fn)
    def wrapper(text: str) -> T:
        memo = _MEMO.get()
        if memo is None:
            return fn(text)
        key = (fn, text)
        if key in memo:
            result: T = memo[key]
            return result
        result = memo[key] = fn(text)
        return result

    return wrapper


def shared(key: str, make: Callable[[], T]) -> T:
    """What ``make`` gives, made once within a turn under ``key`` (and each time outside one)."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    slot = (shared, key)
    if slot not in memo:
        memo[slot] = make()
    result: T = memo[slot]
    return result


def turn_now() -> datetime:
    """The turn's clock, read once: its reading and its gate see the same moment (a turn read across
    midnight is of one day), and the time resolver, whose parses are kept by reference time, parses
    a text the gate reads again once (the gate's own clock, microseconds later, parsed it afresh)."""
    return shared("now", timezone.now)
