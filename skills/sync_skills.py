"""Copying events between a user's calendars, one way or both ways ("sync my work and personal calendars").

``plan_sync`` only plans: it returns a change set of copies (creates carrying ``copy_of``) that
``apply_changes`` previews, has approved, applies as one unit and can undo, like every other change.
What makes a sync safe to ask for again is the stored link between a copy and its original
(:class:`skills.models.CopyLink`, written in the transaction that writes the copy):

- an original already copied to a calendar (its calendar, UID and, for an occurrence of a series,
  its original start) is not copied there again, whatever happened to its title or time since;
- a copy is never copied anywhere, so a two-way sync does not copy a copy back (no ping-pong);
- private events are never copied (the plan counts them, never names them);
- a recurring event is copied occurrence by occurrence, each occurrence in the range as a one-off
  event linked to its occurrence: a sync for a month copies that month and never the series beyond it.

Everything is read through the user's own provider and links are the user's own: one user never
copies into or from another user's calendars.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from django.db.models import Q
from pydantic import Field

from preferences.schema import day_part_bounds
from skills.changes import Change, ChangeSet, CopyOf, SyncOf
from skills.context import SkillContext
from skills.errors import SkillError
from skills.filtering import filter_items
from skills.formatting import format_range
from skills.models import ChangeRecord, CopyLink
from skills.providers.base import CalendarInfo, Occurrence
from skills.registry import skill
from skills.schemas import EventCriteria, EventItem, SkillInput

__all__ = ["PlanSyncInput", "SyncPlan", "calendar_named", "plan_sync"]

ROLES = {"work": "work_calendar", "personal": "personal_calendar"}
"""Words that name a calendar through a preference before its key or name."""


def calendar_named(
    calendars: list[CalendarInfo], preferences: dict[str, Any], word: str
) -> CalendarInfo | None:
    """The calendar a word names: "work" and "personal" as the ``work_calendar`` and
    ``personal_calendar`` preferences say, else (and any other word) a calendar's key, name or id."""
    said = word.casefold().strip()
    if said.endswith(" calendar"):
        said = said.removesuffix(" calendar").strip()
    chosen = preferences.get(ROLES.get(said, ""))
    for wanted in ([chosen.casefold()] if isinstance(chosen, str) and chosen else []) + [said]:
        for cal in calendars:
            if wanted in (cal.key.casefold(), cal.name.casefold(), cal.id):
                return cal
    return None


class PlanSyncInput(SkillInput):
    start: datetime = Field(description="Start of the range whose events are copied, ISO 8601 with offset.")
    end: datetime = Field(description="End of the range (exclusive).")
    to: list[str] = Field(
        min_length=1,
        description="Calendars copies go to: 'work' or 'personal' (the work_calendar/personal_calendar "
        "preferences, else a calendar of that key or name) or a calendar's key or name.",
    )
    sources: list[str] = Field(
        default_factory=list,
        description="Calendars to copy from, named the same way; every calendar not in `to` when empty. "
        "A two-way sync names the same calendars in both: each one's events go to the others.",
    )
    only: EventCriteria | None = Field(
        default=None, description="Copy only the events these criteria keep (e.g. category meeting)."
    )


class SyncPlan(ChangeSet):
    """The copies to make, with what the plan left out (counted, private events never named)."""

    copies: int = Field(default=0, description="Events to copy.")
    private: int = Field(default=0, description="Private events left out.")
    already: int = Field(default=0, description="Events already copied (found by their links).")
    edited: list[str] = Field(
        default_factory=list, description="Originals edited since they were copied (their copies stay)."
    )
    updates: int = Field(default=0, description="Copies and originals to bring up to date (a two-way sync).")
    both_edited: list[str] = Field(
        default_factory=list, description="Events edited on both sides since the last sync (left alone)."
    )


def _calendars(ctx: SkillContext, calendars: list[CalendarInfo], words: Iterable[str]) -> list[CalendarInfo]:
    found: dict[str, CalendarInfo] = {}
    for word in words:
        cal = calendar_named(calendars, ctx.preferences, word)
        if cal is None:
            names = ", ".join(c.name for c in calendars) or "none yet"
            role = ROLES.get(word.casefold().strip())
            hint = f" Set your {role} preference to say which one is your {word} calendar." if role else ""
            raise SkillError(f"You have no calendar called {word!r} (yours: {names}).{hint}")
        found.setdefault(cal.id, cal)
    return list(found.values())


def _rid(moment: datetime | None) -> float | None:
    return moment.timestamp() if moment is not None else None


class _Links:
    """The user's links that bear on the occurrences read: which of them are copies, and which
    originals have a live copy in which calendar (a link whose copy is gone names what it gave way to)."""

    def __init__(
        self, ctx: SkillContext, occurrences: list[Occurrence], sources: set[str], targets: set[str]
    ):
        rows = (
            list(
                CopyLink.objects.filter(owner=ctx.user).filter(
                    Q(copy_calendar_id__in=sources, copy_event_id__in={o.event_id for o in occurrences})
                    | Q(
                        source_calendar_id__in=sources,
                        source_uid__in={o.uid for o in occurrences},
                        copy_calendar_id__in=targets,
                    )
                )
            )
            if occurrences
            else []
        )
        self.copies = {(r.copy_calendar_id, r.copy_event_id) for r in rows}
        self.rows = {(r.copy_calendar_id, r.copy_event_id): r for r in rows}
        originals = [r for r in rows if r.source_calendar_id in sources and r.copy_calendar_id in targets]
        held = ctx.provider.get_occurrences([(r.copy_event_id, None) for r in originals])
        self.held: dict[int, Occurrence] = {}  # the copy of each link, as it is now
        self._exact: dict[tuple[str, str, float | None, str], tuple[CopyLink, bool]] = {}
        self._by_day: dict[tuple[str, str, str], list[tuple[CopyLink, bool]]] = {}
        for row, copy in zip(originals, held, strict=True):
            live = copy is not None and copy.calendar_id == row.copy_calendar_id
            if live and copy is not None:
                self.held[row.pk] = copy
            entry = (row, live)
            self._exact[
                (row.source_calendar_id, row.source_uid, _rid(row.source_recurrence_id), row.copy_calendar_id)
            ] = entry
            if row.source_recurrence_id is not None:
                self._by_day.setdefault(
                    (row.source_calendar_id, row.source_uid, row.copy_calendar_id), []
                ).append(entry)
        self._used: set[int] = set()

    def is_copy(self, occ: Occurrence) -> bool:
        return (occ.calendar_id, occ.event_id) in self.copies

    def of(self, occ: Occurrence, target: CalendarInfo) -> tuple[CopyLink, bool] | None:
        """The link of ``occ``'s copy in ``target`` and whether that copy still exists.

        An occurrence of a series is its original start; when the series itself was moved (which
        gives every occurrence a new original start), the occurrence of the same series on the same
        original day is the same one.
        """
        found = self._exact.get((occ.calendar_id, occ.uid, _rid(occ.recurrence_id), target.id))
        if found is None and occ.recurrence_id is not None:
            zone = occ.start.tzinfo
            day = occ.recurrence_id.astimezone(zone).date()
            found = next(
                (
                    entry
                    for entry in self._by_day.get((occ.calendar_id, occ.uid, target.id), [])
                    if entry[0].pk not in self._used
                    and entry[0].source_recurrence_id is not None
                    and entry[0].source_recurrence_id.astimezone(zone).date() == day
                ),
                None,
            )
        if found is not None:
            self._used.add(found[0].pk)
        return found


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _per(plan: SyncPlan, *, copies: bool, word: str) -> str:
    """ "2 to Personal, 1 to Work": the copies (or updates) of a plan by the calendar they write."""
    per: dict[str, int] = {}
    for c in plan.changes:
        if (c.copy_of is not None) == copies:
            per[c.calendar_name] = per.get(c.calendar_name, 0) + 1
    return ", ".join(f"{n} {word} {name}" for name, n in per.items())


def _note(plan: SyncPlan, targets: list[CalendarInfo], sources: list[CalendarInfo], period: str) -> str:
    """ "3 events to copy: 2 to Personal, 1 to Work; 1 private event left out." and what else the
    user should know, or why there is nothing to copy."""
    both = {c.id for c in sources} == {c.id for c in targets} and len(targets) > 1
    if both:
        what = " and ".join(c.name for c in targets)
        scope = f"between {what}, {period}"
    else:
        origins, ends = (" and ".join(c.name for c in cals) for cals in (sources, targets))
        scope = f"from {origins} to {ends}, {period}"
    private = [f"{_plural(plan.private, 'private event')} left out"] if plan.private else []
    already = [f"{_plural(plan.already, 'event')} already copied"] if plan.already else []
    heads = []
    if plan.copies:
        heads.append(
            f"{_plural(plan.copies, 'event')} to copy"
            + (f": {_per(plan, copies=True, word='to')}" if both else "")
        )
    if plan.updates:
        # "1 event to update: 1 in Personal": a side edited since the last sync brings the other along
        heads.append(f"{_plural(plan.updates, 'event')} to update: {_per(plan, copies=False, word='in')}")
    if heads:
        text = "; ".join([*heads, *private, *already]) + f" ({scope})."
    elif plan.already or plan.private:
        text = f"Nothing left to copy {scope}: " + "; ".join([*already, *private]) + "."
    else:
        text = f"Nothing to copy {scope}: there are no events to copy there."
    if plan.both_edited:
        shown = ", ".join(dict.fromkeys(plan.both_edited))
        text += (
            f" Changed on both sides since the last sync (both left as they are): {shown}."
            if len(set(plan.both_edited)) > 1
            else f" {shown} was changed on both sides since the last sync; both were left as they are."
        )
    if plan.edited:
        shown = ", ".join(dict.fromkeys(plan.edited))
        text += (
            f" Changed since they were copied (their copies were left as they are): {shown}."
            if len(set(plan.edited)) > 1
            else f" {shown} was changed since it was copied; its copy was left as it is."
        )
    return text


def _content(summary: str, location: str, start: datetime, end: datetime, all_day: bool) -> tuple[Any, ...]:
    """What a two-way sync keeps the same on both sides: the title, the place and (but for all-day
    events, whose days are left as they are) the time."""
    if all_day:
        return (summary, location)
    return (summary, location, start.timestamp(), end.timestamp())


def _of(occ: Occurrence, all_day: bool) -> tuple[Any, ...]:
    return _content(occ.summary, occ.location, occ.start, occ.end, all_day)


def _last_synced(ctx: SkillContext, rows: list[CopyLink]) -> dict[int, dict[str, Any]]:
    """For each link, the event as the last sync that wrote either side left it: the image its change
    record kept (the copy as made or updated, or the original as updated from its copy).  Compared
    with each side as it is now, it tells which side changed since."""
    runs = {str(r.run_id) for r in rows if r.run_id}
    if not runs:
        return {}
    ids = {i for r in rows for i in (r.copy_event_id, r.source_event_id)}
    records = ChangeRecord.objects.filter(owner=ctx.user, run_id__in=runs, event_id__in=ids).exclude(
        after__isnull=True
    )
    by_key: dict[tuple[str, str, float | None], dict[str, Any]] = {}
    for record in records.order_by("position"):
        rid = record.recurrence_id.timestamp() if record.recurrence_id else None
        if isinstance(record.after, dict):
            by_key[(str(record.run_id), record.event_id, rid)] = record.after
    found: dict[int, dict[str, Any]] = {}
    for row in rows:
        run = str(row.run_id) if row.run_id else ""
        image = by_key.get((run, row.copy_event_id, None)) or by_key.get(
            (run, row.source_event_id, _rid(row.source_recurrence_id))
        )
        if image:
            found[row.pk] = image
    return found


def _update(
    side: Literal["copy", "original"],
    target: Occurrence,
    source: Occurrence,
    row: CopyLink,
    owner: str,
    original_etag: str,
) -> Change:
    """The update that makes ``target`` (one side of a link) match ``source`` (the other)."""
    timed = not target.all_day
    return Change(
        action="update",
        summary=target.summary,
        calendar=target.calendar_id,
        calendar_name=target.calendar_name,
        key=target.occurrence_key,
        event_id=target.event_id,
        recurrence_id=target.recurrence_id,
        scope="occurrence",
        etag=target.etag,
        before_start=target.start,
        before_end=target.end,
        start=source.start if timed else target.start,
        end=source.end if timed else target.end,
        all_day=target.all_day,
        new_summary=source.summary if source.summary != target.summary else None,
        new_location=source.location if source.location != target.location else None,
        attendees=[a for a in target.attendees if a.casefold() != owner],
        location=target.location,
        sync_of=SyncOf(
            copy_event_id=row.copy_event_id,
            side=side,
            other_calendar_name=source.calendar_name,
            source_etag=original_etag if side == "copy" else "",
        ),
    )


def _copies_of_unlisted(
    ctx: SkillContext, occurrences: list[Occurrence], links: _Links, seen: set[int]
) -> list[tuple[Occurrence, Occurrence, CopyLink]]:
    """Copies in the range whose originals are not (moved out of it since, or one side of a sync of
    another range): each with its original, read by id, so that an edit on either side still reaches
    the other."""
    copies = [
        (occ, row)
        for occ in occurrences
        if (row := links.rows.get((occ.calendar_id, occ.event_id))) is not None and row.pk not in seen
    ]
    if not copies:
        return []
    originals = ctx.provider.get_occurrences(
        [(row.source_event_id, row.source_recurrence_id) for _, row in copies]
    )
    return [
        (original, copy, row)
        for (copy, row), original in zip(copies, originals, strict=True)
        if original is not None and original.calendar_id == row.source_calendar_id
    ]


def _keep_in_step(
    ctx: SkillContext, plan: SyncPlan, pairs: list[tuple[Occurrence, Occurrence, CopyLink]]
) -> None:
    """A two-way sync's events already copied: where one side was edited since the last sync (its
    time, title or place), the other is updated to match; where both were, both are left as they are
    and named; where neither was, they count as already copied."""
    synced = _last_synced(ctx, [row for _, _, row in pairs])
    owner = (getattr(ctx.user, "email", "") or "").casefold()
    for original, copy, row in pairs:
        if original.all_day != copy.all_day:
            plan.already += 1
            plan.edited.append(original.summary)  # made all-day on one side: left to the user
            continue
        all_day = original.all_day
        now_original, now_copy = _of(original, all_day), _of(copy, all_day)
        if now_original == now_copy:
            plan.already += 1
            continue
        image = synced.get(row.pk)
        if image is not None:
            last = _content(
                image.get("summary") or "",
                image.get("location") or "",
                datetime.fromisoformat(image["start"]),
                datetime.fromisoformat(image["end"]),
                all_day,
            )
            original_edited, copy_edited = now_original != last, now_copy != last
        else:  # no record of the last sync: the original's version tells
            original_edited = not row.source_etag or row.source_etag != original.etag
            copy_edited = not original_edited
        if original_edited and copy_edited:
            plan.both_edited.append(original.summary)
        elif original_edited:
            plan.changes.append(_update("copy", copy, original, row, owner, original.etag))
        else:
            plan.changes.append(_update("original", original, copy, row, owner, ""))
    plan.updates = sum(1 for c in plan.changes if c.sync_of is not None)


@skill(service="changes", kind="read")
def plan_sync(ctx: SkillContext, params: PlanSyncInput) -> SyncPlan:
    """Plan copying events between the user's calendars over a range, one way or both ways (nothing is
    written until apply_changes): private events are left out and counted, events already copied
    (known by the stored link between a copy and its original) are not copied again, and copies are
    never copied back.  Occurrences of a recurring event are copied one by one.
    """
    if params.end <= params.start:
        raise SkillError("The range to copy ends before it starts.")
    provider = ctx.provider
    calendars = provider.list_calendars()
    targets = _calendars(ctx, calendars, params.to)
    target_ids = {c.id for c in targets}
    sources = (
        _calendars(ctx, calendars, params.sources)
        if params.sources
        else [c for c in calendars if c.id not in target_ids]
    )
    if not sources or (all(c.id in target_ids for c in sources) and len(target_ids) < 2):
        raise SkillError('Copy from which calendar? Name it, e.g. "copy my work calendar to personal".')
    occurrences = provider.list_occurrences(
        start=params.start, end=params.end, calendar_ids=[c.id for c in sources]
    )
    if params.only is not None:
        owner = getattr(ctx.user, "email", "") or ""
        items = [EventItem.from_occurrence(o, owner_email=owner) for o in occurrences]
        parts = day_part_bounds(ctx.preferences) if params.only.day_part else None
        kept = {item.key for item in filter_items(items, params.only, ctx.tz, parts=parts)}
        occurrences = [o for o in occurrences if o.occurrence_key in kept]
    links = _Links(ctx, occurrences, {c.id for c in sources}, target_ids)
    both = {c.id for c in sources} == target_ids and len(target_ids) > 1
    plan = SyncPlan()
    pairs: list[tuple[Occurrence, Occurrence, CopyLink]] = []
    for occ in occurrences:
        if links.is_copy(occ):
            continue  # a copy is never copied again, so a two-way sync cannot copy it back
        if occ.visibility == "private":
            plan.private += 1
            continue
        for target in targets:
            if target.id == occ.calendar_id:
                continue
            found = links.of(occ, target)
            if found is not None and found[1]:
                copy = links.held.get(found[0].pk)
                if both and copy is not None:
                    pairs.append((occ, copy, found[0]))  # kept in step below, whichever side changed
                    continue
                plan.already += 1
                if found[0].source_etag and found[0].source_etag != occ.etag:
                    plan.edited.append(occ.summary)
                continue
            plan.changes.append(
                Change(
                    action="create",
                    summary=occ.summary,
                    calendar=target.id,
                    calendar_name=target.name,
                    start=occ.start,
                    end=occ.end,
                    all_day=occ.all_day,
                    location=occ.location,
                    description=occ.description,
                    copy_of=CopyOf(
                        calendar_id=occ.calendar_id,
                        event_id=occ.event_id,
                        uid=occ.uid,
                        recurrence_id=occ.recurrence_id,
                        etag=occ.etag,
                        replaces=found[0].copy_event_id if found is not None else "",
                    ),
                )
            )
    plan.copies = len(plan.changes)
    if both:
        pairs += _copies_of_unlisted(ctx, occurrences, links, {p[2].pk for p in pairs})
        _keep_in_step(ctx, plan, pairs)
    plan.note = _note(plan, targets, sources, f"{format_range(params.start, params.end, ctx.tz)}")
    return plan
