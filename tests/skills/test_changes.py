"""Applying change sets: all or nothing, once per operation id, undone as a unit, never over newer edits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills import services
from skills.changes import Change, apply_change_set, approval_reasons, revalidate, undo_run
from skills.models import AppliedOperation, ChangeRecord, Event
from skills.providers.base import ConflictError, EventData
from skills.providers.local import LocalProvider

NY = ZoneInfo("America/New_York")
pytestmark = pytest.mark.django_db
RUN = "00000000-0000-0000-0000-000000000001"
UNDO = "00000000-0000-0000-0000-000000000002"


@pytest.fixture
def setup(django_user_model: Any) -> tuple[Any, LocalProvider, list[Event]]:
    user = django_user_model.objects.create_user("sam", "sam@example.com")
    cal = services.calendar_create(
        owner=user, key="work", name="Work", timezone="America/New_York", is_default=True
    )
    events = [
        services.event_create(
            calendar=cal,
            summary=name,
            start=datetime(2026, 3, 3, hour, tzinfo=NY),
            end=datetime(2026, 3, 3, hour + 1, tzinfo=NY),
        )
        for name, hour in (("Standup", 9), ("Design sync", 10))
    ]
    return user, LocalProvider(user), events


def moves(provider: LocalProvider, events: list[Event], minutes: int = 60) -> list[Change]:
    changes = []
    for event in events:
        occ = provider.get_occurrence(event_id=str(event.pk))
        changes.append(
            Change(
                action="update",
                summary=occ.summary,
                event_id=occ.event_id,
                etag=occ.etag,
                before_start=occ.start,
                before_end=occ.end,
                start=occ.start + timedelta(minutes=minutes),
                end=occ.end + timedelta(minutes=minutes),
            )
        )
    return changes


def starts(events: list[Event]) -> list[datetime]:
    return [Event.objects.get(pk=e.pk).start for e in events]


def test_a_crash_between_two_writes_leaves_the_calendar_as_before(setup: Any, monkeypatch: Any) -> None:
    user, provider, events = setup
    before = starts(events)
    changes = moves(provider, events)
    real = services.event_apply
    calls = []

    def crash_on_second(*, event: Event, data: EventData) -> Event:
        calls.append(event.pk)
        if len(calls) == 2:
            raise RuntimeError("injected crash between two writes")
        return real(event=event, data=data)

    monkeypatch.setattr(services, "event_apply", crash_on_second)
    with pytest.raises(RuntimeError):
        apply_change_set(
            provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes
        )
    assert len(calls) == 2
    assert starts(events) == before
    assert not ChangeRecord.objects.exists()
    assert not AppliedOperation.objects.exists()


def test_a_redelivered_apply_changes_nothing_twice(setup: Any) -> None:
    user, provider, events = setup
    changes = moves(provider, events)
    first = apply_change_set(
        provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes
    )
    moved = starts(events)
    again = apply_change_set(
        provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes
    )
    assert starts(events) == moved
    assert [r.pk for r in again] == [r.pk for r in first]
    assert moved[0] == datetime(2026, 3, 3, 10, tzinfo=NY)


def test_undo_reverts_the_run_and_undo_of_undo_redoes(setup: Any) -> None:
    user, provider, events = setup
    before = starts(events)
    apply_change_set(
        provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=moves(provider, events)
    )
    moved = starts(events)
    records, skipped = undo_run(
        provider=provider, user=user, run_id=RUN, undo_run_id=UNDO, operation_id=f"{UNDO}:undo"
    )
    assert (len(records), skipped) == (2, [])
    assert starts(events) == before
    redo = "00000000-0000-0000-0000-000000000003"
    records, skipped = undo_run(
        provider=provider, user=user, run_id=UNDO, undo_run_id=redo, operation_id=f"{redo}:undo"
    )
    assert (len(records), skipped) == (2, [])
    assert starts(events) == moved


def test_undo_after_an_intervening_edit_reports_it_and_keeps_the_edit(setup: Any) -> None:
    user, provider, events = setup
    apply_change_set(
        provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=moves(provider, events)
    )
    # Someone moves the design sync again afterwards.
    edited = datetime(2026, 3, 3, 15, tzinfo=NY)
    provider.update_event(
        event_id=str(events[1].pk), data=EventData(start=edited, end=edited + timedelta(hours=1))
    )
    records, skipped = undo_run(
        provider=provider, user=user, run_id=RUN, undo_run_id=UNDO, operation_id=f"{UNDO}:undo"
    )
    assert [r.summary for r in records] == ["Standup"]
    assert skipped == ["Design sync (changed again since, left as it is)"]
    assert starts(events) == [datetime(2026, 3, 3, 9, tzinfo=NY), edited]


def test_policy_asks_for_deletions_several_events_attendees_and_broken_preferences() -> None:
    at = datetime(2026, 3, 3, 9, tzinfo=UTC)
    one = Change(action="create", summary="Lunch", start=at, end=at + timedelta(hours=1))
    assert approval_reasons([one]) == []
    assert approval_reasons([one.model_copy(update={"conflicts": ["overlaps Standup at 9:00 AM"]})])
    assert approval_reasons([Change(action="delete", summary="x")]) == ["it deletes events"]
    assert "it changes 2 events" in approval_reasons([one, one])
    move = Change(
        action="update", summary="Sync", before_start=at, start=at + timedelta(hours=1), attendees=["a@x.org"]
    )
    assert approval_reasons([move]) == ["it moves an event other people attend"]
    assert approval_reasons([move.model_copy(update={"attendees": []})]) == []


def test_the_change_log_is_readable_in_the_admin(setup: Any, admin_client: Any) -> None:
    user, provider, events = setup
    apply_change_set(
        provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=moves(provider, events)
    )
    page = admin_client.get("/admin/skills/changerecord/")
    assert page.status_code == 200
    assert b"Design sync" in page.content
    record = ChangeRecord.objects.get(summary="Standup")
    detail = admin_client.get(f"/admin/skills/changerecord/{record.pk}/change/")
    assert detail.status_code == 200
    assert record.before is not None
    assert record.before["start"] == "2026-03-03T09:00:00-05:00"


def test_plan_move_into_a_part_of_the_day_outside_working_hours_finds_it_and_flags_it(setup: Any) -> None:
    from preferences.services import preference_set
    from skills.catalog import REGISTRY
    from skills.context import SkillContext
    from skills.schemas import EventItem

    user, provider, events = setup
    item = EventItem.from_occurrence(provider.get_occurrence(event_id=str(events[0].pk)))
    definition = REGISTRY.get("plan_move")

    def plan(part: str) -> Any:
        params = definition.input_model.model_validate(
            {"events": [item.model_dump(mode="json")], "day_part": part}
        )
        return definition.func(SkillContext(user=user, tz=NY), params)

    night = plan("night")
    assert [c.start for c in night.changes] == [datetime(2026, 3, 3, 0, 0, tzinfo=NY)]
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "08:00", "end": "17:00"},
    )
    evening = plan("evening")
    assert [c.start for c in evening.changes] == [datetime(2026, 3, 3, 17, 0, tzinfo=NY)]
    assert evening.changes[0].conflicts == ["time outside working hours"]
    assert approval_reasons(evening.changes) == ["it breaks time outside working hours"]
    morning = plan("morning")  # inside working hours where they overlap: from 8:00, not 5:00
    assert [c.start.astimezone(NY).hour for c in morning.changes] == [8]


# -- bulk changes ---------------------------------------------------------------------------------------
@pytest.fixture
def standups(setup: Any) -> Event:
    """A daily standup with 60 occurrences in the calendar of ``setup``."""
    user, _, _ = setup
    start = datetime(2026, 3, 4, 8, 30, tzinfo=NY)
    return services.event_create(
        calendar=user.calendars.get(),
        summary="Daily standup",
        start=start,
        end=start + timedelta(minutes=15),
        rrule="FREQ=DAILY;COUNT=60",
    )


def occurrence_moves(provider: LocalProvider, count: int, *, skip: int = 0) -> list[Change]:
    found = provider.list_occurrences(
        start=datetime(2026, 3, 4, tzinfo=NY), end=datetime(2026, 6, 1, tzinfo=NY)
    )
    daily = [o for o in found if o.summary == "Daily standup"][skip : skip + count]
    return [
        Change(
            action="update",
            summary=o.summary,
            event_id=o.event_id,
            recurrence_id=o.recurrence_id,
            etag=o.etag,
            before_start=o.start,
            before_end=o.end,
            start=o.start + timedelta(hours=1),
            end=o.end + timedelta(hours=1),
        )
        for o in daily
    ]


def daily_starts(provider: LocalProvider) -> list[datetime]:
    found = provider.list_occurrences(
        start=datetime(2026, 3, 4, tzinfo=NY), end=datetime(2026, 6, 1, tzinfo=NY)
    )
    return [o.start for o in found if o.summary == "Daily standup"]


def test_a_bulk_move_costs_the_same_queries_per_event_however_full_the_calendar(
    setup: Any, standups: Event
) -> None:
    user, provider, _ = setup

    def apply(changes: list[Change], run: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            records = apply_change_set(
                provider=provider, user=user, run_id=run, operation_id=f"{run}:apply", changes=changes
            )
        assert len(records) == len(changes)
        return len(captured)

    sparse = apply(occurrence_moves(provider, 20), RUN)
    calendar = user.calendars.get()
    for day in range(200):
        at = datetime(2026, 3, 4, 13, tzinfo=NY) + timedelta(days=day % 60)
        services.event_create(
            calendar=calendar, summary=f"Other {day}", start=at, end=at + timedelta(hours=1)
        )
    crowded = apply(occurrence_moves(provider, 20, skip=20), UNDO)

    assert crowded == sparse
    assert sparse <= 2 * 20 + 15  # per move its override's lookup and INSERT; a fixed dozen besides


def test_an_edit_made_meanwhile_stops_the_whole_bulk_move(setup: Any, standups: Event) -> None:
    user, provider, _ = setup
    changes = occurrence_moves(provider, 10)
    before = daily_starts(provider)
    third = changes[2]
    edited = before[2] + timedelta(hours=3)
    provider.update_event(
        event_id=third.event_id,
        recurrence_id=third.recurrence_id,
        data=EventData(start=edited, end=edited + timedelta(minutes=15)),
    )

    with pytest.raises(ConflictError):
        apply_change_set(
            provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes
        )

    assert daily_starts(provider) == [*before[:2], edited, *before[3:]]
    assert not ChangeRecord.objects.exists()
    assert AppliedOperation.objects.count() == 0


def test_a_redelivered_bulk_move_only_reads_its_records(setup: Any, standups: Event) -> None:
    user, provider, _ = setup
    changes = occurrence_moves(provider, 10)
    first = apply_change_set(
        provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes
    )
    moved = daily_starts(provider)

    with CaptureQueriesContext(connection) as captured:
        again = apply_change_set(
            provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes
        )

    assert [r.pk for r in again] == [r.pk for r in first]
    assert daily_starts(provider) == moved
    assert not [q for q in captured.captured_queries if q["sql"].startswith(("INSERT", "UPDATE", "DELETE"))]


def test_undoing_a_bulk_move_puts_every_occurrence_back(setup: Any, standups: Event) -> None:
    user, provider, _ = setup
    before = daily_starts(provider)
    records = apply_change_set(
        provider=provider,
        user=user,
        run_id=RUN,
        operation_id=f"{RUN}:apply",
        changes=occurrence_moves(provider, 30),
    )
    assert [r.before["start"] for r in records if r.before] == [s.isoformat() for s in before[:30]]

    undone, skipped = undo_run(
        provider=provider, user=user, run_id=RUN, undo_run_id=UNDO, operation_id=f"{UNDO}:undo"
    )

    assert (len(undone), skipped) == (30, [])
    assert daily_starts(provider) == before


def test_revalidating_a_bulk_move_reads_its_targets_at_once(setup: Any, standups: Event) -> None:
    _, provider, _ = setup
    changes = occurrence_moves(provider, 40)
    provider.delete_event(event_id=changes[0].event_id, recurrence_id=changes[0].recurrence_id)
    provider.update_event(
        event_id=changes[1].event_id, recurrence_id=changes[1].recurrence_id, data=EventData(summary="Moved")
    )

    with CaptureQueriesContext(connection) as captured:
        valid, dropped = revalidate(provider, changes)

    assert valid == changes[2:]
    assert [s.reason for s in dropped] == ["it was deleted meanwhile", "it was changed meanwhile"]
    assert len(captured) <= 3
