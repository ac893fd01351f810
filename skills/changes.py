"""Pending changes to calendars: what they are, when they need approval, how they are applied and undone.

A plan skill produces a :class:`ChangeSet` (nothing written yet); ``apply_changes`` shows it, asks where
the product's policy says so, re-checks every target against the calendar as it is *now* (a change
approved days later must not overwrite an edit made meanwhile), then applies it as one unit and keeps
a :class:`~skills.models.ChangeRecord` of each change with its before-image, which is what undo reverts.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from pydantic import BaseModel, Field

from skills import inflight
from skills.formatting import format_day, format_person, format_span, join_and, ordinal
from skills.models import Calendar, ChangeRecord, CopyLink, Event
from skills.providers.base import (
    CalendarProvider,
    ConflictError,
    EventData,
    NotFoundError,
    Occurrence,
    PartlyAppliedError,
    Scope,
    Write,
    Written,
)
from skills.providers.compensation import all_or_nothing

__all__ = [
    "Change",
    "ChangeSet",
    "CopyOf",
    "Skipped",
    "SyncOf",
    "applied_records",
    "apply_change_set",
    "approval_reasons",
    "attendee_changes",
    "change_digest",
    "describe_change",
    "preview_rows",
    "revalidate",
    "shift_wall",
    "snapshot",
    "undo_run",
]


class Skipped(BaseModel):
    """A target the plan leaves alone, and why (named in the preview, never dropped silently)."""

    summary: str
    start: datetime | None = None
    reason: str


class CopyOf(BaseModel):
    """What a copy made by a sync copies (see :mod:`skills.sync_skills`): the original occurrence as it
    was read; applying the copy links it to that original (:class:`~skills.models.CopyLink`)."""

    calendar_id: str
    event_id: str
    uid: str
    recurrence_id: datetime | None = None
    etag: str = ""
    replaces: str = Field(default="", description="A copy of it deleted since, whose link this one takes.")


class SyncOf(BaseModel):
    """What an update made by a two-way sync keeps in step (see :mod:`skills.sync_skills`): the copy of
    the link, which side the update writes (the copy, after its original was edited, or the original,
    after its copy was), and the other side's calendar; applying it moves the link on to this run."""

    copy_event_id: str
    side: Literal["copy", "original"]
    other_calendar_name: str = ""
    source_etag: str = Field(default="", description="For an update of the copy: the original as read.")


class Change(BaseModel):
    """One pending change.  For updates and deletes, ``etag`` is the target as it was read."""

    action: Literal["create", "update", "delete"]
    summary: str
    calendar: str = Field(default="", description="Calendar id (create) or the target's calendar.")
    calendar_name: str = ""
    key: str = ""
    event_id: str = ""
    recurrence_id: datetime | None = None
    scope: Literal["occurrence", "following", "series"] = "occurrence"
    etag: str = ""
    before_start: datetime | None = None
    before_end: datetime | None = None
    start: datetime | None = None
    end: datetime | None = None
    all_day: bool = False
    new_summary: str | None = None
    new_location: str | None = None
    new_description: str | None = Field(
        default=None, description="The notes (description) after the change; '' removes them."
    )
    new_attendees: list[str] | None = Field(default=None, description="The attendees after the change.")
    rrule: str = Field(default="", description="For a new repeating event: its RFC 5545 rule.")
    new_rrule: str | None = Field(default=None, description="For a whole series: its new rule.")
    attendees: list[str] = Field(default_factory=list, description="Other people on the event.")
    location: str = ""
    description: str = ""
    conflicts: list[str] = Field(default_factory=list, description="What the new time would break.")
    busy: list[str] = Field(
        default_factory=list, description="The attendees (their names) who are busy at the new time."
    )
    unseen: list[str] = Field(
        default_factory=list,
        description="For a time chosen as one when everyone is free: the people among them whose busy "
        "times cannot be seen (not users here, or not sharing them), so the time may not suit them.",
    )
    copy_of: CopyOf | None = Field(default=None, description="For a copy of another event: that event.")
    sync_of: SyncOf | None = Field(
        default=None, description="For an update that keeps a copy and its original in step: the link."
    )
    why: str = Field(default="", description="Why a free-time search chose the new time, in words.")


class ChangeSet(BaseModel):
    changes: list[Change] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    note: str = Field(default="", description="What the set amounts to, said above its preview (or alone).")


def snapshot(occ: Occurrence) -> dict[str, Any]:
    """What undo needs to put an occurrence back as it was."""
    return {
        "event_id": occ.event_id,
        "recurrence_id": occ.recurrence_id.isoformat() if occ.recurrence_id else None,
        "calendar_id": occ.calendar_id,
        "summary": occ.summary,
        "start": occ.start.isoformat(),
        "end": occ.end.isoformat(),
        "all_day": occ.all_day,
        "timezone": occ.timezone,
        "attendees": list(occ.attendees),
        "location": occ.location,
        "description": occ.description,
        "rrule": "",
    }


def approval_reasons(changes: Iterable[Change]) -> list[str]:
    """Why a change set must be approved first; empty when it may be applied at once.

    The product's policy: every deletion, every change to more than one event, every move of an
    event with other attendees (or of its end) and everything that breaks a preference asks first.
    """
    changes = list(changes)
    reasons: list[str] = []
    if any(c.action == "delete" for c in changes):
        reasons.append("it deletes events")
    if any(c.copy_of is not None for c in changes):
        reasons.append("it copies events between calendars")
    if any(c.sync_of is not None for c in changes):
        reasons.append("it updates events to keep calendars in step")
    if any(c.recurrence_id is not None and c.scope != "occurrence" for c in changes):
        reasons.append("it changes a whole series")
    if len(changes) > 1:
        reasons.append(f"it changes {len(changes)} events")
    if any(c.action == "update" and c.attendees and c.start != c.before_start for c in changes):
        reasons.append("it moves an event other people attend")
    elif any(c.action == "update" and c.attendees and _lasts_otherwise(c) for c in changes):
        # "add half an hour to the design review": its end moves in the others' calendars too
        reasons.append("it changes how long an event other people attend lasts")
    if any(any(attendee_changes(c)) for c in changes):
        reasons.append("it changes who is invited")
    unseen = sorted({name for c in changes for name in c.unseen})
    if unseen:
        reasons.append(f"I cannot see when {join_and(unseen)} {'is' if len(unseen) == 1 else 'are'} busy")
    if any(c.conflicts for c in changes):
        reasons.append("it conflicts: " + "; ".join(x for c in changes for x in c.conflicts))
    return reasons


def _lasts_otherwise(change: Change) -> bool:
    """Whether the change gives the event another end (a new length, or a move)."""
    return change.end is not None and change.before_end is not None and change.end != change.before_end


def change_digest(changes: Iterable[Change]) -> str:
    """Names exactly the changes a preview showed, so an approval applies to what was seen."""
    body = json.dumps([c.model_dump(mode="json") for c in changes], sort_keys=True)
    return hashlib.blake2b(body.encode(), digest_size=8).hexdigest()


def revalidate(provider: CalendarProvider, changes: list[Change]) -> tuple[list[Change], list[Skipped]]:
    """The changes whose targets are still as they were read, and the others with what happened.

    Every target is read in one batch: a preview of 500 moves must not cost 500 round trips.
    """
    current = iter(
        provider.get_occurrences([(c.event_id, c.recurrence_id) for c in changes if c.action != "create"])
    )
    valid: list[Change] = []
    dropped: list[Skipped] = []
    for change in changes:
        if change.action == "create":
            valid.append(change)
            continue
        found = next(current)
        if found is None:
            dropped.append(
                Skipped(summary=change.summary, start=change.before_start, reason="it was deleted meanwhile")
            )
        elif change.etag and found.etag != change.etag:
            dropped.append(
                Skipped(summary=change.summary, start=change.before_start, reason="it was changed meanwhile")
            )
        else:
            valid.append(change)
    return valid, dropped


def describe_change(change: Change, tz: ZoneInfo) -> str:
    """One preview line: what happens to which event, with days named in words."""

    def when(start: datetime | None, end: datetime | None) -> str:
        if start is None or end is None:
            return ""
        local = start.astimezone(tz)
        last = (end - timedelta(microseconds=1)).astimezone(tz).date()
        if change.all_day and last > local.date():  # "Thursday, August 20 – Tuesday, August 25, all day"
            return f"{format_day(local.date())} – {format_day(last)}, all day"
        return f"{format_day(local.date())} {format_span(start, end, tz, all_day=change.all_day)}"

    if change.action == "create" and change.copy_of is not None:
        return f"Copy {change.summary!r} to {change.calendar_name}: {when(change.start, change.end)}"
    if change.action == "create":
        # Everything the new event will hold, so that a misreading shows before it is written.
        details = [f"repeating ({describe_rule(change.rrule, tz)})"] if change.rrule else []
        details += [f"at {change.location}"] if change.location else []
        people = ", ".join(format_person(a) for a in change.attendees)
        details += [f"with {people}"] if people else []
        details += [f"in {change.calendar_name}"] if change.calendar_name else []
        return f"Create {change.summary!r}: " + ", ".join([when(change.start, change.end), *details])
    if change.action == "delete":
        if change.recurrence_id is not None and change.scope != "occurrence":
            return f"Delete {change.summary!r}{_scope_words(change, tz)}"
        return f"Delete {change.summary!r} ({when(change.before_start, change.before_end)})"
    parts = []
    if change.start is not None and change.start != change.before_start:
        parts.append(f"{when(change.before_start, change.before_end)} → {when(change.start, change.end)}")
    elif _lasts_otherwise(change):
        assert change.start is not None
        assert change.end is not None
        parts.append(f"now {format_span(change.start, change.end, tz)}")  # a new length, same start
    if change.new_summary:
        parts.append(f"rename to {change.new_summary!r}")
    if change.new_location is not None:
        parts.append(f"place: {change.new_location!r}" if change.new_location else "no place")
    if change.new_description is not None:
        lines = " / ".join(line for line in change.new_description.splitlines() if line.strip())
        parts.append(f"notes: {lines!r}" if lines else "no notes")  # one line: a chat line
    if change.new_rrule:
        parts.append(f"repeat {describe_rule(change.new_rrule, tz)}")
    invited, dropped = attendee_changes(change)
    if invited:
        parts.append("invite " + ", ".join(format_person(a) for a in invited))
    if dropped:
        parts.append("take off " + ", ".join(format_person(a) for a in dropped))
    if change.sync_of is not None:
        # "Update 'Sprint planning' in Personal to match Work: ...", "... in Work to match Personal"
        other = change.sync_of.other_calendar_name
        if change.sync_of.side == "original":
            other = f"its copy in {other}" if other else "its copy"
        return f"Update {change.summary!r} in {change.calendar_name} to match {other or 'its original'}" + (
            f"{_scope_words(change, tz)}: " + ("; ".join(parts) or "no change")
        )
    verb = "Move" if change.start is not None and change.start != change.before_start else "Change"
    return f"{verb} {change.summary!r}{_scope_words(change, tz)}: " + ("; ".join(parts) or "no change")


def _scope_words(change: Change, tz: ZoneInfo) -> str:
    """Which occurrences of a series a change reaches, said before it applies."""
    if change.recurrence_id is None or change.before_start is None:
        return ""
    day = format_day(change.before_start.astimezone(tz).date())
    if change.scope == "series":
        return " (every occurrence)"
    if change.scope == "following":
        return f" (from {day} on)"
    return f" (only {day})" if change.action == "update" else ""


_DAY_NAMES = {"MO": "Monday", "TU": "Tuesday", "WE": "Wednesday", "TH": "Thursday", "FR": "Friday"}
_DAY_NAMES |= {"SA": "Saturday", "SU": "Sunday"}


def describe_rule(rule: str, tz: ZoneInfo) -> str:
    """An RRULE in words: 'every Tuesday and Thursday until May 31', 'every other Monday'."""
    parts = dict(p.split("=", 1) for p in rule.split(";") if "=" in p)
    interval = int(parts.get("INTERVAL", "1") or 1)
    every = "every other" if interval == 2 else "every"
    days = [_DAY_NAMES.get(d, d) for d in parts.get("BYDAY", "").split(",") if d]
    unit = {"DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"}.get(
        parts.get("FREQ", ""), ""
    )
    named = " and ".join([", ".join(days[:-1]), days[-1]] if len(days) > 1 else days)
    nth = re.fullmatch(r"([+-]?\d)([A-Z]{2})", parts.get("BYDAY", ""))
    on = ""
    if nth and unit == "month":  # "1MO": the first Monday of every month
        which = {"1": "first", "2": "second", "3": "third", "4": "fourth", "-1": "last"}.get(
            nth[1].lstrip("+"), nth[1]
        )
        on, days = f" on the {which} {_DAY_NAMES.get(nth[2], nth[2])}", []
    elif unit == "month" and parts.get("BYMONTHDAY", "").isdigit():
        on = f" on the {ordinal(int(parts['BYMONTHDAY']))}"
    if interval > 2:
        said = f"every {interval} {unit}s" + (f" on {named}" if days else on)
    else:
        said = f"{every} {named}" if days else f"{every} {unit}{on}"
    until = parts.get("UNTIL")
    if until:
        moment = datetime.strptime(until[:15], "%Y%m%dT%H%M%S").replace(tzinfo=UTC) if "T" in until else None
        day = moment.astimezone(tz).date() if moment else datetime.strptime(until[:8], "%Y%m%d").date()
        said += f" until {day:%B} {day.day}"
    return said


def attendee_changes(change: Change) -> tuple[list[str], list[str]]:
    """Who a change invites and who it takes off (by address, case aside)."""
    if change.new_attendees is None:
        return [], []
    before = {a.casefold() for a in change.attendees}
    after = {a.casefold() for a in change.new_attendees}
    return (
        [a for a in change.new_attendees if a.casefold() not in before],
        [a for a in change.attendees if a.casefold() not in after],
    )


def preview_rows(changes: list[Change], tz: ZoneInfo) -> list[dict[str, Any]]:
    """Before/after rows for the chat's preview and week view (times in the user's zone)."""

    def iso(moment: datetime | None) -> str | None:
        return moment.astimezone(tz).isoformat() if moment else None

    return [
        {
            "action": c.action,
            "summary": c.new_summary or c.summary,
            "calendar": c.calendar_name,
            "before": {"start": iso(c.before_start), "end": iso(c.before_end)}
            if c.action != "create"
            else None,
            "after": {"start": iso(c.start), "end": iso(c.end)} if c.action != "delete" else None,
            "all_day": c.all_day,
            "series": c.recurrence_id is not None and c.scope != "occurrence",  # more than the one shown
            "attendees": list(c.new_attendees if c.new_attendees is not None else c.attendees),
            # what a new event declined for its time is made again with ("no, 7pm")
            "location": c.new_location if c.new_location is not None else c.location,
            "rrule": c.rrule,
            "calendar_key": c.calendar if c.action == "create" else "",
            "line": describe_change(c, tz),
        }
        for c in changes
    ]


def _record(
    *,
    owner: Any,
    run_id: str,
    operation_id: str,
    position: int,
    action: str,
    summary: str,
    write: Write,
    written: Written,
) -> ChangeRecord:
    """The log entry of one applied change, with the before-image its write checked and undo restores.

    ``action`` is what the change amounts to (a restore that brings a series back is a create) and
    ``summary`` the event's title as the user knows it (an undo names what it undid).  A replayed
    delete reports no occurrence at all; the write's target names it then.
    """
    before, after = written.before, written.after
    subject = after or before
    return ChangeRecord(
        owner=owner,
        operation_id=operation_id,
        run_id=run_id,
        position=position,
        action=action,
        scope=write.scope.value,
        summary=summary,
        event_id=subject.event_id if subject else write.event_id,
        recurrence_id=subject.recurrence_id if subject else write.recurrence_id,
        before=snapshot(before) if before else None,
        after=snapshot(after) if after else None,
        after_etag=after.etag if after else "",
        restore_image=written.restore_image,
    )


def _write(change: Change, operation_id: str) -> Write:
    """The provider write that carries out ``change``."""
    if change.action == "create":
        assert change.start is not None
        assert change.end is not None
        data = EventData(
            summary=change.summary,
            start=change.start,
            end=change.end,
            attendees=list(change.attendees),
            location=change.location,
            description=change.description,
            rrule=change.rrule or None,
            all_day=change.all_day or None,
            start_date=change.start.date() if change.all_day else None,
            end_date=change.end.date() if change.all_day else None,
        )
        return Write(action="create", calendar_id=change.calendar, data=data, operation_id=operation_id)
    changed = EventData(
        summary=change.new_summary,
        start=change.start,
        end=change.end,
        location=change.new_location,
        description=change.new_description,
        attendees=change.new_attendees,
        rrule=change.new_rrule,
    )
    return Write(
        action=change.action,
        data=changed if change.action == "update" else EventData(),
        event_id=change.event_id,
        recurrence_id=change.recurrence_id,
        scope=Scope(change.scope),
        expected_etag=change.etag,
        operation_id=operation_id,
    )


def _log(owner: Any, entries: list[ChangeRecord], operation_ids: list[str]) -> list[ChangeRecord]:
    """Write the change records of a batch and return every record of ``operation_ids`` by position.

    A concurrent twin of the same apply may have logged them first; its records, written with the
    first write, are the ones kept (as ``get_or_create`` would).  Without a twin, and with no record
    of the batch logged before (``entries`` name every operation, in position order), the records
    just written are all there is: they are inserted in a savepoint and returned as they are, where
    reading 500 of them back cost a tenth of a bulk move.  Only a twin's rows make the savepoint
    fail; the records are then inserted around them and read back.
    """
    if len(entries) == len(operation_ids):
        try:
            with transaction.atomic():
                return ChangeRecord.objects.bulk_create(entries)
        except IntegrityError:
            pass
    ChangeRecord.objects.bulk_create(entries, ignore_conflicts=True)
    return list(ChangeRecord.objects.filter(owner=owner, operation_id__in=operation_ids).order_by("position"))


def applied_records(user: Any, operation_id: str) -> list[ChangeRecord]:
    """The records of a set already applied under ``operation_id`` (by an earlier attempt of the same
    task whose worker died before storing its result), in order; empty if it was not."""
    return list(
        ChangeRecord.objects.filter(owner=user, operation_id__startswith=f"{operation_id}:").order_by(
            "position"
        )
    )


def apply_change_set(
    *,
    provider: CalendarProvider,
    user: Any,
    run_id: str,
    operation_id: str,
    changes: list[Change],
    notify: bool = False,
) -> list[ChangeRecord]:
    """Apply every change or none, each write carrying its own idempotency key: one transaction for
    the built-in store, the mirrors and the change log, in one unit of work for remote calendars
    (:mod:`skills.providers.compensation`), so that a failure anywhere, even in writing the log,
    takes back the remote writes already made.

    The provider reads every target once for the whole set (its etag check, its before-image and
    the state the write starts from), so a change costs about its own write.  A re-delivered task
    finds its change records (written in the same transaction as the changes) and writes nothing
    twice; a change without one still meets the provider's receipts.

    ``notify``: the user asked to tell the other attendees; each write says so to its provider.

    Raises:
        PartlyAppliedError: a write was refused and some remote writes already made could not be
            taken back (the error names them); the rest of the set was not applied.
        ProviderError: a write was refused; nothing of the set was applied.
    """
    ops = [f"{operation_id}:{position}" for position in range(len(changes))]
    remote = _remote_writes(user, changes, ops) if operation_id else []
    # Recorded (committed) before anything is sent: see skills.inflight.
    resumed = inflight.record(user=user, operation_id=operation_id, writes=remote) if remote else False
    # The outer unit only holds back the mirrors' refresh after a failure until the set is settled.
    with all_or_nothing():
        try:
            with all_or_nothing(), transaction.atomic():
                records = _apply_set(provider, user, run_id, changes, ops, notify, operation_id, resumed)
                if remote:
                    inflight.forget(user=user, operation_id=operation_id)  # with the records
                return records
        except Exception as exc:
            # Refused: what this attempt sent was taken back as its unit ended.  Resuming an attempt
            # that died, what that one left on a server is put back too, from the mirror; then the
            # set is settled either way, and the mirrors are refreshed.
            left = provider.take_back(operation_id, remote) if resumed else []
            if remote:
                inflight.forget(user=user, operation_id=operation_id)
            if left:
                cause = exc.cause if isinstance(exc, PartlyAppliedError) else exc
                earlier = exc.left if isinstance(exc, PartlyAppliedError) else []
                raise PartlyAppliedError(left=[*earlier, *left], cause=cause) from exc
            raise


def _remote_writes(user: Any, changes: list[Change], ops: list[str]) -> list[dict[str, Any]]:
    """The writes of the set to remote calendars, as :class:`~skills.models.RemoteIntent` keeps
    them; none when every calendar it writes is the built-in store's.  A change names its target's
    calendar by id (a create) or names a target, whose row says which (a move names its calendar by
    key)."""
    targets = {int(c.event_id) for c in changes if c.action != "create" and c.event_id.isdigit()}
    of_target = dict(
        Event.objects.filter(pk__in=targets, calendar__owner=user).values_list("pk", "calendar_id")
    )
    calendars = [
        c.calendar
        if c.action == "create"
        else str(of_target.get(int(c.event_id), "")) if c.event_id.isdigit() else ""
        for c in changes
    ]
    remote = {
        str(pk)
        for pk in Calendar.objects.filter(
            owner=user, pk__in={int(c) for c in calendars if c.isdigit()}, account__isnull=False
        ).values_list("pk", flat=True)
    }
    return [
        {
            "operation_id": op,
            "action": change.action,
            "calendar_id": calendar,
            "event_id": change.event_id,
            "recurrence_id": change.recurrence_id.isoformat() if change.recurrence_id else "",
            "etag": change.etag,
            "after": _intended(change),
        }
        for change, op, calendar in zip(changes, ops, calendars, strict=True)
        if calendar in remote
    ]


def _intended(change: Change) -> dict[str, Any] | None:
    """What the target is to look like after ``change`` (title, place, times), by which a server's
    version is known for the set's own write and not an edit made over it; None for a deletion, and
    for a change to a whole series, which no one occurrence shows."""
    start = change.start or change.before_start
    end = change.end or change.before_end
    if change.action == "delete" or start is None or end is None:
        return None
    if change.action == "update" and change.recurrence_id is not None and change.scope != "occurrence":
        return None
    created = change.action == "create"
    return {
        "summary": change.summary if created or change.new_summary is None else change.new_summary,
        "location": change.location if created or change.new_location is None else change.new_location,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "all_day": change.all_day,
    }


def _apply_set(
    provider: CalendarProvider,
    user: Any,
    run_id: str,
    changes: list[Change],
    ops: list[str],
    notify: bool,
    operation_id: str,
    resumed: bool,
) -> list[ChangeRecord]:
    """The inside of :func:`apply_change_set`'s transaction."""
    logged = set(
        ChangeRecord.objects.filter(owner=user, operation_id__in=ops).values_list(
            "operation_id", flat=True
        )
    )
    todo = [position for position, op in enumerate(ops) if op not in logged]
    writes = [_write(changes[position], ops[position]) for position in todo]
    if notify:  # the user asked to tell the attendees: a server that can (Google) is asked to
        told = [replace(w.data, extra={**w.data.extra, "notify": True}) for w in writes]
        writes = [replace(w, data=data) for w, data in zip(writes, told, strict=True)]
    with inflight.sending(operation_id, resumed=resumed):
        written = provider.apply_writes(writes)
    made = [(changes[p].copy_of, w.after) for p, w in zip(todo, written, strict=True)]
    CopyLink.objects.link_copies(owner=user, run_id=run_id, made=made)
    kept_in_step = _links_in_step(
        user, run_id, [(p, changes[p].sync_of, w) for p, w in zip(todo, written, strict=True)]
    )
    entries = [
        _record(
            owner=user,
            run_id=run_id,
            operation_id=ops[position],
            position=position,
            action=changes[position].action,
            summary=changes[position].summary,
            write=write,
            written=result,
        )
        for position, write, result in zip(todo, writes, written, strict=True)
    ]
    for entry in entries:
        if entry.position in kept_in_step:  # what undo puts the link back to
            entry.before = {**(entry.before or {}), SYNC_LINK: kept_in_step[entry.position]}
    return _log(user, entries, ops)


SYNC_LINK = "sync_link"
"""Key of a change record's ``before`` that holds the copy link as it was before a sync's update."""


def _link_image(link: CopyLink) -> dict[str, str]:
    return {
        "copy_event_id": link.copy_event_id,
        "run_id": str(link.run_id) if link.run_id else "",
        "source_etag": link.source_etag,
    }


def _links_in_step(
    user: Any, run_id: str, done: list[tuple[int, SyncOf | None, Written]]
) -> dict[int, dict[str, str]]:
    """Move the links of a two-way sync's updates on to this run: the content this run left on both
    sides is the one the next sync compares each side with, and ``source_etag`` is the original as it
    is now.  Returns each such change's link as it was, by position, for undo to put back."""
    synced = [(p, sync, w) for p, sync, w in done if sync is not None]
    if not synced:
        return {}
    links = {
        link.copy_event_id: link
        for link in CopyLink.objects.filter(
            owner=user, copy_event_id__in=[s.copy_event_id for _, s, _ in synced]
        )
    }
    before: dict[int, dict[str, str]] = {}
    for position, sync, written in synced:
        link = links.get(sync.copy_event_id)
        if link is None:
            continue
        before[position] = _link_image(link)
        link.run_id = run_id
        if sync.side == "original":
            link.source_etag = written.after.etag if written.after is not None else link.source_etag
        elif sync.source_etag:
            link.source_etag = sync.source_etag
    CopyLink.objects.bulk_update(list(links.values()), ["run_id", "source_etag"])
    return before


def _links_back(user: Any, reverted: list[tuple[ChangeRecord, ChangeRecord]]) -> None:
    """Put back the links a sync's updates moved on, as an undo reverts those updates; the undoing
    record keeps the link as the sync left it, so that undoing the undo moves it on again."""
    wanted = [(o, e) for o, e in reverted if isinstance(o.before, dict) and SYNC_LINK in o.before]
    if not wanted:
        return
    kept = {o.pk: o.before[SYNC_LINK] for o, _ in wanted}  # type: ignore[index]
    links = {
        link.copy_event_id: link
        for link in CopyLink.objects.filter(
            owner=user, copy_event_id__in=[k.get("copy_event_id", "") for k in kept.values()]
        )
    }
    changed = []
    for original, entry in wanted:
        image = kept[original.pk]
        link = links.get(image.get("copy_event_id", ""))
        if link is None:
            continue
        entry.before = {**(entry.before or {}), SYNC_LINK: _link_image(link)}
        link.run_id = image.get("run_id") or None
        link.source_etag = image.get("source_etag", "")
        changed.append(link)
    CopyLink.objects.bulk_update(changed, ["run_id", "source_etag"])


_INVERSE = {
    ChangeRecord.Action.CREATE: ChangeRecord.Action.DELETE,
    ChangeRecord.Action.UPDATE: ChangeRecord.Action.UPDATE,
    ChangeRecord.Action.DELETE: ChangeRecord.Action.CREATE,
}


def _moment(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _reverse(record: ChangeRecord, operation_id: str) -> tuple[str, Write] | None:
    """The write that puts back what ``record`` changed, expecting the state it left, and the action
    that amounts to; None when the record cannot say how.

    A change to more than one occurrence (a series moved, split, cut short or deleted) or an
    occurrence cancelled is put back from the provider's restore image: replayed as the change of
    one occurrence, it would recreate a one-off event or move a single occurrence.
    """
    after, before = record.after or {}, record.before or {}
    rid = _moment(after.get("recurrence_id") or before.get("recurrence_id"))
    inverse = _INVERSE[ChangeRecord.Action(record.action)]
    if record.restore_image is not None:
        # Report the occurrence the change started from, as it comes back.
        shown = before or after
        restore = Write(
            action="restore",
            image=record.restore_image,
            event_id=shown.get("event_id") or record.event_id,
            recurrence_id=_moment(shown.get("recurrence_id")) if shown else record.recurrence_id,
            scope=Scope(record.scope),
            operation_id=operation_id,
        )
        return inverse, restore
    if rid is not None and (record.scope != Scope.OCCURRENCE or record.action == ChangeRecord.Action.DELETE):
        return None
    target: dict[str, Any] = {
        "summary": record.summary,
        "event_id": record.event_id,
        "recurrence_id": rid,
        "etag": record.after_etag,
    }
    if record.action == ChangeRecord.Action.CREATE:
        change = Change(action="delete", scope="occurrence" if rid else "series", **target)
    elif record.action == ChangeRecord.Action.UPDATE:
        change = Change(
            action="update",
            new_summary=before.get("summary"),
            new_location=before.get("location"),
            new_description=before.get("description"),
            new_attendees=before.get("attendees"),
            start=datetime.fromisoformat(before["start"]),
            end=datetime.fromisoformat(before["end"]),
            **target,
        )
    else:
        change = Change(
            action="create",
            summary=before.get("summary") or record.summary,
            calendar=before["calendar_id"],
            start=datetime.fromisoformat(before["start"]),
            end=datetime.fromisoformat(before["end"]),
            all_day=before.get("all_day", False),
            attendees=before.get("attendees") or [],
            location=before.get("location") or "",
            description=before.get("description") or "",
        )
    return inverse, _write(change, operation_id)


def undo_run(
    *, provider: CalendarProvider, user: Any, run_id: str, undo_run_id: str, operation_id: str
) -> tuple[list[ChangeRecord], list[str]]:
    """Revert the changes run ``run_id`` made, newest first, as one unit.

    An event changed again since (its etag, or its series, is not as the change left it) is skipped
    and reported, never overwritten; so is a change to a series whose provider reported no restore
    image, which no single-occurrence change could put back.  Returns the records of the reverting
    changes and the skipped events' notes.
    """
    originals = list(
        ChangeRecord.objects.filter(owner=user, run_id=run_id, undone_by__isnull=True).order_by("-position")
    )
    entries: list[ChangeRecord] = []
    reverted: list[tuple[ChangeRecord, ChangeRecord]] = []
    undone: list[int] = []
    skipped: list[str] = []
    ops = [f"{operation_id}:{position}" for position in range(len(originals))]
    with all_or_nothing(), transaction.atomic():
        for position, record in enumerate(originals):
            reverse = _reverse(record, ops[position])
            if reverse is None:
                skipped.append(f"{record.summary} (cannot be put back exactly, left as it is)")
                continue
            action, write = reverse
            # One write at a time: a target edited since is skipped and the rest still undone.
            try:
                [written] = provider.apply_writes([write])
            except (ConflictError, NotFoundError):
                skipped.append(f"{record.summary} (changed again since, left as it is)")
                continue
            entries.append(
                _record(
                    owner=user,
                    run_id=undo_run_id,
                    operation_id=ops[position],
                    position=position,
                    action=action,
                    summary=record.summary,
                    write=write,
                    written=written,
                )
            )
            undone.append(record.pk)
            reverted.append((record, entries[-1]))
        CopyLink.objects.follow_undo(owner=user, reverted=reverted)
        _links_back(user, reverted)
        records = _log(user, entries, [entry.operation_id for entry in entries])
        ChangeRecord.objects.filter(pk__in=undone).update(undone_by=undo_run_id)
    return records, skipped


def shift_wall(moment: datetime, tz: ZoneInfo, *, days: int = 0, minutes: int = 0) -> datetime:
    """``moment`` moved by whole days and minutes of wall time in ``tz`` (a DST change keeps 14:00)."""
    local = moment.astimezone(tz).replace(tzinfo=None) + timedelta(days=days, minutes=minutes)
    return local.replace(tzinfo=tz)
