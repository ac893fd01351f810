"""Copying and syncing calendars by chat: previews with counts, links that stop duplicates, undo, and
users kept apart.  Every turn goes through the chat path (``chat_turn``) at a fixed clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.decomposer.handlers import read
from assistant.decomposer.sync import sync_decision
from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.services import preference_set
from skills.context import SkillContext
from skills.errors import SkillError
from skills.models import Calendar, CopyLink, Event
from skills.providers.base import EventData, Scope
from skills.providers.local import LocalProvider
from skills.services import calendar_create, event_create
from skills.sync_skills import PlanSyncInput, plan_sync

pytestmark = pytest.mark.django_db

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=LONDON)  # a Monday
SYNC = "Sync my work and personal calendars for the next month, but don't copy over events marked 'private'."


def _at(day: int, hour: int, minute: int = 0, month: int = 3) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=LONDON)


def _event(cal: Calendar, summary: str, start: datetime, minutes: int = 60, **extra: Any) -> Event:
    return event_create(
        calendar=cal, summary=summary, start=start, end=start + timedelta(minutes=minutes), **extra
    )


def _person(username: str) -> tuple[Any, Calendar, Calendar]:
    """A user in London with a Work and a (default) Personal calendar."""
    user = get_user_model().objects.create_user(username, f"{username}@example.com")
    preference_set(user=user, key="timezone", value="Europe/London")
    work = calendar_create(owner=user, key="work", name="Work", timezone="Europe/London")
    personal = calendar_create(
        owner=user, key="personal", name="Personal", timezone="Europe/London", is_default=True
    )
    return user, work, personal


class Setup(NamedTuple):
    user: Any
    conversation: Conversation
    work: Calendar
    personal: Calendar


@pytest.fixture
def calendars() -> Setup:
    user, work, personal = _person("syncer")
    _event(work, "Sprint planning", _at(3, 10))
    _event(work, "Quarterly review", _at(17, 14), 120)
    _event(work, "Recruiting call", _at(20, 11), 30, visibility="private")
    _event(work, "Company offsite", _at(10, 9, month=4), 480)  # past the month
    _event(personal, "Piano lesson", _at(4, 18))
    _event(personal, "Doctor", _at(12, 8), 30, visibility="private")
    return Setup(user, conversation_create(user=user), work, personal)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def titles(cal: Calendar) -> list[str]:
    return sorted(Event.objects.filter(calendar=cal).values_list("summary", flat=True))


def test_two_way_sync_previews_the_copies_with_counts_and_leaves_private_events_out(calendars: Setup) -> None:
    user, conversation, work, personal = (
        calendars.user,
        calendars.conversation,
        calendars.work,
        calendars.personal,
    )
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, SYNC)
        assert preview.kind == "confirm"
        assert "3 events to copy: 2 to Personal, 1 to Work; 2 private events left out" in preview.text
        for title in ("Sprint planning", "Quarterly review", "Piano lesson"):
            assert title in preview.text
        for title in ("Recruiting call", "Doctor", "Company offsite"):
            assert title not in preview.text
        assert titles(personal) == ["Doctor", "Piano lesson"]  # nothing written before the yes
        done = say(user, conversation, "yes")
    assert done.kind == "done"
    assert titles(personal) == ["Doctor", "Piano lesson", "Quarterly review", "Sprint planning"]
    assert titles(work) == [
        "Company offsite",
        "Piano lesson",
        "Quarterly review",
        "Recruiting call",
        "Sprint planning",
    ]
    copy = Event.objects.get(calendar=personal, summary="Sprint planning")
    assert (copy.start, copy.end, copy.visibility) == (_at(3, 10), _at(3, 11), "default")
    assert CopyLink.objects.filter(owner=user).count() == 3


@pytest.mark.parametrize(
    ("text", "unused"),
    [
        (SYNC, None),
        ("sync my work calendar with personal, vice versa too", None),
        ("copy my work events to personal for the next month", None),
        ("keep work and personal in sync", None),
        ("sync work to personal except the sprint planning", "sprint planning"),
    ],
)
def test_a_sync_preview_names_only_the_words_it_did_not_use(
    calendars: Setup, text: str, unused: str | None
) -> None:
    """The preview said 'I did not use "my work and personal calendars", "don't", "events marked
    'private'"' of the very words it had used."""
    with time_machine.travel(NOW, tick=False):
        preview = say(calendars.user, calendars.conversation, text)
    assert preview.kind == "confirm", preview.text
    if unused is None:
        assert "I did not use" not in preview.text
    else:
        assert f'I did not use "{unused}"' in preview.text


def test_asking_again_finds_nothing_left_to_copy(calendars: Setup) -> None:
    user, conversation = calendars.user, calendars.conversation
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, SYNC)
        say(user, conversation, "yes")
        before = Event.objects.count()
        again = say(user, conversation, SYNC)
        also = say(user, conversation, "keep work and personal in sync")
    assert again.kind == "answer"
    assert "Nothing left to copy" in again.text
    assert "3 events already copied" in again.text
    assert also.kind == "answer"  # the copies themselves are never copied back (no ping-pong)
    assert Event.objects.count() == before


def test_undo_removes_exactly_the_copies_and_their_links(calendars: Setup) -> None:
    user, conversation, personal = calendars.user, calendars.conversation, calendars.personal
    originals = sorted(Event.objects.values_list("pk", "summary", "start", "calendar_id"))
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, SYNC)
        say(user, conversation, "yes")
        undone = say(user, conversation, "undo that")
        assert undone.kind == "done"
        assert sorted(Event.objects.values_list("pk", "summary", "start", "calendar_id")) == originals
        assert not CopyLink.objects.exists()
        # Undone, the events are not copies any more: a sync offers them again.
        assert say(user, conversation, SYNC).kind == "confirm"
        say(user, conversation, "no")
        # Undoing the undo brings the copies back, linked: asking again still copies nothing.
        redone = say(user, conversation, "undo that")
        assert redone.kind == "done"
        assert CopyLink.objects.filter(owner=user).count() == 3
        again = say(user, conversation, SYNC)
    assert again.kind == "answer"
    assert titles(personal) == ["Doctor", "Piano lesson", "Quarterly review", "Sprint planning"]


def test_an_original_edited_after_a_one_way_copy_is_not_copied_again(calendars: Setup) -> None:
    """One way, a copy is what was copied: the edit is named, the copy left as it is.  (A two-way sync
    brings the copy up to date instead: tests/assistant/test_sync_updates.py.)"""
    user, conversation, work, personal = (
        calendars.user,
        calendars.conversation,
        calendars.work,
        calendars.personal,
    )
    week = "copy my work week to personal"
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, week)
        say(user, conversation, "yes")
    sprint = Event.objects.get(calendar=work, summary="Sprint planning")
    # Renamed and moved by another client: the link, not the title, knows it is the one copied.
    LocalProvider(user).update_event(
        event_id=str(sprint.pk), data=EventData(summary="Sprint kickoff", start=_at(5, 15), end=_at(5, 16))
    )
    with time_machine.travel(NOW, tick=False):
        again = say(user, conversation, week)
    assert again.kind == "answer"
    assert "Sprint kickoff was changed since it was copied" in again.text
    assert titles(personal) == ["Doctor", "Piano lesson", "Sprint planning"]
    assert not Event.objects.filter(summary="Sprint kickoff").exclude(calendar=work).exists()


def test_a_copy_deleted_by_hand_is_offered_again_and_takes_its_old_link(calendars: Setup) -> None:
    user, conversation, personal = calendars.user, calendars.conversation, calendars.personal
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, SYNC)
        say(user, conversation, "yes")
        Event.objects.get(calendar=personal, summary="Quarterly review").delete()
        offer = say(user, conversation, SYNC)
        assert offer.kind == "confirm"
        assert "1 event to copy: 1 to Personal" in offer.text
        assert say(user, conversation, "yes").kind == "done"
        assert say(user, conversation, SYNC).kind == "answer"
    assert titles(personal).count("Quarterly review") == 1
    assert CopyLink.objects.filter(owner=user).count() == 3


def test_one_way_copy_then_two_way_sync_never_copies_a_copy_back(calendars: Setup) -> None:
    user, conversation = calendars.user, calendars.conversation
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, "copy my work week to personal")
        assert preview.kind == "confirm"
        assert "Sprint planning" in preview.text
        assert "Piano lesson" not in preview.text  # one way only
        say(user, conversation, "yes")
        synced = say(user, conversation, "keep work and personal in sync")
        assert synced.kind == "confirm"
        lines = [line for line in synced.text.splitlines() if line.strip().startswith("•")]
        # The week's copy of Sprint planning stays where it is; the rest of the month goes both ways.
        assert sorted(lines) == sorted(
            [
                "  • Copy 'Piano lesson' to Work: Wednesday, March 4 6:00 PM – 7:00 PM",
                "  • Copy 'Quarterly review' to Personal: Tuesday, March 17 2:00 PM – 4:00 PM",
            ]
        )


def test_recurring_events_are_copied_occurrence_by_occurrence_within_the_range(calendars: Setup) -> None:
    user, conversation, work, personal = (
        calendars.user,
        calendars.conversation,
        calendars.work,
        calendars.personal,
    )
    _event(work, "Team standup", _at(2, 9, 30), 15, rrule="FREQ=WEEKLY;BYDAY=MO,TH")
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, "copy my work stuff for the next two weeks over to personal")
        assert preview.kind == "confirm"
        # Monday 2 (9:30, after now), Thursday 5, Monday 9 and Thursday 12 are inside the two weeks (to
        # Monday 16, 9:00), and Sprint planning.
        assert "5 events to copy (from Work to Personal, Monday, March 2 – Monday, March 16)" in preview.text
        say(user, conversation, "yes")
    copies = Event.objects.filter(calendar=personal, summary="Team standup")
    assert all(not c.rrule for c in copies)  # one-off copies, never the series beyond the range
    assert sorted(c.start for c in copies)[-1] < _at(16, 9)
    links = CopyLink.objects.filter(owner=user, source_recurrence_id__isnull=False)
    assert links.count() == copies.count()
    # The series moved half an hour later (every occurrence gets a new original start): same occurrences.
    series = Event.objects.get(calendar=work, summary="Team standup")
    LocalProvider(user).update_event(
        event_id=str(series.pk), data=EventData(start=_at(2, 10), end=_at(2, 10, 15)), scope=Scope.SERIES
    )
    with time_machine.travel(NOW, tick=False):
        again = say(user, conversation, "copy my work stuff for the next two weeks over to personal")
    assert again.kind == "answer"
    assert Event.objects.filter(calendar=personal, summary="Team standup").count() == copies.count()


def test_copying_tomorrows_meetings_copies_only_them_and_asks_first(calendars: Setup) -> None:
    user, conversation, work, personal = (
        calendars.user,
        calendars.conversation,
        calendars.work,
        calendars.personal,
    )
    _event(work, "Design crit", _at(3, 14), attendees=["bo@example.com"])
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, "copy tomorrow's meetings to my personal calendar")
        assert preview.kind == "confirm"  # a copy is always shown first, even one
        assert "Design crit" in preview.text
        assert "Sprint planning" not in preview.text  # no one else attends it: not a meeting
        say(user, conversation, "yes")
    copy = Event.objects.get(calendar=personal, summary="Design crit")
    assert copy.attendees == []  # a copy of your time, not a second invitation


def test_work_and_personal_are_the_calendars_the_preferences_name(calendars: Setup) -> None:
    user, conversation = calendars.user, calendars.conversation
    job = calendar_create(owner=user, key="job", name="Acme", timezone="Europe/London")
    _event(job, "Client call", _at(6, 11))
    preference_set(user=user, key="work_calendar", value="job")
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, "copy my work week to personal")
    assert preview.kind == "confirm"
    assert "Client call" in preview.text
    assert "Sprint planning" not in preview.text  # the "Work" calendar is not the work calendar now


def test_one_user_never_copies_into_or_from_another_users_calendars(calendars: Setup) -> None:
    user, conversation, work, personal = (
        calendars.user,
        calendars.conversation,
        calendars.work,
        calendars.personal,
    )
    other, other_work, other_personal = _person("neighbour")
    _event(other_work, "Board meeting", _at(5, 10))
    _event(other_personal, "Yoga", _at(6, 7))
    family = calendar_create(owner=other, key="family", name="Family", timezone="Europe/London")
    theirs = sorted(Event.objects.filter(calendar__owner=other).values_list("pk", "summary", "start"))
    with time_machine.travel(NOW, tick=False):
        preview = say(user, conversation, SYNC)
        assert "Board meeting" not in preview.text
        assert "Yoga" not in preview.text
        say(user, conversation, "yes")
        refused = say(user, conversation, "copy my work week to Neighbour's calendar")
        assert refused.kind == "error"
        assert say(user, conversation, "keep my calendar in sync with neighbour").kind == "error"
        unknown = say(user, conversation, "copy my work week to my family calendar")
        assert unknown.kind == "clarify"  # "family" is someone else's calendar key, not one of yours
        # The other user's sync sees only their own calendars, and none of the first user's links.
        their_chat = conversation_create(user=other)
        their_preview = say(other, their_chat, SYNC)
        assert their_preview.kind == "confirm"
        assert "2 events to copy: 1 to Personal, 1 to Work" in their_preview.text
        assert "Sprint planning" not in their_preview.text
        # A skill asked directly for another user's calendar finds none.
        ctx = SkillContext(user=user, tz=LONDON)
        with pytest.raises(SkillError, match="no calendar called 'family'"):
            plan_sync(ctx, PlanSyncInput(start=NOW, end=_at(2, 9, month=4), to=["family"]))
    assert sorted(Event.objects.filter(calendar__owner=other).values_list("pk", "summary", "start")) == theirs
    assert not Event.objects.filter(calendar=family).exists()
    assert not CopyLink.objects.filter(owner=other).exists()
    assert set(CopyLink.objects.filter(owner=user).values_list("copy_calendar_id", flat=True)) <= {
        str(work.pk),
        str(personal.pk),
    }


def test_two_previews_of_the_same_sync_never_make_two_copies(calendars: Setup) -> None:
    user, conversation, personal = calendars.user, calendars.conversation, calendars.personal
    other_chat = conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        assert say(user, conversation, SYNC).kind == "confirm"
        assert say(user, other_chat, SYNC).kind == "confirm"
        assert say(user, conversation, "yes").kind == "done"
        late = say(user, other_chat, "yes")
    assert late.kind == "error"
    assert "copied meanwhile" in late.text
    assert titles(personal) == ["Doctor", "Piano lesson", "Quarterly review", "Sprint planning"]


@pytest.mark.parametrize("kind", ["lectures", "classes", "courses"])
def test_a_kind_of_event_named_copies_only_that_kind(calendars: Setup, kind: str) -> None:
    _event(calendars.work, "Physics lecture", _at(5, 9))
    with time_machine.travel(NOW, tick=False):
        reply = say(calendars.user, calendars.conversation, f"copy my {kind} from work to personal")
    assert reply.kind == "confirm", reply.text
    assert "Copy 'Physics lecture'" in reply.text
    assert "Sprint planning" not in reply.text
    assert "I did not use" not in reply.text  # the kind is what the copy keeps, not a title


@pytest.mark.parametrize(
    ("text", "copied", "left"),
    [
        ("keep work and personal in sync", ["Sprint planning", "Piano lesson"], []),
        (
            "Could you sync my work calendar with my personal one over the next two weeks?",
            ["Piano lesson"],
            [],
        ),
        ("copy everything from personal to work next week", [], ["Sprint planning"]),
        ("mirror this week's work events into my personal calendar", ["Sprint planning"], ["Piano lesson"]),
        ("duplicate all my work appointments onto personal for the next 3 weeks", ["Quarterly review"], []),
        ("copy tomorrow at 10am to my personal calendar", ["Sprint planning"], ["Piano lesson"]),
        (
            "copy my work afternoons to personal for the next 3 weeks",
            ["Quarterly review"],
            ["Sprint planning"],
        ),
    ],
)
def test_ways_of_asking_for_a_copy(calendars: Setup, text: str, copied: list[str], left: list[str]) -> None:
    with time_machine.travel(NOW, tick=False):
        reply = say(calendars.user, calendars.conversation, text)
    if not copied:
        assert reply.kind == "answer"  # next week the personal calendar holds only the private doctor
        assert "Nothing left to copy from Personal to Work" in reply.text
        assert "1 private event left out" in reply.text
        return
    assert reply.kind == "confirm", reply.text
    for title in copied:
        assert f"Copy '{title}'" in reply.text
    for title in left:
        assert f"Copy '{title}'" not in reply.text


@pytest.mark.parametrize(
    "text",
    [
        "Move the team sync to 11",
        "Sync up with Ann tomorrow at 3",
        "Cancel the sync on Thursday",
        "copy the dentist to Friday",
        "Copy that, thanks",
        "What's on my work calendar this week?",
    ],
)
def test_turns_that_are_not_about_copying_calendars_are_left_to_the_rest(calendars: Setup, text: str) -> None:
    reading = read(text, user=calendars.user, timezone_name=str(LONDON), now=NOW)
    assert sync_decision(reading) is None


@pytest.mark.parametrize(
    "text",
    [
        "move the sprint planning to my personal calendar",
        "switch the sprint planning over to the Personal calendar",
        "change the sprint planning to my personal cal",
    ],
)
def test_moving_an_event_to_another_calendar_says_how_instead_of_changing_its_place(
    calendars: Setup, text: str
) -> None:
    """The event's place became 'my personal calendar', written without a preview."""
    with time_machine.travel(NOW, tick=False):
        reply = say(calendars.user, calendars.conversation, text)
    assert reply.kind == "clarify"
    assert 'say "copy the sprint planning to Personal"' in reply.text
    planning = Event.objects.get(calendar=calendars.work, summary="Sprint planning")
    assert planning.location == ""
    assert titles(calendars.personal) == ["Doctor", "Piano lesson"]
