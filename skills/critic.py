"""The critic: planned changes checked against what the request said, before any is previewed or applied.

A plan can be valid and still not be what was asked: a delete of "an event from Sunday" that takes
Monday's too, a move "to whenever everyone is free" to a time an attendee is busy, a create on today
when the user said Wednesday, a create where the words asked for a move.  The reading of the request
(its :class:`Expectation`, made by the gate from the decomposer's frame and the words) says what must
hold; :func:`criticise` checks every planned change against it.  A change that breaks it is taken out
of the set and named with the reason (the revised plan, which is then always previewed); a set that
cannot be revised by taking changes out (several events where one was meant) is not done at all, and
the user is asked instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from skills.changes import Change, Skipped
from skills.filtering import in_day_part
from skills.formatting import format_day
from skills.schemas import DayPart

__all__ = ["Action", "Expectation", "Verdict", "criticise"]

Action = Literal["create", "update", "delete"]
_WEEKDAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")


class Expectation(BaseModel):
    """What the request said the changes must keep to; every field left empty checks nothing."""

    actions: list[Action] | None = Field(
        default=None, description="The kinds of change the words ask for (None: not said; []: none at all)."
    )
    days: list[date] = Field(
        default_factory=list,
        description="The days the words name: an event deleted or made lies on one of them (none: any).",
    )
    exclude_weekdays: list[int] = Field(
        default_factory=list, description="Days said to leave alone (0=Monday)."
    )
    exclude_dates: list[date] = Field(default_factory=list, description="Dates said to leave alone.")
    one: bool = Field(default=False, description="One event was meant ('an event', 'it', 'the review').")
    everyone_free: bool = Field(default=False, description="New times must suit every attendee.")
    new_day_part: DayPart | None = Field(default=None, description="New times in this part of the day.")


@dataclass
class Verdict:
    """The changes that keep to the request, the ones taken out (with why), and a question when no
    revision can make the set right."""

    kept: list[Change]
    dropped: list[Skipped] = field(default_factory=list)
    question: str = ""


def criticise(
    changes: list[Change],
    expect: Expectation,
    *,
    tz: ZoneInfo,
    parts: Mapping[str, tuple[time, time]] | None = None,
) -> Verdict:
    """Check each planned change against ``expect``; see the module's docstring."""
    kept: list[Change] = []
    dropped: list[Skipped] = []
    for change in changes:
        reason = _broken(change, expect, tz, parts)
        if reason:
            dropped.append(
                Skipped(summary=change.summary, start=change.before_start or change.start, reason=reason)
            )
        else:
            kept.append(change)
    targets = {(c.event_id, c.recurrence_id) for c in kept if c.action != "create"}
    if expect.one and len(targets) > 1 and not any(c.scope != "occurrence" for c in kept):
        names = "; ".join(_named(c, tz) for c in kept[:5])
        return Verdict(
            kept=[],
            dropped=dropped,
            question=f"You asked about one event, but {len(targets)} match: {names}. Which one do you mean? "
            'Name it, or give its day and time (e.g. "the one at 2pm").',
        )
    return Verdict(kept=kept, dropped=dropped)


def _named(change: Change, tz: ZoneInfo) -> str:
    when = change.before_start or change.start
    return f"{change.summary!r} ({format_day(when.astimezone(tz).date())})" if when else repr(change.summary)


def _broken(
    change: Change, expect: Expectation, tz: ZoneInfo, parts: Mapping[str, tuple[time, time]] | None
) -> str:
    """Why ``change`` does not keep to what was said, or ''."""
    if expect.actions is not None and change.action not in expect.actions:
        asked = " or ".join(_VERBS[a] for a in expect.actions) if expect.actions else "change nothing"
        return f"it would {_VERBS[change.action]} an event, and you asked me to {asked}"
    at = change.start if change.action == "create" else change.before_start
    if expect.days and change.action in ("create", "delete") and at is not None and not _whole(change):
        until = (change.end if change.action == "create" else change.before_end) or at
        first = at.astimezone(tz).date()
        last = max(first, (until - timedelta(microseconds=1)).astimezone(tz).date())
        if not any(first <= day <= last for day in expect.days):
            return f"it is not on {_days_words(expect.days)}, which you named"
    local = at.astimezone(tz) if at is not None and change.action != "create" else None
    if local is not None and local.weekday() in expect.exclude_weekdays:
        return f"you said to leave {_WEEKDAYS[local.weekday()]} alone"
    if local is not None and local.date() in expect.exclude_dates:
        return f"you said to leave {local:%B} {local.day} alone"
    moved = change.action != "delete" and change.start is not None and change.start != change.before_start
    if moved and expect.everyone_free and change.busy:
        verb = "is" if len(change.busy) == 1 else "are"
        return f"{', '.join(change.busy)} {verb} busy then, and you asked for a time when everyone is free"
    part = expect.new_day_part
    if (
        moved
        and part
        and change.start is not None
        and not in_day_part(change.start.astimezone(tz).time(), part, parts)
    ):
        return f"the time found is not in the {part}"
    return ""


_VERBS: dict[str, str] = {"create": "create", "update": "change", "delete": "delete"}


def _whole(change: Change) -> bool:
    """A change to a whole series (or from an occurrence on), or a new repeating event: not on a day."""
    return bool(change.rrule) or (change.recurrence_id is not None and change.scope != "occurrence")


def _days_words(days: list[date]) -> str:
    ordered = sorted(days)
    if len(ordered) == 1:
        return format_day(ordered[0])
    return f"{format_day(ordered[0])} – {format_day(ordered[-1])}"
