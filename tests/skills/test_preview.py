"""The week view of a pending change set: the weeks it touches and the other events in them."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from skills.changes import Change
from skills.preview import MAX_EVENTS_PER_WEEK, week_view
from skills.providers.local import LocalProvider
from skills.services import event_create
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")
pytestmark = pytest.mark.django_db


def _at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=NY)


def _week_by_week(provider: LocalProvider, view: dict[str, Any], drawn: set[str]) -> list[str]:
    """The events as reading each context week on its own lists them."""
    listed: list[str] = []
    for monday in view["weeks"][: view["context_weeks"]]:
        lo = datetime.combine(datetime.fromisoformat(monday).date(), time.min, tzinfo=NY)
        occurrences = provider.list_occurrences(start=lo, end=lo + timedelta(days=7))
        shown = [o for o in occurrences if o.summary not in drawn][:MAX_EVENTS_PER_WEEK]
        listed += [f"{o.summary} {o.start.astimezone(NY):%m-%d %H:%M}" for o in shown]
    return listed


def test_weeks_read_together_list_what_reading_each_week_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Weeks of March 2, 9 and 23 (not 16): two reads, and an event across a Sunday midnight in both
    weeks it meets, as when each week was read on its own."""
    user, calendar = user_with_calendar("weeks")
    provider = LocalProvider(user)
    moved = event_create(calendar=calendar, summary="Standup", start=_at(3, 9), end=_at(3, 9, 15))
    event_create(
        calendar=calendar, summary="Seminar", start=_at(2, 14), end=_at(2, 15), rrule="FREQ=WEEKLY;COUNT=5"
    )
    event_create(calendar=calendar, summary="Night train", start=_at(8, 22), end=_at(9, 6))
    event_create(calendar=calendar, summary="Offsite", start=_at(17, 9), end=_at(17, 17))
    change = Change(
        action="update",
        summary="Standup",
        event_id=str(moved.pk),
        before_start=_at(3, 9),
        before_end=_at(3, 9, 15),
        start=_at(10, 9),
        end=_at(10, 9, 15),
    )
    later = change.model_copy(update={"start": _at(24, 9), "end": _at(24, 9, 15)})
    reads: list[tuple[datetime, datetime]] = []
    listing = provider.list_occurrences

    def counted(**kwargs: Any) -> Any:
        reads.append((kwargs["start"], kwargs["end"]))
        return listing(**kwargs)

    monkeypatch.setattr(provider, "list_occurrences", counted)
    view = week_view(provider, [change, later], NY)
    monkeypatch.undo()

    assert view["weeks"] == ["2026-03-02", "2026-03-09", "2026-03-23"]
    assert [(lo.day, hi.day) for lo, hi in reads] == [(2, 16), (23, 30)]
    shown = [f"{e['summary']} {datetime.fromisoformat(e['start']):%m-%d %H:%M}" for e in view["events"]]
    assert shown == _week_by_week(provider, view, {"Standup"})
    assert shown.count("Night train 03-08 22:00") == 2
