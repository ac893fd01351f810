"""Skills that change calendars: plan a change set, let the user choose or approve it, apply, notify, undo.

Planning never writes; ``apply_changes`` is the one skill that does, after the approval the policy in
:func:`skills.changes.approval_reasons` asks for, so that a workflow cannot change a calendar by
another path.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

from django.conf import settings
from pydantic import BaseModel, Field

from skills.changes import (
    Change,
    ChangeSet,
    Skipped,
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
from skills.errors import SkillError
from skills.formatting import format_day, format_person, format_span, format_time
from skills.freetime import (
    Span,
    parse_hhmm,
    preference_blocks,
    protected_spans,
    search,
    within_working_hours,
    working_window,
)
from skills.mail import notifications_create, notifications_of, notifications_send
from skills.models import Notification
from skills.preview import week_view
from skills.providers.base import ProviderError
from skills.registry import REGISTRY, skill
from skills.reply_skills import Reply
from skills.schemas import DAY_PARTS, DayPart, EventItem, SkillInput
from skills.tasks import notifications_dispatch

__all__ = [
    "apply_changes",
    "choose_event",
    "combine_changes",
    "notify_attendees",
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


def _conflicts(ctx: SkillContext, planned: list[Change], *, skip_keys: set[str]) -> None:
    """Fill in what each planned new time would break: other events, protected time, working hours.

    Other changes of the same set count at their new times, the events they move at none.
    """
    timed = [c for c in planned if c.start is not None and c.end is not None and not c.all_day]
    if not timed:
        return
    spans = [(c.start, c.end) for c in timed if c.start is not None and c.end is not None]
    lo = min(start for start, _ in spans) - timedelta(days=1)
    hi = max(end for _, end in spans) + timedelta(days=1)
    others = [
        o
        for o in ctx.provider.list_occurrences(start=lo, end=hi)
        if o.busy and o.occurrence_key not in skip_keys
    ]
    prefs = ctx.preferences
    blocks = preference_blocks(prefs, lo, hi, ctx.tz)
    working = working_window(prefs)
    by_others = _Overlaps([(o.start, o.end) for o in others])
    by_moving = _Overlaps(spans)
    by_blocks = _Overlaps(blocks)
    for position, change in enumerate(timed):
        start, end = spans[position]
        found = [
            f"overlaps {others[i].summary} at {format_time(others[i].start, ctx.tz)}"
            for i in by_others.of(start, end)
        ]
        found += [
            f"overlaps {timed[i].new_summary or timed[i].summary} (also moving)"
            for i in by_moving.of(start, end)
            if i != position
        ]
        found += [f"a protected block {format_span(*blocks[i], ctx.tz)}" for i in by_blocks.of(start, end)]
        if working is not None:
            days, w_lo, w_hi = working
            s, e = start.astimezone(ctx.tz), end.astimezone(ctx.tz)
            if s.weekday() not in days or s.time() < w_lo or e.time() > w_hi or e.date() != s.date():
                found.append("time outside working hours")
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
    search_start: datetime | None = Field(default=None, description="Find a free time in this range instead.")
    search_end: datetime | None = None
    other_day: bool = Field(default=False, description="With a search range: not on the event's own day.")
    scope: Literal["occurrence", "following", "series"] = "occurrence"


@skill(service="changes", kind="read")
def plan_move(ctx: SkillContext, params: PlanMoveInput) -> ChangeSet:
    """Plan moving events: by an offset, to a date or time, or to free time in a part of the day or a
    range, respecting other events and the protected preferences.  An event with no fitting time is
    left alone and named.
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
        if search_mode:
            slot = _find_slot(ctx, item, length, params, skip_keys, taken)
            if slot is None:
                skipped.append(Skipped(summary=item.summary, start=item.start, reason="no free time fits"))
                continue
            start = slot
        else:
            start = moved_start(item, params, tz)
        end = start + length
        if start == item.start and end == item.end:
            skipped.append(Skipped(summary=item.summary, start=item.start, reason="it is already then"))
            continue
        taken.append((start.timestamp(), end.timestamp()))
        changes.append(Change(action="update", start=start, end=end, **_target(item, params.scope)))
    _conflicts(ctx, changes, skip_keys=skip_keys)
    return ChangeSet(changes=changes, skipped=skipped)


class PlanEditInput(SkillInput):
    events: list[EventItem] = Field(description="Events to change, from an earlier task's output.")
    summary: str | None = Field(default=None, description="New title.")
    location: str | None = Field(default=None, description="New place; empty text removes it.")
    duration_minutes: int | None = Field(default=None, ge=5, le=24 * 60 * 14, description="New length.")
    invite: list[str] = Field(default_factory=list, description="Emails of people to add.")
    uninvite: list[str] = Field(default_factory=list, description="Emails of people to take off.")
    every_weeks: int | None = Field(
        default=None,
        ge=1,
        le=52,
        description="A weekly series repeats every this many weeks ('biweekly': 2).",
    )
    scope: Literal["occurrence", "following", "series"] = "occurrence"


@skill(service="changes", kind="read")
def plan_edit(ctx: SkillContext, params: PlanEditInput) -> ChangeSet:
    """Plan changing what an event is rather than when: its title, its place, its length, who comes."""
    changes: list[Change] = []
    skipped: list[Skipped] = []
    for item in _unique(params.events, params.scope):
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
        if params.duration_minutes:
            change.start, change.end = item.start, item.start + timedelta(minutes=params.duration_minutes)
        if params.invite or params.uninvite:
            gone = {a.casefold() for a in params.uninvite}
            kept = [a for a in item.attendees if a.casefold() not in gone]
            have = {a.casefold() for a in kept}
            change.new_attendees = kept + [a for a in params.invite if a.casefold() not in have]
        changes.append(change)
    _conflicts(ctx, [c for c in changes if c.start is not None], skip_keys={e.key for e in params.events})
    return ChangeSet(changes=changes, skipped=skipped)


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
    if to.at_time is not None:
        at = parse_hhmm(to.at_time)
        if to.either_half:
            at = _nearer_half(at, item.start.astimezone(tz).time())
        start = datetime.combine(start.astimezone(tz).date(), at, tz)
    if to.shift_minutes:
        start = shift_wall(start, tz, minutes=to.shift_minutes)
    return start


def _nearer_half(at: time, own: time) -> time:
    """``at`` or the same clock time in the other half of the day, whichever is nearer ``own``: an
    8 am event made "8" is 8 am, not 8 pm; a 4 pm one moved "to 5" is 5 pm."""
    other = at.replace(hour=(at.hour + 12) % 24)

    def gap(t: time) -> int:
        return abs((t.hour * 60 + t.minute) - (own.hour * 60 + own.minute))

    return other if gap(other) < gap(at) else at


def _find_slot(
    ctx: SkillContext,
    item: EventItem,
    length: timedelta,
    params: PlanMoveInput,
    skip_keys: set[str],
    taken: list[Span],
) -> datetime | None:
    tz = ctx.tz
    day = params.to_date or item.start.astimezone(tz).date()
    # Never into the past, nor into the minute that is already under way: from the next quarter hour.
    soonest = ctx.now.replace(second=0, microsecond=0) + timedelta(minutes=15 - ctx.now.minute % 15)
    if params.day_part is not None:
        lo = max(datetime.combine(day, time(), tz), soonest)
        hi = datetime.combine(day + timedelta(days=1), time(), tz)
        window: tuple[time, time] | None = DAY_PARTS[params.day_part]
    else:
        assert params.search_start is not None
        lo = max(params.search_start, soonest)
        hi = params.search_end or lo + timedelta(days=7)
        window = None
    if lo >= hi:
        return None
    prefs = ctx.preferences
    window, weekdays = within_working_hours(prefs, window, None)
    own = ctx.provider.busy_reader(start=lo, end=hi, ignore=frozenset(skip_keys))

    def busy(a: datetime, b: datetime) -> list[Span]:
        spans = own(a, b) + taken + protected_spans(prefs, a, b, tz)
        if params.other_day:
            spans.append(
                (
                    datetime.combine(day, time(), tz).timestamp(),
                    datetime.combine(day + timedelta(days=1), time(), tz).timestamp(),
                )
            )
        return spans

    found = search(
        start=lo,
        end=hi,
        tz=tz,
        min_minutes=max(1, int(length.total_seconds() // 60)),
        busy_between=busy,
        daily_window=window,
        weekdays=weekdays,
        limit=1,
    )
    if not found:
        return None
    return datetime.fromtimestamp(found[0][0], tz)


class PlanCreateInput(SkillInput):
    summary: str = Field(default="", description="Title; taken from `like` when empty.")
    start: datetime = Field(description="Start, ISO 8601 with offset (for all-day: local midnight).")
    duration_minutes: int | None = Field(default=None, ge=5, le=24 * 60 * 14)
    all_day: bool = False
    calendar: str = Field(default="", description="Calendar key; the default calendar when empty.")
    attendees: list[str] = Field(default_factory=list, description="Emails of people to invite.")
    location: str = Field(default="", description="Where it takes place.")
    rrule: str = Field(
        default="", description="RFC 5545 RRULE when it repeats, e.g. FREQ=WEEKLY;BYDAY=TU,TH."
    )
    like: list[EventItem] = Field(
        default_factory=list, description="Copy title and attendees from the first."
    )


@skill(service="changes", kind="read")
def plan_create(ctx: SkillContext, params: PlanCreateInput) -> ChangeSet:
    """Plan a new event (nothing is written until apply_changes)."""
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
    start = params.start
    if params.all_day:
        day = start.astimezone(ctx.tz).date()
        start, end = (
            datetime.combine(day, time(), ctx.tz),
            datetime.combine(day + timedelta(days=1), time(), ctx.tz),
        )
    else:
        end = start + timedelta(minutes=minutes)
    attendees = list(dict.fromkeys([*params.attendees, *(template.attendees if template else [])]))
    owner = (getattr(ctx.user, "email", "") or "").casefold()
    change = Change(
        action="create",
        summary=summary,
        calendar=calendar.id,
        calendar_name=calendar.name,
        start=start,
        end=end,
        all_day=params.all_day,
        attendees=[a for a in attendees if a.casefold() != owner],
        location=params.location or (template.location if template else ""),
        rrule=params.rrule,
    )
    _conflicts(ctx, [change], skip_keys=set())
    return ChangeSet(changes=[change])


class CombineInput(SkillInput):
    sets: list[ChangeSet] = Field(description="Change sets from earlier plan tasks, applied in this order.")


@skill(service="changes", kind="read")
def combine_changes(ctx: SkillContext, params: CombineInput) -> ChangeSet:
    """Join change sets into one, to be approved and applied together."""
    return ChangeSet(
        changes=[c for s in params.sets for c in s.changes],
        skipped=[x for s in params.sets for x in s.skipped],
    )


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
    if not params.events:
        raise SkillError("I couldn't find an event matching that. Could you name it differently?")
    events = _unique(params.events, "series") if params.per_series else params.events
    if len(events) == 1 or not params.expect_one:
        return Chosen(events=events, chosen=False, scope=params.scope)
    options = [_option(ctx, params, e) for e in events]
    shown = options[:MAX_OPTIONS]
    series = {e.event_id for e in events}
    whole = len(series) == 1 and events[0].recurring and params.scope == "occurrence"
    if whole:
        first = format_day(events[0].start.astimezone(ctx.tz).date())
        label = f"{params.action} all of them, from {first} on{_outcome(ctx, params, events[0])}"
        shown.append({"label": label, "value": ALL})
    question = params.question or "Which one do you mean?"
    text = f"{question} I found {len(events)}."
    payload: dict[str, Any] = {"kind": "choose", "text": text, "options": shown}
    if len(options) > MAX_OPTIONS:
        payload["text"] = (
            f"{text} Here are the next {MAX_OPTIONS}; for another, say its day "
            f'(e.g. "the one on {format_day(events[MAX_OPTIONS].start.astimezone(ctx.tz).date())}").'
        )
        payload["more"] = options[MAX_OPTIONS:]
    answer = ctx.interrupt(payload)
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
    what: str = Field(default="", description="A short name of the request, for the reply.")
    then_ask: str = Field(
        default="", description="A question to end the reply with once applied (an optional detail)."
    )


MAX_LINES = 20
"""Lines of a change set's text listed one by one; past that, the text counts the rest (a bulk change
of 500 events is read in the week view and the reply's preview rows, which list every change)."""


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
    """
    planned = params.changes.changes
    if not planned:
        why = "; ".join(f"{s.summary}: {s.reason}" for s in params.changes.skipped)
        text = "I found nothing to change" + (f" ({why})." if why else ".")
        return Reply(kind="answer", text=text)
    changes, dropped = revalidate(ctx.provider, planned)
    skipped = [*params.changes.skipped, *dropped]
    if not changes:
        return Reply(
            kind="answer",
            text="Nothing is left to change: "
            + "; ".join(f"{s.summary} ({s.reason})" for s in skipped)
            + ".",
        )
    digest = change_digest(changes)
    reasons = approval_reasons(changes)
    must_ask = bool(dropped) or (bool(reasons) and not params.approved)
    answer = ctx.answer
    verdict = _is_yes(answer, digest) if answer is not NO_ANSWER else None
    if verdict is False:
        return Reply(kind="answer", text="OK, I left your calendar as it was.", data={"declined": True})
    if must_ask and verdict is not True:
        head = (
            "Your calendar changed since I suggested this, so here is what I would do now:"
            if dropped or answer is not NO_ANSWER
            else "Here is what I would do:"
        )
        rows = preview_rows(changes, ctx.tz)
        raise Interrupt(
            {
                "kind": "confirm",
                "text": "\n".join([head, *_lines(rows, skipped, ctx), "Shall I go ahead?"]),
                "preview": rows,
                "week": week_view(ctx.provider, changes, ctx.tz),
                "options": [
                    {"label": "Approve", "value": {"approve": True, "digest": digest}},
                    {"label": "Decline", "value": {"approve": False}},
                ],
                "digest": digest,
            }
        )
    try:
        records = apply_change_set(
            provider=ctx.provider,
            user=ctx.user,
            run_id=ctx.run_id,
            operation_id=ctx.operation_id,
            changes=changes,
        )
    except ProviderError as exc:
        raise SkillError(f"Nothing was changed: {exc}") from exc
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


CONSOLE_BACKEND = "django.core.mail.backends.console.EmailBackend"
"""The default mail backend, which prints mail instead of sending it: nobody is told by it."""


def _drafts(ctx: SkillContext, result: Reply, note: str, only_to: list[str]) -> dict[str, tuple[str, str]]:
    """The mail for each other attendee of the changed events: address -> subject and body.

    An address written in two cases is one person, who gets one mail listing everything.
    """
    owner = (getattr(ctx.user, "email", "") or "").casefold()
    name = ctx.user.get_full_name() if hasattr(ctx.user, "get_full_name") else ""
    sender = name or getattr(ctx.user, "username", "") or "Your colleague"
    by_person: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    only = {a.casefold() for a in only_to}
    for change in result.data.get("changed", []):
        parsed = Change.model_validate(change)
        moved = parsed.start is not None and parsed.start != parsed.before_start
        verb = {"delete": "cancelled", "create": "scheduled"}.get(
            parsed.action, "moved" if moved else "changed"
        )
        when = parsed.before_start or parsed.start
        stamp = f"{format_day(when.astimezone(ctx.tz).date())} {format_time(when, ctx.tz)}" if when else ""
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

    The changes stand by then, so a mail that does not go out leaves the reply ``done``, with its
    undo: the reply says whose mail is waiting, and a worker retries just those mails.  Each mail is
    recorded as sent the moment it went out, so a retry or a step run again never sends it twice.
    """
    result = params.result
    if result.kind != "done":
        return result
    drafts = _drafts(ctx, result, params.note, params.only)
    if not drafts:
        return Reply(
            kind=result.kind,
            text=result.text + "\nNobody else was affected.",
            data={**result.data, "notified": []},
        )
    notifications_create(owner=ctx.user, run_id=ctx.run_id, drafts=drafts)
    if any(n.status != Notification.Status.SENT for n in notifications_send(run_id=ctx.run_id)):
        notifications_dispatch(ctx.run_id)
    # Read again: run eagerly outside a transaction, the dispatched retry has already happened.
    mails = notifications_of(run_id=ctx.run_id)
    sent = [n.recipient for n in mails if n.status == Notification.Status.SENT]
    retrying = [
        n.recipient for n in mails if n.status in (Notification.Status.PENDING, Notification.Status.SENDING)
    ]
    failed = [n.recipient for n in mails if n.status == Notification.Status.FAILED]
    lines = [result.text]
    if sent and settings.EMAIL_BACKEND == CONSOLE_BACKEND:
        lines.append(
            f"I wrote to {', '.join(sent)}, but no mail server is set up here: "
            "the mail was only printed in the server's log."
        )
    elif sent:
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
        data={**result.data, "notified": sent, "mail_retrying": retrying, "mail_failed": failed},
    )


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
