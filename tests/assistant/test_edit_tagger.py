"""What an edit gives an event, as the edit tagger learnt it from SMCalFlow's edits: the examples made
from programs, the shipped tagger on sentences written here (none from the corpora), and its
evaluation. What the chat does with it is in test_edits."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from assistant.nlu import read_edit
from assistant.nlu.edits import edit_spans

_PERSON = '(RecipientWithNameLike (^(Recipient) EmptyStructConstraint) (PersonName.apply "{}"))'
_REPLACE = (
    "(Yield (UpdateCommitEventWrapper (UpdatePreflightEventWrapper (Event.id (singleton "
    '(QueryEventResponse.results (FindEventWrapperWithDefaults (Event.subject_? (?~= "{event}")))))) '
    "(Event.attendees_? (& (AttendeeListExcludesRecipient (?= (Execute (refer (extensionConstraint "
    f"{_PERSON.format('{gone}')}))))) (AttendeeListHasRecipient (Execute (refer (extensionConstraint "
    f"{_PERSON.format('{new}')})))))))))"
)
_RETITLE = (
    "(Yield (UpdateCommitEventWrapper (UpdatePreflightEventWrapper (Event.id (singleton "
    '(QueryEventResponse.results (FindEventWrapperWithDefaults (Event.subject_? (?~= "{old}")))))) '
    '(Event.subject_? (?= "{new}")))))'
)


def test_an_edit_gives_the_new_values_and_leaves_the_event_s_own_words_out() -> None:
    spans = edit_spans(
        "swap Nadia for Tom at the roadmap sync",
        _REPLACE.format(event="roadmap sync", gone="Nadia", new="Tom"),
    )
    assert [(s.slot, s.text) for s in spans or ()] == [("uninvited", "Nadia"), ("invited", "Tom")]
    renamed = edit_spans(
        "change Book club to Reading circle", _RETITLE.format(old="Book club", new="Reading circle")
    )
    assert [(s.slot, s.text) for s in renamed or ()] == [("new_title", "Reading circle")]


_LENGTHEN = (
    "(Yield (UpdateCommitEventWrapper (UpdatePreflightEventWrapper (Event.id (singleton "
    '(QueryEventResponse.results (FindEventWrapperWithDefaults (Event.subject_? (?~= "offsite")))))) '
    "(Event.duration_? (?= {})))))"
)


def test_a_length_set_or_added_is_the_length_the_time_reader_finds() -> None:
    made = edit_spans("can the offsite run for an hour and a half", _LENGTHEN.format("(toHours (+ 1 0.5))"))
    assert [(s.slot, s.text) for s in made or ()] == [("new_length", "an hour and a half")]
    added = edit_spans(
        "give the offsite 20 more minutes",
        _LENGTHEN.format("(addDurations (Event.duration x0) (toMinutes 20))"),
    )
    assert [(s.slot, s.text) for s in added or ()] == [("added_length", "20 more minutes")]
    # a length the words do not hold as the time reader reads it is not taught
    assert edit_spans("make the offsite longer", _LENGTHEN.format("(toHours 2)")) is None


def test_an_edit_whose_value_the_words_do_not_hold_is_not_taught() -> None:
    # the annotator wrote the name the user misspelt: taught as giving nothing, it would teach wrong
    assert edit_spans("call it Reading cirle", _RETITLE.format(old="Book club", new="Reading circle")) is None


@pytest.mark.parametrize(
    ("text", "given"),
    [
        ("please invite Maria Lopez to the team offsite", [("invited", "Maria Lopez")]),
        ("Can you take Jordan off the budget review?", [("uninvited", "Jordan")]),
        ("Set the location to Union Station", [("new_place", "Union Station")]),
        ("Can you rename it to Quarterly planning", [("new_title", "Quarterly planning")]),
        ("Add Priya and Omar to the kickoff", [("invited", "Priya"), ("invited", "Omar")]),
        ("Could the offsite be three hours instead?", [("new_length", "three hours")]),
        ("Extend the standup by 10 minutes", [("added_length", "10 minutes")]),
    ],
)
def test_the_shipped_tagger_reads_what_new_sentences_give(text: str, given: list[tuple[str, str]]) -> None:
    spans, sure = read_edit(text)
    assert [(s.slot, s.text) for s in spans] == given
    assert 0.5 <= sure <= 1.0


@pytest.mark.parametrize("text", ["move the dentist to Friday", "what's on tomorrow?", ""])
def test_a_turn_that_edits_nothing_gives_nothing(text: str) -> None:
    assert read_edit(text) == ((), 0.0)


def test_the_evaluation_scores_unseen_dialogues_beside_the_shipped_tagger() -> None:
    out = StringIO()
    call_command("eval_edits", "--folds", "2", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["n"] > 400
    assert report["edits"] > 150
    unseen, shipped = report["unseen dialogues"]["all"], report["shipped"]["all"]
    assert shipped["f1"] >= unseen["f1"] >= 0.6
    kinds = {"new_title", "new_place", "invited", "uninvited", "new_length", "added_length", "all"}
    assert set(report["unseen dialogues"]) == kinds
