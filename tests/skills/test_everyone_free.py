"""Times that suit everyone, and preferences as constraints, at the level of the skills.

A Berlin user with working hours, lunch, gym and meeting hours; Ann and Raj are other users of the
instance, whose calendars the search sees as free/busy only; Zoe is an address of nobody here.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from preferences.services import preference_set
from skills.catalog import REGISTRY
from skills.changes import ChangeSet, approval_reasons
from skills.context import SkillContext
from skills.filtering import filter_items
from skills.freetime import clock_span, meeting_hours, within_meeting_hours
from skills.people import availability
from skills.schemas import DAY_PARTS, EventCriteria, EventItem
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 8, 0, tzinfo=BERLIN)  # Monday, March 2
pytestmark = pytest.mark.django_db


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=BERLIN)


def person(username: str, first: str, last: str) -> tuple[Any, Any]:
    user = get_user_model().objects.create_user(
        username, f"{username}@example.com", first_name=first, last_name=last
    )
    return user, calendar_create(
        owner=user, key="work", name="Work", timezone="Europe/Berlin", is_default=True
    )


@pytest.fixture
def world() -> dict[str, Any]:
    user, cal = user_with_calendar("host", timezone="Europe/Berlin")
    preference_set(
        user=user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "18:00"},
    )
    preference_set(user=user, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    preference_set(user=user, key="gym_schedule", value=[{"day": "TU", "start": "16:00", "end": "17:30"}])
    _, ann_cal = person("ann", "Ann", "Lee")
    _, raj_cal = person("raj", "Raj", "Patel")
    # Next week (March 9-13): Ann is away Monday, Raj busy Tuesday morning.
    event_create(calendar=ann_cal, summary="Offsite", start=at(9, 8), end=at(9, 18))
    event_create(calendar=raj_cal, summary="Visit", start=at(10, 9), end=at(10, 12))
    # Transparent and all-day events make nobody busy.
    event_create(
        calendar=raj_cal, summary="Maybe", start=at(10, 13), end=at(10, 15), transparency="transparent"
    )
    event_create(
        calendar=ann_cal, summary="Birthday", start=at(10, 0).date(), end=at(10, 0).date(), all_day=True
    )
    # Raj's daily standup is a series: its occurrences count.
    event_create(
        calendar=raj_cal,
        summary="Standup",
        start=at(9, 13),
        end=at(9, 13, 30),
        rrule="FREQ=DAILY;COUNT=10",
    )
    own = event_create(
        calendar=cal,
        summary="Budget review",
        start=at(6, 10),
        end=at(6, 11),
        attendees=["ann@example.com", "raj@example.com"],
    )
    solo = event_create(calendar=cal, summary="Deep work", start=at(10, 13), end=at(10, 14, 30))
    return {"user": user, "cal": cal, "budget": own, "solo": solo}


def ctx_of(world: dict[str, Any]) -> SkillContext:
    return SkillContext(user=world["user"], tz=BERLIN)


def call(ctx: SkillContext, name: str, **params: Any) -> Any:
    definition = REGISTRY.get(name)
    return definition.func(ctx, definition.input_model.model_validate(params))


def item(ctx: SkillContext, summary: str, day: int) -> dict[str, Any]:
    found = call(ctx, "find_events", start=at(day, 0).isoformat(), end=at(day + 1, 0).isoformat())
    return next(e for e in found.events if e.summary == summary).model_dump(mode="json")


def plan_everyone(ctx: SkillContext, events: list[dict[str, Any]], lo: datetime, hi: datetime) -> ChangeSet:
    with time_machine.travel(NOW, tick=False):
        result = call(
            ctx,
            "plan_move",
            events=events,
            search_start=lo.isoformat(),
            search_end=hi.isoformat(),
            everyone=True,
        )
    assert isinstance(result, ChangeSet)
    return result


def local(moment: datetime | None) -> str:
    assert moment is not None
    return moment.astimezone(BERLIN).strftime("%a %d %H:%M")


# -- the people's free/busy ------------------------------------------------------------------------------
def test_availability_reads_people_here_and_names_the_others(world: dict[str, Any]) -> None:
    found = availability(
        user=world["user"],
        emails=["ANN@example.com", "raj@example.com", "zoe@elsewhere.org", "host@example.com", " "],
        start=at(9, 0),
        end=at(14, 0),
    )
    assert [p.name for p in found.people] == ["Ann Lee", "Raj Patel"]
    assert found.unknown == ("zoe@elsewhere.org",)  # the asking user is never among them
    busy = sorted(set(found.spans(at(10, 0), at(11, 0))))  # a span may come twice: still one busy time
    hours = [
        (local(datetime.fromtimestamp(a, BERLIN)), local(datetime.fromtimestamp(b, BERLIN))) for a, b in busy
    ]
    # Tuesday: Raj's visit and his standup; the transparent "Maybe" and Ann's all-day birthday are not busy.
    assert hours == [("Tue 10 09:00", "Tue 10 12:00"), ("Tue 10 13:00", "Tue 10 13:30")]
    assert [p.name for p in found.busy_between(at(9, 10).timestamp(), at(9, 11).timestamp())] == ["Ann Lee"]
    assert found.busy_between(at(10, 14).timestamp(), at(10, 15).timestamp()) == []


def test_free_slots_with_people_keeps_to_everyones_time_and_meeting_hours(world: dict[str, Any]) -> None:
    preference_set(
        user=world["user"], key="meeting_hours", value={"earliest": "10:00", "no_meeting_days": ["WE"]}
    )
    ctx = ctx_of(world)
    with time_machine.travel(NOW, tick=False):
        out = call(
            ctx,
            "free_slots",
            start=at(9, 0).isoformat(),
            end=at(12, 0).isoformat(),
            duration_minutes=60,
            people=["ann@example.com", "raj@example.com"],
            limit=20,
        )
    spans = [(local(s.start), local(s.end)) for s in out.slots]
    # Monday: Ann is away. Tuesday: Raj until 12, lunch, his standup and the user's deep work until
    # 14:30, the gym from 16:00. Wednesday has no meetings.
    assert spans == [("Tue 10 14:30", "Tue 10 16:00")]
    assert (out.window_start, out.window_end) == ("10:00", "18:00")


def test_free_slots_search_the_users_own_bounds_of_a_day_part(world: dict[str, Any]) -> None:
    preference_set(
        user=world["user"],
        key="day_parts",
        value={
            "morning": {"start": "06:00", "end": "11:00"},
            "afternoon": {"start": "11:00", "end": "16:00"},
            "evening": {"start": "16:00", "end": "22:00"},
        },
    )
    with time_machine.travel(NOW, tick=False):
        out = call(
            ctx_of(world),
            "free_slots",
            start=at(12, 0).isoformat(),
            end=at(13, 0).isoformat(),
            duration_minutes=30,
            day_part="morning",
        )
    assert (out.window_start, out.window_end) == ("09:00", "11:00")  # the user's morning inside working hours


def test_filtering_by_day_part_follows_the_users_bounds() -> None:
    shown = EventItem(
        key="k",
        event_id="1",
        calendar="w",
        calendar_name="W",
        summary="Call",
        timezone="Europe/Berlin",
        start=at(3, 11, 30),
        end=at(3, 12),
    )
    criteria = EventCriteria(day_part="morning")
    assert filter_items([shown], criteria, BERLIN) == [shown]  # 05:00-12:00 by default
    mine = {**DAY_PARTS, "morning": (time(6), time(11))}
    assert filter_items([shown], criteria, BERLIN, parts=mine) == []


# -- moves to a time that suits everyone ----------------------------------------------------------------
def test_a_move_finds_the_first_time_all_attendees_and_the_user_are_free(world: dict[str, Any]) -> None:
    ctx = ctx_of(world)
    plan = plan_everyone(ctx, [item(ctx, "Budget review", 6)], at(9, 0), at(14, 0))
    [change] = plan.changes
    # Monday: Ann's offsite. Tuesday 9-12: Raj; 12-13 lunch; 13:00 Raj's standup and the deep work
    # until 14:30; then 14:30-15:30 is free for all three.
    assert (local(change.start), local(change.end)) == ("Tue 10 14:30", "Tue 10 15:30")
    assert change.why == (
        "the first time Ann Lee, Raj Patel and you are all free within your working hours,"
        " clear of your lunch and gym sessions"
    )
    assert change.conflicts == []


def test_each_event_of_a_set_gets_its_own_time(world: dict[str, Any]) -> None:
    ctx = ctx_of(world)
    second = event_create(
        calendar=world["cal"],
        summary="Vendor call",
        start=at(6, 15),
        end=at(6, 16),
        attendees=["ann@example.com"],
    )
    assert second.pk
    events = [item(ctx, "Budget review", 6), item(ctx, "Vendor call", 6)]
    plan = plan_everyone(ctx, events, at(9, 0), at(14, 0))
    spans = sorted((c.start, c.end) for c in plan.changes if c.start and c.end)
    assert len(spans) == 2
    assert spans[0][1] <= spans[1][0]  # never the same time
    vendor = next(c for c in plan.changes if c.summary == "Vendor call")
    assert vendor.why.startswith("the first time Ann Lee and you are both free")


def test_meeting_hours_keep_a_meeting_out_of_early_hours_and_meeting_free_days(world: dict[str, Any]) -> None:
    preference_set(
        user=world["user"], key="meeting_hours", value={"earliest": "15:00", "no_meeting_days": ["TU"]}
    )
    ctx = ctx_of(world)
    plan = plan_everyone(ctx, [item(ctx, "Budget review", 6)], at(9, 0), at(14, 0))
    [change] = plan.changes
    assert (local(change.start), local(change.end)) == ("Wed 11 15:00", "Wed 11 16:00")
    assert "within your working and meeting hours" in change.why


def test_nothing_fits_leaves_the_event_named_with_the_nearest_times(world: dict[str, Any]) -> None:
    ctx = ctx_of(world)
    ann = get_user_model().objects.get(username="ann")
    event_create(calendar=ann.calendars.get(), summary="Conference", start=at(10, 0), end=at(14, 0))
    plan = plan_everyone(ctx, [item(ctx, "Budget review", 6)], at(9, 0), at(14, 0))
    assert plan.changes == []
    [skipped] = plan.skipped
    assert skipped.summary == "Budget review"
    assert skipped.reason.startswith(
        "no time from Monday, March 9 to Friday, March 13 suits Ann Lee, Raj Patel and you within your"
        " working hours"
    )
    assert "; the nearest after that: Monday, March 16 at 9:00 AM" in skipped.reason


def test_an_attendee_nobody_here_is_named_as_unseen(world: dict[str, Any]) -> None:
    ctx = ctx_of(world)
    event_create(
        calendar=world["cal"],
        summary="Partner call",
        start=at(6, 14),
        end=at(6, 15),
        attendees=["zoe@elsewhere.org"],
    )
    plan = plan_everyone(ctx, [item(ctx, "Partner call", 6)], at(9, 0), at(14, 0))
    [change] = plan.changes
    assert local(change.start) == "Mon 09 09:00"
    assert change.why.startswith("the first time you are free")
    assert change.why.endswith("; I cannot see the calendar of Zoe")


# -- conflicts named in words ------------------------------------------------------------------------------
def test_a_new_time_names_each_preference_it_breaks(world: dict[str, Any]) -> None:
    preference_set(
        user=world["user"],
        key="writing_block",
        value={"days": ["TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": True},
    )
    preference_set(user=world["user"], key="meeting_hours", value={"earliest": "10:00"})
    ctx = ctx_of(world)
    with time_machine.travel(NOW, tick=False):
        writing = call(
            ctx,
            "plan_create",
            summary="Call with Ann",
            start=at(12, 9, 30).isoformat(),
            attendees=["ann@example.com"],
        )
        lunch = call(ctx, "plan_create", summary="Lunch", start=at(12, 12, 30).isoformat())
        late = call(ctx, "plan_create", summary="Late", start=at(12, 18).isoformat())
        busy = call(
            ctx,
            "plan_create",
            summary="Call with Raj",
            start=at(10, 10).isoformat(),
            attendees=["raj@example.com"],
        )
    assert writing.changes[0].conflicts == [
        "breaks your writing block (Thursday 9:00–11:00 AM)",
        "outside your meeting hours (no meetings before 10:00 AM)",
    ]
    assert lunch.changes[0].conflicts == ["breaks your lunch (12:00–1:00 PM)"]
    assert late.changes[0].conflicts == ["outside your working hours"]
    assert busy.changes[0].conflicts == ["Raj Patel is busy then"]
    assert approval_reasons(lunch.changes) == ["it conflicts: breaks your lunch (12:00–1:00 PM)"]


def test_a_creation_can_search_for_a_time_everyone_is_free(world: dict[str, Any]) -> None:
    ctx = ctx_of(world)
    with time_machine.travel(NOW, tick=False):
        plan = call(
            ctx,
            "plan_create",
            summary="Call with Raj",
            start=at(10, 0).isoformat(),
            search_end=at(11, 0).isoformat(),
            duration_minutes=30,
            attendees=["raj@example.com"],
        )
        none = call(
            ctx,
            "plan_create",
            summary="Call with Ann",
            start=at(9, 0).isoformat(),
            search_end=at(10, 0).isoformat(),
            attendees=["ann@example.com"],
        )
    [change] = plan.changes
    assert (local(change.start), local(change.end)) == ("Tue 10 14:30", "Tue 10 15:00")  # after the deep work
    assert change.why.startswith("the first time Raj Patel and you are both free")
    assert none.changes == []
    assert none.skipped[0].reason.startswith("no time on Monday, March 9 suits Ann Lee and you")


# -- the pieces --------------------------------------------------------------------------------------------
def test_meeting_hours_narrow_a_window_and_drop_meeting_free_days() -> None:
    prefs = {"meeting_hours": {"earliest": "10:00", "latest": "16:00", "no_meeting_days": ["FR"]}}
    assert within_meeting_hours(prefs, (time(9), time(17)), frozenset(range(5))) == (
        (time(10), time(16)),
        frozenset(range(4)),
    )
    assert within_meeting_hours({}, None, None) == (None, None)
    limits = meeting_hours(prefs)
    assert limits is not None
    assert (
        limits.allows(at(6, 11), at(6, 12), BERLIN) == "outside your meeting hours (no meetings on Fridays)"
    )
    assert (
        limits.allows(at(5, 15), at(5, 17), BERLIN)
        == "outside your meeting hours (no meetings after 4:00 PM)"
    )
    assert limits.allows(at(5, 10), at(5, 11), BERLIN) == ""


def test_clock_spans_say_their_half_of_the_day_once() -> None:
    assert clock_span(time(9), time(11)) == "9:00–11:00 AM"
    assert clock_span(time(12), time(13)) == "12:00–1:00 PM"
    assert clock_span(time(11, 30), time(13)) == "11:30 AM–1:00 PM"


def test_day_parts_default_to_the_products() -> None:
    assert {
        "morning": (time(5), time(12)),
        "afternoon": (time(12), time(17)),
        "evening": (time(17), time(21)),
        "night": (time(21), time(5)),
    } == DAY_PARTS
