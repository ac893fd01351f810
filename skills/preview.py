"""The week view of a pending change set: the weeks it touches and the events already in them.

The chat page draws the changes (moved, new, deleted) from the preview rows beside the events they
would land among; this module supplies the latter, read once when the preview is made, so the page
needs no second request and shows exactly the calendar the user approves against.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from skills.changes import Change
from skills.providers.base import CalendarProvider, Occurrence

__all__ = ["MAX_CONTEXT_WEEKS", "MAX_WEEKS", "week_view"]

MAX_WEEKS = 60
"""Weeks listed for navigation; a change set spanning more is still listed in full in the text."""
MAX_CONTEXT_WEEKS = 6
"""Weeks whose other events are included: enough to judge a bulk change, bounded for big calendars."""
MAX_EVENTS_PER_WEEK = 150


def _monday(moment: datetime, tz: ZoneInfo) -> date:
    day = moment.astimezone(tz).date()
    return day - timedelta(days=day.weekday())


def _is_target(occ: Occurrence, changes: list[Change]) -> bool:
    """Whether ``occ`` is drawn from the change rows already (so it must not show twice)."""
    for change in changes:
        if change.action == "create" or occ.event_id != change.event_id:
            continue
        if change.scope == "series" or change.recurrence_id is None:
            return True
        if occ.recurrence_id == change.recurrence_id:
            return True
        if change.scope == "following" and occ.recurrence_id and occ.recurrence_id > change.recurrence_id:
            return True
    return False


def week_view(provider: CalendarProvider, changes: list[Change], tz: ZoneInfo) -> dict[str, Any]:
    """The weeks (Mondays, in ``tz``) the changes touch, and the other events of the first few.

    Times are ISO strings in ``tz`` so the page can place them by their wall time whatever the
    browser's own zone is.
    """
    moments = [m for c in changes for m in (c.before_start, c.start) if m is not None]
    weeks = sorted({_monday(m, tz) for m in moments})[:MAX_WEEKS]
    events: list[dict[str, Any]] = []
    for monday in weeks[:MAX_CONTEXT_WEEKS]:
        lo = datetime.combine(monday, time.min, tzinfo=tz)
        hi = datetime.combine(monday + timedelta(days=7), time.min, tzinfo=tz)
        shown = [o for o in provider.list_occurrences(start=lo, end=hi) if not _is_target(o, changes)]
        events += [
            {
                "summary": o.summary,
                "calendar": o.calendar_name,
                "start": o.start.astimezone(tz).isoformat(),
                "end": o.end.astimezone(tz).isoformat(),
                "all_day": o.all_day,
            }
            for o in shown[:MAX_EVENTS_PER_WEEK]
        ]
    return {
        "timezone": tz.key,
        "weeks": [w.isoformat() for w in weeks],
        "context_weeks": min(len(weeks), MAX_CONTEXT_WEEKS),
        "events": events,
    }
