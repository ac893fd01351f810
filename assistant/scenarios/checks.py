"""The final checks of a scenario file, each returning None when it holds or a sentence saying why not.

Checks read the judge's snapshot (:mod:`assistant.scenarios.judge`): store rows expanded by dateutil,
people's busy times and preferences from the scenario file and the stored values, never the product's
own providers, free/busy or preference blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any

from django.core import mail

from assistant.scenarios.judge import (
    WEEKDAYS,
    Occ,
    people_busy,
    protected_blocks,
    store_preferences,
    stored_preferences,
    working_hours,
)
from assistant.scenarios.spec import (
    Check,
    CountCheck,
    CreatedCheck,
    EventCheck,
    EventProps,
    FreeCheck,
    OutboxCheck,
    PreferenceCheck,
)
from assistant.scenarios.world import ScenarioWorld, local_dt

__all__ = ["run_check"]

Snapshot = dict[str, Occ]


def _occurrence(world: ScenarioWorld, snap: Snapshot, handle: str, occurrence: str | None) -> Occ | None:
    """The occurrence a check addresses: by event handle and original date (RECURRENCE-ID date)."""
    event_id = world.handles.get(handle)
    if event_id is None:
        raise KeyError(f"unknown event handle {handle!r}")
    wanted = date.fromisoformat(occurrence) if occurrence else None
    for state in snap.values():
        if state.event_id != event_id:
            continue
        if wanted is None:
            if state.recurrence_id is None:
                return state
            continue
        day = (state.recurrence_id or state.start).astimezone(world.tz).date()
        if day == wanted:
            return state
    if wanted is not None:  # a one-off event addressed with its own date
        for state in snap.values():
            if state.event_id == event_id and state.recurrence_id is None:
                return state if _initial_day(world, handle) == wanted else None
    if snap is not world.initial:  # an occurrence of a series split off this one ("from now on")
        before = _occurrence(world, world.initial, handle, occurrence)
        if before is not None:
            return world.continued.get(before.key)
    return None


def _initial_day(world: ScenarioWorld, handle: str) -> date | None:
    event_id = world.handles[handle]
    for state in world.initial.values():
        if state.event_id == event_id and state.recurrence_id is None:
            return state.start.astimezone(world.tz).date()
    return None


def _hhmm(moment: datetime, world: ScenarioWorld) -> str:
    return moment.astimezone(world.tz).strftime("%H:%M")


def _clock(text: str) -> time:
    return time.fromisoformat(text)


def _event_props(
    world: ScenarioWorld, snap: Snapshot, state: Occ, check: EventProps, own_day: date
) -> str | None:
    local_start = state.start.astimezone(world.tz)
    local_end = state.end.astimezone(world.tz)
    days = [date.fromisoformat(d) for d in check.date_in or ()]
    if check.date:
        days = [date.fromisoformat(check.date)]
    expected_days = days or [own_day]
    placed = check.start or check.start_within or check.date or check.date_in
    if placed and local_start.date() not in expected_days:
        return f"lies on {local_start.date()}, expected {', '.join(map(str, expected_days))}"
    if check.start and _hhmm(state.start, world) != check.start:
        return f"starts at {_hhmm(state.start, world)}, expected {check.start}"
    if check.start_within:
        lo, hi = (_clock(v) for v in check.start_within)
        if not (
            local_start.time() >= lo and local_end.time() <= hi and local_end.date() == local_start.date()
        ):
            return (
                f"spans {_hhmm(state.start, world)}-{_hhmm(state.end, world)}, outside {lo:%H:%M}-{hi:%H:%M}"
            )
    if check.duration is not None:
        minutes = int((state.end - state.start).total_seconds() // 60)
        if minutes != check.duration:
            return f"lasts {minutes} minutes, expected {check.duration}"
    if check.conflicts == "none":
        clash = _conflict(world, snap, state)
        if clash:
            return clash
    if check.attendees_include:
        have = {x.casefold() for x in state.attendees}
        missing = [a for a in check.attendees_include if a.casefold() not in have]
        if missing:
            return f"attendees {list(state.attendees)} lack {missing}"
    if (
        check.location_contains is not None
        and check.location_contains.casefold() not in state.location.casefold()
    ):
        return f"location {state.location!r} lacks {check.location_contains!r}"
    return None


def _conflict(world: ScenarioWorld, snap: Snapshot, state: Occ) -> str | None:
    for other in snap.values():
        if other.key == state.key or other.all_day or other.transparent:
            continue
        if other.start < state.end and state.start < other.end:
            return f"overlaps {other.summary!r} at {_hhmm(other.start, world)}"
    attendees = {a.casefold() for a in state.attendees}
    # A person who does not let the user see when they are busy cannot be planned around (the
    # scenario's user has a made-up address, so no "named" list names them).
    people = {
        email: p
        for email, p in world.scenario.people.items()
        if email.casefold() in attendees
        and (p.preferences.get("busy_visible_to") or {"who": "everyone"}).get("who") == "everyone"
    }
    for email, spans in people_busy(people, world.tz, state.start, state.end).items():
        if spans:
            return f"{email} is busy then"
    prefs = store_preferences(world.user, world.scenario.preferences)
    local_start, local_end = state.start.astimezone(world.tz), state.end.astimezone(world.tz)
    day = local_start.date()
    while day <= local_end.date():
        for name, lo, hi in protected_blocks(prefs, day, world.tz):
            if lo < state.end and state.start < hi:
                return f"breaks the {name} block {_hhmm(lo, world)}-{_hhmm(hi, world)}"
        day += timedelta(days=1)
    working = working_hours(prefs)
    if working is not None:
        days, lo_t, hi_t = working
        code = WEEKDAYS[local_start.weekday()]
        if code not in days:
            return f"falls on a non-working day ({code})"
        if local_start.time() < lo_t or local_end.time() > hi_t or local_end.date() != local_start.date():
            return "lies outside working hours"
    return None


def _check_event(world: ScenarioWorld, snap: Snapshot, check: EventCheck) -> str | None:
    state = _occurrence(world, snap, check.event, check.occurrence)
    label = f"{check.event}@{check.occurrence}" if check.occurrence else check.event
    if check.deleted:
        return None if state is None else f"{label} still exists"
    if state is None:
        return f"{label} no longer exists"
    if check.unchanged:
        before = _occurrence(world, world.initial, check.event, check.occurrence)
        if before is None or not state.same_as(before):
            return f"{label} changed: now {state.summary!r} {state.start.astimezone(world.tz):%Y-%m-%d %H:%M}"
    own_day = (
        date.fromisoformat(check.occurrence)
        if check.occurrence
        else (_initial_day(world, check.event) or state.start.date())
    )
    problem = _event_props(world, snap, state, check, own_day)
    return f"{label} {problem}" if problem else None


def _check_created(world: ScenarioWorld, snap: Snapshot, check: CreatedCheck) -> str | None:
    spec = check.created
    needle = spec.summary_contains.casefold()
    initial_ids = {s.event_id for s in world.initial.values()}
    found = sorted(
        (
            s
            for s in snap.values()
            if s.event_id not in initial_ids
            and needle in s.summary.casefold()
            and (not spec.calendar or s.calendar == spec.calendar)
        ),
        key=lambda s: s.start,
    )
    if len(found) != check.count:
        shown = spec.model_dump(exclude_unset=True)
        return f"created events matching {shown}: {len(found)}, expected {check.count}"
    for state in found:
        problem = _event_props(world, snap, state, check, state.start.astimezone(world.tz).date())
        if problem:
            return f"created {state.summary!r} {problem}"
    return None


def _check_count(world: ScenarioWorld, snap: Snapshot, check: CountCheck) -> str | None:
    spec = check.count
    lo = datetime.combine(date.fromisoformat(spec.from_), time(0), tzinfo=world.tz)
    hi = datetime.combine(date.fromisoformat(spec.to), time(0), tzinfo=world.tz)
    needle = spec.summary_contains.casefold()
    n = sum(
        1
        for s in snap.values()
        if s.start < hi
        and lo < s.end
        and needle in s.summary.casefold()
        and (not spec.calendar or s.calendar == spec.calendar)
    )
    shown = spec.model_dump(by_alias=True, exclude_unset=True)
    return None if n == check.equals else f"count {shown} is {n}, expected {check.equals}"


def _check_free(world: ScenarioWorld, snap: Snapshot, check: FreeCheck) -> str | None:
    spec = check.free
    lo = local_dt(f"{spec.date}T{spec.from_}", world.tz)
    hi = local_dt(f"{spec.date}T{spec.to}", world.tz)
    if hi <= lo:
        hi += timedelta(days=1)
    for s in snap.values():
        if not s.all_day and s.start < hi and lo < s.end:
            return f"{spec.date} {spec.from_}-{spec.to} is not free: {s.summary!r}"
    return None


def _check_outbox(world: ScenarioWorld, snap: Snapshot, check: OutboxCheck) -> str | None:
    spec = check.outbox
    messages = list(getattr(mail, "outbox", []))
    recipients = [{a.casefold() for a in (*m.to, *m.cc, *m.bcc)} for m in messages]
    for address in spec.to_include:
        if not any(address.casefold() in r for r in recipients):
            return f"no mail to {address}"
    for address in spec.to_exclude:
        if any(address.casefold() in r for r in recipients):
            return f"mail was sent to {address}"
    texts = [f"{m.subject}\n{m.body}".casefold() for m in messages]
    for needle in spec.mentions:
        if not any(needle.casefold() in t for t in texts):
            return f"no mail mentions {needle!r}"
    return None


def _check_preference(world: ScenarioWorld, snap: Snapshot, check: PreferenceCheck) -> str | None:
    value = stored_preferences(world.user).get(check.preference)
    return (
        None
        if value == check.equals
        else f"preference {check.preference} is {value!r}, expected {check.equals!r}"
    )


_CHECKS: dict[type, Callable[[ScenarioWorld, Snapshot, Any], str | None]] = {
    EventCheck: _check_event,
    CreatedCheck: _check_created,
    CountCheck: _check_count,
    FreeCheck: _check_free,
    OutboxCheck: _check_outbox,
    PreferenceCheck: _check_preference,
}


def run_check(world: ScenarioWorld, snap: Snapshot, check: Check) -> str | None:
    try:
        return _CHECKS[type(check)](world, snap, check)
    except KeyError as exc:
        return f"check could not be evaluated: {exc}"
