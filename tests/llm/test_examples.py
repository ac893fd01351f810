"""The planner's params examples, learned from the rules' plans: built the same way twice, only from
plans the rules act on, and shown to phase 3."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assistant.llm.examples import EXAMPLES_FILE, examples_for
from assistant.llm.phases import Turn, params_prompt
from skills.registry import REGISTRY

pytestmark = pytest.mark.django_db


@pytest.fixture
def requests_file(tmp_path: Path) -> Path:
    path = tmp_path / "requests.jsonl"
    lines = [
        {"text": "Move tomorrow's standup to 9"},
        {"text": "what do i have tomorrow"},
        {"text": "call sarah"},  # the rules are unsure of it: teaches nothing
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def test_the_same_requests_give_the_same_bytes(requests_file: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    out = StringIO()
    call_command("build_plan_examples", str(requests_file), "--out", str(one), stdout=out)
    call_command("build_plan_examples", str(requests_file), "--out", str(two), stdout=StringIO())
    assert one.read_bytes() == two.read_bytes()
    examples = json.loads(one.read_text())
    assert "from 3 utterances" in out.getvalue()
    (move,) = examples["plan_move"]
    assert move["request"] == "Move tomorrow's standup to 9"
    assert move["params"]["at_time"] == "09:00"
    assert move["earlier"] == {"choose": "choose_event"}
    assert {e["request"] for es in examples.values() for e in es} == {
        "Move tomorrow's standup to 9",
        "what do i have tomorrow",
    }


def test_a_missing_source_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="No such file or folder"):
        call_command("build_plan_examples", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "x.json"))


def test_phase_three_is_shown_the_shipped_examples_of_its_skill() -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    assert EXAMPLES_FILE.is_file()
    shipped = examples_for("plan_move")
    assert shipped
    turn = Turn(text="x", now=datetime(2026, 3, 2, 9, tzinfo=ZoneInfo("America/New_York")), timezone="UTC")
    _, prompt = params_prompt(turn, REGISTRY.get("plan_move"), "move it", [])
    assert "Examples:" in prompt
    assert repr(shipped[0]["request"]) in prompt
    assert examples_for("list_calendars") == []
