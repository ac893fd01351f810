"""Applying change sets: all or nothing, once per operation id, undone as a unit, never over newer edits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills import services
from skills.change_skills import _nothing_left
from skills.changes import Change, Skipped, _log, apply_change_set, approval_reasons, revalidate, undo_run
from skills.models import AppliedOperation, ChangeRecord, Event
from skills.providers.base import ConflictError, EventData, Scope
from skills.providers.local import LocalProvider
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")
pytestmark = pytest.mark.django_db
RUN = "00000000-0000-0000-0000-000000000001"
UNDO = "00000000-0000-0000-0000-000000000002"


@pytest.fixture
def setup(db: None) -> tuple[Any, LocalProvider, list[Event]]:
    user, cal = user_with_calendar("sam")
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
    longer = Change(
        action="update",
        summary="Sync",
        before_start=at,
        before_end=at + timedelta(hours=1),
        start=at,
        end=at + timedelta(minutes=90),
        attendees=["a@x.org"],
    )
    assert approval_reasons([longer]) == ["it changes how long an event other people attend lasts"]
    assert approval_reasons([longer.model_copy(update={"attendees": []})]) == []


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

    def plan(part: str, **more: Any) -> Any:
        params = definition.input_model.model_validate(
            {"events": [item.model_dump(mode="json")], "day_part": part, **more}
        )
        with time_machine.travel(datetime(2026, 3, 2, 20, 0, tzinfo=NY), tick=False):  # the evening before
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
    assert evening.changes[0].conflicts == ["outside your working hours"]
    assert approval_reasons(evening.changes) == ["it conflicts: outside your working hours"]
    # inside working hours where they overlap: from 8:00, not 5:00 (made shorter: a 9 AM event moved
    # to the morning at its own length is there already)
    morning = plan("morning", duration_minutes=30)
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


def test_records_a_concurrent_twin_logged_first_are_the_ones_kept(setup: Any) -> None:
    """A twin of the same apply logged its records after this one looked for them: the twin's stand,
    nothing is logged twice, and the transaction goes on (only the insert's savepoint failed)."""
    user, _, _ = setup
    ops = [f"{RUN}:apply:{position}" for position in range(2)]

    def record(position: int, summary: str) -> ChangeRecord:
        return ChangeRecord(
            owner=user,
            run_id=RUN,
            operation_id=ops[position],
            position=position,
            action="update",
            summary=summary,
        )

    twin = ChangeRecord.objects.bulk_create([record(1, "twin")])

    logged = _log(user, [record(0, "mine"), record(1, "mine")], ops)

    assert [(r.position, r.summary) for r in logged] == [(0, "mine"), (1, "twin")]
    assert logged[1].pk == twin[0].pk
    assert ChangeRecord.objects.count() == 2


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


# -- undo of changes to a series ------------------------------------------------------------------------
REDO = "00000000-0000-0000-0000-000000000003"
AGAIN = "00000000-0000-0000-0000-000000000004"
MONDAY = datetime(2026, 3, 2, 10, tzinfo=NY)


def week(n: int) -> datetime:
    """The original start of the n-th (from 0) Monday of the team sync, in UTC as recurrence ids are."""
    return (MONDAY + timedelta(weeks=n)).astimezone(UTC)


@pytest.fixture
def team_sync(setup: Any) -> Event:
    """A weekly series with what undo tends to lose: attendees, a moved and renamed occurrence (week 2)
    and a cancelled one (week 3)."""
    user, provider, _ = setup
    series = services.event_create(
        calendar=user.calendars.get(),
        summary="Team sync",
        start=MONDAY,
        end=MONDAY + timedelta(minutes=30),
        rrule="FREQ=WEEKLY;COUNT=10",
        attendees=["ann@example.com"],
        location="Room 4",
    )
    moved = week(2) + timedelta(hours=3)
    provider.update_event(
        event_id=str(series.pk),
        recurrence_id=week(2),
        data=EventData(summary="Team sync (long)", start=moved, end=moved + timedelta(hours=1)),
    )
    provider.delete_event(event_id=str(series.pk), recurrence_id=week(3))
    return series


def calendar_state(provider: LocalProvider) -> list[tuple[Any, ...]]:
    """Every occurrence of the spring as the user sees it (not by row ids, which a restore may renew)."""
    found = provider.list_occurrences(
        start=datetime(2026, 3, 1, tzinfo=NY), end=datetime(2026, 6, 1, tzinfo=NY)
    )
    return [(o.start, o.end, o.summary, o.recurrence_id, o.uid, o.attendees, o.location) for o in found]


def series_change(
    provider: LocalProvider,
    series: Event,
    n: int,
    *,
    action: Literal["update", "delete"],
    scope: Literal["occurrence", "following", "series"],
    hours: int = 0,
    title: str = "",
) -> Change:
    occ = provider.get_occurrence(event_id=str(series.pk), recurrence_id=week(n))
    moved = (
        {"start": occ.start + timedelta(hours=hours), "end": occ.end + timedelta(hours=hours)}
        if hours
        else {}
    )
    return Change(
        action=action,
        summary=occ.summary,
        event_id=occ.event_id,
        recurrence_id=occ.recurrence_id,
        scope=scope,
        etag=occ.etag,
        before_start=occ.start,
        before_end=occ.end,
        new_summary=title or None,
        **moved,
    )


def undo(provider: LocalProvider, user: Any, run: str, by: str) -> tuple[list[ChangeRecord], list[str]]:
    return undo_run(provider=provider, user=user, run_id=run, undo_run_id=by, operation_id=f"{by}:undo")


def apply_undo_redo(provider: LocalProvider, user: Any, changes: list[Change]) -> None:
    """Apply, undo, undo the undo and undo that again: the calendar must alternate exactly between
    the state before and the state after."""
    before = calendar_state(provider)
    apply_change_set(provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes)
    after = calendar_state(provider)
    assert after != before

    assert undo(provider, user, RUN, UNDO)[1] == []
    assert calendar_state(provider) == before
    assert undo(provider, user, UNDO, REDO)[1] == []
    assert calendar_state(provider) == after
    assert undo(provider, user, REDO, AGAIN)[1] == []
    assert calendar_state(provider) == before


def test_undoing_cancelled_occurrences_puts_them_back_in_their_series(setup: Any, team_sync: Event) -> None:
    user, provider, _ = setup
    rows = Event.objects.count()
    cancels = [series_change(provider, team_sync, n, action="delete", scope="occurrence") for n in (1, 2)]

    apply_undo_redo(provider, user, cancels)

    # Back inside the series (week 2 as its moved and renamed override), not as one-off events.
    assert Event.objects.count() == rows
    back = provider.get_occurrence(event_id=str(team_sync.pk), recurrence_id=week(2))
    assert (back.summary, back.start) == ("Team sync (long)", week(2) + timedelta(hours=3))
    assert provider.get_occurrence(event_id=str(team_sync.pk), recurrence_id=week(1)).is_recurring


def test_undoing_a_change_to_the_whole_series_restores_the_series(setup: Any, team_sync: Event) -> None:
    user, provider, _ = setup
    move = series_change(provider, team_sync, 4, action="update", scope="series", hours=1, title="Sync")

    apply_undo_redo(provider, user, [move])

    team_sync.refresh_from_db()
    assert (team_sync.summary, team_sync.rrule) == ("Team sync", "FREQ=WEEKLY;COUNT=10")


def test_undoing_a_change_to_this_and_following_rejoins_the_split_series(
    setup: Any, team_sync: Event
) -> None:
    user, provider, _ = setup
    rows = Event.objects.count()
    # From week 1 on: the tail takes the moved week 2 and the cancelled week 3 along.
    move = series_change(provider, team_sync, 1, action="update", scope="following", hours=2)

    apply_undo_redo(provider, user, [move])

    assert Event.objects.count() == rows  # the tail is gone again
    team_sync.refresh_from_db()
    assert team_sync.rrule == "FREQ=WEEKLY;COUNT=10"


def test_undoing_the_deletion_of_a_series_brings_back_every_occurrence(setup: Any, team_sync: Event) -> None:
    user, provider, _ = setup
    delete = series_change(provider, team_sync, 4, action="delete", scope="series")

    apply_undo_redo(provider, user, [delete])

    restored = Event.objects.get(uid=team_sync.uid, series__isnull=True)
    assert (restored.rrule, restored.attendees, restored.organizer) == (
        "FREQ=WEEKLY;COUNT=10",
        ["ann@example.com"],
        "sam@example.com",
    )


def test_undoing_the_deletion_of_this_and_following_brings_back_the_end_of_the_series(
    setup: Any, team_sync: Event
) -> None:
    user, provider, _ = setup
    # Cut at week 1: the moved week 2 and the cancelled week 3 were past the cut.
    delete = series_change(provider, team_sync, 1, action="delete", scope="following")

    apply_undo_redo(provider, user, [delete])

    assert team_sync.overrides.count() == 1


def test_undo_leaves_a_series_edited_since_alone_and_says_so(setup: Any, team_sync: Event) -> None:
    user, provider, _ = setup
    changes = [
        series_change(provider, team_sync, 4, action="update", scope="series", title="Sync"),
        moves(provider, setup[2][:1])[0],
    ]
    apply_change_set(provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes)
    # Someone moves one occurrence of the renamed series afterwards.
    edited = week(6) + timedelta(hours=5)
    provider.update_event(
        event_id=str(team_sync.pk), recurrence_id=week(6), data=EventData(start=edited, end=edited)
    )
    now = calendar_state(provider)

    records, skipped = undo(provider, user, RUN, UNDO)

    assert [r.summary for r in records] == ["Standup"]
    assert skipped == ["Team sync (changed again since, left as it is)"]
    standup = provider.get_occurrence(event_id=str(setup[2][0].pk))
    assert [s for s in calendar_state(provider) if s[2] != "Standup"] == [s for s in now if s[2] != "Standup"]
    assert standup.start == datetime(2026, 3, 3, 9, tzinfo=NY)


def test_undo_leaves_a_cancelled_occurrence_alone_once_its_series_moved(setup: Any, team_sync: Event) -> None:
    user, provider, _ = setup
    cancel = series_change(provider, team_sync, 5, action="delete", scope="occurrence")
    apply_change_set(provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=[cancel])
    later = provider.get_occurrence(event_id=str(team_sync.pk), recurrence_id=week(6))
    provider.update_event(
        event_id=str(team_sync.pk),
        recurrence_id=week(6),
        scope=Scope.SERIES,
        data=EventData(start=later.start + timedelta(hours=1)),
    )
    now = calendar_state(provider)

    records, skipped = undo(provider, user, RUN, UNDO)

    assert (records, skipped) == ([], ["Team sync (changed again since, left as it is)"])
    assert calendar_state(provider) == now


def test_undo_does_not_bring_a_deleted_series_back_twice(setup: Any, team_sync: Event) -> None:
    user, provider, _ = setup
    delete = series_change(provider, team_sync, 0, action="delete", scope="series")
    apply_change_set(provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=[delete])
    undo(provider, user, RUN, UNDO)
    now = calendar_state(provider)
    # A second undo of the same run has nothing left to do; an undo of an older record of the same
    # series (as if the run were undone twice) finds its UID taken and leaves it alone.
    assert undo(provider, user, RUN, REDO) == ([], [])
    ChangeRecord.objects.filter(run_id=RUN).update(undone_by=None)

    records, skipped = undo(provider, user, RUN, AGAIN)

    assert (records, skipped) == ([], ["Team sync (changed again since, left as it is)"])
    assert calendar_state(provider) == now


def test_undo_never_replays_a_series_change_as_a_one_occurrence_change(setup: Any, team_sync: Event) -> None:
    user, provider, _ = setup
    changes = [
        series_change(provider, team_sync, 1, action="delete", scope="occurrence"),
        series_change(provider, team_sync, 4, action="update", scope="series", hours=1),
    ]
    apply_change_set(provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes)
    # As logged by a backend that reports no restore image (or before undo kept them).
    ChangeRecord.objects.update(restore_image=None)
    now = calendar_state(provider)

    records, skipped = undo(provider, user, RUN, UNDO)

    assert records == []
    assert skipped == ["Team sync (cannot be put back exactly, left as it is)"] * 2
    assert calendar_state(provider) == now


def test_plan_move_to_the_part_an_event_is_in_leaves_it(setup: Any) -> None:
    from skills.catalog import REGISTRY
    from skills.context import SkillContext
    from skills.schemas import EventItem

    user, provider, events = setup
    item = EventItem.from_occurrence(provider.get_occurrence(event_id=str(events[0].pk)))  # Tue 9:00
    definition = REGISTRY.get("plan_move")
    params = definition.input_model.model_validate(
        {"events": [item.model_dump(mode="json")], "day_part": "morning"}
    )
    with time_machine.travel(datetime(2026, 3, 2, 8, 0, tzinfo=NY), tick=False):
        planned = definition.func(SkillContext(user=user, tz=NY), params)
    assert planned.changes == []
    assert [s.reason for s in planned.skipped] == ["it is already in the morning"]


def test_plan_move_never_picks_a_time_that_has_passed(setup: Any) -> None:
    from skills.catalog import REGISTRY
    from skills.context import SkillContext
    from skills.schemas import EventItem

    user, provider, events = setup
    item = EventItem.from_occurrence(provider.get_occurrence(event_id=str(events[0].pk)))  # Tue 9:00
    definition = REGISTRY.get("plan_move")
    params = definition.input_model.model_validate(
        {"events": [item.model_dump(mode="json")], "day_part": "morning", "duration_minutes": 30}
    )  # shorter: at its own length the 9 AM standup is in the morning already, and stays
    with time_machine.travel(datetime(2026, 3, 3, 8, 7, tzinfo=NY), tick=False):  # that Tuesday, 8:07
        planned = definition.func(SkillContext(user=user, tz=NY), params)
    # not 8:00 (passed); and without working hours the morning is searched from 8 AM, not 5 AM
    assert [c.start for c in planned.changes] == [datetime(2026, 3, 3, 8, 15, tzinfo=NY)]


def test_what_was_left_out_is_said_once_per_title_and_reason() -> None:
    """52 occurrences of a series left out for one reason were 52 identical clauses in one reply."""
    yoga = Skipped(summary="Yoga", start=None, reason="it is not on Monday, March 2, which you named")
    gym = Skipped(summary="Gym", start=None, reason="it is not on Monday, March 2, which you named")
    text = _nothing_left([yoga] * 52 + [gym]).text
    assert text == (
        "Nothing is left to change: Yoga, 52 of them (it is not on Monday, March 2, which you named); "
        "Gym (it is not on Monday, March 2, which you named)."
    )
