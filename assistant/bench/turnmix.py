"""The rule decomposer timed on the turns the scenarios really send it, reported per class of turn.

A fixed list of read-only questions made the decomposer look cheaper than it is: a write request
costs several times a read.  So the turns come from the shared scenarios instead, each conversation
played once through the real chat path (:func:`assistant.scenarios.run_scenario`: its world, its
fixed clock, its rollback).  While it plays, ``decompose`` and ``answer_for`` are wrapped where
``assistant.services`` calls them; every call the chat makes goes through untouched (that call is
the chat's, and is not timed), then the same function is timed on the very arguments the chat
passed.  The timing happens there and then, not after the conversation, because the decomposer
reads the user's calendars, which exist only until the scenario's transaction is rolled back, and
the clock, which is the scenario's only while it plays.

The classes, first match wins:

- ``answer``: a message ``answer_for`` read as the reply to a waiting question (DECLINE included);
- ``write``: the decision's workflow holds a skill of kind ``write`` (it changes calendars or
  preferences);
- ``follow-up``: not the conversation's first turn, and the decision differs when the same request
  is decomposed without the conversation's state (every request field that has a default, which
  today are the history and the context, reset to it);
- ``read``: the rest.

An ``answer_for`` call that finds no answer leaves its turn to the decomposer, and the turn is
classed (and timed) by what the decomposer makes of it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

from django.conf import settings

from assistant.bench.timing import Timing, measure, summarise
from skills.registry import REGISTRY

__all__ = ["CLASSES", "TurnMix", "decision_writes", "request_without_state", "scenario_folders", "turn_mix"]

CLASSES = ("read", "write", "follow-up", "answer")


def scenario_folders() -> list[Path]:
    """The shared scenarios and the real SGD dialogues, read in place (never copied).

    Both, even in a quick run: only the dialogues have turns that are follow-ups without being writes.
    """
    scenarios = settings.BASE_DIR.parent / "shared" / "scenarios"
    return [scenarios, scenarios / "sgd"]


@dataclass
class TurnMix:
    """Samples (ms) per class, pooled over the class's turns, and what was played to get them."""

    samples: dict[str, list[float]] = field(default_factory=lambda: {c: [] for c in CLASSES})
    turns: Counter[str] = field(default_factory=Counter)
    decisions: dict[str, Counter[str]] = field(default_factory=lambda: {c: Counter() for c in CLASSES})
    conversations: int = 0
    not_answers: int = 0  # answer_for calls that found no answer and left the turn to the decomposer

    def timing(self, kind: str) -> Timing | None:
        return summarise(self.samples[kind]) if self.samples[kind] else None


class _Recorder:
    """Stands in for ``decompose`` and ``answer_for`` while the scenarios play; see the module doc.

    A failure of the bench's own work is kept rather than raised: raised inside the chat, it would
    be reported as the scenario's crashed turn and the turn would silently vanish from the mix.
    """

    def __init__(self, *, repeat: int, decompose: Callable[..., Any], answer_for: Callable[..., Any]) -> None:
        self.mix = TurnMix()
        self.failures: list[BaseException] = []
        self._repeat = repeat
        self._decompose = decompose
        self._answer_for = answer_for
        self._calls = 0

    def conversation(self) -> None:
        self.mix.conversations += 1
        self._calls = 0

    def decompose(self, request: Any) -> Any:
        decision = self._decompose(request)
        first = self._calls == 0
        self._calls += 1
        try:
            kind = self._classify(request, decision, first=first)
            self._take(kind, partial(self._decompose, request))
            self.mix.decisions[kind][decision.kind] += 1
        except Exception as exc:
            self.failures.append(exc)
        return decision

    def answer_for(self, *args: Any, **kwargs: Any) -> Any:
        from assistant.answers import NOT_AN_ANSWER

        answer = self._answer_for(*args, **kwargs)
        self._calls += 1
        if answer is NOT_AN_ANSWER:
            self.mix.not_answers += 1
            return answer
        try:
            self._take("answer", partial(self._answer_for, *args, **kwargs))
        except Exception as exc:
            self.failures.append(exc)
        return answer

    def _take(self, kind: str, call: Callable[[], Any]) -> None:
        """Time the call; no warm-up, the chat's own call just made was one."""
        self.mix.samples[kind].extend(measure(call, repeat=self._repeat, warmup=0).samples)
        self.mix.turns[kind] += 1

    def _classify(self, request: Any, decision: Any, *, first: bool) -> str:
        if decision_writes(decision):
            return "write"
        if not first and _essence(self._decompose(request_without_state(request))) != _essence(decision):
            return "follow-up"
        return "read"


def decision_writes(decision: Any) -> bool:
    """Whether the decision's workflow would change calendars or preferences (a ``write`` skill)."""
    if decision.workflow is None:
        return False
    return any(t.skill in REGISTRY and REGISTRY.get(t.skill).kind == "write" for t in decision.workflow.tasks)


def request_without_state(request: Any) -> Any:
    """The same request as a first turn would carry it: every field with a default reset to it.

    Fields, not names: a field added to the request for the conversation's state is reset too.
    """
    reset = {}
    for f in dataclasses.fields(request):
        if f.default is not dataclasses.MISSING:
            reset[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            reset[f.name] = f.default_factory()
    return dataclasses.replace(request, **reset)


def _essence(decision: Any) -> dict[str, Any]:
    """A decision without its trace id, which is new on every call."""
    essence: dict[str, Any] = decision.model_dump(mode="json", exclude={"trace_id"})
    return essence


def turn_mix(*, folders: list[Path], repeat: int) -> TurnMix:
    """Play every scenario in ``folders`` once, timing each decompose/answer_for call ``repeat`` times."""
    from assistant import services
    from assistant.scenarios import run_scenario, scenario_files

    recorder = _Recorder(repeat=repeat, decompose=services.decompose, answer_for=services.answer_for)
    with (
        mock.patch.object(services, "decompose", recorder.decompose),
        mock.patch.object(services, "answer_for", recorder.answer_for),
    ):
        for path in scenario_files(folders):
            recorder.conversation()
            run_scenario(path)
    if recorder.failures:
        raise recorder.failures[0]
    return recorder.mix
