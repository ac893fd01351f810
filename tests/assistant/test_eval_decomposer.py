"""``manage.py eval_decomposer``: what counts as a hit (a model's plan read from its skills), how names
are matched, what the model cost, and a model choice refused without a model."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from assistant.evaluation.decomposer_eval import label_of, name_found, operation_of, reading_of, report_of
from assistant.llm.calls import CallOutcome, CallRecord
from workflows.definition import Decision, TaskSpec, WorkflowDefinition


@pytest.mark.parametrize(
    ("value", "names", "found"),
    [
        ("al", ["also"], False),
        ("al", ["Al"], True),
        ("john's", ["John"], True),
        ("ms boland", ["Ms. Boland"], True),
        ("peter francis", ["peter", "francis"], False),  # all words in one name, not spread over two
        ("sunday gym", ["gym"], False),
        ("meeting", ["meeting with al"], True),
        ("'s", ["anything"], False),  # no word to find
    ],
)
def test_names_match_by_whole_normalised_words(value: str, names: list[str], found: bool) -> None:
    assert name_found(value, names) is found


def _question(operation: str, **frame: Any) -> Decision:
    return Decision(kind="clarify", reply_kind="clarify", text="?", frame={"operation": operation, **frame})


def test_only_a_question_on_the_way_to_scheduling_takes_an_intent() -> None:
    assert label_of(_question("create")) == "calendar_set"
    assert label_of(_question("move")) == "calendar_set"
    assert label_of(_question("delete")) == "clarify"
    assert label_of(_question("query")) == "clarify"
    assert (
        label_of(Decision(kind="answer", text="3 events", frame={"operation": "delete"})) == "calendar_remove"
    )


def test_report_keeps_questions_apart_from_acting() -> None:
    outcomes: list[tuple[dict[str, Any], Decision, float]] = [
        (
            {"text": "a", "intent": "calendar_set", "slots": [{"type": "person", "value": "al"}]},
            _question("create", person_names=["also"], titles=["meeting"]),
            1.0,
        ),
        (
            {
                "text": "b",
                "intent": "calendar_remove",
                "slots": [{"type": "event_name", "value": "sunday gym"}],
            },
            _question("delete", titles=["gym"]),
            2.0,
        ),
        (
            {"text": "c", "intent": "calendar_query", "slots": [{"type": "person", "value": "john's"}]},
            Decision(kind="answer", text="Nothing.", frame={"operation": "query", "person_names": ["John"]}),
            3.0,
        ),
        (
            {"text": "d", "intent": "calendar_set", "slots": [{"type": "event_name", "value": "meeting"}]},
            Decision(kind="answer", reply_kind="error", text="No.", frame={"operation": "out_of_scope"}),
            4.0,
        ),
    ]
    report = report_of(outcomes).as_json(with_misses=True)
    assert report["n"] == 4
    assert report["intent_accuracy"] == 0.5  # the create question and the query
    assert report["strict_intent_accuracy"] == 0.25  # the query only
    assert report["acted_intent_accuracy"] == 0.5  # the query of the two answers
    assert (report["n_acted"], report["n_clarify"], report["n_clarify_toward_set"]) == (2, 2, 1)
    assert report["clarify_rate"] == 0.5
    assert (report["person_recall"], report["n_person"]) == (0.5, 2)
    assert (report["event_name_recall"], report["n_event_name"]) == (0.0, 2)
    assert report["confusion"]["calendar_remove"] == {"clarify": 1}
    assert report["confusion"]["calendar_set"] == {"calendar_set": 1, "other": 1}
    assert report["per_intent"]["calendar_set"] == {"precision": 1.0, "recall": 0.5}
    whys = [(m["text"], m["expected"], m["why"]) for m in report["misses"]]
    assert whys == [
        ("a", "person 'al'", "no person of the reading has every word of it"),
        ("b", "calendar_remove", "asked instead of acting (read as calendar_remove)"),
        ("b", "event name 'sunday gym'", "no event name of the reading has every word of it"),
        ("d", "calendar_set", "acted as other"),
        ("d", "event name 'meeting'", "no event name of the reading has every word of it"),
    ]


@pytest.mark.django_db
def test_command_on_a_small_file(tmp_path: Path) -> None:
    rows = [
        {
            "text": "book a dinner with al",
            "intent": "calendar_set",
            "slots": [{"type": "person", "value": "al"}, {"type": "event_name", "value": "dinner"}],
        },
        {
            "text": "what do i have on friday",
            "intent": "calendar_query",
            "slots": [{"type": "person", "value": "bo"}],
        },
    ]
    path = tmp_path / "utterances.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    clock = ["--now", "2026-03-02T09:00", "--tz", "America/New_York"]

    out = StringIO()
    call_command("eval_decomposer", str(path), *clock, "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert set(report) >= {
        "n",
        "intent_accuracy",
        "clarify_rate",
        "person_recall",
        "event_name_recall",
        "p50_ms",
    }
    # "book a dinner with al" has no time: the create asks for one, a hit for intent but not for acting
    assert (report["intent_accuracy"], report["strict_intent_accuracy"]) == (1.0, 0.5)
    assert (report["n_clarify_toward_set"], report["acted_intent_accuracy"]) == (1, 1.0)
    assert (report["person_recall"], report["event_name_recall"]) == (0.5, 1.0)

    out = StringIO()
    call_command("eval_decomposer", str(path), *clock, "--misses", stdout=out)
    assert "'what do i have on friday': expected person 'bo'; got none;" in out.getvalue()


def _plan(*steps: str | tuple[str, dict[str, Any]]) -> Decision:
    """A model's decision: a workflow of these skills (with params), and no frame."""
    tasks = []
    for number, step in enumerate(steps):
        skill, params = step if isinstance(step, tuple) else (step, {})
        tasks.append(TaskSpec(id=f"t{number}", skill=skill, params=params))
    return Decision(kind="workflow", workflow=WorkflowDefinition(name="llm-plan", tasks=tuple(tasks)))


@pytest.mark.parametrize(
    ("skills", "operation", "label"),
    [
        (["find_events", "plan_move", "apply_changes", "compose_reply"], "move", "calendar_set"),
        (["find_events", "plan_delete", "apply_changes", "compose_reply"], "delete", "calendar_remove"),
        (["plan_create", "apply_changes", "compose_reply"], "create", "calendar_set"),
        (["find_events", "plan_edit", "apply_changes", "compose_reply"], "move", "calendar_set"),
        (["set_preference", "compose_reply"], "preference_set", "calendar_set"),
        (["find_events", "count_events", "compose_reply"], "count", "calendar_query"),
        (["free_slots", "compose_reply"], "free", "calendar_query"),
        (["describe_preferences", "compose_reply"], "preference_get", "calendar_query"),
        (["find_events", "compose_reply"], "query", "calendar_query"),
        (["compose_reply"], "query", "calendar_query"),
        (["undo_changes", "compose_reply"], "undo", "other"),
        (["ask_user"], "", "other"),
    ],
)
def test_a_plan_without_a_frame_is_read_from_its_skills(
    skills: list[str], operation: str, label: str
) -> None:
    decision = _plan(*skills)
    assert operation_of(decision) == operation
    assert label_of(decision) == label


def test_a_change_the_plan_makes_wins_over_the_frame_which_wins_over_other_skills() -> None:
    # what the user gets: "I have a hike at 3:30" reads as no request, then starts a new event
    changed = _plan("plan_create", "apply_changes").model_copy(update={"frame": {"operation": "unknown"}})
    assert label_of(changed) == "calendar_set"
    framed = _plan("count_events", "compose_reply").model_copy(update={"frame": {"operation": "query"}})
    assert label_of(framed) == "calendar_query"
    assert label_of(Decision(kind="clarify", reply_kind="clarify", text="When?")) == "clarify"
    assert label_of(Decision(kind="answer", text="Hello!")) == "other"


def _call(outcome: CallOutcome = "ok", ms: float = 10.0, tokens: tuple[int, int] = (50, 10)) -> CallRecord:
    return CallRecord(
        phase="orchestrate",
        model="m",
        outcome=outcome,
        input_tokens=tokens[0],
        output_tokens=tokens[1],
        latency_ms=ms,
    )


def test_a_plans_people_and_titles_come_from_its_params_and_the_model_is_counted_per_turn() -> None:
    plan = _plan(
        ("find_events", {"text": "dentist", "attendee": "bo@example.com"}),
        ("plan_create", {"summary": "dinner with al", "attendees": ["al", "{{t0.output.events}}"]}),
        "apply_changes",
    )
    fallback = Decision(kind="clarify", reply_kind="clarify", text="?", notes=("The model didn't answer.",))
    rows: list[dict[str, Any]] = [
        {
            "text": "a",
            "intent": "calendar_set",
            "slots": [
                {"type": "person", "value": "bo"},
                {"type": "person", "value": "al"},
                {"type": "event_name", "value": "dinner"},
                {"type": "event_name", "value": "gym"},
            ],
        },
        {"text": "b", "intent": "calendar_query", "slots": []},
        {"text": "c", "intent": "calendar_query", "slots": []},
    ]
    calls = [
        [_call(ms=10), _call(ms=30), _call(ms=20)],  # phases overlap: the turn's latency is their sum
        [],  # the rules answered: not sent
        [_call("http_error", ms=5, tokens=(0, 0))],
    ]
    outcomes = [(rows[0], plan, 50.0), (rows[1], _question("query"), 1.0), (rows[2], fallback, 6.0)]

    report = report_of(outcomes, calls=calls).as_json()

    assert report["confusion"]["calendar_set"] == {"calendar_set": 1}
    assert (report["person_recall"], report["event_name_recall"]) == (1.0, 0.5)
    assert report["model"] == {
        "turns_sent": 2,
        "share_sent": 0.6667,
        "calls": 4,
        "input_tokens": 150,
        "output_tokens": 30,
        "input_tokens_per_turn": 75.0,
        "output_tokens_per_turn": 15.0,
        "latency_p50_ms": 32.5,  # the median of 60 and 5
        "latency_p95_ms": 60.0,
        "failures": {"http_error": 1},
        "fallbacks": 1,
        "models": ["m"],
    }


@pytest.mark.parametrize("decomposer", ["routed", "llm", "llm-single"])
@pytest.mark.parametrize(
    ("command", "absent"), [("eval_decomposer", "absent.jsonl"), ("run_scenarios", "absent.yaml")]
)
def test_a_model_choice_without_a_model_is_refused_before_anything_runs(
    tmp_path: Path, command: str, absent: str, decomposer: str
) -> None:
    """Both measuring commands: refused, not run as the rules under the model's name."""
    # an absent file would be the first complaint if the decomposer choice were not checked first
    with (
        override_settings(LLM_MODEL="", LLM_BASE_URL=""),
        pytest.raises(
            CommandError, match=rf"^The {decomposer} decomposer needs .*Set LLM_MODEL.*LLM_BASE_URL"
        ),
    ):
        call_command(command, str(tmp_path / absent), "--decomposer", decomposer)


def test_wrong_model_settings_are_refused_with_what_is_wrong(tmp_path: Path) -> None:
    with (
        override_settings(LLM_MODEL="", LLM_BASE_URL="http://127.0.0.1:9/v1"),
        pytest.raises(CommandError, match=r"LLM_BASE_URL is set but LLM_MODEL is empty.*Nothing was run"),
    ):
        call_command("eval_decomposer", str(tmp_path / "absent.jsonl"), "--decomposer", "llm")


def test_rules_gets_past_the_decomposer_check(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="No such file"):
        call_command("eval_decomposer", str(tmp_path / "absent.jsonl"), "--decomposer", "rules")


def test_titles_are_read_as_the_plan_or_the_question_shows_them() -> None:
    frame = {"operation": "create", "titles": ["date"], "person_names": ["ann"], "people": []}
    plan = WorkflowDefinition(
        name="create-event",
        tasks=(TaskSpec(id="plan", skill="plan_create", params={"summary": "Date night"}),),
    )
    made = Decision(kind="workflow", workflow=plan, frame=frame)
    assert reading_of(made) == (["ann"], ["Date night"])  # the event made, not the rules' first words
    asked = Decision(
        kind="clarify", text="When?", frame=frame, context_update={"draft": {"title": "Date night"}}
    )
    assert reading_of(asked) == (["ann"], ["Date night"])
    unnamed = Decision(kind="clarify", text="What?", frame=frame)
    assert reading_of(unnamed) == (["ann"], ["date"])  # nothing shown: the frame's words
