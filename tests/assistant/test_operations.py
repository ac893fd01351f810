"""The operation a turn asks for: how each corpus labels it, the model learnt from the labels, the
evaluation that scores it per corpus, and the rules taking its reading only where they found no verb,
always as a preview. Every sentence and program here is written for the test, not taken from a corpus."""

from __future__ import annotations

import json
from datetime import datetime
from io import StringIO
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError

from assistant.decomposer import DecomposeRequest, rules_decision
from assistant.decomposer.dialogue import without_acknowledgements
from assistant.decomposer.gate import ACT
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from assistant.nlu import read_turn
from assistant.nlu.examples import Example
from assistant.nlu.features import operation_features, turn_features
from assistant.nlu.labels import nlu_operation, sgd_operation, smcalflow_operation
from assistant.nlu.operations import OPERATIONS, OperationModel
from assistant.nlu.training import train_operations
from assistant.nlu.words import words_of
from tests.assistant.test_eval_turns import turns_file  # noqa: F401  (a fixture)
from tests.factories import user_with_calendar
from workflows.definition import Decision

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 4, 9, 0, tzinfo=NEW_YORK)  # a Wednesday

_EVENT = "(Event.id (Execute (refer (extensionConstraint (^(Event) EmptyStructConstraint)))))"


@pytest.mark.parametrize(
    ("program", "operation"),
    [
        ("(Yield (CreateCommitEventWrapper (CreatePreflightEventWrapper x)))", "create"),
        (f"(Yield (DeleteCommitEventWrapper (DeletePreflightEventWrapper {_EVENT})))", "delete"),
        (
            f"(Yield (UpdateCommitEventWrapper (UpdatePreflightEventWrapper {_EVENT} "
            "(Event.start_? (DateTime.date_? (?= (NextDOW (Friday))))))))",
            "move",
        ),
        (
            f"(Yield (UpdateCommitEventWrapper (UpdatePreflightEventWrapper {_EVENT} "
            "(Event.duration_? (?= (toHours 2))))))",
            "edit",
        ),
        ("(Yield (Execute (^(Dynamic) ConfirmAndReturnAction)))", "approve"),
        ("(DoNotConfirm)", "decline"),
        ("(Yield (Execute (ChooseCreateEvent 2 (refer (^(Dynamic) ActionIntensionConstraint)))))", "approve"),
        ("(Yield (Execute (ReviseConstraint (refer (^(Dynamic) roleConstraint x)))))", "detail"),
        ("(FenceWeather)", "out_of_scope"),
        ("(Yield (Person.phoneNumber (Execute (refer (extensionConstraint x)))))", "out_of_scope"),
        ("(PleasantryAnythingElseCombined)", "small_talk"),
        ("(Yield (Event.location (singleton (FindEventWrapperWithDefaults x))))", "attribute"),
        ("(Yield (Event.start (singleton (FindEventWrapperWithDefaults x))))", "query"),
        # two requests in one program, a create fenced off for its attendee, a reminder: no label
        ("(FenceMultiAction)", None),
        ("(FenceAttendee)", None),
        ("(FenceReminder)", None),
        ("(do (Yield (Execute ConfirmAndReturnAction)) (Yield (FindEventWrapperWithDefaults x)))", None),
        ("", None),
    ],
)  # fmt: skip
def test_smcalflow_programs_give_operations(program: str, operation: str | None) -> None:
    assert smcalflow_operation(program) == operation


@pytest.mark.parametrize(
    ("acts", "intent", "operation"),
    [
        ({"INFORM_INTENT", "INFORM"}, "AddEvent", "create"),
        ({"INFORM_INTENT"}, "GetAvailableTime", "query"),
        ({"REQUEST"}, None, "attribute"),
        ({"AFFIRM"}, None, "approve"),
        ({"SELECT", "THANK_YOU"}, None, "approve"),
        ({"NEGATE"}, None, "decline"),
        ({"NEGATE", "INFORM"}, None, "detail"),
        ({"INFORM"}, None, "detail"),
        ({"THANK_YOU", "GOODBYE"}, None, "small_talk"),
        ({"REQUEST_ALTS"}, None, None),
    ],
)
def test_sgd_acts_give_operations(acts: set[str], intent: str | None, operation: str | None) -> None:
    assert sgd_operation(frozenset(acts), intent) == operation


def test_nlu_intents_give_operations() -> None:
    assert [nlu_operation(i) for i in ("calendar_set", "calendar_query", "calendar_remove", "alarm_set")] == [
        "create",
        "query",
        "delete",
        None,
    ]


def _example(text: str, operation: str | None) -> Example:
    return Example(
        dialogue=text,
        text=text,
        asked=None,
        acts=frozenset(),
        intent=None,
        spans=(),
        canonical=(),
        operation=operation,
    )


def test_a_model_is_learnt_from_the_labelled_turns_only_and_the_same_twice() -> None:
    examples = [
        *(_example(f"add {w} on friday", "create") for w in ("yoga", "tennis", "lunch", "a call")),
        *(_example(f"what is on {d}", "query") for d in ("monday", "friday", "sunday", "today")),
        *(_example(f"cancel the {w}", "delete") for w in ("yoga", "tennis", "lunch", "call")),
        _example("something nobody labelled", None),
    ]
    data = train_operations(examples)
    assert data == train_operations(examples)
    assert data["turns"] == 12
    model = OperationModel.from_json(data)
    assert model.layer.labels == ("create", "delete", "query")
    words = words_of("cancel the choir")
    label, sure = model.predict(operation_features(words, turn_features(words, None)))
    assert label == "delete"
    assert 1 / 3 < sure <= 1


def test_fewer_than_three_operations_are_refused() -> None:
    with pytest.raises(ValueError, match="at least three operations"):
        train_operations([_example("add yoga", "create"), _example("cancel yoga", "delete")])


@pytest.mark.parametrize(
    ("text", "operation"),
    [
        ("I have to meet Priya on Friday morning", "create"),
        ("Lunch with Omar Friday 1pm at Nopa", "create"),
        ("what have I got on the 3rd?", "query"),
        ("please get rid of my violin lesson tomorrow", "delete"),
        ("who is coming to the board dinner?", "attribute"),
    ],
)
def test_the_shipped_model_reads_new_sentences(text: str, operation: str) -> None:
    reading = read_turn(text)
    assert reading.operation == operation
    assert reading.operation in OPERATIONS
    assert 0 < reading.operation_confidence <= 1


@pytest.fixture
def nlu_file(tmp_path: Path) -> Path:
    lines = [
        ("add yoga on friday", "calendar_set"),
        ("what is on monday", "calendar_query"),
        ("cancel the yoga", "calendar_remove"),
        ("put tennis on my calendar", "calendar_set"),
    ]
    path = tmp_path / "nlu.jsonl"
    path.write_text(
        "".join(json.dumps({"text": t, "intent": i, "annotated": t, "id": t}) + "\n" for t, i in lines),
        encoding="utf-8",
    )
    return path


def test_eval_operations_scores_each_corpus_three_ways(turns_file: Path, nlu_file: Path) -> None:  # noqa: F811
    out = StringIO()
    call_command(
        "eval_operations", "--corpus", f"sgd={turns_file}", "--corpus", f"nlu={nlu_file}", "--folds", "2",
        "--json", stdout=out,
    )  # fmt: skip
    report = json.loads(out.getvalue())
    assert report["nlu"]["n"] == 4
    assert report["nlu"]["labels"] == {"create": 2, "delete": 1, "query": 1}
    for column in ("unseen dialogues", "not seen corpus", "not seen corpus, known labels", "shipped"):
        assert 0 <= report["sgd"][column] <= 1
    # trained on the SGD turns alone, no model knows "delete": the known-label figure leaves it out
    assert report["nlu"]["not seen corpus, known labels"] is not None


def test_eval_operations_needs_two_corpora(turns_file: Path) -> None:  # noqa: F811
    with pytest.raises(CommandError, match="at least two corpora"):
        call_command("eval_operations", "--corpus", f"sgd={turns_file}", stdout=StringIO())
    with pytest.raises(CommandError, match="NAME=PATH"):
        call_command("eval_operations", "--corpus", "nowhere", stdout=StringIO())


def _decide(text: str) -> Decision:
    user, _ = user_with_calendar("ops", timezone="America/New_York")
    with time_machine.travel(NOW, tick=False):
        return rules_decision(DecomposeRequest(text=text, user=user, timezone="America/New_York"))


@pytest.mark.django_db
def test_a_statement_of_a_new_event_is_previewed_not_written() -> None:
    decision = _decide("Can you make me a haircut appointment for next Tuesday at 4?")
    assert decision.kind == "workflow"
    assert decision.frame["operation"] == "create"
    assert decision.confidence < ACT  # the model's reading alone: previewed first
    assert decision.workflow is not None
    create = next(t for t in decision.workflow.tasks if t.skill == "plan_create")
    assert create.params["start"] == "2026-03-10T16:00:00-04:00"
    assert create.params["summary"] == "Haircut appointment"
    apply = next(t for t in decision.workflow.tasks if t.skill == "apply_changes")
    assert apply.params.get("always_ask") is True


@pytest.mark.django_db
def test_a_question_stays_a_question_whatever_the_model_says() -> None:
    decision = _decide("do I have a two hour block on tuesday?")
    assert decision.frame["operation"] != "create"
    assert not any(t.skill == "plan_create" for t in (decision.workflow.tasks if decision.workflow else ()))


@pytest.mark.django_db
def test_a_statement_the_model_reads_as_a_look_up_starts_no_event() -> None:
    decision = _decide("I forgot where I'm having lunch tomorrow")
    assert decision.kind == "workflow"
    assert decision.workflow is not None
    assert decision.workflow.tasks[0].skill == "find_events"
    assert not any(t.skill == "plan_create" for t in decision.workflow.tasks)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "left_over", "tagged"),
    [
        ("Who is going to the harvest dinner?", "going to the harvest dinner", "harvest dinner"),
        ("Please get rid of the piano recital", "get rid of the piano recital", "piano recital"),
        ("When is my next book club?", "club", "book club"),
    ],
)
def test_an_event_no_calendar_title_names_is_named_by_the_tagger(
    text: str, left_over: str, tagged: str
) -> None:
    user, _ = user_with_calendar("names", timezone="America/New_York")
    world = World(user=user, now=NOW)
    assert understand(text, now=NOW, world=world).titles == [left_over]  # the words the rules left over
    assert understand(text, now=NOW, world=world, reading=read_turn(text)).titles == [tagged]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # the act classifier hears a "that one" (SELECT) in the first clause; the operation model hears
        # more of the request, so it is no acknowledgement to drop
        ("I have to go to 88 Maple Avenue # C, call it a Dentist visit please.", "88 Maple Avenue # C"),
        ("I have to go to 52 Pine Lane, call it a Physio session please.", "52 Pine Lane"),
        ("Sure. It's at 4 Elm Street", "It's at 4 Elm Street"),
    ],
)
def test_only_clauses_that_acknowledge_are_dropped(text: str, kept: str) -> None:
    assert kept in without_acknowledgements(text, now=NOW)
    assert ("Sure." in without_acknowledgements(text, now=NOW)) is False


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a name before "Cy and I ...": the list's first member, though the model hears a faint yes in it
        ("Bo, Cy and I need a call tomorrow at 3", "Bo, Cy and I need a call tomorrow at 3"),
        ("Ann Lee, Bo and I will meet on Friday", "Ann Lee, Bo and I will meet on Friday"),
        # a greeting or a clear acknowledgement before the list is still dropped
        ("Hi, Ann and I need a call tomorrow at 3", "Ann and I need a call tomorrow at 3"),
        ("Great, Ann and I will meet tomorrow at 3", "Ann and I will meet tomorrow at 3"),
    ],
)
def test_a_list_of_people_is_not_taken_for_an_acknowledgement(text: str, read: str) -> None:
    assert without_acknowledgements(text, now=NOW) == read
