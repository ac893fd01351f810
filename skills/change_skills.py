"""Skills that change calendars: plan a change set, let the user choose or approve it, apply, notify, undo.

Planning never writes; ``apply_changes`` is the one skill that does, after the approval the policy in
:func:`skills.changes.approval_reasons` asks for, so that a workflow cannot change a calendar by
another path.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Set as AbstractSet
from datetime import date, datetime, time, timedelta
from typing import Any, Literal, NoReturn
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from preferences.schema import day_part_bounds
from skills.changes import (
    Change,
    ChangeSet,
    Skipped,
    applied_records,
    apply_change_set,
    approval_reasons,
    attendee_changes,
    change_digest,
    preview_rows,
    revalidate,
    shift_wall,
    undo_run,
)
from skills.context import NO_ANSWER, Interrupt, SkillContext
from skills.critic import Expectation, criticise
from skills.errors import SkillError
from skills.formatting import format_day, format_person, format_span, format_time, format_when, join_and
from skills.freetime import (
    WAKING_HOURS,
    Block,
    Span,
    clock_time,
    closed_blocks,
    day_part_window,
    meeting_hours,
    named_blocks,
    parse_hhmm,
    protected_spans,
    search,
    within_meeting_hours,
    within_working_hours,
    working_window,
)
from skills.mail import NOT_CONFIGURED, notifications_create, notifications_of, notifications_send
from skills.models import ChangeRecord, Notification
from skills.people import Availability, availability, names_and_you
from skills.preview import week_view
from skills.providers import provider_class
from skills.providers.base import ConflictError, NotFoundError, PartlyAppliedError, ProviderError
from skills.registry import REGISTRY, skill
from skills.reply_skills import Reply
from skills.schemas import DayPart, EventItem, SkillInput
from skills.tasks import notifications_dispatch

__all__ = [
    "apply_changes",
    "choose_event",
    "combine_changes",
    "notify_attendees",
    "plan_copies",
    "plan_create",
    "plan_delete",
    "plan_edit",
    "plan_move",
    "undo_changes",
]

REGISTRY.service("changes", "Plan changes to events, have them approved, apply them, notify people, undo.")


# -- conflicts ----------------------------------------------------------------------------------------
class _Overlaps:
    """Which of a list of spans overlap a given one, without scanning the whole list each time.

    Spans are kept sorted by start with the longest span's length: those overlapping [lo, hi) start
    before ``hi`` and after ``lo - longest``, a slice found by bisection.  A bulk move checks every
    new time against every event in its range; this keeps that near-linear in a crowded calendar.
    """

    def __init__(self, spans: list[tuple[datetime, datetime]]) -> None:
        self._spans = spans
        self._order = sorted(range(len(spans)), key=lambda i: spans[i][0])
        self._starts = [spans[i][0] for i in self._order]
        self._longest = max((end - start for start, end in spans), default=timedelta(0))

    def of(self, lo: datetime, hi: datetime) -> list[int]:
        """Indexes (in list order) of the spans overlapping [lo, hi)."""
        first = bisect_right(self._starts, lo - self._longest)
        last = bisect_left(self._starts, hi)
        return sorted(i for i in self._order[first:last] if lo < self._spans[i][1])


def _owner(ctx: SkillContext) -> str:
    return (getattr(ctx.user, "email", "") or "").casefold()


def _others(attendees: list[str], owner: str) -> list[str]:
    return [a for a in attendees if a.casefold() != owner]


def _meeting_with(change: Change, owner: str) -> tuple[list[str], list[str]]:
    """Who a change has the user meet at its new time, and whose time it newly asks for: everyone
    when it creates or moves a meeting, only the newly invited when it keeps its time."""
    after = change.new_attendees if change.new_attendees is not None else change.attendees
    meeting = _others(after, owner)
    moved = change.action == "create" or (
        change.start != change.before_start or change.end != change.before_end
    )
    if moved:
        return meeting, meeting
    return meeting, _others(attendee_changes(change)[0], owner)


def _conflicts(ctx: SkillContext, planned: list[Change], *, skip_keys: set[str]) -> None:
    """Fill in what each planned new time would break, in words: other events, the user's protected
    time ("breaks your writing block (Tuesday 9:00–11:00 AM)"), working hours and, for meetings,
    meeting hours and the busy times of the attendees who are users here ("Ann Lee is busy then").

    Other changes of the same set count at their new times, the events they move at none.
    """
    timed = [c for c in planned if c.start is not None and c.end is not None and not c.all_day]
    if not timed:
        return
    tz = ctx.tz
    spans = [(c.start, c.end) for c in timed if c.start is not None and c.end is not None]
    lo = min(start for start, _ in spans) - timedelta(days=1)
    hi = max(end for _, end in spans) + timedelta(days=1)
    others = [
        o
        for o in ctx.provider.list_occurrences(start=lo, end=hi)
        if o.busy and o.occurrence_key not in skip_keys
    ]
    prefs = ctx.preferences
    blocks = named_blocks(prefs, lo, hi, tz)
    working = working_window(prefs)
    meetings = meeting_hours(prefs)
    owner = _owner(ctx)
    asked = [_meeting_with(c, owner) for c in timed]
    wanted = sorted({a.casefold() for _, newly in asked for a in newly})
    people = availability(user=ctx.user, emails=wanted, start=lo, end=hi) if wanted else Availability()
    by_others = _Overlaps([(o.start, o.end) for o in others])
    by_moving = _Overlaps(spans)
    by_blocks = _Overlaps([(b.start, b.end) for b in blocks])
    for position, change in enumerate(timed):
        start, end = spans[position]
        found = [
            f"overlaps {others[i].summary} at {format_time(others[i].start, tz)}"
            for i in by_others.of(start, end)
        ]
        found += [
            f"overlaps {timed[i].new_summary or timed[i].summary} (also moving)"
            for i in by_moving.of(start, end)
            if i != position
        ]
        found += [f"breaks {blocks[i].words(tz)}" for i in by_blocks.of(start, end)]
        if working is not None:
            days, w_lo, w_hi = working
            s, e = start.astimezone(tz), end.astimezone(tz)
            if s.weekday() not in days or s.time() < w_lo or e.time() > w_hi or e.date() != s.date():
                found.append("outside your working hours")
        meeting, newly = asked[position]
        if meeting and meetings is not None:
            broken = meetings.allows(start, end, tz)
            if broken:
                found.append(broken)
        if newly and people.people:
            mine = {a.casefold() for a in newly}
            change.busy = [
                p.name
                for p in people.busy_between(start.timestamp(), end.timestamp())
                if p.email.casefold() in mine
            ]
            found += [f"{name} is busy then" for name in change.busy]
        change.conflicts = found


def _target(item: EventItem, scope: str) -> dict[str, Any]:
    return {
        "summary": item.summary,
        "calendar": item.calendar,
        "calendar_name": item.calendar_name,
        "key": item.key,
        "event_id": item.event_id,
        "recurrence_id": item.recurrence_id,
        "scope": scope if item.recurring else "occurrence",
        "etag": item.etag,
        "before_start": item.start,
        "before_end": item.end,
        "all_day": item.all_day,
        "attendees": list(item.attendees),
        "location": item.location,
    }


def _unique(events: list[EventItem], scope: str) -> list[EventItem]:
    """One target per occurrence, or per series when the whole series is meant."""
    seen: set[str] = set()
    kept = []
    for e in events:
        key = e.event_id if scope != "occurrence" and e.recurring else e.key
        if key not in seen:
            seen.add(key)
            kept.append(e)
    return kept


# -- planning -----------------------------------------------------------------------------------------
class PlanDeleteInput(SkillInput):
    events: list[EventItem] = Field(description="Events to delete, from an earlier task's output.")
    scope: Literal["occurrence", "following", "series"] = Field(
        default="occurrence", description="For recurring events: this occurrence, this and following, or all."
    )


@skill(service="changes", kind="read")
def plan_delete(ctx: SkillContext, params: PlanDeleteInput) -> ChangeSet:
    """Plan deleting events (nothing is written until apply_changes)."""
    return ChangeSet(
        changes=[
            Change(action="delete", **_target(e, params.scope)) for e in _unique(params.events, params.scope)
        ]
    )


class MoveTo(BaseModel):
    """Where a move by date, time or offset goes; what a choice's options name as their outcome."""

    shift_minutes: int | None = Field(default=None, description="Move by this many minutes (wall time).")
    to_date: date | None = Field(
        default=None, description="Move to this date, same wall time unless at_time."
    )
    to_weekday: int | None = Field(
        default=None,
        ge=0,
        le=6,
        description="Move to the first such weekday (Monday 0) on or after the event's own day, same wall "
        "time unless at_time: a series moved to Wednesdays from its next Monday on goes to that week's.",
    )
    at_time: str | None = Field(default=None, pattern=r"^\d{2}:\d{2}$", description="New start time HH:MM.")
    either_half: bool = Field(
        default=False,
        description="at_time was said without am/pm ('make it 8'): take it or 12 hours off, whichever is "
        "nearer the event's own time of day.",
    )


class PlanMoveInput(SkillInput, MoveTo):
    events: list[EventItem] = Field(description="Events to move, from an earlier task's output.")
    duration_minutes: int | None = Field(default=None, ge=5, description="New length; kept when absent.")
    day_part: DayPart | None = Field(
        default=None, description="Find a free time in this part of the same day (or of to_date)."
    )
    part_from: str | None = Field(
        default=None,
        pattern=r"^\d{2}:\d{2}$",
        description="With day_part: only from this wall time HH:MM ('the late afternoon': 15:00).",
    )
    part_until: str | None = Field(
        default=None, pattern=r"^\d{2}:\d{2}$", description="With day_part: only until this wall time HH:MM."
    )
    search_start: datetime | None = Field(default=None, description="Find a free time in this range instead.")
    search_end: datetime | None = None
    other_day: bool = Field(default=False, description="With a search range: not on the event's own day.")
    everyone: bool = Field(
        default=False,
        description="With a search range: the first time every attendee who is a user here is free too "
        "(their free/busy), within working and meeting hours; each change says why it got its time, an "
        "event with none is left alone with the nearest times after the range.",
    )
    scope: Literal["occurrence", "following", "series"] = "occurrence"

    @property
    def stretch(self) -> tuple[time, time] | None:
        """part_from and part_until as wall times, when both are given ("the late afternoon")."""
        if self.part_from is None or self.part_until is None:
            return None
        return parse_hhmm(self.part_from), parse_hhmm(self.part_until)


@skill(service="changes", kind="read")
def plan_move(ctx: SkillContext, params: PlanMoveInput) -> ChangeSet:
    """Plan moving events: by an offset, to a date or time, or to free time in a part of the day or a
    range (with ``everyone``, a time when every attendee is free too), respecting other events, the
    protected preferences, working hours and, for meetings, meeting hours.  Each event gets its own
    time; one with no fitting time is left alone and named.
    """
    tz = ctx.tz
    targets = _unique(params.events, params.scope)
    changes: list[Change] = []
    skipped: list[Skipped] = []
    search_mode = params.day_part is not None or params.search_start is not None
    taken: list[Span] = []  # new times already given to earlier events of this set
    skip_keys = {e.key for e in targets}
    for item in targets:
        length = (
            timedelta(minutes=params.duration_minutes) if params.duration_minutes else item.end - item.start
        )
        why = ""
        if _already_in_part(ctx, item, length, params):
            # "move my classes on Thursday to the afternoon": the one there already stays where it is
            skipped.append(
                Skipped(
                    summary=item.summary, start=item.start, reason=f"it is already in the {params.day_part}"
                )
            )
            continue
        if search_mode:
            slot = _find_slot(ctx, item, length, params, skip_keys, taken)
            if slot.start is None:
                skipped.append(Skipped(summary=item.summary, start=item.start, reason=slot.why))
                continue
            start, why, unseen = slot.start, slot.why, slot.unseen
        else:
            start, unseen = moved_start(item, params, tz), []
        end = start + length
        if start == item.start and end == item.end:
            skipped.append(Skipped(summary=item.summary, start=item.start, reason="it is already then"))
            continue
        taken.append((start.timestamp(), end.timestamp()))
        target = _target(item, params.scope)
        changes.append(Change(action="update", start=start, end=end, why=why, unseen=unseen, **target))
    _conflicts(ctx, changes, skip_keys=skip_keys)
    return ChangeSet(changes=changes, skipped=skipped)


def _already_in_part(ctx: SkillContext, item: EventItem, length: timedelta, params: PlanMoveInput) -> bool:
    """Whether a move to a part of the event's own day finds it in that part already, its length
    kept (a search elsewhere, another day or a new length is a move all the same)."""
    if params.day_part is None or params.search_start is not None or params.other_day:
        return False
    local = item.start.astimezone(ctx.tz)
    if (params.to_date is not None and params.to_date != local.date()) or length != item.end - item.start:
        return False
    first, last = day_part_bounds(ctx.preferences)[params.day_part]
    if params.stretch is not None:
        first, last = params.stretch  # "the late afternoon"
    end = (local + length).time()
    return first < last and first <= local.time() and (local + length).date() == local.date() and end <= last


class PlanEditInput(SkillInput):
    events: list[EventItem] = Field(description="Events to change, from an earlier task's output.")
    summary: str | None = Field(default=None, description="New title.")
    location: str | None = Field(default=None, description="New place; empty text removes it.")
    description: str | None = Field(
        default=None, description="New notes (the event's description); empty text removes them."
    )
    add_note: bool = Field(
        default=False,
        description="With description: add it below the notes the event has rather than replace them "
        "('add a note to the dentist: bring x-rays' keeps what the notes said).",
    )
    duration_minutes: int | None = Field(default=None, ge=5, le=24 * 60 * 14, description="New length.")
    longer_minutes: int | None = Field(
        default=None,
        ge=-24 * 60 * 14,
        le=24 * 60 * 14,
        description="Minutes added to each event's own length ('extend it by 30 minutes': 30; 'shorten "
        "it by 15 minutes': -15); the start stays.",
    )
    end_at: str | None = Field(
        default=None,
        pattern=r"^\d{2}:\d{2}$",
        description="New end HH:MM, a wall time on the occurrence's own date; the start stays.",
    )
    either_half: bool = Field(
        default=False,
        description="end_at was said without am/pm ('end it at 4:30'): the first of it and the same "
        "clock time 12 hours later that falls after the start.",
    )
    invite: list[str] = Field(default_factory=list, description="Emails of people to add.")
    uninvite: list[str] = Field(
        default_factory=list,
        description="Emails of people to take off, or their names as the event's guest list has them: "
        "'bo' takes off bo@example.com or bo.li@example.com, whoever of them is invited.",
    )
    every_weeks: int | None = Field(
        default=None,
        ge=1,
        le=52,
        description="A weekly series repeats every this many weeks ('biweekly': 2).",
    )
    scope: Literal["occurrence", "following", "series"] = "occurrence"


@skill(service="changes", kind="read")
def plan_edit(ctx: SkillContext, params: PlanEditInput) -> ChangeSet:
    """Plan changing what an event is rather than when: its title, its place, its notes, its length or
    end, who comes.  An end at or before the start is refused, never planned."""
    changes: list[Change] = []
    skipped: list[Skipped] = []
    refused: list[Skipped] = []  # events the new end would put at or before their start
    targets = _unique(params.events, params.scope)
    # Events are passed along without their notes (they can be long): read them when they change.
    notes = _notes(ctx, targets) if params.description is not None else {}
    only_people = (params.invite or params.uninvite) and not (
        params.summary
        or params.location is not None
        or params.description is not None
        or params.duration_minutes
        or params.longer_minutes
        or params.end_at
        or params.every_weeks
    )
    for item in targets:
        # Its times stay (an edit is not a move); a follow-up still knows when "it" is.
        change = Change(action="update", start=item.start, end=item.end, **_target(item, params.scope))
        if params.every_weeks:
            rule = _every_weeks(item, params.every_weeks)
            if rule is None:
                skipped.append(
                    Skipped(summary=item.summary, start=item.start, reason="it does not repeat weekly")
                )
                continue
            if rule == item.rrule:
                skipped.append(
                    Skipped(summary=item.summary, start=item.start, reason="it repeats so already")
                )
                continue
            change.new_rrule, change.scope = rule, "series"
        if params.summary and params.summary != item.summary:
            change.new_summary = params.summary
        if params.location is not None and params.location != item.location:
            change.new_location = params.location
        if params.description is not None:
            had = notes.get(item.key, "")
            said = params.description.strip()
            new = f"{had.rstrip()}\n{said}" if params.add_note and had.strip() else said
            if new == had or (params.add_note and said in had):
                reason = "its notes already say so" if new else "it has no notes"
                skipped.append(Skipped(summary=item.summary, start=item.start, reason=reason))
                continue
            change.new_description = new
        if params.duration_minutes:
            change.start, change.end = item.start, item.start + timedelta(minutes=params.duration_minutes)
        if params.longer_minutes:
            longer = item.end + timedelta(minutes=params.longer_minutes)
            if longer - item.start < timedelta(minutes=5):
                length = int((item.end - item.start).total_seconds() // 60)
                reason = f"it is {length} minutes long, so that would leave it no time"
                refused.append(Skipped(summary=item.summary, start=item.start, reason=reason))
                continue
            change.start, change.end = item.start, longer
        if params.end_at is not None:
            end = _new_end(item, params.end_at, params.either_half, ctx.tz)
            if end is None:
                refused.append(Skipped(summary=item.summary, start=item.start, reason=_no_end(item, ctx.tz)))
                continue
            if end == item.end:
                skipped.append(Skipped(summary=item.summary, start=item.start, reason="it already ends then"))
                continue
            change.end = end
        if params.invite or params.uninvite:
            gone = _attendees_named(item, params.uninvite)
            kept = [a for a in item.attendees if a.casefold() not in gone]
            have = {a.casefold() for a in kept}
            change.new_attendees = kept + [a for a in params.invite if a.casefold() not in have]
            if only_people and {a.casefold() for a in change.new_attendees} == {
                a.casefold() for a in item.attendees
            }:
                # "add ann to the design review" with Ann invited: nothing to preview, said why
                are = "is" if len(params.uninvite) == 1 else "are"
                why = (
                    "everyone named is invited already"
                    if params.invite
                    else f"{join_and(params.uninvite)} {are} not invited"
                )
                skipped.append(Skipped(summary=item.summary, start=item.start, reason=why))
                continue
        if _changes_nothing(change, item):
            # "make the review an hour long" of an hour-long review: said why, not a preview of no change
            skipped.append(Skipped(summary=item.summary, start=item.start, reason=_already(params)))
            continue
        changes.append(change)
    if refused and not changes:
        # "end the dentist at 8am" for a 9 am dentist is not an edit to preview: say why and what works.
        raise SkillError(f"{refused[0].summary!r} can't end then: {refused[0].reason}. Nothing was changed.")
    skipped += refused
    _conflicts(ctx, [c for c in changes if c.start is not None], skip_keys={e.key for e in params.events})
    return ChangeSet(changes=changes, skipped=skipped)


def _attendees_named(item: EventItem, said: list[str]) -> set[str]:
    """The attendees (casefolded) of ``item`` that those ``said`` name: an address, or a name whose words
    are words of an attendee's address before the @ ("Bo" of bo@example.com), for someone the user's
    directory does not know but the event's guest list does.  A name two attendees answer to is asked
    about, never guessed."""
    gone: set[str] = set()
    for who in said:
        name = who.casefold().strip()
        if "@" in name:
            gone.add(name)
            continue
        words = set(name.split())
        # the words of each address's name part, as the preview names the attendee ("Bo Li")
        named = [a for a in item.attendees if words <= set(format_person(a).casefold().split())]
        if len(named) > 1:
            raise SkillError(
                f"{join_and(named)} are all invited to {item.summary!r}: which of them is {who}? "
                "Say their address. Nothing was changed."
            )
        gone.update(a.casefold() for a in named)
    return gone


def _changes_nothing(change: Change, item: EventItem) -> bool:
    """Whether an update planned leaves the event as it is: the same times and nothing new set."""
    same_times = change.start == item.start and change.end == item.end
    people = change.new_attendees
    same_people = people is None or {a.casefold() for a in people} == {a.casefold() for a in item.attendees}
    news = (change.new_summary, change.new_location, change.new_description, change.new_rrule)
    return same_times and same_people and all(new is None for new in news)


def _already(params: PlanEditInput) -> str:
    """Why an edit changes nothing, in words."""
    if params.duration_minutes:
        return f"it is {params.duration_minutes} minutes long already"
    if params.summary:
        return "it is called that already"
    if params.location is not None:
        return "it is there already" if params.location else "it has no place"
    return "it is so already"


def _notes(ctx: SkillContext, targets: list[EventItem]) -> dict[str, str]:
    """The notes (descriptions) of ``targets`` by key, read in one batch."""
    found = ctx.provider.get_occurrences([(e.event_id, e.recurrence_id) for e in targets])
    return {e.key: occ.description for e, occ in zip(targets, found, strict=True) if occ is not None}


def _new_end(item: EventItem, end_at: str, either_half: bool, tz: ZoneInfo) -> datetime | None:
    """Where "end it at 4:30" puts ``item``'s end: that wall time on the day it starts, the half of the
    day after its start when no am/pm was said (4:30 for a 3 pm event is 4:30 pm, and "end at 9" for a
    9 am one is no 12-hour event); None when that is not after the start, or the event lasts all day."""
    if item.all_day:
        return None
    start = item.start.astimezone(tz)
    at = parse_hhmm(end_at)
    readings = [at, at.replace(hour=(at.hour + 12) % 24)] if either_half else [at]
    ends = sorted(datetime.combine(start.date(), t, tz) for t in readings)
    longest = timedelta(hours=12) if either_half else timedelta(days=1)
    return next((end for end in ends if start < end < start + longest), None)


def _no_end(item: EventItem, tz: ZoneInfo) -> str:
    """Why an event cannot end when asked, with what would work."""
    if item.all_day:
        return "it lasts all day; give it a start time first"
    start = item.start.astimezone(tz)
    return (
        f"it starts at {format_time(start, tz)} on {format_day(start.date())}, so it can only end after "
        "that (say a later time)"
    )


def _every_weeks(item: EventItem, weeks: int) -> str | None:
    """The item's weekly rule repeating every ``weeks`` weeks instead, or None for no weekly rule."""
    parts = [p for p in item.rrule.split(";") if p]
    if not item.recurring or "FREQ=WEEKLY" not in parts:
        return None
    kept = [p for p in parts if not p.startswith("INTERVAL=")]
    return ";".join([*kept, f"INTERVAL={weeks}"] if weeks > 1 else kept)


def moved_start(item: EventItem, to: MoveTo, tz: Any) -> datetime:
    """Where a move by date, time or offset puts ``item``'s start (not a free-time search)."""
    start = item.start
    if to.to_date is not None:
        start = datetime.combine(to.to_date, item.start.astimezone(tz).time(), tz)
    elif to.to_weekday is not None:
        own = item.start.astimezone(tz)
        day = own.date() + timedelta(days=(to.to_weekday - own.weekday()) % 7)
        start = datetime.combine(day, own.time(), tz)
    if to.at_time is not None:
        at = parse_hhmm(to.at_time)
        if to.either_half:
            at = _nearer_half(at, item.start.astimezone(tz).time())
        start = datetime.combine(start.astimezone(tz).date(), at, tz)
    if to.shift_minutes:
        start = shift_wall(start, tz, minutes=to.shift_minutes)
    return start


# Before this a bare clock time is the night's only when the day's reading is as early ("4" is 4 pm).
_EARLIEST = time(5)


def _nearer_half(at: time, own: time) -> time:
    """``at`` or the same clock time in the other half of the day: the one of the waking day (from 5
    am) when only one is, else whichever is nearer ``own``. An 8 am event made "8" is 8 am, not 8 pm;
    a 4 pm one moved "to 5" is 5 pm; a 9 am standup made "4" is 4 pm, never 4 am."""
    other = at.replace(hour=(at.hour + 12) % 24)
    awake = [t for t in (at, other) if t >= _EARLIEST]
    if len(awake) == 1:
        return awake[0]

    def gap(t: time) -> int:
        return abs((t.hour * 60 + t.minute) - (own.hour * 60 + own.minute))

    return other if gap(other) < gap(at) else at


NEAREST_DAYS = 14
"""How far past a searched range the nearest times are looked for when nothing in it suits everyone."""
NEAREST = 3
"""How many of those nearest times are offered."""


class Fit(BaseModel):
    """A free-time search's answer: the start found (None: nothing fits) and why, in words."""

    start: datetime | None = None
    why: str = ""
    unseen: list[str] = Field(
        default_factory=list, description="The people asked to be free whose busy times cannot be seen."
    )


def _find_slot(
    ctx: SkillContext,
    item: EventItem,
    length: timedelta,
    params: PlanMoveInput,
    skip_keys: set[str],
    taken: list[Span],
) -> Fit:
    tz = ctx.tz
    day = params.to_date or item.start.astimezone(tz).date()
    soonest = _soonest(ctx)
    if params.search_start is not None:
        lo = max(params.search_start, soonest)
        hi = params.search_end or lo + timedelta(days=7)
    elif params.stretch is not None:
        lo = max(datetime.combine(day, params.stretch[0], tz), soonest)  # "the late afternoon"
        hi = datetime.combine(day, params.stretch[1], tz)
    else:
        lo = max(datetime.combine(day, time(), tz), soonest)
        hi = datetime.combine(day + timedelta(days=1), time(), tz)
    avoid = None
    if params.other_day:
        avoid = (
            datetime.combine(day, time(), tz).timestamp(),
            datetime.combine(day + timedelta(days=1), time(), tz).timestamp(),
        )
    return first_fit(
        ctx,
        lo=lo,
        hi=hi,
        length=length,
        attendees=item.attendees,
        day_part=params.day_part,
        everyone=params.everyone,
        skip_keys=skip_keys,
        taken=taken,
        avoid=avoid,
    )


def _soonest(ctx: SkillContext) -> datetime:
    """Never into the past, nor into the minute that is already under way: from the next quarter hour."""
    return ctx.now.replace(second=0, microsecond=0) + timedelta(minutes=15 - ctx.now.minute % 15)


def first_fit(
    ctx: SkillContext,
    *,
    lo: datetime,
    hi: datetime,
    length: timedelta,
    attendees: list[str],
    day_part: str | None = None,
    everyone: bool = False,
    skip_keys: set[str] | frozenset[str] = frozenset(),
    taken: list[Span] | None = None,
    avoid: Span | None = None,
) -> Fit:
    """The first free time of ``length`` in [lo, hi) for an event with ``attendees``: the user's own
    events (but ``skip_keys``), ``taken`` spans (times already given to other events of the same
    plan) and ``avoid``, the protected preferences, working hours, the user's bounds of ``day_part``
    and, for a meeting, meeting hours; with ``everyone``, the attendees who are users here are free
    too.  When nothing fits and ``everyone`` is asked, ``why`` names the nearest times after ``hi``.
    """
    tz = ctx.tz
    taken = taken or []
    if lo >= hi:
        return Fit(why="no free time fits")
    prefs = ctx.preferences
    window: tuple[time, time] | None = day_part_window(prefs, day_part) if day_part else None
    window, weekdays = within_working_hours(prefs, window, None)
    if working_window(prefs) is None:
        window = _awake(window)  # "to the morning" without working hours is not 5 am
    others = _others(attendees, _owner(ctx))
    if others:
        window, weekdays = within_meeting_hours(prefs, window, weekdays)
    horizon = hi + timedelta(days=NEAREST_DAYS) if everyone else hi
    own = ctx.provider.busy_reader(start=lo, end=horizon, ignore=frozenset(skip_keys))
    people = availability(user=ctx.user, emails=others, start=lo, end=horizon) if everyone else Availability()

    def busy(a: datetime, b: datetime) -> list[Span]:
        spans = own(a, b) + taken + protected_spans(prefs, a, b, tz) + people.spans(a, b)
        if avoid is not None:
            spans.append(avoid)
        return spans

    minutes = max(1, int(length.total_seconds() // 60))

    def first(a: datetime, b: datetime, limit: int) -> list[Span]:
        return search(
            start=a,
            end=b,
            tz=tz,
            min_minutes=minutes,
            busy_between=busy,
            daily_window=window,
            weekdays=weekdays,
            limit=limit,
        )

    found = first(lo, hi, 1)
    if not everyone:
        if not found:
            return Fit(why="no free time fits")
        return Fit(start=datetime.fromtimestamp(found[0][0], tz))
    who = names_and_you(people.people)
    every = "both" if len(people.people) == 1 else "all"
    within = _within(prefs, day_part, meeting=bool(others), window=window)
    unseen = f"; I cannot see the calendar of {', '.join(people.unseen)}" if people.unseen else ""
    if found:
        start = datetime.fromtimestamp(found[0][0], tz)
        subject = f"{who} are {every} free" if people.people else "you are free"
        return Fit(start=start, why=f"the first time {subject} {within}{unseen}", unseen=people.unseen)
    nearest = first(hi, horizon, NEAREST)
    last = (hi - timedelta(microseconds=1)).astimezone(tz).date()
    period = f"from {format_day(lo.astimezone(tz).date())} to {format_day(last)}"
    if lo.astimezone(tz).date() == last:
        period = f"on {format_day(last)}"
    said = f"no time {period} suits {who} {within}{unseen}"
    if nearest:
        times = [datetime.fromtimestamp(a, tz) for a, _ in nearest]
        said += "; the nearest after that: " + ", ".join(
            f"{format_day(t.date())} at {format_time(t, tz)}" for t in times
        )
    else:
        said += f", nor in the {NEAREST_DAYS // 7} weeks after"
    return Fit(why=said)


def _awake(window: tuple[time, time] | None) -> tuple[time, time]:
    """A search window kept to waking hours (8 AM to 9 PM) for someone who set no working hours, as
    their free time is shown; a window the user named wholly outside them ("tonight") is kept."""
    if window is None:
        return WAKING_HOURS
    narrowed = (max(window[0], WAKING_HOURS[0]), min(window[1], WAKING_HOURS[1]))
    if window[1] <= window[0] or narrowed[1] <= narrowed[0]:
        return window
    return narrowed


def _within(
    prefs: dict[str, Any], day_part: str | None, *, meeting: bool, window: tuple[time, time] | None
) -> str:
    """ "within your working and meeting hours, clear of your lunch and gym sessions": what a search
    kept to, in words."""
    hours = []
    if working_window(prefs) is not None:
        hours.append("working")
    if meeting and meeting_hours(prefs) is not None:
        hours.append("meeting")
    if day_part:
        said = f"in the {day_part}"
        if hours:
            said += f" within your {join_and(hours)} hours"
    elif hours:
        said = f"within your {join_and(hours)} hours"
    elif window is not None:
        said = f"between {clock_time(window[0])} and {clock_time(window[1])}"
    else:
        said = "at any hour"
    kept = [name for key, name in _KEPT.items() if prefs.get(key)]
    if kept:
        said += f", clear of your {join_and(kept)}"
    return said


_KEPT = {"lunch_hours": "lunch", "gym_schedule": "gym sessions", "writing_block": "writing block"}


class PlanCreateInput(SkillInput):
    summary: str = Field(default="", description="Title; taken from `like` when empty.")
    start: datetime | None = Field(
        default=None,
        description="Start, ISO 8601 with offset (for all-day: local midnight); not needed with weeks_after.",
    )
    weeks_after: int | None = Field(
        default=None,
        ge=1,
        le=52,
        description="Start this many weeks after the `like` event starts, at its wall time ('book the same "
        "time next week for the dentist').",
    )
    at_time: time | None = Field(
        default=None,
        description="With `like` and no `start`: this wall time on the `like` event's day ('cancel the "
        "standup and schedule a new one at 2pm').",
    )
    on_date: date | None = Field(
        default=None,
        description="With `like` and no `start`: this day, at `at_time` or else the `like` event's own "
        "wall time ('copy the design review to Friday').",
    )
    duration_minutes: int | None = Field(default=None, ge=5, le=24 * 60 * 14)
    all_day: bool = False
    last_day: date | None = Field(
        default=None, description="For an all-day event over several days: its last day ('Aug 20 to 25')."
    )
    calendar: str = Field(default="", description="Calendar key; the default calendar when empty.")
    attendees: list[str] = Field(default_factory=list, description="Emails of people to invite.")
    location: str = Field(default="", description="Where it takes place.")
    rrule: str = Field(
        default="", description="RFC 5545 RRULE when it repeats, e.g. FREQ=WEEKLY;BYDAY=TU,TH."
    )
    like: list[EventItem] = Field(
        default_factory=list, description="Copy title and attendees from the first."
    )
    search_end: datetime | None = Field(
        default=None,
        description="Find a time instead of taking `start` as it is: the first free time from `start` "
        "until this moment, when every attendee who is a user here is free too (their free/busy), within "
        "working and meeting hours ('a call with Lee when we're both free tomorrow').",
    )
    day_part: DayPart | None = Field(
        default=None, description="With search_end: only in this part of each day."
    )
    beside: str = Field(
        default="",
        description="With search_end: the title of the event the new one goes right after or before ('a "
        "call right after the dentist'), whose end or start the search starts or ends at.",
    )


@skill(service="changes", kind="read")
def plan_create(ctx: SkillContext, params: PlanCreateInput) -> ChangeSet:
    """Plan a new event (nothing is written until apply_changes), at its start or, with ``search_end``,
    at the first time the user and every attendee are free; a time that breaks a preference is named
    in the preview, and nothing is planned (the nearest times named) when no time fits."""
    template = params.like[0] if params.like else None
    summary = params.summary or (template.summary if template else "")
    if not summary:
        raise SkillError("What should the new event be called?")
    provider = ctx.provider
    calendar = provider.calendar_by_key(params.calendar) if params.calendar else None
    if calendar is None and template is not None:
        calendar = provider.calendar_by_key(template.calendar)
    if calendar is None:
        preferred = ctx.preferences.get("personal_calendar")
        calendar = (
            provider.calendar_by_key(preferred) if isinstance(preferred, str) else provider.default_calendar()
        )
    minutes = params.duration_minutes
    if minutes is None:
        if template is not None:
            minutes = template.minutes
        else:
            default = ctx.preferences.get("default_event_minutes")
            minutes = default if isinstance(default, int) and default > 0 else 60
    all_day = params.all_day
    if params.weeks_after:
        # The event's own weekday and wall time, weeks on (across a DST change too)
        if template is None:
            raise SkillError("Which event should the new one be like?")
        start, all_day = shift_wall(template.start, ctx.tz, days=7 * params.weeks_after), template.all_day
    elif params.start is None and (params.at_time or params.on_date) is not None and template is not None:
        own = template.start.astimezone(ctx.tz)
        start = datetime.combine(params.on_date or own.date(), params.at_time or own.time(), ctx.tz)
        all_day = all_day or (template.all_day and params.at_time is None)
    elif params.start is None:
        raise SkillError("When should the new event be?")
    else:
        start = params.start
    attendees = list(dict.fromkeys([*params.attendees, *(template.attendees if template else [])]))
    why, unseen = "", []
    if params.search_end is not None and not all_day:
        fit = first_fit(
            ctx,
            lo=max(start, _soonest(ctx)),
            hi=params.search_end,
            length=timedelta(minutes=minutes),
            attendees=attendees,
            day_part=params.day_part,
            everyone=True,
        )
        if fit.start is None:
            return ChangeSet(skipped=[Skipped(summary=summary, reason=fit.why)])
        start, why, unseen = fit.start, fit.why, fit.unseen
    if all_day:
        day = start.astimezone(ctx.tz).date()
        last = params.last_day if params.last_day is not None and params.last_day >= day else day
        if (last - day).days >= 14:
            raise SkillError("An event can last two weeks at most. Which days should it cover?")
        start, end = (
            datetime.combine(day, time(), ctx.tz),
            datetime.combine(last + timedelta(days=1), time(), ctx.tz),
        )
    else:
        end = start + timedelta(minutes=minutes)
    owner = _owner(ctx)
    change = Change(
        action="create",
        summary=summary,
        calendar=calendar.id,
        calendar_name=calendar.name,
        start=start,
        end=end,
        all_day=all_day,
        attendees=[a for a in attendees if a.casefold() != owner],
        location=params.location or (template.location if template else ""),
        rrule=params.rrule,
        why=why,
        unseen=unseen,
    )
    _conflicts(ctx, [change], skip_keys=set())
    return ChangeSet(changes=[change])


class PlanCopiesInput(SkillInput):
    events: list[EventItem] = Field(description="The occurrences to copy, each one once.")
    days_after: int = Field(
        ge=1,
        le=366,
        description="Each copy starts this many days later, at the same wall time ('copy this week's "
        "classes to next week': 7).",
    )


@skill(service="changes", kind="read")
def plan_copies(ctx: SkillContext, params: PlanCopiesInput) -> ChangeSet:
    """Plan a copy of each event days later at its own wall time (nothing is written until
    apply_changes): "copy my standups to next week". A copy is one event, not a series, with the
    original's title, length, place, people and calendar; a copy that would clash is named in the
    preview."""
    if not params.events:
        raise SkillError("I found no events to copy.")
    provider, owner = ctx.provider, _owner(ctx)
    moved = [(event, shift_wall(event.start, ctx.tz, days=params.days_after)) for event in params.events]
    there = {
        (o.summary.casefold(), o.start)
        for o in provider.list_occurrences(
            start=min(start for _, start in moved), end=max(start for _, start in moved) + timedelta(days=1)
        )
    }
    changes: list[Change] = []
    skipped: list[Skipped] = []
    for event, start in moved:
        if (event.summary.casefold(), start) in there:
            # a weekly series is already there next week: a copy would be a duplicate
            skipped.append(Skipped(summary=event.summary, start=start, reason="it is already there then"))
            continue
        calendar = provider.calendar_by_key(event.calendar)
        changes.append(
            Change(
                action="create",
                summary=event.summary,
                calendar=calendar.id,
                calendar_name=calendar.name,
                start=start,
                end=shift_wall(event.end, ctx.tz, days=params.days_after),
                all_day=event.all_day,
                attendees=[a for a in event.attendees if a.casefold() != owner],
                location=event.location,
            )
        )
    _conflicts(ctx, changes, skip_keys=set())
    return ChangeSet(changes=changes, skipped=skipped)


class CombineInput(SkillInput):
    sets: list[ChangeSet] = Field(description="Change sets from earlier plan tasks, applied in this order.")


@skill(service="changes", kind="read")
def combine_changes(ctx: SkillContext, params: CombineInput) -> ChangeSet:
    """Join change sets into one, to be approved and applied together.

    Each set was planned against the calendar as it is; together, an event one set deletes or moves is
    no longer where another's new time is ("cancel the standup and add a 1:1 at 9 instead" overlaps
    nothing), so what the new times break is found again over the whole set: for the events made or
    moved (an edit in place keeps what its own plan found, without its own event counted against it)."""
    changes = [c for s in params.sets for c in s.changes]
    moved = [c for c in changes if c.action == "update" and c.start != c.before_start]
    gone = {c.key for c in changes if c.key and (c.action == "delete" or c in moved)}
    if len(params.sets) > 1 and gone:
        _conflicts(ctx, [c for c in changes if c.action == "create" or c in moved], skip_keys=gone)
    return ChangeSet(changes=changes, skipped=[x for s in params.sets for x in s.skipped])


# -- choosing and approving -------------------------------------------------------------------------------
MAX_OPTIONS = 5
"""Options shown as buttons; the other candidates are still picked by saying their day or time."""
ALL = "*all"
"""The value of the "all of them" option: the whole series rather than one occurrence."""


class ChooseInput(SkillInput):
    events: list[EventItem] = Field(description="Candidates, from an earlier task's output.")
    action: str = Field(description="What picking one does, e.g. 'Cancel' or 'Move'.")
    expect_one: bool = Field(default=True, description="Ask which one when several match.")
    question: str = Field(default="", description="The question to ask; 'Which one do you mean?' if empty.")
    per_series: bool = Field(
        default=False,
        description="The action applies to a whole series: its occurrences are one candidate (the next).",
    )
    move: MoveTo | None = Field(
        default=None, description="For a move by date, time or offset: each option names its new time."
    )
    outcome: str = Field(
        default="", description="What the action makes of the event, e.g. \"rename to 'Design crit'\"."
    )
    scope: Literal["occurrence", "following", "series"] = Field(
        default="occurrence", description="The scope the plan takes, unless the user picks all of a series."
    )
    within: bool = Field(
        default=False,
        description="The candidates are what a stretch the user named holds ('yoga next week'): 'all of "
        "them' picks those, never a series from its first candidate on.",
    )


class Chosen(BaseModel):
    events: list[EventItem]
    chosen: bool = Field(description="True when the user picked, which also approves the action.")
    scope: Literal["occurrence", "following", "series"] = Field(
        default="occurrence",
        description="The input's scope, or following (from the first candidate on) when the user picked all.",
    )


@skill(service="interaction", kind="interaction")
def choose_event(ctx: SkillContext, params: ChooseInput) -> Chosen:
    """Have the user pick one of several matching events; each option names its action and what it
    makes of the event, so picking it approves that action.

    At most five options are shown (the first five, in time order), with "all of them" when every
    candidate is an occurrence of one series; the others stay in the question, to be named by their
    day or time ("the one on April 20"), never listed as fifty buttons.
    """
    if not params.events and not params.expect_one:
        # "cancel everything tomorrow" on an empty day: nothing to do, said as such, not an error
        return Chosen(events=[], chosen=False, scope=params.scope)
    if not params.events:
        # From NotFoundError: the event the plan is about is not there, which a replanner may ask about.
        raise SkillError("I couldn't find an event matching that. Could you name it differently?") from (
            NotFoundError("no event matched")
        )
    events = _unique(params.events, "series") if params.per_series else params.events
    if len(events) == 1 or not params.expect_one:
        return Chosen(events=events, chosen=False, scope=params.scope)
    options = [_option(ctx, params, e) for e in events]
    shown = options[:MAX_OPTIONS]
    series = {e.event_id for e in events}
    # "cancel yoga next week" -> "all of them": the ones found, as the question counted them
    every_found = params.within and len(events) <= MAX_OPTIONS
    whole = len(series) == 1 and events[0].recurring and params.scope == "occurrence" and not params.within
    if every_found:
        shown.append(
            {
                "label": f"{params.action} all {len(events)} of them{_outcome(ctx, params, events[0])}",
                "value": ALL,
            }
        )
    elif whole:
        first = format_day(events[0].start.astimezone(ctx.tz).date())
        label = f"{params.action} all of them, from {first} on{_outcome(ctx, params, events[0])}"
        shown.append({"label": label, "value": ALL})
    if whole and not params.question:
        # one event that repeats, not several events: the question is one of them or all of them
        text = (
            f"'{events[0].summary}' repeats ({len(events)} to come). "
            f"Which one do you mean, or all of them from {first} on?"
        )
    else:
        text = f"{params.question or 'Which one do you mean?'} I found {len(events)}."
    payload: dict[str, Any] = {"kind": "choose", "text": text, "options": shown}
    if len(options) > MAX_OPTIONS:
        payload["text"] = (
            f"{text} Here are the next {MAX_OPTIONS}; for another, say its day "
            f'(e.g. "the one on {format_day(events[MAX_OPTIONS].start.astimezone(ctx.tz).date())}").'
        )
        payload["more"] = options[MAX_OPTIONS:]
    answer = ctx.interrupt(payload)
    if answer == ALL and every_found:
        return Chosen(events=events, chosen=True, scope=params.scope)
    if answer == ALL and whole:
        # From the first candidate on, not the whole series: past occurrences are history.
        return Chosen(events=events[:1], chosen=True, scope="following")
    picked = [e for e in events if e.key == answer]
    if not picked:
        raise SkillError("That was not one of the options.")
    return Chosen(events=picked, chosen=True, scope=params.scope)


def _option(ctx: SkillContext, params: ChooseInput, e: EventItem) -> dict[str, Any]:
    """A button: the action, the event and its day and time, and what picking it makes of it."""
    tz = ctx.tz
    me = (getattr(ctx.user, "email", "") or "").casefold()
    others = [format_person(a) for a in e.attendees if a.casefold() != me]
    label = (
        f"{params.action} {e.summary}, {format_day(e.start.astimezone(tz).date())} "
        f"{format_span(e.start, e.end, tz, all_day=e.all_day)}"
    )
    # Who else is there tells two "Team meeting"s apart ("the one with Bo").
    label += (f" (with {', '.join(others)})" if others else "") + _outcome(ctx, params, e)
    return {"label": label, "value": e.key, "start": e.start.astimezone(tz).isoformat()}


def _outcome(ctx: SkillContext, params: ChooseInput, e: EventItem) -> str:
    """ " → 11:00 AM", " → rename to 'Design crit'": what picking the option makes of the event."""
    if params.move is not None and not e.all_day:
        start = moved_start(e, params.move, ctx.tz)
        day = start.astimezone(ctx.tz).date()
        same_day = day == e.start.astimezone(ctx.tz).date()
        return " → " + ("" if same_day else f"{format_day(day)} ") + format_time(start, ctx.tz)
    return f" → {params.outcome}" if params.outcome else ""


class ApplyInput(SkillInput):
    changes: ChangeSet = Field(description="The change set from a plan task.")
    approved: bool = Field(default=False, description="Already approved (the user picked the action).")
    always_ask: bool = Field(
        default=False,
        description="Preview and ask even where the policy would apply at once (set on every plan a "
        "language model made).",
    )
    ask_if_earlier: bool = Field(
        default=False,
        description="Preview and ask where a move takes an event to a day before its own (a weekday "
        "said alone, read from today, when the one after the event may be meant).",
    )
    what: str = Field(default="", description="A short name of the request, for the reply.")
    unsure: str = Field(
        default="",
        description="What the reading was not sure of, said above the preview (the words it did not use).",
    )
    expect: Expectation | None = Field(
        default=None,
        description="What the request said the changes must keep to (the named day, one event, everyone "
        "free...): the critic takes out every change that does not, and the rest is previewed.",
    )
    then_ask: str = Field(
        default="", description="A question to end the reply with once applied (an optional detail)."
    )
    answered: str = Field(
        default="",
        description="The answer to a question the same message asked besides the change (a look-up's "
        "reply text), said first: above the preview, or above whatever this step replies instead.",
    )
    notify: bool = Field(
        default=False,
        description="The user asked to tell the other attendees (a notify_attendees step follows): "
        "calendars whose server sends its own updates (Google) are asked to send them with the change.",
    )


def _back_a_day(change: Change, tz: ZoneInfo) -> bool:
    """Whether the change moves an event to a day before its own."""
    if change.action != "update" or change.before_start is None or change.start is None:
        return False
    return change.start.astimezone(tz).date() < change.before_start.astimezone(tz).date()


MAX_LINES = 20
"""Lines of a change set's text listed one by one; past that, the text counts the rest (a bulk change
of 500 events is read in the week view and the reply's preview rows, which list every change)."""


def _annotated(rows: list[dict[str, Any]], changes: list[Change]) -> list[dict[str, Any]]:
    """Preview rows with why each new time was chosen and what it would break, in words: a
    protected block is never broken silently ("breaks your writing block (Tuesday 9:00–11:00 AM)")."""
    for row, change in zip(rows, changes, strict=True):
        row["why"] = change.why
        row["conflicts"] = list(change.conflicts)
        note = f" ({change.why})" if change.why else ""
        if change.conflicts:
            note += " — " + "; ".join(change.conflicts)
        row["line"] += note
    return rows


def _lines(rows: list[dict[str, Any]], skipped: list[Skipped], ctx: SkillContext) -> list[str]:
    lines = [f"  • {row['line']}" for row in rows[:MAX_LINES]]
    if len(rows) > MAX_LINES:
        lines.append(f"  • … and {len(rows) - MAX_LINES} more changes like these")
    lines += [
        f"  • Leaving {s.summary!r}"
        + (f" ({format_day(s.start.astimezone(ctx.tz).date())})" if s.start else "")
        + f" alone: {s.reason}."
        for s in skipped[:MAX_LINES]
    ]
    if len(skipped) > MAX_LINES:
        lines.append(f"  • … and {len(skipped) - MAX_LINES} more left alone")
    return lines


def _takes_new_time(change: Change) -> bool:
    """Whether a change puts an event at a time it was not at (a new event, or a move); a copy made by
    a sync, or brought up to date with its original, holds the time its original already holds, and is
    no new commitment."""
    if change.start is None or change.end is None or change.all_day or change.copy_of is not None:
        return False
    if change.sync_of is not None and change.sync_of.side == "copy":
        return False
    if change.action == "create":
        return True
    moved = (change.start, change.end) != (change.before_start, change.before_end)
    return change.action == "update" and moved


def _closed_out(ctx: SkillContext, changes: list[Change]) -> tuple[list[Change], list[tuple[Change, Block]]]:
    """The changes that may go ahead, and those that would put an event in a block the user allows no
    exceptions to (the writing block without ``allow_exceptions_with_approval``), each with that block.
    Those are refused, not previewed: approving cannot make them right."""
    timed = [c for c in changes if _takes_new_time(c)]
    if not timed:
        return changes, []
    spans = [(c.start, c.end) for c in timed if c.start is not None and c.end is not None]
    lo = min(a for a, _ in spans) - timedelta(days=1)
    hi = max(b for _, b in spans) + timedelta(days=1)
    closed = closed_blocks(ctx.preferences, lo, hi, ctx.tz)
    if not closed:
        return changes, []
    by_blocks = _Overlaps([(b.start, b.end) for b in closed])
    refused: dict[int, tuple[Change, Block]] = {}
    for change, (start, end) in zip(timed, spans, strict=True):
        hits = by_blocks.of(start, end)
        if hits:
            refused[id(change)] = (change, closed[hits[0]])
    return [c for c in changes if id(c) not in refused], list(refused.values())


def _closed_reason(block: Block, tz: ZoneInfo) -> str:
    return f"it would be in {block.words(tz)}, and your writing block preference allows no exceptions"


def _refusal(ctx: SkillContext, change: Change, block: Block) -> str:
    """Why one new time is refused, the preference named, and what would work instead: the first free
    time of that day outside the protected blocks, another time, or allowing exceptions."""
    tz = ctx.tz
    assert change.start is not None
    assert change.end is not None
    when = f"{format_day(change.start.astimezone(tz).date())} at {format_time(change.start, tz)}"
    verb = f"schedule {change.summary!r} on" if change.action == "create" else f"move {change.summary!r} to"
    text = f"I did not {verb} {when}: " + _closed_reason(block, tz) + "."
    day = change.start.astimezone(tz).date()
    fit = first_fit(
        ctx,
        lo=max(datetime.combine(day, time(), tz), _soonest(ctx)),
        hi=datetime.combine(day + timedelta(days=1), time(), tz),
        length=change.end - change.start,
        attendees=change.new_attendees if change.new_attendees is not None else change.attendees,
        skip_keys={change.key} if change.key else set(),
    )
    if fit.start is not None:
        text += f" The first free time that day outside it is {format_time(fit.start, tz)}."
    return (
        text + ' Say another time, or, to decide case by case, say "protect my writing block, but let me '
        'approve exceptions" (or change it on your settings page, /settings/).'
    )


def _is_yes(answer: Any, digest: str) -> bool | None:
    """True: approved (this very preview); False: declined; None: an approval of another preview."""
    if isinstance(answer, dict):
        if not answer.get("approve"):
            return False
        return True if answer.get("digest") == digest else None
    return bool(answer)


@skill(service="changes", kind="write")
def apply_changes(ctx: SkillContext, params: ApplyInput) -> Reply:
    """Apply a change set as one unit, after asking where the policy says so (deletions, several
    events, other attendees, broken preferences).  Targets changed or deleted since they were read are
    left out and the user sees a fresh preview first.

    A question the message asked besides (``answered``) is answered first, once: above the preview, or
    above the reply when there is none; the reply to the user's approval does not repeat it.
    """
    answered = params.answered if ctx.answer is NO_ANSWER else ""
    reply = _apply(ctx, params, answered)
    if answered:
        return reply.model_copy(update={"text": f"{answered}\n\n{reply.text}"})
    return reply


def _apply(ctx: SkillContext, params: ApplyInput, answered: str) -> Reply:
    planned = params.changes.changes
    note = params.changes.note  # what the set amounts to ("3 events to copy: ..."), said first
    if not planned and note:
        return Reply(kind="answer", text=note)
    if not planned:
        skipped = params.changes.skipped
        why = _why_skipped(skipped, "{}: {}")
        text = "I found nothing to change" + (f" ({why})." if why else ".")
        if skipped and all(s.start is None for s in skipped):  # new events no time was found for
            text = " ".join(f"I did not schedule {s.summary!r}: {s.reason}." for s in skipped)
        return Reply(kind="answer", text=text)
    earlier = applied_records(ctx.user, ctx.operation_id)
    if earlier:
        # This very task applied the set before its worker died (the records commit with the
        # changes): its targets now carry its own writes, so they are not checked again, and the
        # user is told what was done, once.
        changes, closed = _closed_out(ctx, planned)
        return _done(ctx, params, changes, [*params.changes.skipped, *_closed_skips(ctx, closed)], earlier)
    changes, dropped = revalidate(ctx.provider, planned)
    changes, closed = _closed_out(ctx, changes)
    leave_out = _leave_out(ctx.answer)
    changes, left = _without(changes, leave_out, ctx.tz)
    if closed and not changes and len(closed) == 1 and not dropped:
        change, block = closed[0]
        return Reply(kind="answer", text=_refusal(ctx, change, block), data={"refused": ["writing_block"]})
    criticised: list[Skipped] = []
    if params.expect is not None:
        critic = criticise(changes, params.expect, tz=ctx.tz, parts=day_part_bounds(ctx.preferences))
        if critic.question:
            return Reply(kind="clarify", text=critic.question)
        changes, criticised = critic.kept, critic.dropped
    skipped = [*params.changes.skipped, *dropped, *_closed_skips(ctx, closed), *criticised, *left]
    if not changes:
        return _nothing_left(skipped)
    digest = change_digest(changes)
    reasons = approval_reasons(changes)
    answer = ctx.answer
    verdict = _is_yes(answer, digest) if answer is not NO_ANSWER else None
    # not the set planned, or not the set shown: shown again first
    trimmed = bool(left) and verdict is not True  # left out now, not in the preview approved
    revised = bool(dropped) or bool(closed) or bool(criticised) or trimmed
    back = params.ask_if_earlier and any(_back_a_day(c, ctx.tz) for c in changes)
    must_ask = revised or ((bool(reasons) or params.always_ask or back) and not params.approved)
    if verdict is False:
        return Reply(kind="answer", text="OK, I left your calendar as it was.", data={"declined": True})
    said_first = "\n".join(x for x in (note, params.unsure) if x)
    said_first = "\n\n".join(x for x in (answered, said_first) if x)  # the question's answer above all
    if must_ask and verdict is not True:
        changed = bool(dropped) or (answer is not NO_ANSWER and not left)  # not a change the user asked for
        _ask_first(ctx, changes, skipped, said_first, changed=changed, leave_out=leave_out)
    if verdict is True:
        _refuse_taken_meanwhile(ctx, changes)
    try:
        records = apply_change_set(
            provider=ctx.provider,
            user=ctx.user,
            run_id=ctx.run_id,
            operation_id=ctx.operation_id,
            changes=changes,
            notify=params.notify,
        )
    except ConflictError:
        # A calendar's server held a newer version than the copy the preview was checked against (an
        # edit made there after the last sync).  The provider refreshed its copy, so the user sees
        # what the change would do now, never an overwrite of that edit.
        fresh, gone = revalidate(ctx.provider, changes)
        skipped = [*skipped, *gone]
        if not fresh:
            return _nothing_left(skipped)
        _ask_first(ctx, fresh, skipped, said_first, changed=True)
    except PartlyAppliedError as exc:
        # The user's calendar holds part of the change: say exactly which part.
        raise SkillError(
            f"The change was not made: {exc.cause} {exc.describe(len(changes))}. "
            "Everything else is as it was."
        ) from exc
    except ProviderError as exc:
        raise SkillError(f"Nothing was changed: {exc}") from exc
    return _done(ctx, params, changes, skipped, records)


def _refuse_taken_meanwhile(ctx: SkillContext, changes: list[Change]) -> None:
    """Refuse a change approved for a time that was free when it was shown and is taken now.

    Between a preview and its "yes" (minutes, or days) another event may have been put at the new
    time, from another device or a sync; the user approved a free time, not a clash.  A time shown
    with its overlap named was approved as such and is left alone.  Raised from ConflictError, so
    the engine can ask its replanner for the next free time.
    """
    timed = [
        (c, c.start, c.end)
        for c in changes
        if c.start is not None
        and c.end is not None
        and _takes_new_time(c)
        and c.copy_of is None
        and c.sync_of is None  # a sync keeps a copy and its original at one time: never a clash
        and not any(x.startswith("overlaps ") for x in c.conflicts)
    ]
    if not timed:
        return
    moving = {c.key for c in changes if c.key}
    occurrences = ctx.provider.list_occurrences(
        start=min(start for _, start, _ in timed), end=max(end for _, _, end in timed)
    )
    others = [o for o in occurrences if o.busy and o.occurrence_key not in moving]
    overlaps = _Overlaps([(o.start, o.end) for o in others])
    for change, start, end in timed:
        found = overlaps.of(start, end)
        if found:
            clash = others[found[0]]
            when = format_when(start, ctx.tz)
            raise SkillError(
                f"{change.new_summary or change.summary!r} can't be at {when}: {clash.summary!r} is there "
                "now, put there after I suggested the time. Nothing was changed."
            ) from ConflictError(f"the time of {change.summary!r} was taken by {clash.summary!r}")


def _leave_out(answer: Any) -> list[dict[str, Any]]:
    """The changes an approval leaves out ("yes, but keep the standup"), as their preview rows name
    them: the title and the first time shown (see :func:`assistant.answers.answer_for`)."""
    named = answer.get("leave_out") if isinstance(answer, dict) and answer.get("approve") else None
    return [r for r in named if isinstance(r, dict)] if isinstance(named, list) else []


def _without(
    changes: list[Change], leave_out: list[dict[str, Any]], tz: ZoneInfo
) -> tuple[list[Change], list[Skipped]]:
    """``changes`` less those left out, and those, named in the preview as left alone."""
    if not leave_out:
        return changes, []
    out = {(str(r.get("summary")), str(r.get("start"))) for r in leave_out}
    kept: list[Change] = []
    left: list[Skipped] = []
    for change in changes:
        start = change.start if change.action == "create" else change.before_start
        shown = (change.new_summary or change.summary, start.astimezone(tz).isoformat() if start else "None")
        if shown in out:
            left.append(Skipped(summary=shown[0], start=start, reason="you asked me to leave it out"))
        else:
            kept.append(change)
    return kept, left


def _nothing_left(skipped: list[Skipped]) -> Reply:
    """The answer when every change of a set was left out: which, and why."""
    return Reply(kind="answer", text=f"Nothing is left to change: {_why_skipped(skipped, '{} ({})')}.")


def _why_skipped(skipped: list[Skipped], form: str) -> str:
    """What was left out and why, in ``form`` ("{title} ({reason})"), once for each title and reason: 52
    occurrences of a series left out for one reason are one entry that counts them, not 52."""
    counted = Counter((s.summary, s.reason) for s in skipped)
    return "; ".join(
        form.format(summary if n == 1 else f"{summary}, {n} of them", reason)
        for (summary, reason), n in counted.items()
    )


def _ask_first(
    ctx: SkillContext,
    changes: list[Change],
    skipped: list[Skipped],
    note: str,
    *,
    changed: bool,
    leave_out: list[dict[str, Any]] | None = None,
) -> NoReturn:
    """Pause for the user's approval of ``changes``, previewed (``changed``: the calendar moved on
    since the first preview, which the question says). ``leave_out``: the changes of the set the user
    left out, which its approval leaves out again (the task plans the whole set each time it runs)."""
    head = (
        "Your calendar changed since I suggested this, so here is what I would do now:"
        if changed
        else "Here is what I would do:"
    )
    if note:
        head = f"{note}\n{head}"
    rows = _annotated(preview_rows(changes, ctx.tz), changes)
    digest = change_digest(changes)
    left_out = {"leave_out": leave_out} if leave_out else {}
    raise Interrupt(
        {
            "kind": "confirm",
            "text": "\n".join([head, *_lines(rows, skipped, ctx), "Shall I go ahead?"]),
            "preview": rows,
            "week": week_view(ctx.provider, changes, ctx.tz),
            "options": [
                {"label": "Approve", "value": {"approve": True, "digest": digest, **left_out}},
                {"label": "Decline", "value": {"approve": False}},
            ],
            "digest": digest,
        }
    )


def _closed_skips(ctx: SkillContext, closed: list[tuple[Change, Block]]) -> list[Skipped]:
    return [
        Skipped(summary=c.summary, start=c.before_start or c.start, reason=_closed_reason(b, ctx.tz))
        for c, b in closed
    ]


def _done(
    ctx: SkillContext,
    params: ApplyInput,
    changes: list[Change],
    skipped: list[Skipped],
    records: list[ChangeRecord],
) -> Reply:
    """The reply to an applied set: what was done, what was left out, and the run to undo."""
    rows = preview_rows(changes, ctx.tz)
    text = "\n".join(
        [
            f"Done: {len(records)} change{'s' if len(records) != 1 else ''}.",
            *_lines(rows, skipped, ctx),
            *([params.then_ask] if params.then_ask and records else []),
        ]
    )
    events = [
        {
            "event_id": r.event_id,
            "recurrence_id": r.recurrence_id.isoformat() if r.recurrence_id else None,
            "summary": r.summary,
            "action": r.action,
        }
        for r in records
    ]
    return Reply(
        kind="done",
        text=text,
        data={
            "applied": events,
            "preview": rows,
            "undo": {"run_id": ctx.run_id},
            "changed": [c.model_dump(mode="json") for c in changes],
            "servers_notified": params.notify,
        },
    )


# -- after applying -------------------------------------------------------------------------------------
class NotifyInput(SkillInput):
    result: Reply = Field(description="The output of apply_changes.")
    note: str = Field(default="", description="Why, in the user's words (e.g. 'travel').")
    only: list[str] = Field(
        default_factory=list,
        description="Tell just these people (e.g. the one just invited: 'add Lee and let him know').",
    )


def _told_by_server(ctx: SkillContext, result: Reply) -> dict[str, str]:
    """The calendars whose server told the attendees itself, by id and by key -> the provider's name:
    those whose provider sends updates (Google), when the apply step asked it to (the user asked to
    notify)."""
    if not result.data.get("servers_notified"):
        return {}
    told = [c for c in ctx.provider.list_calendars() if provider_class(c.provider).sends_updates]
    # A change names its calendar by id (a new event) or by key (a target read from the calendar).
    return {name: provider_class(c.provider).label for c in told for name in (c.id, c.key)}


def _drafts(
    ctx: SkillContext, result: Reply, note: str, only_to: list[str], skip: AbstractSet[str] = frozenset()
) -> dict[str, tuple[str, str]]:
    """The mail for each other attendee of the changed events: address -> subject and body; the
    changes on calendars in ``skip`` (their server told their attendees) are left out.

    An address written in two cases is one person, who gets one mail listing everything.
    """
    owner = (getattr(ctx.user, "email", "") or "").casefold()
    name = ctx.user.get_full_name() if hasattr(ctx.user, "get_full_name") else ""
    sender = name or getattr(ctx.user, "username", "") or "Your colleague"
    by_person: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    only = {a.casefold() for a in only_to}
    for change in result.data.get("changed", []):
        parsed = Change.model_validate(change)
        if parsed.calendar in skip:
            continue
        moved = parsed.start is not None and parsed.start != parsed.before_start
        verb = {"delete": "cancelled", "create": "scheduled"}.get(
            parsed.action, "moved" if moved else "changed"
        )
        when = parsed.before_start or parsed.start
        stamp = format_when(when, ctx.tz) if when else ""
        invited, dropped = attendee_changes(parsed)
        lines = {a.casefold(): f"you are invited to {parsed.summary} ({stamp})" for a in invited}
        lines |= {a.casefold(): f"you are no longer invited to {parsed.summary} ({stamp})" for a in dropped}
        for person in dict.fromkeys([*parsed.attendees, *invited]):
            key = person.casefold()
            if key != owner and (not only or key in only):
                _, items = by_person.setdefault(key, (person, []))
                items.append((parsed.summary, lines.get(key, f"{parsed.summary} ({stamp}) is {verb}")))
    reason = f" because of {note}" if note else ""
    return {
        address: (
            f"{sender}: changes to {', '.join(summary for summary, _ in items)}",
            f"Hello,\n\n{sender} changed their calendar{reason}:\n"
            + "".join(f"- {line}\n" for _, line in items),
        )
        for address, items in sorted(by_person.values(), key=lambda entry: entry[0].casefold())
    }


@skill(service="changes", kind="write")
def notify_attendees(ctx: SkillContext, params: NotifyInput) -> Reply:
    """Mail the other attendees of the changed events what happened (only once changes were applied).

    The changes stand by then (committed by ``apply_changes``), so a mail that does not go out leaves
    the reply ``done``, with its undo: the reply says whose mail is waiting, and a worker retries just
    those mails once this step's writes are committed.  Each mail is recorded as sent the moment it
    went out, so a retry or a step run again never sends it twice.  Without a mail server (the
    console backend, the default) the reply says that nobody was emailed and how mail is set up.
    """
    result = params.result
    if result.kind != "done":
        return result
    by_server = _told_by_server(ctx, result)
    # Whom a server (Google) sent the update to: every other attendee of the changes on its calendars
    # (Google cannot tell only some of them).
    server_told = _drafts(ctx, result, params.note, [], skip=_all(result) - by_server.keys())
    drafts = _drafts(ctx, result, params.note, params.only, skip=by_server.keys())
    told_line = (
        [f"{' and '.join(sorted(set(by_server.values())))} sent the update to {', '.join(server_told)}."]
        if server_told
        else []
    )
    if not drafts:
        return Reply(
            kind=result.kind,
            text="\n".join([result.text, *(told_line or ["Nobody else was affected."])]),
            data={**result.data, "notified": list(server_told)},
        )
    notifications_create(owner=ctx.user, run_id=ctx.run_id, drafts=drafts)
    waiting = (Notification.Status.PENDING, Notification.Status.SENDING)
    if any(n.status in waiting for n in notifications_send(run_id=ctx.run_id)):
        notifications_dispatch(ctx.run_id)
    # Read again: run eagerly outside a transaction, the dispatched retry has already happened.
    mails = notifications_of(run_id=ctx.run_id)
    sent = [n.recipient for n in mails if n.status == Notification.Status.SENT]
    retrying = [n.recipient for n in mails if n.status in waiting]
    given_up = [n for n in mails if n.status == Notification.Status.FAILED]
    unconfigured = [n.recipient for n in given_up if n.error == NOT_CONFIGURED]
    failed = [n.recipient for n in given_up if n.error != NOT_CONFIGURED]
    lines = [result.text, *told_line]
    if unconfigured:
        lines.append(
            f"Mail is not configured on this server, so nobody was emailed: you may want to tell "
            f"{', '.join(unconfigured)} yourself. (Whoever runs the server can set EMAIL_URL to a mail "
            "server to send mail.)"
        )
    if sent:
        lines.append(f"I let {', '.join(sent)} know.")
    if retrying:
        lines.append(f"The mail to {', '.join(retrying)} did not go out; I will try again.")
    if failed:
        lines.append(
            f"The mail to {', '.join(failed)} did not go out, and trying again did not help; "
            "you may want to tell them yourself."
        )
    return Reply(
        kind=result.kind,
        text="\n".join(lines),
        data={
            **result.data,
            "notified": [*server_told, *sent],
            "mail_retrying": retrying,
            "mail_failed": failed,
            "mail_not_configured": unconfigured,
        },
    )


def _all(result: Reply) -> set[str]:
    """The calendars of the changes an apply step made."""
    return {str(c.get("calendar", "")) for c in result.data.get("changed", [])}


class UndoInput(SkillInput):
    run_id: str = Field(description="The run whose changes to revert.")


@skill(service="changes", kind="write")
def undo_changes(ctx: SkillContext, params: UndoInput) -> Reply:
    """Revert every change one earlier request made, as one unit; events edited since are left alone
    and named.  Undoing an undo redoes.
    """
    records, skipped = undo_run(
        provider=ctx.provider,
        user=ctx.user,
        run_id=params.run_id,
        undo_run_id=ctx.run_id,
        operation_id=ctx.operation_id,
    )
    if not records and not skipped:
        return Reply(kind="answer", text="There is nothing left to undo there.")
    lines = [f"Undone: {len(records)} change{'s' if len(records) != 1 else ''}."]
    lines += [f"  • {r.summary}" for r in records]
    if skipped:
        lines.append("Left alone: " + "; ".join(skipped) + ".")
    return Reply(
        kind="done",
        text="\n".join(lines),
        data={
            "applied": [{"event_id": r.event_id, "summary": r.summary, "action": r.action} for r in records],
            "undo": {"run_id": ctx.run_id},
            "reverted": params.run_id,
            "conflicts": skipped,
        },
    )
