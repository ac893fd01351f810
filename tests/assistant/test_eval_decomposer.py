"""``manage.py eval_decomposer``: what counts as a hit, how names are matched, and the refused LLM choice."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assistant.evaluation.decomposer_eval import label_of, name_found, report_of
from workflows.definition import Decision


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


def test_llm_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"LLM decomposer is not available yet.*--decomposer rules"):
        call_command("eval_decomposer", str(tmp_path / "absent.jsonl"), "--decomposer", "llm")


def test_rules_gets_past_the_decomposer_check(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="No such file"):
        call_command("eval_decomposer", str(tmp_path / "absent.jsonl"), "--decomposer", "rules")
