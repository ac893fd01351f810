"""``manage.py train_turns`` and ``eval_turns`` on a small file of turns written here, in the format of
the shared SGD calendar file (the real file takes minutes; it is never used in the suite)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assistant.nlu.shipped import ACTS_FILE, NAMES_FILE, OPERATIONS_FILE, SPANS_FILE

KEYS = {"act_accuracy", "intent_accuracy", "span_f1", "value_accuracy", "n", "p50_ms", "p95_ms"}

_TITLES = ["Piano lesson", "Chess club", "Book swap", "Team sync", "Pottery class", "Choir practice"]
_STREETS = ["12 Elm Road", "4 Mill Lane", "80 Bay Street", "7 Cedar Court", "31 Park Avenue", "9 Hill Way"]


def _act(act: str, slot: str = "", *values: str) -> dict[str, Any]:
    return {"act": act, "slot": slot, "values": list(values)}


def _slot(text: str, slot: str, value: str, canonical: str) -> dict[str, Any]:
    start = text.index(value)
    return {"slot": slot, "value": value, "start": start, "end": start + len(value), "canonical": canonical}


def _dialogue(n: int) -> list[dict[str, Any]]:
    """Four turns: announce adding an event, name it, place it, close; or look up a day, then close."""
    title, street, day = _TITLES[n], _STREETS[n], 3 + n
    ask_day = f"What do I have on the {day}th?"
    if n % 2:
        turns = [
            (ask_day, "", [_act("INFORM_INTENT", "intent", "GetEvents"), _act("INFORM", "event_date")],
             [_slot(ask_day, "event_date", f"the {day}th", f"2019-03-{day:02d}")]),
            ("That sounds good, thanks.", "You have one event.", [_act("SELECT"), _act("THANK_YOU")], []),
        ]  # fmt: skip
    else:
        name, place = f"Call it {title}.", f"It is at {street}."
        turns = [
            ("I want to add an event.", "", [_act("INFORM_INTENT", "intent", "AddEvent")], []),
            (name, "What should I call it?", [_act("INFORM", "event_name")],
             [_slot(name, "event_name", title, title)]),
            (place, "Where is it?", [_act("INFORM", "event_location")],
             [_slot(place, "event_location", street, street)]),
            ("No, thanks.", "Anything else?", [_act("NEGATE"), _act("THANK_YOU")], []),
        ]  # fmt: skip
    return [
        {
            "dialogue_id": f"t_{n:05d}",
            "turn": 2 * i,
            "text": text,
            "prev_system": prompt,
            "services": ["Calendar_1"],
            "intent": "NONE",
            "acts": acts,
            "slots": slots,
        }
        for i, (text, prompt, acts, slots) in enumerate(turns)
    ]


@pytest.fixture
def turns_file(tmp_path: Path) -> Path:
    path = tmp_path / "turns.jsonl"
    records = [record for n in range(len(_TITLES)) for record in _dialogue(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _eval(*args: str) -> str:
    out = StringIO()
    call_command("eval_turns", *args, stdout=out)
    return out.getvalue()


def test_json_report(turns_file: Path) -> None:
    report = json.loads(_eval(str(turns_file), "--folds", "2", "--json"))
    assert set(report) >= KEYS
    assert report["n"] == 18
    slots = {"date", "time", "title", "location", "person"}
    assert set(report["span_f1"]) == set(report["value_accuracy"]) == slots
    assert 0 <= report["act_accuracy"] <= 1
    assert report["p95_ms"] >= report["p50_ms"] > 0
    assert set(report["shipped"]) >= KEYS
    assert report["shipped"]["train_equals_test"] is False


def test_table_report_and_misses(turns_file: Path) -> None:
    table = _eval(str(turns_file), "--folds", "3", "--misses")
    assert "cross-validated (3 folds over 6 dialogues; unseen text): 18 turns" in table
    assert "shipped models on turns.jsonl (not trained on this file)" in table
    for label in ("acts exact", "announced intent", "span F1", "value", "p50", "turns read wrong"):
        assert label in table


def test_more_folds_than_dialogues_is_refused(turns_file: Path) -> None:
    with pytest.raises(CommandError, match="7 folds need at least 7 dialogues"):
        _eval(str(turns_file), "--folds", "7")


def test_train_turns_writes_the_same_files_twice(turns_file: Path, tmp_path: Path) -> None:
    out = StringIO()
    names = ("--names-corpus", f"sgd={turns_file}")  # the names tagger on these turns too, not all corpora
    call_command("train_turns", str(turns_file), *names, "--out", str(tmp_path / "one"), stdout=out)
    call_command("train_turns", str(turns_file), *names, "--out", str(tmp_path / "two"), stdout=StringIO())
    said = out.getvalue()
    assert "turns.jsonl, titles, places and people on 18 turns of sgd, operations on" in said
    for name in (ACTS_FILE, SPANS_FILE, NAMES_FILE, OPERATIONS_FILE):
        first = (tmp_path / "one" / name).read_bytes()
        assert first
        assert first == (tmp_path / "two" / name).read_bytes()
    trained_on = json.loads((tmp_path / "one" / ACTS_FILE).read_text())["trained_on"]
    assert trained_on["file"] == "turns.jsonl"
    assert trained_on["turns"] == 18
