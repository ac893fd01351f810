"""Runs every measurement in one process and returns the table's rows.

Nearly all data (the demo user, the crowded year, the bulk move's calendars, the scenarios' worlds,
chat messages, the engine's savepoint runs) is written inside one ``transaction.atomic()`` that is
rolled back at the end, so the database is left as it was.  Inside it, every ``atomic`` block of the
code measured is a savepoint rather than a commit; the rows taken there say so.

The engine comparison cannot be taken that way: a run of ours commits about six times and the
LangGraph row it is compared with commits every checkpoint to its own file.  So before the
transaction opens, our engine runs as a worker runs it, each of its commits real (with WAL and
``synchronous=NORMAL`` a commit is a WAL append without fsync), and deletes its user, runs and task
runs afterwards.  That row carries the target; the savepoint row beside it, also with its ratio,
shows how much of our cost is the commits.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction

from assistant.bench import (
    bulkmove,
    chat,
    edit_one,
    engine,
    everyone,
    freeslots,
    langgraph_dag,
    llm_planner,
    remote,
    turnmix,
)
from assistant.bench.demo import demo_user
from assistant.bench.report import Row, Target
from assistant.bench.timing import Timing

__all__ = [
    "FULL",
    "PLANNING",
    "PROMPT_ROWS",
    "QUICK",
    "ROW_NAMES",
    "TURN_ROWS",
    "BenchRun",
    "Repeats",
    "run_bench",
]


@dataclass(frozen=True, slots=True)
class Repeats:
    """How many measured calls each row makes (decompose: per recorded scenario turn)."""

    decompose: int
    validate: int
    engine: int
    free_slots: int
    free_slots_cold: int
    chat: int
    bulk_move: int
    edit_one: int
    everyone: int
    remote: int
    planner: int  # turns planned against the loopback model, per plan
    utterances: int | None  # eval utterances whose prompts are measured (None: all of them)


FULL = Repeats(
    decompose=20,
    validate=50,
    engine=20,
    free_slots=30,
    free_slots_cold=5,
    chat=30,
    bulk_move=10,
    edit_one=20,
    everyone=30,
    remote=3,
    planner=20,
    utterances=None,
)
QUICK = Repeats(
    decompose=2,
    validate=5,
    engine=3,
    free_slots=3,
    free_slots_cold=1,
    chat=3,
    bulk_move=1,
    edit_one=2,
    everyone=3,
    remote=1,
    planner=2,
    utterances=20,
)

# One row per class of turn (see ``turnmix``), each held to the rule decomposer's target.
TURN_ROWS = {
    "read": "rules decompose() per scenario turn: reads",
    "write": "rules decompose() per scenario turn: writes",
    "follow-up": "rules decompose() per scenario turn: follow-ups",
    "answer": "answer_for() per scenario reply to a waiting question",
}
TURN_TARGET = Target("p95", 5)
VALIDATE = "compile_workflow() (validation) of a 1,000-task DAG"
_RUN = f"a {engine.ENGINE_TASKS}-task run / {engine.ENGINE_TASKS}"
ENGINE_COMMITTED = f"engine per task, ours: {_RUN}, committing as a worker does"
ENGINE_SAVEPOINTS = "engine per task, ours: the same in savepoints of one transaction"
ENGINE_LANGGRAPH = (
    f"engine per task, LangGraph + SqliteSaver: the same DAG run / {engine.ENGINE_TASKS}, committing"
)
_SLOTS = f"free_slots skill, 60 min, first {freeslots.FIRST_SLOTS} slots"
FREE_SLOTS = f"{_SLOTS} in a year of 10,000 occurrences, warm cache"
FREE_SLOTS_EVERY = "free_slots skill, 60 min, every slot in the same year, warm cache"
FREE_SLOTS_COLD = f"{_SLOTS}, cold cache (first call after a restart)"
CHAT = f"chat_turn() of {chat.CHAT_TEXT!r} opening a conversation (server-side)"
BULK_MOVE = f"bulk move of {bulkmove.MOVED} occurrences: plan_move + apply_changes preview + approved apply"
_ONE_OF = f"one occurrence of a {edit_one.OCCURRENCES}-occurrence series"
EDIT_RENAME = f"rename of {_ONE_OF}: plan_edit + apply_changes"
EDIT_INVITE = f"invitation to {_ONE_OF}: plan_edit + apply_changes preview + approved apply"
EVERYONE = (
    f"everyone-free search: free_slots for {everyone.PEOPLE} people over {everyone.DAYS // 7} weeks of"
    f" {everyone.BLOCKS:,} busy blocks each, every slot"
)
_REMOTE_MOVE = f"bulk move of {remote.OCCURRENCES} occurrences of a series: approved apply_changes"
GOOGLE_MOVE = f"{_REMOTE_MOVE} on Google (loopback Calendar v3 server)"
CALDAV_MOVE = f"{_REMOTE_MOVE} on CalDAV (Radicale)"
RESCHEDULE = {
    kind: f"approving {remote.SCENARIO} (scenario) on {label}"
    for kind, label in (("local", "the built-in store"), ("google", "Google"), ("caldav", "CalDAV"))
}
_EST = "est. tokens (chars/4)"
PROMPT_PHASE1 = f"LLM planner prompt, phase 1 (services → subtasks), {_EST} per eval utterance"
PROMPT_SINGLE = f"LLM planner prompt, single-phase (whole catalog), {_EST}; ratio = phase 1 / it"
PROMPT_SELECT = f"LLM planner prompt, phase 2 (one service's skills), {_EST} per service"
PROMPT_PARAMS = f"LLM planner prompt, phase 3 (one skill's schema), {_EST} per skill"
# Estimated tokens, not milliseconds: their median and p95 cells read "656 tok".
PROMPT_ROWS = (PROMPT_PHASE1, PROMPT_SINGLE, PROMPT_SELECT, PROMPT_PARAMS)
PLANNING = {
    key: f"LLM planning overhead per turn (wall time minus the loopback model's), {script.label}"
    for key, script in llm_planner.PLANS.items()
}
ROW_NAMES = (
    *TURN_ROWS.values(),
    VALIDATE,
    ENGINE_COMMITTED,
    ENGINE_SAVEPOINTS,
    ENGINE_LANGGRAPH,
    FREE_SLOTS,
    FREE_SLOTS_EVERY,
    FREE_SLOTS_COLD,
    EVERYONE,
    CHAT,
    BULK_MOVE,
    EDIT_RENAME,
    EDIT_INVITE,
    GOOGLE_MOVE,
    CALDAV_MOVE,
    *RESCHEDULE.values(),
    *PLANNING.values(),
)
_IN_SAVEPOINTS = "its commits are savepoints of the bench's transaction"


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
    """Time the committing engine, then take every other row and roll back everything they wrote."""
    before = _load()
    committed = engine.engine_per_task_committed(repeat=repeats.engine)
    with transaction.atomic():
        try:
            rows = _measure(repeats, committed)
        finally:
            transaction.set_rollback(True)
    return BenchRun(rows=rows, machine=_machine(before, _load()))


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not every platform reports a load average
        return None


def _machine(before: float | None, after: float | None) -> str:
    """Wall-clock timings stretch when other processes want the CPUs; this line says whether they did,
    and whether DEBUG was on (Django then keeps every SQL query it runs: a few per cent of a turn)."""
    cpus = os.cpu_count() or 1
    debug = f"DEBUG {'on' if settings.DEBUG else 'off'}"
    if before is None or after is None:
        return f"Machine: {cpus} CPUs, {debug}."
    return (
        f"Machine: {cpus} CPUs, 1-minute load average {before:.2f} before the run and {after:.2f} after, "
        f"{debug}."
    )


def _measure(repeats: Repeats, committed: Timing) -> list[Row]:
    demo = demo_user()
    busy = freeslots.busy_year()
    turn_rows = _turn_rows(repeats.decompose)
    validate_timing, validate_notes = engine.validate_1000(repeat=repeats.validate)
    validate_row = Row(
        name=VALIDATE, timing=validate_timing, target=Target("median", 5), notes=validate_notes
    )
    engine_rows = _engine_rows(repeats.engine, committed)
    free_rows = _free_slot_rows(busy, repeats)
    # Taken beside the other free-time rows, on the same database (before the bulk moves' calendars).
    everyone_timing, everyone_notes = everyone.everyone_free(
        everyone.everyone_world(), repeat=repeats.everyone
    )
    everyone_row = Row(
        name=EVERYONE, timing=everyone_timing, target=Target("median", 20), notes=everyone_notes
    )
    chat_row = _guarded(CHAT, Target("p95", 100), lambda: _chat(demo, repeats.chat))
    usual = bulkmove.bulk_world(1)
    bulk_timing, bulk_notes = _bulk_move(usual, repeats.bulk_move)
    bulk_row = Row(name=BULK_MOVE, timing=bulk_timing, target=Target("median", 1000), notes=bulk_notes)
    edit_rows = [
        Row(
            name=name,
            timing=edit_one.edit_one(usual, kind=kind, repeat=repeats.edit_one),
            target=Target("median", 50),
            notes=f"skills called directly (finding it not timed); {usual.others:,} other occurrences;"
            f" {_IN_SAVEPOINTS}",
        )
        for name, kind in ((EDIT_RENAME, "rename"), (EDIT_INVITE, "invite"))
    ]
    return [
        *turn_rows,
        validate_row,
        *engine_rows,
        *free_rows,
        everyone_row,
        chat_row,
        bulk_row,
        *edit_rows,
        *_remote_rows(repeats.remote),
        *_prompt_rows(demo, repeats.utterances),
        *_planning_rows(repeats.planner),
    ]


def _remote_rows(repeat: int) -> list[Row]:
    """Requests per bulk change on Google (batched: the target) and CalDAV, and the wall time of
    approving the reschedule scenario on each kind of calendar; "n/a" where a server cannot be
    imported (the loopback servers live with the tests)."""
    rows = []
    for name, kind in ((GOOGLE_MOVE, "google"), (CALDAV_MOVE, "caldav")):
        target = Target("requests", 5) if kind == "google" else None
        try:
            timing, counted = remote.requests_per_bulk_change(kind, repeat=repeat)
        except ImportError as exc:
            rows.append(Row(name=name, target=target, unavailable=f"cannot import: {exc}"))
            continue
        asked = ", ".join(f"{method} {n}" for method, n in sorted(counted.requests.items()))
        rows.append(
            Row(
                name=name,
                timing=timing,
                target=target,
                requests=counted.total,
                notes=f"{counted.total} HTTP request(s) for {counted.changed} occurrences"
                f" ({asked if kind == 'caldav' else 'to the Calendar API, a batch counting once'});"
                f" wall time of the apply; {_IN_SAVEPOINTS}",
            )
        )
    for kind, name in RESCHEDULE.items():
        rows.append(_guarded(name, None, partial(_reschedule, kind, repeat)))
    return rows


def _reschedule(kind: str, repeat: int) -> tuple[Timing, str]:
    timing, moved = remote.reschedule_approval(kind, repeat=repeat)
    return (
        timing,
        f"{moved} occurrences moved to mornings; apply only, a fresh world each run; {_IN_SAVEPOINTS}",
    )


def _turn_rows(repeat: int) -> list[Row]:
    """A row per class of scenario turn; all "n/a" when the chat path cannot be imported."""
    try:
        mix = turnmix.turn_mix(folders=turnmix.scenario_folders(), repeat=repeat)
    except ImportError as exc:
        return [
            Row(name=name, target=TURN_TARGET, unavailable=f"cannot import: {exc}")
            for name in TURN_ROWS.values()
        ]
    played = f"of {mix.conversations} conversations (shared scenarios + SGD dialogues), each timed ×{repeat}"
    rows = []
    for kind, name in TURN_ROWS.items():
        timing = mix.timing(kind)
        if timing is None:
            rows.append(Row(name=name, target=TURN_TARGET, unavailable=f"no {kind} turn was recorded"))
            continue
        if kind == "answer":
            made = f"{mix.not_answers} more messages it read as no answer are timed as decompose turns"
        else:
            made = "decisions " + ", ".join(f"{k} ×{n}" for k, n in mix.decisions[kind].most_common())
        notes = f"{mix.turns[kind]} turns {played}; {made}"
        rows.append(Row(name=name, timing=timing, target=TURN_TARGET, notes=notes))
    return rows


def _engine_rows(repeat: int, committed: Timing) -> list[Row]:
    """Ours committing (the target) and in savepoints, each with its ratio to LangGraph's median."""
    ours = Row(
        name=ENGINE_COMMITTED,
        timing=committed,
        target=Target("ratio", 0.5),
        notes="1 → 98 → 1 no-op skills, run_start + run_advance, listeners off, about 6 commits a run;"
        " ratio = ours/LangGraph",
    )
    savepoints = engine.engine_per_task(user=engine.engine_user(), repeat=repeat)
    in_savepoints = Row(
        name=ENGINE_SAVEPOINTS,
        timing=savepoints,
        notes=f"the same, but {_IN_SAVEPOINTS}; ratio = ours/LangGraph",
    )
    theirs = _guarded(
        ENGINE_LANGGRAPH,
        None,
        lambda: (
            langgraph_dag.langgraph_per_task(repeat=repeat),
            "same DAG, reducer fan-in, a checkpoint committed per step to a WAL file",
        ),
    )
    if theirs.timing is not None:
        ours.ratio = committed.median / theirs.timing.median
        in_savepoints.ratio = savepoints.median / theirs.timing.median
    return [ours, in_savepoints, theirs]


def _free_slot_rows(busy: freeslots.BusyYear, repeats: Repeats) -> list[Row]:
    """The chat's search (first 10 slots), the same run to the year's end, and the first after a restart."""
    cold = freeslots.free_slots_cold(busy, repeat=repeats.free_slots_cold)
    first, found = freeslots.free_slots_warm(busy, repeat=repeats.free_slots, limit=freeslots.FIRST_SLOTS)
    every, all_found = freeslots.free_slots_warm(busy, repeat=repeats.free_slots, limit=freeslots.EVERY_SLOT)
    searched = f"{busy.occurrences:,} occurrences, 60 min, lunch + working hours"
    return [
        Row(
            name=FREE_SLOTS,
            timing=first,
            target=Target("median", 20),
            notes=f"skill func + SkillContext; {searched}; found {_first_slot(found)}",
        ),
        Row(
            name=FREE_SLOTS_EVERY,
            timing=every,
            target=Target("median", 20),
            notes=f"limit {freeslots.EVERY_SLOT}; {_every_slot(all_found)}",
        ),
        Row(name=FREE_SLOTS_COLD, timing=cold, notes="caches dropped before each call"),
    ]


def _chat(demo: Any, repeat: int) -> tuple[Timing, str]:
    timing, notes = chat.chat_turn_readonly(user=demo, repeat=repeat)
    return timing, f"{notes}; {_IN_SAVEPOINTS}"


def _bulk_move(usual: bulkmove.BulkWorld, repeat: int) -> tuple[Timing, str]:
    """The move timed on a realistic calendar and on one ten times as full, with its SQL queries
    counted on both: the same number per changed event at both sizes is the point."""
    crowded = bulkmove.bulk_world(10)
    timing, usual_count = bulkmove.bulk_move(usual, repeat=repeat)
    crowded_timing, crowded_count = bulkmove.bulk_move(crowded, repeat=repeat)
    return timing, (
        f"skills called directly (finding the events not timed); {usual.others:,} other occurrences;"
        f" with {crowded.others:,} median {crowded_timing.median:.0f} ms (p95 {crowded_timing.p95:.0f});"
        f" SQL queries per changed event {usual_count.per_event} and {crowded_count.per_event}"
        f" with {crowded.others:,}; SQLite; {_IN_SAVEPOINTS}"
    )


def _first_slot(output: Any) -> str:
    if not output.slots:
        return "no slot"
    first = output.slots[0]
    return f"{output.count} slots, first {first.start:%a %b %d %H:%M}"


def _every_slot(output: Any) -> str:
    """How many slots the search found, and whether that is all of them (fewer than it may return)."""
    if output.count >= freeslots.EVERY_SLOT:
        return f"found {output.count} slots: the limit, so not every slot"
    last = f", last {output.slots[-1].start:%a %b %d %Y %H:%M}" if output.slots else ""
    return f"found {output.count} slots, every one in the year{last}"


def _prompt_rows(demo: Any, utterances: int | None) -> list[Row]:
    """Phase 1 against the single-phase prompt on the eval set (the targets), and phases 2 and 3."""
    try:
        texts = llm_planner.eval_utterances(limit=utterances)
        sizes = llm_planner.prompt_sizes(user=demo, utterances=texts)
    except (ImportError, OSError) as exc:  # the planner being rewritten; the shared eval set absent
        why = f"{type(exc).__name__}: {exc}"
        return [
            Row(name=name, target=PROMPT_TARGETS.get(name), unavailable=why, unit="tokens")
            for name in PROMPT_ROWS
        ]
    return prompt_rows(sizes)


PROMPT_TARGETS = {PROMPT_PHASE1: Target("tokens", 700), PROMPT_SINGLE: Target("ratio", 0.10)}


def prompt_rows(sizes: llm_planner.PromptSizes) -> list[Row]:
    """The prompt rows of ``sizes``: phase 1 held to 700 est. tokens for every utterance, and to a
    tenth of the single-phase prompt (the largest ratio of any utterance is the row's)."""
    n = sizes.utterances
    of = f"{n} utterances of {llm_planner.eval_file().name}, the demo user's first turn"
    ratios = sorted(sizes.ratios)
    service = max(sizes.select, key=sizes.select.__getitem__)
    skill = max(sizes.params, key=sizes.params.__getitem__)
    return [
        Row(
            name=PROMPT_PHASE1,
            timing=Timing(sizes.phase1),
            target=PROMPT_TARGETS[PROMPT_PHASE1],
            unit="tokens",
            notes=f"{of}; instructions + services + turn + output schema ({sizes.phase1_schema:.0f});"
            f" largest {max(sizes.phase1):.0f}",
        ),
        Row(
            name=PROMPT_SINGLE,
            timing=Timing(sizes.single),
            target=PROMPT_TARGETS[PROMPT_SINGLE],
            ratio=sizes.worst_ratio,
            unit="tokens",
            notes=f"the largest ratio of the {n} utterances (median {ratios[len(ratios) // 2]:.3f});"
            f" every skill's schemas + output schema ({sizes.single_schema:.0f})",
        ),
        Row(
            name=PROMPT_SELECT,
            timing=Timing(tuple(sizes.select.values())),
            unit="tokens",
            notes=f"{len(sizes.select)} services, largest {service} {sizes.select[service]:.0f};"
            " the median-length utterance as request and subtask",
        ),
        Row(
            name=PROMPT_PARAMS,
            timing=Timing(tuple(sizes.params.values())),
            unit="tokens",
            notes=f"{len(sizes.params)} skills with inputs ({len(sizes.no_params)} without are never"
            f" asked), largest {skill} {sizes.params[skill]:.0f}; no earlier task (each adds its output"
            " schema)",
        ),
    ]


def _planning_rows(repeat: int) -> list[Row]:
    """The planner's own time per turn against the loopback model; no target (the issue sets none)."""
    rows = []
    for key, name in PLANNING.items():
        try:
            overhead = llm_planner.planning_overhead(llm_planner.PLANS[key], repeat=repeat)
        except ImportError as exc:  # the loopback server lives with the tests
            rows.append(Row(name=name, unavailable=f"cannot import: {exc}"))
            continue
        rows.append(Row(name=name, timing=overhead.ours, notes=planning_notes(overhead)))
    return rows


def planning_notes(overhead: llm_planner.Overhead) -> str:
    asked = ", ".join(f"{phase} ×{n:g}" for phase, n in overhead.per_turn().items())
    sent = ", ".join(f"{phase} {t:.0f}" for phase, t in overhead.request_tokens.items())
    return (
        f"{sum(overhead.calls.values()) / overhead.turns:g} requests a turn ({asked}); wall median"
        f" {overhead.wall.median:.1f} ms, loopback server busy {overhead.server.median:.2f} ms;"
        f" requests as sent, {_EST}: {sent}; pydantic-ai's OpenAI model over HTTP"
    )
