"""``eval_decomposer --decomposer llm`` and ``run_scenarios --decomposer llm`` against the configured
model (the loopback OpenAI server): the tokens and latency it reported beside the accuracy, and a model
that fails counted as a fallback to the rules, not a crash.

Phases 2 and 3 ask concurrently, so over one FIFO queue only a plan of one subtask with one step is
deterministic: orchestrate -> select:reply -> params:compose_reply. A direct answer is one call.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import override_settings
from pydantic_ai.models import Model

from tests.llm.openai_server import Completion, HttpError, OpenAIServer, http_error, output

pytestmark = pytest.mark.django_db
CLOCK = ["--now", "2026-03-02T09:00", "--tz", "America/New_York"]

REPLY_PLAN = (
    output(
        {
            "kind": "plan",
            "confidence": 0.9,
            "subtasks": [{"id": "reply", "service": "reply", "instruction": "say what is on Friday"}],
        }
    ),
    output({"steps": [{"id": "say", "skill": "compose_reply", "instruction": "say it"}]}),
    output({"params": {"style": "text", "text": "Nothing on Friday."}}),
)
HELLO = output({"kind": "answer", "confidence": 0.9, "text": "Hello there! Ask me about your calendar."})
# The openai SDK retries a 500 twice by itself: three make the call fail.
DOWN: tuple[HttpError, ...] = (http_error(500, headers={"Retry-After": "0.01"}),) * 3


def utterances(tmp_path: Path, *rows: tuple[str, str]) -> Path:
    path = tmp_path / "utterances.jsonl"
    lines = [json.dumps({"text": text, "intent": intent, "slots": []}) for text, intent in rows]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def eval_json(path: Path, *flags: str) -> dict[str, Any]:
    out = StringIO()
    call_command("eval_decomposer", str(path), *CLOCK, "--json", *flags, stdout=out)
    return json.loads(out.getvalue())


def test_eval_reports_the_tokens_the_model_reported_beside_the_accuracy(
    served_model: Model, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = utterances(tmp_path, ("what do i have on friday", "calendar_query"), ("hi", "calendar_set"))
    openai_server.queue(*REPLY_PLAN, HELLO)

    report = eval_json(path, "--decomposer", "llm")

    assert len(openai_server.chat_requests) == 4
    assert report["decomposer"] == "llm"
    # the plan replies with compose_reply only: a query, scored from its skills (it has no frame);
    # the model's direct answer to "hi" is no operation
    assert report["confusion"] == {
        "calendar_set": {"other": 1},
        "calendar_query": {"calendar_query": 1},
        "calendar_remove": {},
    }
    assert report["intent_accuracy"] == 0.5
    model = report["model"]
    assert (model["turns_sent"], model["share_sent"], model["calls"]) == (2, 1.0, 4)
    assert (model["input_tokens"], model["output_tokens"]) == (200, 40)  # 50 in / 10 out per reply
    assert (model["input_tokens_per_turn"], model["output_tokens_per_turn"]) == (100.0, 20.0)
    assert (model["failures"], model["fallbacks"], model["models"]) == ({}, 0, ["gpt-4.1-mini"])
    assert 0 < model["latency_p50_ms"] <= model["latency_p95_ms"]


def test_a_model_that_fails_is_a_fallback_to_the_rules_not_a_crash(
    served_model: Model, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = utterances(tmp_path, ("schedule a meeting with al on tuesday at 3pm", "calendar_set"))
    openai_server.queue(*DOWN)

    out = StringIO()
    call_command("eval_decomposer", str(path), *CLOCK, "--decomposer", "llm", stdout=out)

    assert len(openai_server.chat_requests) == 3
    lines = out.getvalue().splitlines()
    assert "intent accuracy     100.0% (a calendar_set question hits)" in lines  # the rules' create
    assert "model               gpt-4.1-mini: 1 turns sent (100.0%), 1 calls" in lines
    assert "  tokens            0 in (0.0 per turn sent), 0 out (0.0 per turn sent)" in lines
    assert "  failed calls      http_error 1" in lines
    assert "  fell back         1 turns answered by the rules with a note" in lines


def test_the_daily_allowance_of_the_one_eval_user_does_not_cut_a_run_short(
    served_model: Model, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = utterances(tmp_path, ("hi", "calendar_set"), ("hello", "calendar_set"))
    openai_server.queue(HELLO, HELLO)

    with override_settings(LLM_DAILY_TOKENS=1):  # spent by the first answer if it counted
        model = eval_json(path, "--decomposer", "llm")["model"]

    assert (model["calls"], model["input_tokens"], model["failures"], model["fallbacks"]) == (2, 100, {}, 0)


def test_routed_sends_only_the_turns_the_rules_are_unsure_of(
    served_model: Model, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    # "what do i have on friday" the rules are sure of; "the location is my office" they are not
    path = utterances(
        tmp_path,
        ("what do i have on friday", "calendar_query"),
        ("the location is my office", "calendar_set"),
    )
    openai_server.queue(HELLO)

    model = eval_json(path, "--decomposer", "routed")["model"]

    assert len(openai_server.chat_requests) == 1
    assert (model["turns_sent"], model["share_sent"], model["calls"]) == (1, 0.5, 1)
    assert (model["input_tokens_per_turn"], model["output_tokens_per_turn"]) == (50.0, 10.0)


SCENARIO = """\
name: hello-model
description: one turn the model answers
now: "2026-03-02T09:00"
timezone: America/New_York
calendars:
  - key: personal
    name: Personal
    default: true
turns:
  - user: "hi"
    expect:
      kind: answer
      mentions: ["Hello there"]
"""


def test_run_scenarios_reports_each_runs_model_calls(
    served_model: Model, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "hello.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    openai_server.queue(HELLO)

    out = StringIO()
    call_command("run_scenarios", str(path), "--decomposer", "llm", "--json", stdout=out)

    report = json.loads(out.getvalue())
    assert (report["passed"], report["decomposer"]) == (1, "llm")
    (scenario,) = report["scenarios"]
    calls = {
        k: scenario["model"][k] for k in ("calls", "input_tokens", "output_tokens", "failures", "models")
    }
    assert calls == {
        "calls": 1,
        "input_tokens": 50,
        "output_tokens": 10,
        "failures": {},
        "models": ["gpt-4.1-mini"],
    }
    assert scenario["model"]["latency_ms"] > 0
    assert report["model"]["calls"] == 1

    openai_server.queue(Completion(content=None, tool_calls=HELLO.tool_calls, prompt_tokens=70))
    out = StringIO()
    call_command("run_scenarios", str(path), "--decomposer", "llm", stdout=out)

    header, row, *rest = out.getvalue().splitlines()
    assert header.split()[-6:] == ["calls", "tokens", "in/out", "model", "ms", "result"]
    assert row.split()[:5] == ["hello-model", "1/1", "0/0", "0", row.split()[4]]  # 0 unexpected writes
    assert row.split()[5:7] == ["1", "70/10"]
    assert rest[-1].startswith("model gpt-4.1-mini: 1 calls, 70/10 tokens in/out, ")
    assert rest[-1].endswith("; none failed")
