"""People as the names tagger learnt to find them: from SMCalFlow's attendees and NLU-Evaluation-Data's
people, beside the cues ("with", "invite") that still catch the names it misses. Sentences written
here, none from the corpora."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model

from assistant.nlu import read_turn
from assistant.nlu.corpora import load_corpus
from assistant.planning import DecomposeRequest, decompose
from skills.services import calendar_create, event_create
from workflows.definition import Decision

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=NEW_YORK)  # a Wednesday, 9 AM


def test_smcalflow_attendees_and_nlu_people_are_spans_of_people(tmp_path: Path) -> None:
    program = (
        '(Yield (CreateCommitEventWrapper (CreatePreflightEventWrapper (& (Event.subject_? (?= "tea")) '
        "(Event.attendees_? (AttendeeListHasRecipient (Execute (refer (extensionConstraint "
        '(RecipientWithNameLike (^(Recipient) EmptyStructConstraint) (PersonName.apply "Ines"))))))))))'
    )
    dialogues = tmp_path / "dialogues.jsonl"
    dialogues.write_text(
        json.dumps(
            {
                "dialogue_id": "d1",
                "turns": [{"turn_index": 0, "user": "Tea with Ines", "agent": "", "lispress": program}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    [turn] = load_corpus("smcalflow", dialogues)
    assert [(s.slot, s.text) for s in turn.spans] == [("title", "Tea"), ("person", "Ines")]

    utterances = tmp_path / "nlu.jsonl"
    annotated = "set up [event_name : tea] with [person : wei] on [date : friday]"
    record = {"text": "set up tea with wei on friday", "intent": "calendar_set", "annotated": annotated}
    utterances.write_text(
        json.dumps(record) + "\n",
        encoding="utf-8",
    )
    [utterance] = load_corpus("nlu", utterances)
    assert [(s.slot, s.text) for s in utterance.spans] == [("title", "tea"), ("person", "wei")]


@pytest.mark.parametrize(
    ("text", "people"),
    [
        ("I need to see Omar tomorrow at 3", ["Omar"]),
        ("lunch with Ines, Tom and Wei on Friday at 1", ["Ines", "Tom", "Wei"]),
        ("call with Omar at 3pm London time", ["Omar"]),
    ],
)
def test_the_shipped_tagger_finds_the_people_and_where_their_names_stop(text: str, people: list[str]) -> None:
    assert [s.text for s in read_turn(text).spans if s.slot == "person"] == people


def _decide(text: str, *, titles: tuple[str, ...] = ()) -> Decision:
    with time_machine.travel(NOW, tick=False):
        me = get_user_model().objects.create_user("people", "people@example.com")
        cal = calendar_create(owner=me, key="home", name="Home", timezone="America/New_York", is_default=True)
        for title in titles:
            event_create(
                calendar=cal,
                summary=title,
                start=datetime(2026, 3, 5, 14, tzinfo=NEW_YORK),
                end=datetime(2026, 3, 5, 15, tzinfo=NEW_YORK),
            )
        return decompose(DecomposeRequest(text=text, user=me, timezone="America/New_York"))


def _created(decision: Decision) -> dict[str, Any]:
    assert decision.workflow is not None, decision.text
    [plan] = [t for t in decision.workflow.tasks if t.skill == "plan_create"]
    return plan.params


@pytest.mark.django_db
def test_a_city_after_a_name_is_the_zone_of_the_time_not_part_of_the_name() -> None:
    params = _created(_decide("call with Omar at 3pm London time"))
    assert params["summary"] == "Call with Omar"
    assert params["start"] == "2026-03-04T10:00:00-05:00"  # 3 PM in London is 10 AM in New York


@pytest.mark.django_db
def test_the_city_of_a_zone_is_no_title_of_a_meeting_said_with_a_verb() -> None:
    # "meet with Omar ... Paris time" asked what to call the event: 'Paris' was its only word left
    params = _created(_decide("meet with Omar tomorrow 3pm Paris time"))
    assert params["summary"] == "Meeting with Omar"
    assert params["start"] == "2026-03-05T09:00:00-05:00"  # 3 PM in Paris is 9 AM in New York


@pytest.mark.django_db
def test_a_time_in_their_zone_that_has_gone_today_is_the_next_one() -> None:
    params = _created(_decide("call with Omar at 10am his time, he's in London"))
    # 10 AM in London is 5 AM here, gone at 9: tomorrow's, never one in the past
    assert params["start"] == "2026-03-05T05:00:00-05:00"


@pytest.mark.django_db
def test_the_city_someone_is_in_may_be_followed_by_more_words() -> None:
    # "London on Thursday" was no city: the zone could not be told, and the time was asked about
    params = _created(_decide("call with Omar at 10am his time, he's in London on Thursday"))
    assert params["summary"] == "Call with Omar"
    assert params["start"] == "2026-03-05T05:00:00-05:00"  # 10 AM in London is 5 AM in New York


@pytest.mark.django_db
def test_a_name_inside_the_phrase_stays_in_the_title() -> None:
    decision = _decide("remind me to give jane a call on tuesday at 4pm")
    assert _created(decision)["summary"].casefold().startswith("give jane a call")


@pytest.mark.django_db
def test_people_listed_after_with_are_all_in_the_title() -> None:
    params = _created(_decide("lunch with Ines, Tom and Wei on Friday at 1pm"))
    assert params["summary"] == "Lunch with Ines, Tom and Wei"


@pytest.mark.django_db
def test_guests_listed_after_invite_leave_the_title_to_what_they_are_invited_to() -> None:
    # "Bo" read apart from "Ann" cut "ann and ... to dinner" in two: 'Meeting with Ann and Bo', and
    # "dinner" went unused
    for first, name in (("ann", "Ann Lee"), ("bo", "Bo Kim")):
        get_user_model().objects.create_user(first, f"{first}@example.com", first_name=name.split()[0])
    params = _created(_decide("Invite Ann and Bo to dinner on Saturday at 7"))
    assert params["summary"] == "Dinner with Ann and Bo"
    assert params["attendees"] == ["ann@example.com", "bo@example.com"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "told"),
    [
        (
            "schedule a sync with Ann and Cy on Friday at 2",
            "I didn't invite Cy: I don't have their email address.",
        ),
        (
            "schedule a sync with Cy, Ann and Dee on Friday at 2",
            "I didn't invite Cy and Dee: I don't have their email addresses.",
        ),
    ],
)
def test_people_named_beside_someone_invited_but_unknown_are_said_not_invited(text: str, told: str) -> None:
    """Ann is invited, Cy only named in the title: the reply says so and how to invite Cy (the reply
    said "with Ann" and nothing of Cy, whom the user had asked to meet)."""
    get_user_model().objects.create_user("ann", "ann@example.com", first_name="Ann")
    decision = _decide(text)
    assert _created(decision)["attendees"] == ["ann@example.com"]
    then = _apply(decision)["then_ask"]
    assert then.startswith(told), then
    assert 'Say "invite cy@example.com to it"' in then


@pytest.mark.django_db
def test_nobody_known_named_leaves_the_names_to_the_title_without_a_word() -> None:
    """'Lunch with Cy' invites nobody and was asked to invite nobody: no note about addresses."""
    assert "invite" not in _apply(_decide("lunch with Cy on Friday at noon")).get("then_ask", "")


def _found(decision: Decision) -> dict[str, Any]:
    assert decision.workflow is not None, decision.text
    return decision.workflow.tasks[0].params


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "attendee", "also_with"),
    [
        ("Can you tell me when I have a meeting with both Jayce and Ryan?", "jayce", ["ryan"]),
        ("When am I golfing with Ryan, Brian, Chris, and Chad?", "ryan", ["brian", "chris", "chad"]),
        ("Did I meet with Antonio or Jacob last Friday?", "antonio", None),  # either: not all of them
        # the people of another request are no part of the list
        (
            "Cancel my lunch with Janice on Thursday at 1 pm and have a yoga session with Jerri instead",
            "janice",
            None,
        ),
    ],
)
def test_events_looked_for_with_people_listed_together_are_with_all_of_them(
    text: str, attendee: str, also_with: list[str] | None
) -> None:
    params = _found(_decide(text))
    assert params["attendee"] == attendee
    assert params.get("also_with") == also_with


@pytest.mark.django_db
def test_the_people_looked_for_are_named_in_the_answer_whoever_knows_them() -> None:
    decision = _decide("When am I jamming with John and Paul?")
    assert decision.workflow is not None
    [reply] = [t for t in decision.workflow.tasks if t.skill == "compose_reply"]
    assert reply.params["subject"] == "events with John and Paul"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "summary"),
    [
        # the reader's 'Dinner' left "my parents" unused, and the new event was shown first
        ("Schedule dinner with my parents on Sunday at 7", "Dinner with my parents"),
        ("Add lunch with my wife tomorrow at noon", "Lunch with my wife"),
        ("lunch with the team on Friday at 12", "Lunch with the team"),
    ],
)
def test_the_company_said_after_the_event_stays_in_its_title(text: str, summary: str) -> None:
    decision = _decide(text)
    assert _created(decision)["summary"] == summary
    assert decision.workflow is not None
    assert "unsure" not in decision.workflow.tasks[-1].params


@pytest.mark.django_db
def test_a_word_after_the_company_that_is_not_understood_is_still_asked_about() -> None:
    decision = _decide("Please add lunch with my wife tomortow at noon.")
    assert _created(decision)["summary"] == "Lunch"
    assert decision.workflow is not None
    assert "tomortow" in decision.workflow.tasks[-1].params["unsure"]


@pytest.mark.django_db
def test_a_title_on_the_calendar_is_that_event_whatever_the_tagger_makes_of_it() -> None:
    decision = _decide("Look up Checkup.", titles=("Checkup",))
    assert decision.workflow is not None
    assert decision.frame["titles"] == ["Checkup"]
    assert decision.frame["person_names"] == []


@pytest.mark.django_db
def test_a_name_in_quotes_loses_both_quotes() -> None:
    params = _created(_decide("Create an event titled 'Collect Ruth' at 9:00 AM on Monday"))
    assert params["summary"] == "Collect Ruth"


@pytest.mark.django_db
def test_seeing_someone_at_a_time_is_a_meeting_previewed_first() -> None:
    decision = _decide("I need to see Omar tomorrow at 3")
    params = _created(decision)
    assert params["summary"] == "Meeting with Omar"
    assert params["start"] == "2026-03-05T15:00:00-05:00"
    assert decision.workflow is not None
    [apply] = [t for t in decision.workflow.tasks if t.skill == "apply_changes"]
    assert apply.params.get("always_ask") is True  # a reading from the tagger's people: shown first


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "summary", "start"),
    [
        # a name the tagger misses, written with capitals after the verb; the dot of "Dr." ends no clause
        ("I'm seeing Dr. Patel Friday at 10", "Meeting with Dr. Patel", "2026-03-06T10:00:00-05:00"),
        (
            "We'll visit Grandma Rose on Sunday at 2pm",
            "Meeting with Grandma Rose",
            "2026-03-08T14:00:00-04:00",
        ),
    ],
)
def test_whoever_is_seen_or_visited_names_the_meeting_and_it_is_previewed(
    text: str, summary: str, start: str
) -> None:
    decision = _decide(text)
    params = _created(decision)
    assert (params["summary"], params["start"]) == (summary, start)
    assert decision.workflow is not None
    [apply] = [t for t in decision.workflow.tasks if t.skill == "apply_changes"]
    assert apply.params.get("always_ask") is True


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["when do I see Omar next?", "let me see friday"])
def test_seeing_asked_about_is_still_a_look_up(text: str) -> None:
    decision = _decide(text)
    assert decision.workflow is not None
    assert not [t for t in decision.workflow.tasks if t.skill.startswith("plan_")]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "title"),
    [("search for checkup on my calender", "Checkup"), ("look for tea party event", "Tea party")],
)
def test_an_event_after_for_is_that_event_not_a_person(text: str, title: str) -> None:
    decision = _decide(text, titles=("Checkup", "Tea party", "Pottery"))
    assert decision.frame["titles"] == [title]
    assert decision.frame["person_names"] == []


def _apply(decision: Decision) -> dict[str, Any]:
    assert decision.workflow is not None, decision.text
    [apply] = [t for t in decision.workflow.tasks if t.skill == "apply_changes"]
    return dict(apply.params)


@pytest.mark.django_db
def test_an_hour_that_may_be_morning_or_evening_is_previewed_with_its_am() -> None:
    decision = _decide("add an event called Book club on Tuesday at 7 at the library")
    params = _created(decision)
    assert (params["summary"], params["location"]) == ("Book club", "the library")
    assert params["start"] == "2026-03-10T07:00:00-04:00"
    assert _apply(decision).get("always_ask") is True  # shown first: 7 in the evening is as likely


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("dinner with Ann at 8 on Friday at Nopa", "2026-03-06T20:00:00-05:00"),  # dinner says evening
        ("chess club on Tuesday at 7pm at the library", "2026-03-10T19:00:00-04:00"),
        ("add date night for Friday at 7", "2026-03-06T19:00:00-05:00"),  # a night is in the evening
    ],
)
def test_an_hour_whose_half_is_said_is_not_held_back_for_it(text: str, start: str) -> None:
    decision = _decide(text)
    assert _created(decision)["start"] == start
    assert "always_ask" not in _apply(decision)


@pytest.mark.django_db
def test_a_time_read_in_someones_zone_is_shown_with_the_zone_before_it_is_written() -> None:
    """ "His time" is a reading of whose clock the hour is on: the preview says which zone was taken,
    and never that the hour said went unused (it is 5 AM here)."""
    decision = _decide("call with Omar at 10am his time, he's in London")
    assert decision.workflow is not None
    apply = next(t for t in decision.workflow.tasks if t.skill == "apply_changes")
    assert apply.params["always_ask"] is True
    assert apply.params["unsure"] == 'I read "his time" as London time: check this before I go ahead.'


@pytest.mark.django_db
def test_a_time_said_with_its_city_is_no_guess() -> None:
    decision = _decide("call with Omar at 3pm London time")
    assert decision.workflow is not None
    apply = next(t for t in decision.workflow.tasks if t.skill == "apply_changes")
    assert "always_ask" not in apply.params


@pytest.mark.django_db
def test_the_people_a_question_names_are_written_as_names_in_its_answer() -> None:
    for name in ("Jesse", "Jake", "Abby"):
        get_user_model().objects.create_user(name.lower(), f"{name.lower()}@example.com", first_name=name)
    decision = _decide("do I have meetings with jesse, jake and abby this week")
    assert decision.workflow is not None
    [reply] = [t for t in decision.workflow.tasks if t.skill == "compose_reply"]
    assert reply.params["subject"] == "meetings with Jesse, Jake and Abby"


@pytest.mark.django_db
def test_the_only_calendar_named_with_calendar_after_it_is_where_the_event_goes_not_its_title() -> None:
    # with one calendar, "to my work calendar" was read into the title: 'Gym to my work', written at once
    params = _created(_decide("add gym to my home calendar on Friday at 6pm"))
    assert params["summary"] == "Gym"
