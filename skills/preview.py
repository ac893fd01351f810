"""The week view of a pending change set: the weeks it touches and the events already in them.

The chat page draws the changes (moved, new, deleted) from the preview rows beside the events they
would land among; this module supplies the latter, read once when the preview is made, so the page
needs no second request and shows exactly the calendar the user approves against.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from skills.changes import Change
from skills.providers.base import CalendarProvider, Occurrence
from skills.recurrence import overlaps

__all__ = ["MAX_CONTEXT_WEEKS", "MAX_WEEKS", "week_view"]

MAX_WEEKS = 60
"""Weeks listed for navigation; a change set spanning more is still listed in full in the text."""
MAX_CONTEXT_WEEKS = 6
"""Weeks whose other events are included: enough to judge a bulk change, bounded for big calendars."""
MAX_EVENTS_PER_WEEK = 150


def _monday(moment: datetime, tz: ZoneInfo) -> date:
    day = moment.astimezone(tz).date()
    return day - timedelta(days=day.weekday())


class _Targets:
    """The occurrences the change rows already draw (so they must not show twice), looked up by key:
    a bulk preview checks every event of its weeks against hundreds of changes."""

    def __init__(self, changes: list[Change]) -> None:
        self.occurrences: set[tuple[str, datetime]] = set()
        self.series: set[str] = set()
        self.following: dict[str, datetime] = {}  # series id -> the earliest "this and following" cut
        for change in changes:
            if change.action == "create":
                continue
            if change.scope == "series" or change.recurrence_id is None:
                self.series.add(change.event_id)
                continue
            self.occurrences.add((change.event_id, change.recurrence_id))
            if change.scope == "following":
                cut = self.following.get(change.event_id)
                self.following[change.event_id] = (
                    min(cut, change.recurrence_id) if cut else change.recurrence_id
                )

    def drawn(self, occ: Occurrence) -> bool:
        if occ.event_id in self.series:
            return True
        rid = occ.recurrence_id
        if rid is None:
            return False
        cut = self.following.get(occ.event_id)
        return (occ.event_id, rid) in self.occurrences or (cut is not None and rid > cut)


def _weeks_listed(
    provider: CalendarProvider, mondays: list[date], tz: ZoneInfo
) -> Iterator[tuple[date, list[Occurrence]]]:
    """Each week (by its Monday, in order) with the occurrences read for it: consecutive weeks are
    read in one request, where a bulk change's six weeks cost six, and each week keeps those that
    meet it (an event across a Sunday midnight shows in both weeks, as when read week by week)."""
    run: list[date] = []
    for monday in [*mondays, None]:
        if run and (monday is None or monday != run[-1] + timedelta(days=7)):
            lo = datetime.combine(run[0], time.min, tzinfo=tz)
            hi = datetime.combine(run[-1] + timedelta(days=7), time.min, tzinfo=tz)
            listed = provider.list_occurrences(start=lo, end=hi)
            yield from ((week, listed) for week in run)
            run = []
        if monday is not None:
            run.append(monday)


def week_view(provider: CalendarProvider, changes: list[Change], tz: ZoneInfo) -> dict[str, Any]:
    """The weeks (Mondays, in ``tz``) the changes touch, and the other events of the first few.

    Times are ISO strings in ``tz`` so the page can place them by their wall time whatever the
    browser's own zone is.
    """
    moments = [m for c in changes for m in (c.before_start, c.start) if m is not None]
    weeks = sorted({_monday(m, tz) for m in moments})[:MAX_WEEKS]
    targets = _Targets(changes)
    events: list[dict[str, Any]] = []
    for monday, listed in _weeks_listed(provider, weeks[:MAX_CONTEXT_WEEKS], tz):
        lo = datetime.combine(monday, time.min, tzinfo=tz)
        hi = datetime.combine(monday + timedelta(days=7), time.min, tzinfo=tz)
        shown = [o for o in listed if overlaps(o.start, o.end, lo, hi) and not targets.drawn(o)]
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
