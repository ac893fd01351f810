"""A confirmed bulk move: "move all my standups one hour later" over 500 occurrences, preview and apply.

The skills are called the way the executor calls them (input validated by the definition's model,
output validated and dumped to JSON, a fresh :class:`SkillContext` per task): ``plan_move`` with a
shift, ``apply_changes`` until it pauses for the confirmation (the preview), then ``apply_changes``
again with the approval, as the resumed task runs (the apply).  Finding the events is setup: it is
the read-only part every chat turn has, measured by the chat row.

The same move runs on two calendars, one with a realistic number of other events and one with ten
times as many, and the SQL queries of each are counted.  The same number per changed event at both
sizes shows that nothing is read per other event; how small it is shows that the targets are read
for all at once rather than one by one.  The fuller calendar's time is reported too: the preview's
conflict check looks at every other event in the moved range, so it grows with the calendar.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from assistant.bench.demo import WEEKDAYS, preferences_set
from assistant.bench.timing import Timing, measure
from skills.context import Interrupt, SkillContext
from skills.models import AppliedOperation, Calendar, ChangeRecord, Event
from skills.registry import REGISTRY
from skills.services import calendar_create, event_create

__all__ = ["MOVED", "BulkWorld", "QueryCount", "bulk_move", "bulk_world"]

TIMEZONE = "America/New_York"
MOVED = 500
TITLE = "Standup"
# Per size unit: weekly meetings and classes, and one-off appointments spread over the moved range.
_SERIES = 20
_ONE_OFFS = 1000


@dataclass(frozen=True, slots=True)
class BulkWorld:
    """A user whose calendar holds other events and, per repetition, a fresh daily standup series."""

    user: Any
    tz: ZoneInfo
    calendar: Calendar
    start: datetime
    end: datetime
    others: int


@dataclass(frozen=True, slots=True)
class QueryCount:
    """SQL queries of one preview and one apply, and how many events the apply changed.

    ``capped``: a count reached the limit of Django's query log, so the true number is higher.
    """

    preview: int
    apply: int
    changed: int
    capped: bool = False

    @property
    def per_event(self) -> str:
        """Queries per changed event, preview and apply together, as the table prints them."""
        return ("≥" if self.capped else "") + f"{(self.preview + self.apply) / self.changed:.2f}"


def bulk_world(scale: int) -> BulkWorld:
    """Create a user with ``scale`` times 20 weekly series and 1,000 one-offs over the next 500 days."""
    tz = ZoneInfo(TIMEZONE)
    tag = uuid.uuid4().hex[:8]
    user = get_user_model().objects.create_user(
        username=f"bench-{tag}-bulk", email=f"bulk-{tag}@bench.invalid", password=None
    )
    preferences_set(user, TIMEZONE)
    first = timezone.now().astimezone(tz).date() + timedelta(days=1)
    start = datetime.combine(first, time(), tz)
    end = start + timedelta(days=MOVED)
    work = calendar_create(owner=user, key="work", name="Work", timezone=TIMEZONE, is_default=True)
    rng = random.Random(20260307 + scale)  # the same calendar every run, so runs compare
    for i in range(_SERIES * scale):
        begin = datetime.combine(first, time(rng.randrange(10, 17), rng.choice((0, 30))), tz)
        event_create(
            calendar=work,
            summary=f"Weekly {i}",
            start=begin,
            end=begin + timedelta(minutes=30),
            rrule=f"FREQ=WEEKLY;BYDAY={rng.choice(WEEKDAYS)};COUNT={MOVED // 7}",
        )
    for i in range(_ONE_OFFS * scale):
        day = first + timedelta(days=rng.randrange(MOVED))
        begin = datetime.combine(day, time(rng.randrange(8, 20), rng.choice((0, 15, 30, 45))), tz)
        event_create(
            calendar=work,
            summary=f"Appointment {i}",
            start=begin,
            end=begin + timedelta(minutes=rng.choice((30, 45, 60))),
        )
    others = _SERIES * scale * (MOVED // 7) + _ONE_OFFS * scale
    return BulkWorld(user=user, tz=tz, calendar=work, start=start, end=end, others=others)


def _reset(world: BulkWorld) -> list[dict[str, Any]]:
    """Put back a fresh daily standup series of 500 occurrences and find them, as the chat's find
    task would; returns the found events as the plan task receives them (JSON).

    A new series (and a new run per move) rather than undoing the last move, so every repetition
    writes 500 new overrides and none replays an earlier one.
    """
    Event.objects.filter(calendar=world.calendar, summary=TITLE).delete()
    ChangeRecord.objects.filter(owner=world.user).delete()
    AppliedOperation.objects.filter(owner=world.user).delete()
    begin = world.start + timedelta(hours=9)
    event_create(
        calendar=world.calendar,
        summary=TITLE,
        start=begin,
        end=begin + timedelta(minutes=15),
        rrule=f"FREQ=DAILY;COUNT={MOVED}",
    )
    found = _call(
        "find_events",
        _context(world),
        {"start": world.start.isoformat(), "end": world.end.isoformat(), "text": TITLE},
    )
    assert found["count"] == MOVED, found["count"]
    return list(found["events"])


def _context(world: BulkWorld, *, run_id: str = "", answer: Any = None) -> SkillContext:
    ctx = SkillContext(user=world.user, tz=world.tz, run_id=run_id, task_id="apply")
    if answer is not None:
        ctx.answer = answer
    return ctx


def _call(name: str, ctx: SkillContext, raw: dict[str, Any]) -> dict[str, Any]:
    """A skill called as the executor calls it: input validated, output validated and dumped."""
    definition = REGISTRY.get(name)
    params = definition.input_model.model_validate(raw)
    output: dict[str, Any] = definition.output_model.model_validate(definition.func(ctx, params)).model_dump(
        mode="json"
    )
    return output


def _preview(world: BulkWorld, events: list[dict[str, Any]], run_id: str) -> tuple[dict[str, Any], str]:
    """Plan the move and run ``apply_changes`` up to its confirmation; returns the plan and digest."""
    plan = _call("plan_move", _context(world), {"events": events, "shift_minutes": 60})
    try:
        _call("apply_changes", _context(world, run_id=run_id), {"changes": plan, "approved": False})
    except Interrupt as pause:
        return plan, str(pause.payload["digest"])
    raise AssertionError("apply_changes did not ask to confirm a move of 500 events")


def _apply(world: BulkWorld, plan: dict[str, Any], digest: str, run_id: str) -> int:
    """The resumed ``apply_changes`` with the approval; returns how many events it changed."""
    answer = {"approve": True, "digest": digest}
    reply = _call("apply_changes", _context(world, run_id=run_id, answer=answer), {"changes": plan})
    assert reply["kind"] == "done", reply["text"]
    return len(reply["data"]["applied"])


def _move(world: BulkWorld) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The timed call (preview then apply of one move) and the setup that readies a fresh one."""
    events: list[list[dict[str, Any]]] = []

    def setup() -> None:
        events[:] = [_reset(world)]

    def call() -> None:
        run_id = str(uuid.uuid4())
        plan, digest = _preview(world, events[0], run_id)
        _apply(world, plan, digest, run_id)

    return call, setup


def bulk_move(world: BulkWorld, *, repeat: int) -> tuple[Timing, QueryCount]:
    """Preview plus apply of the 500-occurrence move, each on a freshly reset series, and the SQL
    queries of one more, counted first (capturing queries slows a run, so that one is not timed;
    it warms the caches a running server has warm instead of a separate warm-up).
    """
    events = _reset(world)
    run_id = str(uuid.uuid4())
    # The query log keeps the last 9,000 queries in all; emptied first, each count starts at zero
    # and only a count of 9,000 or more is cut short.
    reset_queries()
    with CaptureQueriesContext(connection) as previewed:
        plan, digest = _preview(world, events, run_id)
    reset_queries()
    with CaptureQueriesContext(connection) as applied:
        changed = _apply(world, plan, digest, run_id)
    count = QueryCount(
        preview=len(previewed),
        apply=len(applied),
        changed=changed,
        capped=max(len(previewed), len(applied)) >= connection.queries_limit,
    )
    call, setup = _move(world)
    return measure(call, repeat=repeat, warmup=0, setup=setup), count
