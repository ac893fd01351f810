"""Runs every measurement in one process and one throwaway transaction, and returns the table's rows.

All data (the demo user, the crowded year, the bulk move's calendars, the engine's runs and chat
messages) is written inside one ``transaction.atomic()`` that is rolled back at the end, so the
database is left as it was.
Inside it, the engine's own ``atomic`` blocks become savepoints rather than commits; with WAL and
``synchronous=NORMAL`` a commit is a WAL append without fsync (about 9 µs against 2 µs for a
savepoint, measured on the bench machine), and a run commits about six times, so this spares our
side of the engine comparison a few hundredths of a millisecond per run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from assistant.bench import bulkmove, chat, engine, freeslots, langgraph_dag
from assistant.bench.demo import demo_user
from assistant.bench.report import Row, Target
from assistant.bench.timing import Timing

__all__ = ["FULL", "QUICK", "ROW_NAMES", "BenchRun", "Repeats", "run_bench"]


@dataclass(frozen=True, slots=True)
class Repeats:
    """How many measured calls each row makes (decompose: per turn, 20 turns)."""

    decompose: int
    validate: int
    engine: int
    free_slots: int
    free_slots_cold: int
    chat: int
    bulk_move: int


FULL = Repeats(decompose=20, validate=50, engine=20, free_slots=30, free_slots_cold=5, chat=30, bulk_move=10)
QUICK = Repeats(decompose=2, validate=5, engine=3, free_slots=3, free_slots_cold=1, chat=3, bulk_move=1)

DECOMPOSE = "rules decompose (per turn)"
VALIDATE = "validate 1,000-task DAG"
ENGINE_OURS = "engine per task (ours, persisted)"
ENGINE_LANGGRAPH = "engine per task (LangGraph + SqliteSaver)"
FREE_SLOTS = "free slots, 1 year × 10,000 occurrences on 3 calendars"
FREE_SLOTS_COLD = "free slots, same, cold cache (first call after a restart)"
CHAT = "chat turn, read-only (server-side)"
BULK_MOVE = f"confirmed bulk move of {bulkmove.MOVED} occurrences (preview + apply)"
ROW_NAMES = (
    DECOMPOSE,
    VALIDATE,
    ENGINE_OURS,
    ENGINE_LANGGRAPH,
    FREE_SLOTS,
    FREE_SLOTS_COLD,
    CHAT,
    BULK_MOVE,
)


def _guarded(name: str, target: Target | None, take: Callable[[], tuple[Timing, str]]) -> Row:
    """A measured row, or an "n/a" one when a module it needs cannot be imported yet."""
    try:
        timing, notes = take()
    except ImportError as exc:
        return Row(name=name, target=target, unavailable=f"cannot import: {exc}")
    return Row(name=name, timing=timing, target=target, notes=notes)


@dataclass(frozen=True, slots=True)
class BenchRun:
    """The rows of one run, and how busy the machine was while they were taken."""

    rows: list[Row]
    machine: str


def run_bench(*, repeats: Repeats = FULL) -> BenchRun:
    """Take every row in this process, then roll back everything the measurements wrote."""
    before = _load()
    with transaction.atomic():
        try:
            rows = _measure(repeats)
        finally:
            transaction.set_rollback(True)
    return BenchRun(rows=rows, machine=_machine(before, _load()))


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not every platform reports a load average
        return None


def _machine(before: float | None, after: float | None) -> str:
    """Wall-clock timings stretch when other processes want the CPUs; this line says whether they did."""
    cpus = os.cpu_count() or 1
    if before is None or after is None:
        return f"Machine: {cpus} CPUs."
    return f"Machine: {cpus} CPUs, 1-minute load average {before:.2f} before the run and {after:.2f} after."


def _measure(repeats: Repeats) -> list[Row]:
    demo = demo_user()
    engine_user = get_user_model().objects.create_user(username=f"{demo.username}-engine", password=None)
    busy = freeslots.busy_year()

    decompose_row = _guarded(
        DECOMPOSE, Target("p95", 5), lambda: chat.decompose_per_turn(user=demo, repeat=repeats.decompose)
    )
    validate_timing, validate_notes = engine.validate_1000(repeat=repeats.validate)
    validate_row = Row(
        name=VALIDATE, timing=validate_timing, target=Target("median", 5), notes=validate_notes
    )
    ours = Row(
        name=ENGINE_OURS,
        timing=engine.engine_per_task(user=engine_user, repeat=repeats.engine),
        target=Target("ratio", 0.5),
        notes="1 → 98 → 1 no-op skills, run_start + run_advance, listeners off; ratio = ours/LangGraph",
    )
    theirs = _guarded(
        ENGINE_LANGGRAPH,
        None,
        lambda: (
            langgraph_dag.langgraph_per_task(repeat=repeats.engine),
            "same DAG, reducer fan-in, WAL file",
        ),
    )
    if theirs.timing is not None and ours.timing is not None:
        ours.ratio = ours.timing.median / theirs.timing.median

    cold = freeslots.free_slots_cold(busy, repeat=repeats.free_slots_cold)
    warm, found = freeslots.free_slots_warm(busy, repeat=repeats.free_slots)
    searched = f"{busy.occurrences:,} occurrences, 60 min, limit 10, lunch + working hours"
    free_row = Row(
        name=FREE_SLOTS,
        timing=warm,
        target=Target("median", 20),
        notes=f"skill func + SkillContext, warm cache; {searched}; found {_first_slot(found)}",
    )
    cold_row = Row(name=FREE_SLOTS_COLD, timing=cold, notes="caches dropped before each call")

    chat_row = _guarded(
        CHAT, Target("p95", 100), lambda: chat.chat_turn_readonly(user=demo, repeat=repeats.chat)
    )
    bulk_timing, bulk_notes = _bulk_move(repeats.bulk_move)
    bulk_row = Row(name=BULK_MOVE, timing=bulk_timing, target=Target("median", 1000), notes=bulk_notes)
    return [decompose_row, validate_row, ours, theirs, free_row, cold_row, chat_row, bulk_row]


def _bulk_move(repeat: int) -> tuple[Timing, str]:
    """The move timed on a realistic calendar and on one ten times as full, with its SQL queries
    counted on both: the same number per changed event at both sizes is the point."""
    usual, crowded = bulkmove.bulk_world(1), bulkmove.bulk_world(10)
    timing, usual_count = bulkmove.bulk_move(usual, repeat=repeat)
    crowded_timing, crowded_count = bulkmove.bulk_move(crowded, repeat=repeat)
    return timing, (
        f"{usual.others:,} other occurrences; with {crowded.others:,} median {crowded_timing.median:.0f} ms"
        f" (p95 {crowded_timing.p95:.0f}); SQL queries per changed event {usual_count.per_event}"
        f" and {crowded_count.per_event} with {crowded.others:,}; SQLite"
    )


def _first_slot(output: Any) -> str:
    if not output.slots:
        return "no slot"
    first = output.slots[0]
    return f"{output.count} slots, first {first.start:%a %b %d %H:%M}"
