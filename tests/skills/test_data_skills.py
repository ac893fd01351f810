from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model
from pydantic import ValidationError

from preferences.services import preference_set
from skills.catalog import REGISTRY
from skills.context import SkillContext
from skills.models import Event
from skills.providers.base import EventData
from skills.services import calendar_create, event_create, occurrence_cancel, occurrence_update

NY = ZoneInfo("America/New_York")
pytestmark = pytest.mark.django_db


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 3, day, hh, mm, tzinfo=NY)


@pytest.fixture
def ctx() -> SkillContext:
    user = get_user_model().objects.create_user("skills-user", "me@example.com")
    school = calendar_create(owner=user, key="school", name="School", timezone="America/New_York")
    personal = calendar_create(
        owner=user, key="personal", name="Personal", timezone="America/New_York", is_default=True
    )
    event_create(
        calendar=school,
        summary="Calculus II Lecture",
        start=at(2, 14),
        end=at(2, 15, 15),
        rrule="FREQ=WEEKLY;BYDAY=MO,WE;COUNT=6",
    )
    event_create(calendar=personal, summary="Coffee with Lee", start=at(4, 9), end=at(4, 10))
    event_create(
        calendar=personal,
        summary="Design review",
        start=at(4, 16),
        end=at(4, 17),
        attendees=["me@example.com", "ann@example.com"],
    )
    return SkillContext(user=user, tz=NY)


def call(ctx: SkillContext, name: str, **params: object) -> dict:
    definition = REGISTRY.get(name)
    return definition.func(ctx, definition.input_model.model_validate(params)).model_dump(mode="json")


def test_find_events_counts_occurrences_and_classifies(ctx: SkillContext) -> None:
    out = call(ctx, "find_events", start=at(2, 0).isoformat(), end=at(9, 0).isoformat())
    summaries = [e["summary"] for e in out["events"]]
    assert summaries == ["Calculus II Lecture", "Coffee with Lee", "Calculus II Lecture", "Design review"]
    by_summary = {e["summary"]: e for e in out["events"]}
    assert by_summary["Calculus II Lecture"]["is_class"] is True
    assert by_summary["Design review"]["is_meeting"] is True
    assert by_summary["Coffee with Lee"]["is_meeting"] is False


@pytest.mark.parametrize(
    ("attendee", "found"),
    [
        ("ann", ["Design review"]),  # in an attendee's address
        ("ann@example.com", ["Design review"]),
        ("lee", ["Coffee with Lee"]),  # in the title, whoever was invited
        ("bob", []),  # with nobody of that name: nothing, never another event
        ("lee@example.com", []),  # an address is looked for among the attendees only
    ],
)
def test_find_events_with_someone_is_an_attendee_or_a_name_in_the_title(
    ctx: SkillContext, attendee: str, found: list[str]
) -> None:
    out = call(ctx, "find_events", start=at(4, 0).isoformat(), end=at(5, 0).isoformat(), attendee=attendee)
    assert [e["summary"] for e in out["events"]] == found


@pytest.mark.parametrize(
    ("attendee", "also_with", "found"),
    [
        ("ann", ["me"], ["Design review"]),  # both attend
        ("ann", ["lee"], []),  # Lee is at another event: none has both
        ("me", ["ann@example.com"], ["Design review"]),
    ],
)
def test_find_events_with_several_people_keeps_those_all_of_them_attend(
    ctx: SkillContext, attendee: str, also_with: list[str], found: list[str]
) -> None:
    span = {"start": at(4, 0).isoformat(), "end": at(5, 0).isoformat()}
    out = call(ctx, "find_events", **span, attendee=attendee, also_with=also_with)
    assert [e["summary"] for e in out["events"]] == found


def test_find_events_filters_by_day_part_category_and_weekday(ctx: SkillContext) -> None:
    afternoon_classes = call(
        ctx,
        "find_events",
        start=at(2, 0).isoformat(),
        end=at(16, 0).isoformat(),
        category="class",
        day_part="afternoon",
        exclude_weekdays=[0],
    )
    # Mondays dropped; wall time kept across the DST change of March 8 (14:00 local, offset changes).
    assert [e["start"] for e in afternoon_classes["events"]] == [
        "2026-03-04T14:00:00-05:00",
        "2026-03-11T14:00:00-04:00",
    ]


def test_find_events_keeps_those_starting_at_a_wall_time(ctx: SkillContext) -> None:
    span = {"start": at(2, 0).isoformat(), "end": at(16, 0).isoformat()}
    at_two = call(ctx, "find_events", **span, starts_at="14:00")
    # every lecture at 14:00 local, across the DST change; the 9:00 coffee and the 16:00 review are not
    assert {e["summary"] for e in at_two["events"]} == {"Calculus II Lecture"}
    assert len(at_two["events"]) == 4
    with pytest.raises(ValidationError):
        call(ctx, "find_events", **span, starts_at="2pm")


def test_find_events_keeps_those_starting_at_the_moments_given(ctx: SkillContext) -> None:
    span = {"start": at(2, 0).isoformat(), "end": at(16, 0).isoformat()}
    # the coffee, and a moment given in another zone's offset: the same instant
    moments = [at(4, 9).isoformat(), at(4, 9).astimezone(UTC).isoformat(), at(4, 11).isoformat()]
    found = call(ctx, "find_events", **span, starts=moments)
    assert [e["summary"] for e in found["events"]] == ["Coffee with Lee"]


def test_free_slots_respect_events_and_preferences(ctx: SkillContext) -> None:
    preference_set(user=ctx.user, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    preference_set(
        user=ctx.user,
        key="working_hours",
        value={"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
    )
    ctx._preferences = None
    out = call(ctx, "free_slots", start=at(4, 0).isoformat(), end=at(5, 0).isoformat(), duration_minutes=60)
    spans = [(s["start"][11:16], s["end"][11:16]) for s in out["slots"]]
    # Wednesday March 4: coffee 9-10, lunch 12-13, calculus 14-15:15, review 16-17, work ends at 17.
    assert spans == [("10:00", "12:00"), ("13:00", "14:00")]


def test_free_slots_can_ignore_preferences_and_use_a_day_part(ctx: SkillContext) -> None:
    out = call(
        ctx,
        "free_slots",
        start=at(4, 0).isoformat(),
        end=at(5, 0).isoformat(),
        duration_minutes=30,
        day_part="morning",
        respect_preferences=False,
    )
    spans = [(s["start"][11:16], s["end"][11:16]) for s in out["slots"]]
    assert spans == [("05:00", "09:00"), ("10:00", "12:00")]


def test_compose_reply_names_dates_in_words_and_local_times(ctx: SkillContext) -> None:
    with time_machine.travel(at(2, 9), tick=False):
        found = call(ctx, "find_events", start=at(2, 0).isoformat(), end=at(9, 0).isoformat())
        reply = call(
            ctx,
            "compose_reply",
            style="agenda",
            events=found["events"],
            start=at(2, 0).isoformat(),
            end=at(9, 0).isoformat(),
        )
    assert reply["kind"] == "answer"
    assert "from Monday, March 2 to Sunday, March 8" in reply["text"]
    assert "2:00 PM – 3:15 PM" in reply["text"]
    assert "4 events" in reply["text"]


def test_count_reply(ctx: SkillContext) -> None:
    found = call(ctx, "find_events", start=at(4, 0).isoformat(), end=at(5, 0).isoformat())
    reply = call(
        ctx,
        "compose_reply",
        style="count",
        events=found["events"],
        count=found["count"],
        start=at(4, 0).isoformat(),
        end=at(5, 0).isoformat(),
    )
    assert reply["text"].startswith("You have 3 events on Wednesday, March 4")


@pytest.mark.parametrize(
    ("subject", "n", "said"),
    [
        ("meetings with bob", 1, "You have 1 meeting with bob on"),
        ("meetings with bob", 3, "You have 3 meetings with bob on"),
        ("spa day events", 1, "You have 1 spa day event on"),
        ("Lunch with Omar events", 1, "You have 1 Lunch with Omar event on"),  # the title's own "with"
        ("classes", 3, "You have 3 classes on"),
    ],
)
def test_a_count_agrees_with_the_noun_of_its_subject(
    ctx: SkillContext, subject: str, n: int, said: str
) -> None:
    found = call(ctx, "find_events", start=at(4, 0).isoformat(), end=at(5, 0).isoformat())
    reply = call(
        ctx,
        "compose_reply",
        style="count",
        events=found["events"][:n],
        count=n,
        subject=subject,
        start=at(4, 0).isoformat(),
        end=at(5, 0).isoformat(),
    )
    assert reply["text"].startswith(said), reply["text"]


def test_free_slots_see_moved_and_cancelled_occurrences_and_ignore_what_is_asked(ctx: SkillContext) -> None:
    master = Event.objects.get(summary="Calculus II Lecture")
    # Wednesday March 4's lecture moves to 10:00; Monday March 9's is cancelled.
    occurrence_update(
        master=master,
        recurrence_id=at(4, 14).astimezone(UTC),
        data=EventData(start=at(4, 10), end=at(4, 11, 15)),
    )
    master.refresh_from_db()
    occurrence_cancel(master=master, recurrence_id=at(9, 14).astimezone(UTC))

    def spans(day: int, **params: object) -> list[tuple[str, str]]:
        out = call(
            ctx,
            "free_slots",
            start=at(day, 0).isoformat(),
            end=at(day + 1, 0).isoformat(),
            duration_minutes=30,
            window_start="08:00",
            window_end="18:00",
            **params,
        )
        return [(s["start"][11:16], s["end"][11:16]) for s in out["slots"]]

    assert spans(4) == [("08:00", "09:00"), ("11:15", "16:00"), ("17:00", "18:00")]
    assert spans(9) == [("08:00", "18:00")]
    review = call(ctx, "find_events", start=at(4, 0).isoformat(), end=at(5, 0).isoformat(), text="review")
    key = review["events"][0]["key"]
    assert spans(4, ignore_events=[key]) == [("08:00", "09:00"), ("11:15", "18:00")]


def test_events_that_named_people_attend_can_be_left_out(ctx: SkillContext) -> None:
    """ "except the one with Ann": by attendee address, whatever the case, not by title words."""
    out = call(
        ctx,
        "find_events",
        start=at(4, 0).isoformat(),
        end=at(5, 0).isoformat(),
        exclude_attendees=["Ann@Example.com"],
    )
    assert [e["summary"] for e in out["events"]] == ["Coffee with Lee", "Calculus II Lecture"]
    # a name the directory does not know stands for the addresses that hold it, as for ``attendee``
    # ("except the ones with Ann" left Ann's review in, as no attendee is exactly "ann")
    by_name = call(
        ctx, "find_events", start=at(4, 0).isoformat(), end=at(5, 0).isoformat(), exclude_attendees=["ann"]
    )
    assert [e["summary"] for e in by_name["events"]] == ["Coffee with Lee", "Calculus II Lecture"]
