"""The bench's LLM planner rows: prompt sizes on the eval set against their targets, and the planning
overhead measured through the real HTTP path against the loopback server (answering by phase, so
phases 2 and 3's concurrent questions get the right answers whatever order they arrive in)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model

from assistant.bench import llm_planner
from assistant.bench.llm_planner import PLANS, est_tokens, planning_overhead, prompt_sizes
from assistant.bench.runner import PROMPT_PHASE1, PROMPT_SINGLE, planning_notes, prompt_rows
from assistant.llm import phases
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

# Enough utterances to vary in length (the full set takes about 3 s, mostly the single-phase prompts).
UTTERANCES = 60


@pytest.fixture(scope="module")
def utterances() -> list[str]:
    return llm_planner.eval_utterances(limit=UTTERANCES)


def test_phase_one_is_under_700_est_tokens_and_a_tenth_of_the_single_phase_prompt(
    utterances: list[str],
) -> None:
    user, _ = user_with_calendar("prompts", key="personal", name="Personal")
    sizes = prompt_sizes(user=user, utterances=utterances)
    assert sizes.utterances == UTTERANCES
    rows = {row.name: row for row in prompt_rows(sizes)}
    phase1, single = rows[PROMPT_PHASE1], rows[PROMPT_SINGLE]
    assert phase1.met is True, (max(sizes.phase1), phase1.notes)
    assert single.met is True, (single.ratio, single.notes)
    assert max(sizes.phase1) <= 700
    assert single.ratio == max(p / s for p, s in zip(sizes.phase1, sizes.single, strict=True)) <= 0.10
    # The output schema is counted: without it phase 1 would look smaller than it is.
    assert sizes.phase1_schema > 100
    # Every service has a phase 2 size; phase 3 only for skills with inputs.
    assert set(sizes.select) == set(phases.contracts().services)
    assert "find_events" in sizes.params
    assert set(sizes.no_params).isdisjoint(sizes.params)


def test_a_longer_request_makes_a_longer_phase_one_prompt(utterances: list[str]) -> None:
    user = get_user_model().objects.create_user("prompts-plain")
    short, long = prompt_sizes(user=user, utterances=["hi", "hi " * 400]).phase1
    assert long - short == pytest.approx(est_tokens(len("hi " * 400) - len("hi")), abs=1)


def test_the_estimate_is_what_the_planner_sends(utterances: list[str]) -> None:
    """Phase 1's estimate (instructions, prompt, output schema) against the bytes of the request the
    loopback server received for the same turn, within 10% (pydantic-ai reshapes the schema a little)."""
    user = get_user_model().objects.create_user("prompts-bare")
    script = PLANS["one"]
    estimated = prompt_sizes(user=user, utterances=[script.text]).phase1[0]
    sent = planning_overhead(script, repeat=1, warmup=0).request_tokens["orchestrate"]
    assert sent == pytest.approx(estimated, rel=0.10)


@pytest.mark.parametrize(
    ("key", "asked"),
    [
        ("one", {"orchestrate": 1, "select:reply": 1, "params:compose_reply": 1}),
        (
            "two",
            {
                "orchestrate": 1,
                "select:calendar": 1,
                "select:changes": 1,
                "params:apply_changes": 1,
                "params:find_events": 1,
                "params:plan_move": 1,
            },
        ),
    ],
)
def test_planning_overhead_is_measured_against_the_loopback_server(key: str, asked: dict[str, int]) -> None:
    overhead = planning_overhead(PLANS[key], repeat=3)
    assert overhead.turns == 3
    assert overhead.calls == Counter({phase: 3 * n for phase, n in asked.items()})
    assert overhead.per_turn() == asked
    assert list(overhead.request_tokens) == list(asked)  # by phase, then service or skill
    assert overhead.ours.n == overhead.wall.n == overhead.server.n == 3
    for ours, wall, server in zip(
        overhead.ours.samples, overhead.wall.samples, overhead.server.samples, strict=True
    ):
        assert 0 < server < wall
        assert ours == pytest.approx(wall - server)
    notes = planning_notes(overhead)
    assert f"{sum(asked.values())} requests a turn" in notes
    assert "orchestrate ×1" in notes


def test_a_plan_the_loopback_model_cannot_answer_stops_the_measurement() -> None:
    script = PLANS["two"]
    answers = {k: v for k, v in script.answers.items() if k != "params:plan_move"}
    with pytest.raises(RuntimeError, match="params:plan_move"):
        planning_overhead(dataclasses.replace(script, answers=answers), repeat=1, warmup=0)


def test_a_plan_that_comes_out_otherwise_stops_the_measurement() -> None:
    script = dataclasses.replace(PLANS["one"], tasks=("somewhere_else",))
    with pytest.raises(RuntimeError, match="came out workflow"):
        planning_overhead(script, repeat=1, warmup=0)


def test_the_phase_of_a_request_is_read_from_its_prompt() -> None:
    from tests.llm.openai_server import RecordedRequest

    turn = phases.Turn(text="x", now=datetime(2026, 3, 2, 9, tzinfo=ZoneInfo("UTC")), timezone="UTC")

    def request(prompts: tuple[str, str]) -> Any:
        messages = [{"role": "system", "content": prompts[0]}, {"role": "user", "content": prompts[1]}]
        return RecordedRequest(
            "POST", "/v1/chat/completions", {}, json.loads(json.dumps({"messages": messages}))
        )

    from skills.registry import REGISTRY

    assert llm_planner.phase_of(request(phases.orchestrate_prompt(turn))) == "orchestrate"
    assert llm_planner.phase_of(request(phases.single_prompt(turn))) == "single"
    assert llm_planner.phase_of(request(phases.select_prompt(turn, "data", "x", []))) == "select:data"
    skill = REGISTRY.get("plan_move")
    assert llm_planner.phase_of(request(phases.params_prompt(turn, skill, "x", []))) == "params:plan_move"
