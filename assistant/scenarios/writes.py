"""What a conversation wrote that its scenario's checks forbid or cannot explain.

The checks say what must be true at the end; they do not say what must not have happened besides.  A
scenario whose checks all hold can still have written a second event nobody asked for, mailed a
stranger or stored a preference the user never stated.  After the last turn the judge therefore
compares the calendars with how the scenario (and its outside edits) left them, occurrence by
occurrence, and accounts for every difference:

- an occurrence changed or gone is *unexpected* when a check says it is ``unchanged``; explained when
  another check names it (``deleted``, ``start``, ...) or a ``count`` or ``free`` check covers it;
  otherwise *unchecked* (listed, not failed, so whoever writes a scenario sees it);
- an event the conversation created is explained only by a ``created`` or ``count`` check that matches
  it and expects one (a check that expects none forbids it);
- a preference changed is explained only by a ``preference`` check of that key;
- mail is explained only to an address some ``outbox`` check's ``to_include`` names;
- another person's calendar is never the user's to write.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.core import mail

from assistant.scenarios.judge import Occ, stored_preferences
from assistant.scenarios.spec import (
    Check,
    CountCheck,
    CreatedCheck,
    EventCheck,
    FreeCheck,
    OutboxCheck,
    PreferenceCheck,
)
from assistant.scenarios.world import ScenarioWorld, local_dt, person_snapshot

__all__ = ["Writes", "audit_writes"]

Snapshot = dict[str, Occ]


# Writes further out than this are not audited: near the snapshot's far edge a series changed "from now
# on" has occurrences on one side of the edge that pair with ones on the other.
AUDIT_HORIZON = timedelta(days=365)


@dataclass
class Writes:
    """Each write once per event and verdict: the first occurrence it touched, and how many more."""

    unexpected: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    _seen: dict[tuple[bool, str], list[Any]] = field(default_factory=dict, repr=False)

    def add(self, *, unexpected: bool, event: str, text: str) -> None:
        entry = self._seen.get((unexpected, event))
        target = self.unexpected if unexpected else self.unchecked
        if entry is None:
            self._seen[(unexpected, event)] = [len(target), text, 0]
            target.append(text)
            return
        entry[2] += 1
        target[entry[0]] = f"{entry[1]} (and {entry[2]} more occurrences of it)"


def audit_writes(world: ScenarioWorld, final: Snapshot, checks: Sequence[Check]) -> Writes:
    """Every write of the conversation that ``checks`` forbid (unexpected) or do not name (unchecked)."""
    writes = Writes()
    horizon = world.now + AUDIT_HORIZON
    final = {key: occ for key, occ in final.items() if occ.start < horizon}
    _events(world, final, checks, writes, horizon)
    _created(world, final, checks, writes)
    _preferences(world, checks, writes)
    _mail(checks, writes)
    for email, before in world.people_initial.items():
        if person_snapshot(world, email) != before:
            writes.unexpected.append(f"wrote to the calendar of {email}, another user")
    return writes


def _label(world: ScenarioWorld, occ: Occ) -> str:
    when = occ.start.astimezone(world.tz)
    return f"{occ.summary!r} ({occ.calendar}) {when:%a %Y-%m-%d %H:%M}"


def _what_changed(world: ScenarioWorld, before: Occ, after: Occ | None) -> str:
    if after is None:
        return "deleted"
    parts = []
    if (after.start, after.end) != (before.start, before.end):
        parts.append(
            f"now {after.start.astimezone(world.tz):%a %Y-%m-%d %H:%M}-{after.end.astimezone(world.tz):%H:%M}"
        )
    if after.summary != before.summary:
        parts.append(f"renamed {after.summary!r}")
    if after.calendar != before.calendar:
        parts.append(f"moved to calendar {after.calendar}")
    if after.location != before.location:
        parts.append(f"place {after.location!r}")
    if set(after.attendees) != set(before.attendees):
        parts.append(f"attendees {sorted(after.attendees)}")
    return ", ".join(parts) or "changed"


def _original_day(world: ScenarioWorld, occ: Occ) -> date:
    return (occ.recurrence_id or occ.start).astimezone(world.tz).date()


def _names(world: ScenarioWorld, check: EventCheck, occ: Occ) -> bool:
    """Whether an event check addresses this (initial) occurrence: its handle, and its date if given."""
    if world.handles.get(check.event) != occ.event_id:
        return False
    if check.occurrence is None:
        return occ.recurrence_id is None
    return _original_day(world, occ) == date.fromisoformat(check.occurrence)


def _counted(world: ScenarioWorld, check: CountCheck, occ: Occ) -> bool:
    spec = check.count
    lo = datetime.combine(date.fromisoformat(spec.from_), time(0), tzinfo=world.tz)
    hi = datetime.combine(date.fromisoformat(spec.to), time(0), tzinfo=world.tz)
    return (
        occ.start < hi
        and lo < occ.end
        and spec.summary_contains.casefold() in occ.summary.casefold()
        and (not spec.calendar or spec.calendar == occ.calendar)
    )


def _in_window(world: ScenarioWorld, check: FreeCheck, occ: Occ) -> bool:
    spec = check.free
    lo = local_dt(f"{spec.date}T{spec.from_}", world.tz)
    hi = local_dt(f"{spec.date}T{spec.to}", world.tz)
    return not occ.all_day and occ.start < hi and lo < occ.end


def _covered(world: ScenarioWorld, checks: Sequence[Check], occ: Occ) -> bool:
    """A ``count`` or ``free`` check that reads this occurrence, so speaks for what became of it."""
    return any(
        (isinstance(c, CountCheck) and _counted(world, c, occ))
        or (isinstance(c, FreeCheck) and _in_window(world, c, occ))
        for c in checks
    )


def _events(
    world: ScenarioWorld, final: Snapshot, checks: Sequence[Check], writes: Writes, horizon: datetime
) -> None:
    event_checks = [c for c in checks if isinstance(c, EventCheck)]
    for key, before in sorted(world.baseline.items(), key=lambda kv: kv[1].start):
        if before.start >= horizon:
            continue
        after = final.get(key) or world.continued.get(key)
        if after is not None and _same(before, after):
            continue
        what = f"{_label(world, before)}: {_what_changed(world, before, after)}"
        naming = [c for c in event_checks if _names(world, c, before)]
        if any(c.unchanged for c in naming):
            writes.add(unexpected=True, event=before.event_id, text=f"{what} (checked unchanged)")
        elif not (naming or _covered(world, checks, before) or (after and _covered(world, checks, after))):
            writes.add(unexpected=False, event=before.event_id, text=what)


def _same(before: Occ, after: Occ) -> bool:
    """The same content (a continuation of a split series has another event id and original start)."""
    return dataclasses.replace(after, event_id=before.event_id, recurrence_id=before.recurrence_id) == before


def _created(world: ScenarioWorld, final: Snapshot, checks: Sequence[Check], writes: Writes) -> None:
    """Occurrences of events that were not there before (continuations of a split series aside)."""
    initial_ids = {occ.event_id for occ in world.initial.values()} | {
        occ.event_id for occ in world.baseline.values()
    }
    continuing = {occ.key for occ in world.continued.values()}
    continuation_ids = {occ.event_id for occ in world.continued.values()}
    new: dict[str, list[Occ]] = {}
    for key, occ in final.items():
        if key in world.baseline or key in continuing:
            continue
        new.setdefault(occ.event_id, []).append(occ)
    for event_id, occs in new.items():
        occs.sort(key=lambda o: o.start)
        if event_id in initial_ids or event_id in continuation_ids:
            # new occurrences of an event that was there (its rule changed): as any change to it
            handled = any(
                isinstance(c, EventCheck) and not c.unchanged and world.handles.get(c.event) == event_id
                for c in checks
            ) or any(_covered(world, checks, o) for o in occs)
            if not handled:
                writes.add(
                    unexpected=False, event=event_id, text=f"{_label(world, occs[0])}: new occurrences"
                )
            continue
        verdicts = [_expects(world, c, o) for c in checks for o in occs]
        if True not in verdicts:
            forbidden = " (a check expects none)" if False in verdicts else ""
            more = f" and {len(occs) - 1} more occurrences" if len(occs) > 1 else ""
            writes.unexpected.append(f"created {_label(world, occs[0])}{more}{forbidden}")


def _expects(world: ScenarioWorld, check: Check, occ: Occ) -> bool | None:
    """True when ``check`` matches a created occurrence and expects such events, False when it matches
    and expects none, None when it does not read it."""
    if isinstance(check, CreatedCheck):
        spec = check.created
        if spec.summary_contains.casefold() in occ.summary.casefold() and (
            not spec.calendar or spec.calendar == occ.calendar
        ):
            return check.count > 0
        return None
    if isinstance(check, CountCheck) and _counted(world, check, occ):
        return check.equals > 0
    return None


def _preferences(world: ScenarioWorld, checks: Sequence[Check], writes: Writes) -> None:
    named = {c.preference for c in checks if isinstance(c, PreferenceCheck)}
    now = stored_preferences(world.user)
    for key in sorted(now.keys() | world.initial_preferences.keys()):
        before, after = world.initial_preferences.get(key), now.get(key)
        if before != after and key not in named:
            # as JSON with sorted keys: PostgreSQL's jsonb keeps no order of its own
            was, now_is = (json.dumps(v, sort_keys=True) for v in (before, after))
            writes.unexpected.append(f"preference {key} changed from {was} to {now_is}")


def _mail(checks: Sequence[Check], writes: Writes) -> None:
    allowed = {a.casefold() for c in checks if isinstance(c, OutboxCheck) for a in c.outbox.to_include}
    sent = {a.casefold() for m in getattr(mail, "outbox", []) for a in (*m.to, *m.cc, *m.bcc)}
    for address in sorted(sent - allowed):
        writes.unexpected.append(f"mail to {address}")
