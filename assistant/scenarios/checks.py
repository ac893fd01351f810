"""The final checks of a scenario file, each returning None when it holds or a sentence saying why not."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any

from django.core import mail

from assistant.scenarios.world import OccState, ScenarioWorld, local_dt
from preferences.selectors import preferences_for
from skills.freetime import WEEKDAY_CODES, parse_hhmm, preference_blocks, working_window
from skills.providers import provider_for

__all__ = ["run_check"]

Snapshot = dict[str, OccState]


def _occurrence(world: ScenarioWorld, snap: Snapshot, handle: str, occurrence: str | None) -> OccState | None:
    """The occurrence a check addresses: by event handle and original date (RECURRENCE-ID date)."""
    event_id = world.handles.get(handle)
    if event_id is None:
        raise KeyError(f"unknown event handle {handle!r}")
    wanted = date.fromisoformat(occurrence) if occurrence else None
    for state in snap.values():
        if state.event_id != event_id:
            continue
        original = state.recurrence_id or None
        if wanted is None:
            if original is None:
                return state
            continue
        day = (original or state.start).astimezone(world.tz).date()
        if day == wanted:
            return state
    if wanted is not None:  # a one-off event addressed with its own date
        for state in snap.values():
            if state.event_id == event_id and state.recurrence_id is None:
                return state if _initial_day(world, handle) == wanted else None
    return None


def _initial_day(world: ScenarioWorld, handle: str) -> date | None:
    event_id = world.handles[handle]
    for state in world.initial.values():
        if state.event_id == event_id and state.recurrence_id is None:
            return state.start.astimezone(world.tz).date()
    return None


def _initial(world: ScenarioWorld, handle: str, occurrence: str | None) -> OccState | None:
    return _occurrence(world, world.initial, handle, occurrence)


def _hhmm(moment: datetime, world: ScenarioWorld) -> str:
    return moment.astimezone(world.tz).strftime("%H:%M")


def _event_props(
    world: ScenarioWorld, snap: Snapshot, state: OccState, check: dict[str, Any], own_day: date
) -> str | None:
    local_start = state.start.astimezone(world.tz)
    local_end = state.end.astimezone(world.tz)
    days = [date.fromisoformat(d) for d in check.get("date_in", [])]
    if "date" in check:
        days = [date.fromisoformat(check["date"])]
    expected_days = days or [own_day]
    if ("start" in check or "start_within" in check or "date" in check or "date_in" in check) and (
        local_start.date() not in expected_days
    ):
        return f"lies on {local_start.date()}, expected {', '.join(map(str, expected_days))}"
    if "start" in check and _hhmm(state.start, world) != check["start"]:
        return f"starts at {_hhmm(state.start, world)}, expected {check['start']}"
    if "start_within" in check:
        lo, hi = (parse_hhmm(v) for v in check["start_within"])
        if not (
            local_start.time() >= lo and (local_end.time() <= hi and local_end.date() == local_start.date())
        ):
            return (
                f"spans {_hhmm(state.start, world)}-{_hhmm(state.end, world)}, outside {lo:%H:%M}-{hi:%H:%M}"
            )
    if "duration" in check:
        minutes = int((state.end - state.start).total_seconds() // 60)
        if minutes != int(check["duration"]):
            return f"lasts {minutes} minutes, expected {check['duration']}"
    if check.get("conflicts") == "none":
        clash = _conflict(world, snap, state)
        if clash:
            return clash
    if "attendees_include" in check:
        missing = [
            a
            for a in check["attendees_include"]
            if a.casefold() not in {x.casefold() for x in state.attendees}
        ]
        if missing:
            return f"attendees {list(state.attendees)} lack {missing}"
    return None


def _conflict(world: ScenarioWorld, snap: Snapshot, state: OccState) -> str | None:
    for other in snap.values():
        if other is state or other.all_day or other.transparent:
            continue
        if other.event_id == state.event_id and other.recurrence_id == state.recurrence_id:
            continue
        if other.start < state.end and state.start < other.end:
            return f"overlaps {other.summary!r} at {_hhmm(other.start, world)}"
    people = [a for a in state.attendees if a in world.people]
    if people:
        busy = provider_for(world.user).free_busy(emails=people, start=state.start, end=state.end)
        for email, intervals in busy.items():
            if any(b.start < state.end and state.start < b.end for b in intervals):
                return f"{email} is busy then"
    prefs = preferences_for(user=world.user)
    for lo, hi in preference_blocks(prefs, state.start, state.end, world.tz):
        if lo < state.end and state.start < hi:
            return f"breaks a protected block {_hhmm(lo, world)}-{_hhmm(hi, world)}"
    working = working_window(prefs)
    if working is not None:
        days, lo_t, hi_t = working
        local_start, local_end = state.start.astimezone(world.tz), state.end.astimezone(world.tz)
        if local_start.weekday() not in days:
            return f"falls on a non-working day ({WEEKDAY_CODES[local_start.weekday()]})"
        if local_start.time() < lo_t or local_end.time() > hi_t or local_end.date() != local_start.date():
            return "lies outside working hours"
    return None


def _check_event(world: ScenarioWorld, snap: Snapshot, check: dict[str, Any]) -> str | None:
    handle, occurrence = check["event"], check.get("occurrence")
    state = _occurrence(world, snap, handle, occurrence)
    label = f"{handle}@{occurrence}" if occurrence else handle
    if check.get("deleted"):
        return None if state is None else f"{label} still exists"
    if state is None:
        return f"{label} no longer exists"
    if check.get("unchanged"):
        before = _initial(world, handle, occurrence)
        if before is None or not state.same_as(before):
            return f"{label} changed: now {state.summary!r} {state.start.astimezone(world.tz):%Y-%m-%d %H:%M}"
    own_day = (
        date.fromisoformat(occurrence) if occurrence else (_initial_day(world, handle) or state.start.date())
    )
    problem = _event_props(world, snap, state, check, own_day)
    return f"{label} {problem}" if problem else None


def _check_created(world: ScenarioWorld, snap: Snapshot, check: dict[str, Any]) -> str | None:
    spec = check["created"]
    needle = str(spec.get("summary_contains", "")).casefold()
    initial_ids = {s.event_id for s in world.initial.values()}
    found = [
        s
        for s in snap.values()
        if s.event_id not in initial_ids
        and needle in s.summary.casefold()
        and (not spec.get("calendar") or s.calendar == spec["calendar"])
    ]
    found.sort(key=lambda s: s.start)
    expected = int(check.get("count", 1))
    if len(found) != expected:
        return f"created events matching {spec}: {len(found)}, expected {expected}"
    for state in found:
        problem = _event_props(world, snap, state, check, state.start.astimezone(world.tz).date())
        if problem:
            return f"created {state.summary!r} {problem}"
    return None


def _check_count(world: ScenarioWorld, snap: Snapshot, check: dict[str, Any]) -> str | None:
    spec = check["count"]
    lo = datetime.combine(date.fromisoformat(spec["from"]), time(0), tzinfo=world.tz)
    hi = datetime.combine(date.fromisoformat(spec["to"]), time(0), tzinfo=world.tz)
    needle = str(spec.get("summary_contains", "")).casefold()
    n = sum(
        1
        for s in snap.values()
        if s.start < hi
        and lo < s.end
        and needle in s.summary.casefold()
        and (not spec.get("calendar") or s.calendar == spec["calendar"])
    )
    return None if n == int(check["equals"]) else f"count {spec} is {n}, expected {check['equals']}"


def _check_free(world: ScenarioWorld, snap: Snapshot, check: dict[str, Any]) -> str | None:
    spec = check["free"]
    lo = local_dt(f"{spec['date']}T{spec['from']}", world.tz)
    hi = local_dt(f"{spec['date']}T{spec['to']}", world.tz)
    if hi <= lo:
        hi += timedelta(days=1)
    for s in snap.values():
        if not s.all_day and s.start < hi and lo < s.end:
            return f"{spec['date']} {spec['from']}-{spec['to']} is not free: {s.summary!r}"
    return None


def _check_outbox(world: ScenarioWorld, snap: Snapshot, check: dict[str, Any]) -> str | None:
    spec = check["outbox"]
    messages = list(getattr(mail, "outbox", []))
    recipients = [{a.casefold() for a in (*m.to, *m.cc, *m.bcc)} for m in messages]
    for address in spec.get("to_include", []):
        if not any(address.casefold() in r for r in recipients):
            return f"no mail to {address}"
    for address in spec.get("to_exclude", []):
        if any(address.casefold() in r for r in recipients):
            return f"mail was sent to {address}"
    texts = [f"{m.subject}\n{m.body}".casefold() for m in messages]
    for needle in spec.get("mentions", []):
        if not any(needle.casefold() in t for t in texts):
            return f"no mail mentions {needle!r}"
    return None


def _check_preference(world: ScenarioWorld, snap: Snapshot, check: dict[str, Any]) -> str | None:
    value = preferences_for(user=world.user).get(check["preference"])
    return (
        None
        if value == check["equals"]
        else f"preference {check['preference']} is {value!r}, expected {check['equals']!r}"
    )


_CHECKS: dict[str, Callable[[ScenarioWorld, Snapshot, dict[str, Any]], str | None]] = {
    "event": _check_event,
    "created": _check_created,
    "count": _check_count,
    "free": _check_free,
    "outbox": _check_outbox,
    "preference": _check_preference,
}


def run_check(world: ScenarioWorld, snap: Snapshot, check: dict[str, Any]) -> str | None:
    for key, fn in _CHECKS.items():
        if key in check:
            try:
                return fn(world, snap, check)
            except (KeyError, ValueError, TypeError) as exc:
                return f"check {check} could not be evaluated: {exc}"
    return f"unknown check {check}"
