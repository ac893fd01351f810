"""What a turn leaves out, as the exclusion tagger learnt it from SMCalFlow's negated constraints, and
what the chat does with it. Sentences written here, none from the corpora; the programs follow
SMCalFlow's shapes."""

from __future__ import annotations

import json
from datetime import datetime
from io import StringIO
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command

from assistant.models import Conversation
from assistant.nlu import read_turn
from assistant.nlu.exclusions import excluded_spans
from assistant.nlu.features import exclusion_features, token_features
from assistant.nlu.shipped import shipped_reader
from assistant.nlu.spans import items_of
from assistant.nlu.words import words_of
from assistant.services import chat_turn, conversation_create
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 30, tzinfo=NEW_YORK)  # a Wednesday

_AWAY_FROM = (
    '(Yield (FindEventWrapperWithDefaults (Event.location_? (negate (?= (LocationKeyphrase.apply "{}"))))))'
)
_NOT_A = (
    '(Yield (FindEventWrapperWithDefaults (& (Event.subject_? (negate (?~= "{}"))) '
    "(EventOnDate (Tomorrow) (^(Event) EmptyStructConstraint)))))"
)
_NOT_ON_A_WEEKEND = (
    '(Yield (CreateCommitEventWrapper (CreatePreflightEventWrapper (& (Event.subject_? (?= "haircut")) '
    "(Event.start_? (DateTime.date_? (Date.dayOfWeek_? (negate (Weekend)))))))))"
)


def test_a_negated_place_title_or_weekend_is_where_the_turn_says_it() -> None:
    place = excluded_spans("anything scheduled away from Lisbon?", _AWAY_FROM.format("Lisbon"))
    assert [(s.slot, s.text) for s in place or ()] == [("excluded", "Lisbon")]
    title = excluded_spans("what's tomorrow besides a yoga class", _NOT_A.format("yoga class"))
    assert [s.text for s in title or ()] == ["yoga class"]
    days = excluded_spans("add a haircut, weekends are out", _NOT_ON_A_WEEKEND)
    assert [s.text for s in days or ()] == ["weekends"]  # the plural of the named constant


def test_a_turn_without_a_negation_leaves_nothing_out_and_a_misspelt_one_is_not_taught() -> None:
    assert (
        excluded_spans(
            "what's on tomorrow?", "(Yield (FindEventWrapperWithDefaults (EventOnDate (Tomorrow))))"
        )
        == ()
    )
    # the annotator corrected the place: the turn's words do not hold it, so it is not taught as nothing
    assert excluded_spans("anything not in Lisbn?", _AWAY_FROM.format("Lisbon")) is None


@pytest.mark.parametrize(
    ("text", "left_out"),
    [
        ("show me events not in Denver", "Denver"),
        ("do I have anything outside of Boston next week", "Boston"),
        ("What have I got on Monday that's not a standup", "standup"),
        ("put a haircut on my calendar next week but not on the weekend", "weekend"),
    ],
)
def test_the_shipped_tagger_reads_what_new_sentences_leave_out(text: str, left_out: str) -> None:
    reading = read_turn(text)
    assert [s.text for s in reading.excluded] == [left_out]
    assert 0.5 <= reading.excluded_confidence <= 1.0


@pytest.mark.parametrize("text", ["what's on tomorrow?", "move the dentist to Friday", "I can't make it"])
def test_a_turn_that_leaves_nothing_out_has_no_exclusion(text: str) -> None:
    reading = read_turn(text)
    assert (reading.excluded, reading.excluded_confidence) == ((), 0.0)


@pytest.fixture
def week(db: Any) -> tuple[Any, Conversation]:
    """A standup every weekday at 9, a design review in Bellevue on Thursday, a chemistry lab on Friday
    afternoon, the dentist on Friday morning and an office party next Friday."""
    user, calendar = user_with_calendar("week")
    for summary, day, hours, location, rule in (
        ("Standup", 2, (9, 10), "", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=30"),
        ("Design review", 5, (14, 15), "Bellevue", ""),
        ("Chemistry lab", 6, (13, 16), "Bellevue", "FREQ=WEEKLY;BYDAY=FR;COUNT=10"),
        ("Dentist", 6, (11, 12), "Seattle", ""),
        ("Office party", 13, (17, 19), "Seattle", ""),
        ("Hike", 7, (10, 13), "", ""),
        ("Pilates", 9, (18, 19), "Yoga Works studio", ""),
        ("Yoga", 9, (7, 8), "", ""),
    ):
        event_create(
            calendar=calendar,
            summary=summary,
            start=datetime(2026, 3, day, hours[0], tzinfo=NEW_YORK),
            end=datetime(2026, 3, day, hours[1], tzinfo=NEW_YORK),
            timezone="America/New_York",
            rrule=rule,
            location=location,
        )
    return user, conversation_create(user=user)


@pytest.mark.parametrize(
    ("text", "kept", "left_out"),
    [
        # it listed the party alone: the words of "not a party" were read as what was looked for
        ("what do I have next week that's not a party?", "Standup", "Office party"),
        ("What have I got on Friday that's not a lab?", "Dentist", "Chemistry lab"),
        # a place said as left out: the events there are left out (it listed them all)
        ("do I have anything outside of Bellevue this week?", "Dentist", "Design review"),
        ("show me events not in Bellevue this week", "Standup", "Chemistry lab"),
        # the weekend said as left out is its days (it was read, and Saturday's hike still listed)
        ("what do I have this week but not on the weekend", "Dentist", "Hike"),
        # a date said as left out is that day (it was its words, or every day of its weekday)
        ("what do I have this week except the 6th", "Design review", "Dentist"),
        # a negated relative clause excepts like "except": it was read the other way round
        ("what do I have on Friday that isn't a class", "Dentist", "Chemistry lab"),
        ("what do I have this week which is not in Bellevue", "Dentist", "Design review"),
        # the tagger missed these; a negated "in/at/with" says where or with whom the events are not
        ("anything not taking place in Seattle this week?", "Chemistry lab", "Dentist"),
        ("what do I have this week that isn't in Seattle", "Chemistry lab", "Dentist"),
    ],
)
def test_a_question_leaves_out_what_it_says_is_not_wanted(
    week: tuple[Any, Conversation], text: str, kept: str, left_out: str
) -> None:
    answer = _answer(week, text)
    listed = _listed(answer)
    assert any(kept in line for line in listed)
    assert not any(left_out in line for line in listed)
    assert answer.splitlines()[-1].startswith("Left out, as you asked: ")


def test_the_evaluation_scores_unseen_dialogues_and_the_corpora_never_seen() -> None:
    out = StringIO()
    call_command("eval_exclusions", "--folds", "2", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["n"] > 6000
    assert 40 <= report["leaving something out"] < 100
    assert report["shipped"]["f1"] >= report["unseen dialogues"]["f1"] >= 0.7
    assert report["unseen dialogues"]["false turns"] == 0
    # the SGD and NLU turns label nothing left out, and the tagger reads none of them so
    assert {name: row["read"] for name, row in report["other corpora"].items()} == {"sgd": [], "nlu": []}


@pytest.mark.parametrize(
    "text",
    ["show me events not in Denver", "what's on tomorrow?", "a haircut next week but not on the weekend"],
)
def test_leaving_out_the_features_the_tagger_does_not_weigh_changes_no_chance(text: str) -> None:
    tagger = shipped_reader().exclusions
    assert tagger is not None
    words = words_of(text)
    featured = token_features(words, None, informs=True)
    every, kept = exclusion_features(words, featured), exclusion_features(words, featured, tagger.attributes)
    assert sum(map(len, kept)) < sum(map(len, every)) * 0.6
    assert tagger.inside(items_of(kept)) == pytest.approx(tagger.inside(items_of(every)))


@pytest.mark.parametrize(
    "text",
    ["cancel the standups next week except the 12th", "cancel next week's standups but not on March 12"],
)
def test_a_day_left_out_is_that_day_not_its_weekday(week: tuple[Any, Conversation], text: str) -> None:
    # "the 12th" was left out as its words (nothing), or as every Thursday
    preview = _reply(week, text, "confirm")
    assert "March 13" in preview
    assert "March 9" in preview
    assert "March 12" not in preview
    assert "I did not use" not in preview


def _reply(week: tuple[Any, Conversation], text: str, kind: str) -> str:
    """The reply's text to ``text`` said on Wednesday morning, which must be of ``kind``."""
    with time_machine.travel(NOW, tick=False):
        reply = chat_turn(user=week[0], conversation=week[1], text=text)
    assert reply is not None
    assert reply.kind == kind, reply.text
    return str(reply.text)


def _answer(week: tuple[Any, Conversation], text: str) -> str:
    return _reply(week, text, "answer")


def _preview(week: tuple[Any, Conversation], text: str) -> str:
    return _reply(week, text, "confirm")


def _listed(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.lstrip().startswith("•")]


def test_a_title_left_out_is_not_looked_for_in_places(week: tuple[Any, Conversation]) -> None:
    """Pilates at the Yoga Works studio is no yoga: leaving out a title matches titles only."""
    text = _answer(week, "what's on next monday except yoga")
    assert "Pilates" in text
    assert "  Yoga" not in text
    assert text.endswith("Left out, as you asked: Yoga.")


def test_a_date_read_beside_an_exclusion_stays_the_day_asked_about(week: tuple[Any, Conversation]) -> None:
    """The tagger may read "tomorrow" as left out with "a class": the day asked about stays tomorrow."""
    text = _answer(week, "do I have anything that's not a class tomorrow")
    assert "Thursday, March 5" in text
    assert text.endswith("Left out, as you asked: classes.")


@pytest.mark.parametrize(
    "text", ["what have I got on Friday that's not a class?", "what's on friday besides my classes"]
)
def test_a_category_left_out_is_every_event_of_it(week: tuple[Any, Conversation], text: str) -> None:
    """It listed the classes as well, and said "class" was left out (no filter could do it)."""
    answer = _answer(week, text)
    assert "Dentist" in answer
    assert "Chemistry lab" not in answer
    assert answer.endswith("Left out, as you asked: classes.")


def test_a_bulk_change_leaves_out_what_the_turn_says_is_not_wanted(week: tuple[Any, Conversation]) -> None:
    """It previewed cancelling every event of the week, and said the words it did not use."""
    preview = _preview(week, "cancel everything next week that's not in Seattle")
    assert "Standup" in preview
    assert "Chemistry lab" in preview  # in Bellevue: still cancelled
    assert "Office party" not in preview  # in Seattle: left alone


@pytest.mark.parametrize(
    ("text", "kept", "left_out"),
    [
        ("what's happening this week outside of school", "Standup", "Calculus"),
        ("what do I have this week except my work calendar", "Calculus", "Standup"),
    ],
)
def test_a_calendar_left_out_keeps_the_others(db: Any, text: str, kept: str, left_out: str) -> None:
    """It kept the School calendar alone: a calendar was read from the words wherever they stood."""
    user, work = user_with_calendar("two")
    school = calendar_create(owner=user, key="school", name="School", timezone="America/New_York")
    for calendar, summary, day in ((work, "Standup", 5), (school, "Calculus lecture", 5)):
        event_create(
            calendar=calendar,
            summary=summary,
            start=datetime(2026, 3, day, 14, tzinfo=NEW_YORK),
            end=datetime(2026, 3, day, 15, tzinfo=NEW_YORK),
            timezone="America/New_York",
        )
    answer = _answer((user, conversation_create(user=user)), text)
    listed = _listed(answer)
    assert any(kept in line for line in listed)
    assert not any(left_out in line for line in listed)
    assert answer.splitlines()[-1].startswith("Left out, as you asked: your ")


@pytest.mark.parametrize(
    "text",
    [
        "on Friday skip my classes",  # a request of its own, no exception to a question
        "what's on Friday besides the lab?",  # one event: the lab, not every class
    ],
)
def test_a_category_word_that_names_no_kind_leaves_out_no_kind(
    week: tuple[Any, Conversation], text: str
) -> None:
    answer = _answer(week, text)
    assert "Left out, as you asked: classes." not in answer
    assert "Dentist" in answer


def test_a_calendar_s_name_before_an_event_is_no_calendar_left_out(db: Any) -> None:
    """'except the work meeting' left out the whole Work calendar."""
    user, work = user_with_calendar("named")
    calendar_create(owner=user, key="school", name="School", timezone="America/New_York")
    for summary, hour in (("Standup", 9), ("Budget meeting", 14)):
        event_create(
            calendar=work,
            summary=summary,
            start=datetime(2026, 3, 5, hour, tzinfo=NEW_YORK),
            end=datetime(2026, 3, 5, hour + 1, tzinfo=NEW_YORK),
            timezone="America/New_York",
        )
    answer = _answer(
        (user, conversation_create(user=user)), "what do I have tomorrow except the work meeting"
    )
    assert "Standup" in answer
    assert "your Work calendar" not in answer


def test_a_bulk_change_keeps_a_category_its_exception_names(week: tuple[Any, Conversation]) -> None:
    """It previewed deleting the lab, and said nothing of the words."""
    preview = _preview(week, "cancel everything on Friday except classes")
    assert "Dentist" in preview
    assert "Chemistry lab" not in preview
    assert "did not use" not in preview


def test_a_bulk_delete_of_what_is_not_a_class_keeps_the_classes(week: tuple[Any, Conversation]) -> None:
    """It previewed deleting the lab alone: the classes were read as what to delete."""
    preview = _preview(week, "delete my events on Friday that aren't classes")
    assert "Dentist" in preview
    assert "Chemistry lab" not in preview
    assert "did not use" not in preview


def test_a_place_left_out_is_named_as_typed(week: tuple[Any, Conversation]) -> None:
    assert _answer(week, "what do I have this week that isn't in Seattle").endswith(
        "Left out, as you asked: Seattle."
    )


def test_where_the_user_is_not_is_no_exception(week: tuple[Any, Conversation]) -> None:
    assert "Left out" not in _answer(week, "I'm not at the office on Friday, what do I have")


@pytest.mark.parametrize(
    ("text", "kept", "left", "said"),
    [
        # the place was read and dropped: every event of the period was listed
        ("anything in seattle next week?", "Office party", "Standup", "event in seattle"),
        ("what do I have in Bellevue this week", "Design review", "Dentist", "in Bellevue"),
        ("anything at Bellevue on friday?", "Chemistry lab", "Dentist", "at Bellevue"),
    ],
)
def test_a_place_asked_about_keeps_its_events(
    week: tuple[Any, Conversation], text: str, kept: str, left: str, said: str
) -> None:
    answer = _answer(week, text)
    listed = _listed(answer)
    assert any(kept in line for line in listed)
    assert not any(left in line for line in listed)
    assert said in answer


@pytest.mark.parametrize(
    "text",
    [
        "what do I have on friday in seattle time",  # a clock, not a place
        "what's on friday? I'm at home",  # where the user is
        "I'm not in seattle this week, what do I have",
    ],
)
def test_where_the_user_is_or_a_zone_keeps_every_event(week: tuple[Any, Conversation], text: str) -> None:
    """Each was read as a place the events must be at: the answer kept the Seattle ones or none."""
    listed = _listed(_answer(week, text))
    assert any("Standup" in line for line in listed)


def test_either_of_two_places_is_asked_about(week: tuple[Any, Conversation]) -> None:
    listed = _listed(_answer(week, "what do I have on friday in bellevue or seattle"))
    assert any("Dentist" in line for line in listed)
    assert any("Chemistry lab" in line for line in listed)
    assert not any("Standup" in line for line in listed)


@pytest.mark.parametrize(
    "text",
    ["what's on next monday except the yoga and pilates", "what's on next monday besides yoga and pilates"],
)
def test_each_item_of_a_list_left_out_is_left_out(week: tuple[Any, Conversation], text: str) -> None:
    """Two titles left out read as one name no title held, and nothing was left out."""
    answer = _answer(week, text)
    listed = " ".join(_listed(answer))
    assert "Standup" in listed
    assert "Pilates" not in listed
    assert "Yoga" not in listed
    assert answer.endswith("Left out, as you asked: Yoga and Pilates.")


def test_not_counting_leaves_out_what_it_names(week: tuple[Any, Conversation]) -> None:
    """'how many events next week not counting standups' counted the standups alone."""
    answer = _answer(week, "how many events next week not counting standups")
    assert answer.startswith("You have 4 events"), answer
    assert answer.endswith("Left out, as you asked: Standup.")


@pytest.mark.parametrize(
    "text",
    [
        "cancel everything next week except the hike and the pilates",
        "cancel everything next week except hike and pilates",
    ],
)
def test_a_bulk_change_keeps_each_item_its_exception_lists(week: tuple[Any, Conversation], text: str) -> None:
    """'... except the hike and the pilates' was read as two requests, the second cancelling the pilates."""
    preview = _preview(week, text)
    assert "Standup" in preview
    assert "Pilates" not in preview
    assert "Hike" not in preview


def test_a_day_said_only_after_what_is_left_out_is_the_days_events(week: tuple[Any, Conversation]) -> None:
    """ "Cancel all but the standup on Friday": Friday's events but the standup. It left out Fridays and
    the standups and previewed deleting every other event of the year ahead, Thursday's review among
    them, and said it would leave the review alone, "not on Friday, which you named"."""
    preview = _preview(week, "cancel all but the standup on friday")
    assert "Dentist" in preview
    assert "Chemistry lab" in preview
    assert "Standup" not in preview
    assert "Design review" not in preview
    assert "Office party" not in preview  # next Friday: another Friday


@pytest.mark.parametrize("text", ["cancel all but friday", "delete everything but friday"])
def test_all_but_a_day_leaves_that_day_out(week: tuple[Any, Conversation], text: str) -> None:
    """ "All but Friday": every event but Friday's. It deleted Friday's, the day it was asked to keep."""
    preview = _preview(week, text)
    assert "Design review" in preview
    assert "Dentist" not in preview
    assert "which you named" not in preview  # a day left out holds the changes to no day
