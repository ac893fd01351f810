"""Applying change sets: all or nothing, once per operation id, undone as a unit, never over newer edits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from skills import services
from skills.changes import Change, apply_change_set, approval_reasons, undo_run
from skills.models import ChangeRecord, Event
from skills.providers.base import EventData
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
    real = LocalProvider.update_event
    calls = []

    def crash_on_second(self: LocalProvider, **kwargs: Any) -> Any:
        calls.append(kwargs["event_id"])
        if len(calls) == 2:
            raise RuntimeError("injected crash between two writes")
        return real(self, **kwargs)

    monkeypatch.setattr(LocalProvider, "update_event", crash_on_second)
    with pytest.raises(RuntimeError):
        apply_change_set(
            provider=provider, user=user, run_id=RUN, operation_id=f"{RUN}:apply", changes=changes
        )
    assert len(calls) == 2
    assert starts(events) == before
    assert not ChangeRecord.objects.exists()


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


def test_plan_move_finds_a_night_slot_and_none_outside_working_hours(setup: Any) -> None:
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
    assert evening.changes == []
    assert [s.reason for s in evening.skipped] == ["no free time fits"]
