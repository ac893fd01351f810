"""Running one scenario: build its world, play its turns through the chat path, check the result.

Everything a scenario writes happens inside one transaction that is rolled back at the end, so a run
leaves the database as it found it, and scenarios cannot see each other.  The clock is fixed with
time-machine; ``restart: true`` drops every in-process cache and re-reads the user and the
conversation from the database, as a server restart days later would.

With ``provider="google"`` or ``"caldav"`` the calendars live on a server instead (see
:mod:`assistant.scenarios.remote`): the same turns, replies and checks, with outside edits made on the
server and the final checks read from a mirror rebuilt from the server alone.

Every model call made while a scenario runs (the planner's, an LLM skill's) is gathered, and the
result carries their totals (:class:`~assistant.evaluation.model_calls.CallTotals`).
"""

from __future__ import annotations

import dataclasses
import time as wallclock
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import time_machine
from celery import current_app
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import transaction
from django.test.utils import override_settings

from assistant.evaluation.model_calls import CallTotals
from assistant.llm.calls import collect_calls
from assistant.models import Conversation
from assistant.runtime import drop_caches
from assistant.scenarios.checks import run_check
from assistant.scenarios.judge import Occ, continuations
from assistant.scenarios.remote import RemoteCalendars, remote_calendars, resync_and_compare
from assistant.scenarios.spec import Scenario, TurnSpec, load_scenario
from assistant.scenarios.world import ScenarioWorld, build_world, local_dt, snapshot
from assistant.scenarios.writes import audit_writes
from assistant.services import chat_turn, conversation_create
from skills.models import Event
from skills.providers import provider_for
from skills.providers.base import EventData, Scope

__all__ = ["ScenarioResult", "run_scenario", "scenario_files"]


@dataclass
class ScenarioResult:
    name: str
    turns: int
    checks: int
    turns_passed: int = 0
    checks_passed: int = 0
    ms: float = 0.0
    failures: list[str] = field(default_factory=list)
    replies: list[dict[str, Any]] = field(default_factory=list)
    model: CallTotals = field(default_factory=CallTotals)
    # Writes the checks forbid or cannot explain (a scenario with one fails), and writes to events no
    # check names (listed for whoever writes the scenario; see :mod:`assistant.scenarios.writes`).
    unexpected_writes: list[str] = field(default_factory=list)
    unchecked_writes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return (
            not self.failures
            and not self.unexpected_writes
            and self.turns_passed == self.turns
            and self.checks_passed == self.checks
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "turns_passed": self.turns_passed,
            "turns": self.turns,
            "checks_passed": self.checks_passed,
            "checks": self.checks,
            "ms": round(self.ms, 1),
            "failures": self.failures,
            "unexpected_writes": self.unexpected_writes,
            "unchecked_writes": self.unchecked_writes,
            "transcript": self.replies,
            "model": self.model.as_json(),
        }


def scenario_files(paths: list[Path]) -> list[Path]:
    """The ``*.yaml``/``*.yml`` files named, or found in the folders named, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")))
        else:
            found.append(path)
    return found


@contextmanager
def _isolated() -> Iterator[None]:
    """Run inside a transaction that is always rolled back, with mail kept in memory."""
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        mail.outbox = []
        with transaction.atomic():
            try:
                yield
            finally:
                transaction.set_rollback(True)


def run_scenario(
    path_or_scenario: Path | Scenario, *, provider: str = "local", remote: RemoteCalendars | None = None
) -> ScenarioResult:
    """Play one scenario with its calendars on ``provider`` ("local", "google" or "caldav").

    A remote provider's server is ``remote`` when given (one server for many scenarios), else one
    started for this run.
    """
    scenario = path_or_scenario if isinstance(path_or_scenario, Scenario) else load_scenario(path_or_scenario)
    result = ScenarioResult(name=scenario.name, turns=len(scenario.turns), checks=len(scenario.final))
    started = wallclock.perf_counter()
    eager_before = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True  # the runner's transaction is invisible to workers
    try:
        with ExitStack() as stack:
            calls = stack.enter_context(collect_calls())
            if provider != "local" and remote is None:
                remote = stack.enter_context(remote_calendars(provider))
            if remote is not None:
                if remote.kind != provider:
                    raise ValueError(f"A {remote.kind} server cannot run a {provider} scenario.")
                stack.enter_context(
                    override_settings(CREDENTIAL_KEYS=[remote.credential_key], **remote.settings())
                )
            with _isolated():
                _play(scenario, result, remote)
            result.model = CallTotals.of(calls)
    finally:
        current_app.conf.task_always_eager = eager_before
        drop_caches()
    result.ms = (wallclock.perf_counter() - started) * 1000
    return result


def _play(scenario: Scenario, result: ScenarioResult, remote: RemoteCalendars | None) -> None:
    tz = ZoneInfo(scenario.timezone)
    start = local_dt(scenario.now, tz)
    with time_machine.travel(start, tick=False) as clock:
        world = build_world(scenario, run_tag=f"sc{uuid.uuid4().hex[:10]}", remote=remote)
        conversation = conversation_create(user=world.user, title=scenario.name)
        for number, turn in enumerate(scenario.turns, start=1):
            if turn.at:
                clock.move_to(local_dt(turn.at, tz))
            if turn.restart:
                drop_caches()
                world.user = get_user_model().objects.get(pk=world.user.pk)
                conversation = Conversation.objects.get(pk=conversation.pk)
            edited: dict[str, Occ | None] = {}
            try:
                edited = _outside_edits(world, turn)
            except Exception as exc:
                result.failures.append(f"turn {number}: outside edit failed: {exc}")
            for key, occ in edited.items():  # someone else's writes are not the assistant's
                if occ is None:
                    world.baseline.pop(key, None)
                else:
                    world.baseline[key] = occ
            problem = _turn(world, conversation, turn, result, edited)
            if remote is not None:
                mail.outbox.extend(remote.delivered_mail())
            if problem:
                result.failures.append(f"turn {number}: {problem}")
                result.replies[-1]["problem"] = problem
            else:
                result.turns_passed += 1
            conversation = Conversation.objects.get(pk=conversation.pk)
        final = snapshot(world)
        if remote is not None:
            final, drift = resync_and_compare(world, final)
            result.failures.extend(f"mirror drift: {line}" for line in drift)
        world.continued = continuations(world.initial, final)
        writes = audit_writes(world, final, scenario.final)
        result.unexpected_writes, result.unchecked_writes = writes.unexpected, writes.unchecked
        for check in scenario.final:
            problem = run_check(world, final, check)
            if problem:
                result.failures.append(f"check {check.describe()}: {problem}")
            else:
                result.checks_passed += 1


def _turn(
    world: ScenarioWorld,
    conversation: Conversation,
    turn: TurnSpec,
    result: ScenarioResult,
    edited: dict[str, Occ | None],
) -> str | None:
    # On a server the outside edits are not in the mirror yet; the turn is judged against the
    # calendar as it is (with them), so that noticing them is not counted as the turn's change.
    before = {**snapshot(world), **edited}
    before = {key: occ for key, occ in before.items() if occ is not None}
    try:
        reply = chat_turn(user=world.user, conversation=conversation, text=turn.user)
    except Exception as exc:  # a crash is a failed turn, reported, not a crashed runner
        result.replies.append({"user": turn.user, "kind": "crash", "text": f"{type(exc).__name__}: {exc}"})
        return f"crashed: {type(exc).__name__}: {exc}"
    if reply is None:
        result.replies.append({"user": turn.user, "kind": "none", "text": ""})
        return "no reply"
    result.replies.append({"user": turn.user, "kind": reply.kind, "text": reply.text})
    expect = turn.expect
    text = reply.text.casefold()
    if reply.kind not in expect.kinds:
        return f"expected kind {'/'.join(expect.kinds)}, got {reply.kind}: {reply.text[:200]!r}"
    for needle in expect.mentions:
        options = [needle] if isinstance(needle, str) else needle
        if not any(o.casefold() in text for o in options):
            return f"reply does not mention {' or '.join(map(repr, options))}: {reply.text[:300]!r}"
    for needle in expect.not_mentions:
        if needle.casefold() in text:
            return f"reply mentions {needle!r}: {reply.text[:300]!r}"
    if expect.changed is not None:
        changed = _changed(before, snapshot(world))
        if changed != expect.changed:
            return f"expected {expect.changed} events changed, got {changed}"
    return None


def _changed(before: dict[str, Any], after: dict[str, Any]) -> int:
    added = after.keys() - before.keys()
    removed = before.keys() - after.keys()
    modified = sum(1 for k in before.keys() & after.keys() if before[k] != after[k])
    return len(added) + len(removed) + modified


def _outside_edits(world: ScenarioWorld, turn: TurnSpec) -> dict[str, Occ | None]:
    """Edits by someone else, behind the assistant's back: straight to the calendar store, or to the
    server the calendars are on.  Returns each edited occurrence as it now is there (None: deleted) by
    snapshot key (on a server the mirror does not show it yet)."""
    provider = provider_for(world.user)
    edited: dict[str, Occ | None] = {}
    for edit in turn.outside_edits:
        event_id = world.handles[edit.event]
        wanted = date.fromisoformat(edit.occurrence) if edit.occurrence else None
        target = next(
            (
                s
                for s in snapshot(world).values()
                if s.event_id == event_id
                and (wanted is None or (s.recurrence_id or s.start).astimezone(world.tz).date() == wanted)
            ),
            None,
        )
        if target is None:
            raise LookupError(f"no occurrence {edit.model_dump(exclude_unset=True)}")
        master = Event.objects.select_related("calendar").get(pk=event_id) if world.remote else None
        if edit.deleted:
            if world.remote is not None and master is not None:
                world.remote.delete(master, target)
                edited[target.key] = None
                continue
            provider.delete_event(
                event_id=event_id, recurrence_id=target.recurrence_id, scope=Scope.OCCURRENCE
            )
            edited[target.key] = None
            continue
        assert edit.start is not None  # OutsideEdit: a move names its new start
        day = edit.date or target.start.astimezone(world.tz).date().isoformat()
        new_start = local_dt(f"{day}T{edit.start}", world.tz)
        new_end = new_start + (target.end - target.start)
        if world.remote is not None and master is not None:
            world.remote.move(master, target, new_start, new_end)
            edited[target.key] = dataclasses.replace(target, start=new_start, end=new_end)
            continue
        data = EventData(start=new_start, end=new_end)
        provider.update_event(
            event_id=event_id, recurrence_id=target.recurrence_id, data=data, scope=Scope.OCCURRENCE
        )
        edited[target.key] = snapshot(world).get(target.key)
    return edited
