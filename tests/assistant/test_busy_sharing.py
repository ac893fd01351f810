"""Free/busy between users is each one's choice (``busy_visible_to``): everyone on the instance (the
default), only the people named, or nobody.  Whoever may not see someone's busy times is told their
calendar cannot be seen, and no search, answer or provider call reads them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from assistant.services import chat_turn, conversation_create
from preferences.models import Preference
from preferences.selectors import busy_shared_with
from preferences.services import preference_set
from skills.models import Event
from skills.people import availability
from skills.providers.local import LocalProvider
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 10, 9, 0, tzinfo=BERLIN)  # a Tuesday
THURSDAY_10 = datetime(2026, 3, 12, 10, 0, tzinfo=BERLIN)


def person(name: str, first: str, last: str) -> Any:
    user, calendar = user_with_calendar(name, timezone="Europe/Berlin")
    user.email, user.first_name, user.last_name = f"{name}@example.com", first, last
    user.save()
    event_create(
        calendar=calendar, summary="Dentist", start=THURSDAY_10, end=THURSDAY_10 + timedelta(hours=1)
    )
    return user


@pytest.fixture
def me() -> Any:
    user, _ = user_with_calendar("me", timezone="Europe/Berlin")
    user.email = "me@example.com"
    user.save()
    return user


@pytest.fixture
def ann() -> Any:
    return person("ann", "Ann", "Lee")


@pytest.fixture
def raj() -> Any:
    return person("raj", "Raj", "Patel")


def seen(me: Any, *others: Any) -> tuple[list[str], list[str]]:
    found = availability(
        user=me, emails=[o.email for o in others], start=THURSDAY_10, end=THURSDAY_10 + timedelta(hours=1)
    )
    return [p.name for p in found.people if found.busy_of(p)], found.unseen


@pytest.mark.parametrize(
    ("value", "visible"),
    [
        (None, True),  # not set: everyone on the instance
        ({"who": "everyone"}, True),
        ({"who": "nobody"}, False),
        ({"who": "named", "people": ["me@example.com"]}, True),
        ({"who": "named", "people": ["raj@example.com"]}, False),
    ],
)
def test_busy_times_are_read_only_where_their_owner_allows(
    me: Any, ann: Any, value: Any, visible: bool
) -> None:
    if value is not None:
        preference_set(user=ann, key="busy_visible_to", value=value)
    busy, unseen = seen(me, ann)
    assert (busy, unseen) == ((["Ann Lee"], []) if visible else ([], ["Ann Lee"]))
    assert busy_shared_with(viewer=me, owner_ids=[ann.pk]) == ({ann.pk} if visible else set())


def test_a_stored_value_that_no_longer_validates_hides_rather_than_shares(me: Any, ann: Any) -> None:
    preference_set(user=ann, key="busy_visible_to", value={"who": "everyone"})
    # A raw SQL write, or a row from before the schema: the value is refused on every read.
    Preference.objects.filter(user=ann, key="busy_visible_to").update(value={"who": "friends"})
    assert seen(me, ann) == ([], ["Ann Lee"])


def test_one_persons_choice_hides_only_them(me: Any, ann: Any, raj: Any) -> None:
    preference_set(user=ann, key="busy_visible_to", value={"who": "nobody"})
    assert seen(me, ann, raj) == (["Raj Patel"], ["Ann Lee"])


def test_the_provider_leaves_out_whoever_does_not_share(me: Any, ann: Any, raj: Any) -> None:
    preference_set(user=ann, key="busy_visible_to", value={"who": "named", "people": ["raj@example.com"]})
    busy = LocalProvider(me).free_busy(
        emails=["ann@example.com", "raj@example.com"], start=THURSDAY_10, end=THURSDAY_10 + timedelta(hours=1)
    )
    assert list(busy) == ["raj@example.com"]  # never ann: an empty list would say she is free
    assert LocalProvider(raj).free_busy(
        emails=["ann@example.com"], start=THURSDAY_10, end=THURSDAY_10 + timedelta(hours=1)
    )["ann@example.com"]


def say(user: Any, text: str, conversation: Any = None) -> Any:
    conversation = conversation or conversation_create(user=user)
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def test_are_they_free_says_whose_calendar_cannot_be_seen(me: Any, ann: Any, raj: Any) -> None:
    preference_set(user=ann, key="busy_visible_to", value={"who": "nobody"})
    reply = say(me, "Are Ann and Raj free on Thursday at 10?")
    assert reply.kind == "answer", reply.text
    assert "Raj Patel" in reply.text
    assert "cannot see" in reply.text or "can't see" in reply.text, reply.text
    assert "Dentist" not in reply.text
    assert "Ann Lee is busy" not in reply.text
    assert "Ann Lee is free" not in reply.text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Don't let anyone see when I'm busy", {"who": "nobody"}),
        ("stop sharing my availability", {"who": "nobody"}),
        ("make my free/busy private", {"who": "nobody"}),
        ("let everyone see my free/busy again", {"who": "everyone"}),
        ("share my availability with my colleagues", {"who": "everyone"}),
        (
            "Share my availability only with Ann and raj@example.com",
            {"who": "named", "people": ["ann@example.com", "raj@example.com"]},
        ),
        ("Only Ann can see my busy times", {"who": "named", "people": ["ann@example.com"]}),
        # "help me", "I want to": asking to share, not to look (it answered Raj's and my free times)
        ("help me share my free/busy with Raj", {"who": "named", "people": ["raj@example.com"]}),
    ],
)
def test_sharing_is_set_by_chat(me: Any, ann: Any, raj: Any, text: str, value: Any) -> None:
    reply = say(me, text)
    assert reply.kind == "done", reply.text
    assert Preference.objects.get(user=me, key="busy_visible_to").value == value
    assert not Event.objects.filter(calendar__owner=me).exists()


def test_also_adds_to_the_people_named(me: Any, ann: Any, raj: Any) -> None:
    preference_set(user=me, key="busy_visible_to", value={"who": "named", "people": ["ann@example.com"]})
    reply = say(me, "Also let Raj see when I'm busy")
    assert reply.kind == "done", reply.text
    assert Preference.objects.get(user=me, key="busy_visible_to").value == {
        "who": "named",
        "people": ["ann@example.com", "raj@example.com"],
    }


def test_a_name_of_nobody_here_is_asked_about_and_nothing_is_stored(me: Any, ann: Any) -> None:
    reply = say(me, "share my free/busy only with Zed")
    assert reply.kind == "clarify"
    assert "Zed" in reply.text
    assert "email" in reply.text
    assert not Preference.objects.filter(user=me, key="busy_visible_to").exists()


def test_who_can_see_answers_from_the_stored_choice(me: Any, ann: Any) -> None:
    assert "everyone on this instance" in say(me, "who can see when I'm busy?").text
    preference_set(user=me, key="busy_visible_to", value={"who": "named", "people": ["ann@example.com"]})
    assert "only with ann@example.com" in say(me, "who can see my availability?").text


@pytest.mark.parametrize(
    "text",
    [
        "show me when I'm busy on Friday",
        "let me see my availability for next week",
        "when am I busy?",
        "can I see my availability?",  # no day said: the user looking, not sharing
    ],
)
def test_questions_about_my_own_time_are_not_about_sharing(me: Any, text: str) -> None:
    say(me, text)
    assert not Preference.objects.filter(user=me, key="busy_visible_to").exists()


@pytest.mark.parametrize(
    "text",
    [
        "is my availability private?",  # it turned sharing off
        "are my busy times hidden?",
        "who can see my calendar?",  # it listed the week's events with their guests
        "is my schedule private?",
        "can Ann see my calendar?",
    ],
)
def test_a_question_about_who_sees_my_calendar_is_answered_and_changes_nothing(
    me: Any, ann: Any, text: str
) -> None:
    reply = say(me, text)
    assert reply.kind == "answer", reply.text
    assert reply.text.startswith("Free/busy sharing is on, with everyone on this instance."), reply.text
    assert not Preference.objects.filter(user=me, key="busy_visible_to").exists()


def test_a_request_said_as_a_question_still_sets_it(me: Any) -> None:
    assert say(me, "can you hide my availability?").kind == "done"
    assert Preference.objects.get(user=me, key="busy_visible_to").value == {"who": "nobody"}
