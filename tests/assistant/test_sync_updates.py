"""A two-way sync keeps copies and originals in step: an edit on either side since the last sync (its
time, title or place) is carried to the other side, previewed as an update and counted; never a second
copy; undo puts back the event and the link exactly.  Every turn goes through ``chat_turn``."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.models import Calendar, CopyLink, Event
from skills.providers.base import EventData
from skills.providers.local import LocalProvider
from skills.services import calendar_create, event_create

pytestmark = pytest.mark.django_db

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=LONDON)  # a Monday
SYNC = "Keep work and personal in sync"


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=LONDON)


class World(NamedTuple):
    user: Any
    conversation: Conversation
    work: Calendar
    personal: Calendar


@pytest.fixture
def synced() -> World:
    """Work has a sprint planning (Tuesday 10-11), Personal a piano lesson (Wednesday 18-19); both were
    synced once, so each has a copy in the other calendar."""
    user = get_user_model().objects.create_user("stepper", "stepper@example.com")
    preference_set(user=user, key="timezone", value="Europe/London")
    work = calendar_create(owner=user, key="work", name="Work", timezone="Europe/London")
    personal = calendar_create(
        owner=user, key="personal", name="Personal", timezone="Europe/London", is_default=True
    )
    event_create(calendar=work, summary="Sprint planning", start=at(3, 10), end=at(3, 11), location="Room 1")
    event_create(calendar=personal, summary="Piano lesson", start=at(4, 18), end=at(4, 19))
    world = World(user, conversation_create(user=user), work, personal)
    assert say(world, SYNC).kind == "confirm"
    assert say(world, "yes").kind == "done"
    assert CopyLink.objects.filter(owner=user).count() == 2
    return world


def say(world: World, text: str) -> Any:
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=world.user, conversation=world.conversation, text=text)
    assert reply is not None
    return reply


def one(calendar: Calendar, like: str) -> Event:
    [event] = Event.objects.filter(calendar=calendar, summary__icontains=like)
    return event


def state(world: World) -> list[tuple[str, str, datetime, datetime, str]]:
    return sorted(
        (e.calendar.key, e.summary, e.start, e.end, e.location)
        for e in Event.objects.filter(calendar__owner=world.user)
    )


def seen(world: World) -> list[tuple[str, str, datetime, datetime, str]]:
    """Every occurrence of the user's calendars in March, as a reader sees them."""
    found = LocalProvider(world.user).list_occurrences(start=at(1, 0), end=at(31, 0))
    return sorted((o.calendar_key, o.summary, o.start, o.end, o.location) for o in found)


def links(world: World) -> list[tuple[str, str, str, str]]:
    return sorted(
        (link.copy_event_id, link.source_event_id, str(link.run_id), link.source_etag)
        for link in CopyLink.objects.filter(owner=world.user)
    )


def edit(world: World, event: Event, **data: Any) -> None:
    LocalProvider(world.user).update_event(event_id=str(event.pk), data=EventData(**data))


def test_an_original_edited_since_is_carried_to_its_copy(synced: World) -> None:
    sprint = one(synced.work, "Sprint")
    edit(synced, sprint, summary="Sprint kickoff", start=at(5, 15), end=at(5, 16), location="Room 2")
    preview = say(synced, SYNC)
    assert preview.kind == "confirm", preview.text
    assert "1 event to update: 1 in Personal" in preview.text
    assert "2 events already copied" not in preview.text
    assert "Update 'Sprint planning' in Personal to match Work" in preview.text
    assert "rename to 'Sprint kickoff'" in preview.text
    assert "place: 'Room 2'" in preview.text
    assert one(synced.personal, "Sprint").start == at(3, 10)  # nothing written before the yes
    assert say(synced, "yes").kind == "done"
    copy = one(synced.personal, "Sprint")
    assert (copy.summary, copy.start, copy.end, copy.location) == (
        "Sprint kickoff",
        at(5, 15),
        at(5, 16),
        "Room 2",
    )
    assert Event.objects.filter(calendar__owner=synced.user).count() == 4  # no second copy
    again = say(synced, SYNC)
    assert again.kind == "answer", again.text
    assert "Nothing left to copy" in again.text


def test_an_edit_on_the_copy_goes_back_to_the_original(synced: World) -> None:
    edit(synced, one(synced.work, "Piano"), start=at(4, 19), end=at(4, 20))  # the copy in Work
    preview = say(synced, SYNC)
    assert preview.kind == "confirm", preview.text
    assert "1 event to update: 1 in Personal" in preview.text
    assert "Update 'Piano lesson' in Personal to match its copy in Work" in preview.text
    assert say(synced, "yes").kind == "done"
    original = one(synced.personal, "Piano")
    assert (original.start, original.end) == (at(4, 19), at(4, 20))
    assert say(synced, SYNC).kind == "answer"  # in step: nothing to do
    # The next edit of the copy is carried back again, not undone by the original's older version.
    edit(synced, one(synced.work, "Piano"), summary="Piano recital")
    assert say(synced, SYNC).kind == "confirm"
    assert say(synced, "yes").kind == "done"
    assert one(synced.personal, "Piano").summary == "Piano recital"
    assert one(synced.work, "Piano").start == at(4, 19)


def test_edits_on_both_sides_are_named_and_left_alone(synced: World) -> None:
    edit(synced, one(synced.work, "Sprint"), start=at(3, 12), end=at(3, 13))
    edit(synced, one(synced.personal, "Sprint"), start=at(3, 14), end=at(3, 15))
    before = state(synced)
    reply = say(synced, SYNC)
    assert reply.kind == "answer", reply.text
    assert "Sprint planning was changed on both sides since the last sync" in reply.text
    assert state(synced) == before


def test_undo_puts_back_the_event_and_the_link_exactly(synced: World) -> None:
    edit(synced, one(synced.work, "Sprint"), summary="Sprint kickoff", start=at(5, 15), end=at(5, 16))
    edit(synced, one(synced.work, "Piano"), location="Music school")  # the copy of the piano lesson
    before, linked = state(synced), links(synced)
    preview = say(synced, SYNC)
    assert "2 events to update: 1 in Personal, 1 in Personal" not in preview.text
    assert "2 events to update: 2 in Personal" in preview.text
    assert say(synced, "yes").kind == "done"
    assert state(synced) != before
    assert links(synced) != linked
    assert say(synced, "undo that").kind == "done"
    assert state(synced) == before
    assert links(synced) == linked
    # As before the sync: the same updates are offered again, and redoing the undo applies them.
    assert "2 events to update" in say(synced, SYNC).text
    say(synced, "no")
    assert say(synced, "undo that").kind == "done"  # the undo undone: the updates are back
    assert one(synced.personal, "Sprint").summary == "Sprint kickoff"
    assert one(synced.personal, "Piano").location == "Music school"
    assert say(synced, SYNC).kind == "answer"


def test_a_copy_whose_original_left_the_period_still_follows_it(synced: World) -> None:
    """The original moved past the next month: its copy, still in the period, follows it there."""
    edit(
        synced,
        one(synced.work, "Sprint"),
        start=at(3, 10) + timedelta(days=60),
        end=at(3, 11) + timedelta(days=60),
    )
    assert "1 event to update: 1 in Personal" in say(synced, SYNC).text
    assert say(synced, "yes").kind == "done"
    assert one(synced.personal, "Sprint").start == at(3, 10) + timedelta(days=60)


def test_one_occurrence_of_a_series_and_its_copy_are_kept_in_step(synced: World) -> None:
    """A series is copied occurrence by occurrence; an edit of one copy goes back to that occurrence
    only (the rest of the series stays), and undo puts the occurrence back."""
    event_create(
        calendar=synced.work,
        summary="Standup",
        start=at(10, 9),
        end=at(10, 9, 15),
        rrule="FREQ=WEEKLY;COUNT=3",
    )
    assert "3 events to copy: 3 to Personal" in say(synced, SYNC).text
    assert say(synced, "yes").kind == "done"
    copies = Event.objects.filter(calendar=synced.personal, summary="Standup").order_by("start")
    assert [c.start for c in copies] == [at(10, 9), at(17, 9), at(24, 9)]
    edit(synced, copies[1], start=at(17, 9, 30), end=at(17, 9, 45))
    before = seen(synced)
    preview = say(synced, SYNC)
    assert "1 event to update: 1 in Work" in preview.text
    assert "Update 'Standup' in Work to match its copy in Personal (only Tuesday, March 17)" in preview.text
    assert say(synced, "yes").kind == "done"
    provider = LocalProvider(synced.user)
    series = provider.list_occurrences(start=at(9, 0), end=at(31, 0), calendar_ids=[str(synced.work.pk)])
    assert [o.start for o in series if o.summary == "Standup"] == [at(10, 9), at(17, 9, 30), at(24, 9)]
    assert say(synced, SYNC).kind == "answer"
    assert say(synced, "undo that").kind == "done"
    assert seen(synced) == before  # the occurrence back at 9:00 (as an override row that says so)
