"""The LLM planner: how big its prompts are, and what planning a turn costs us apart from the model.

Prompt sizes need no model. For every utterance of the shared eval set (the file
``eval_decomposer`` reads), the turn is built as the chat builds it for the demo user (its calendars
and preferences, no conversation yet) and the prompts the planner would send are measured: phase 1
(instructions, the service catalog and the turn) against the single-phase prompt (the whole catalog).
The output model's JSON schema goes to the model too, as the output tool's parameters, so it is
counted with each prompt. There is no tokenizer offline (tiktoken downloads its tables), so sizes are
estimated tokens, characters / 4, said so wherever they are shown. Phase 2 (one service's skills) and
phase 3 (one skill's schema) are measured once per service and per skill of the catalog.

Planning overhead: turns planned through the real HTTP path (pydantic-ai's OpenAI chat model, the
``openai`` SDK and its HTTP client) against the tests' loopback chat-completions server
(:mod:`tests.llm.openai_server`, imported only when these rows run, as the Google rows import their
server), pointed at as ``LLM_BASE_URL`` points at Ollama. The server answers each request by reading
it (which phase, which service or skill) from a script, so the same plan comes back however phases 2
and 3's concurrent questions arrive. What the planner takes beyond the time the server was busy
answering is ours: prompts, pydantic-ai, the SDK and HTTP client, validation, assembling the plan.
The server's busy time is the union of its requests' spans (concurrent ones count once); it runs in
this process, so planner work done on another thread while the server is busy is subtracted with it,
and "ours" errs low, never high.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.test import override_settings
from pydantic import BaseModel

from assistant.bench.timing import Timing, summarise

if TYPE_CHECKING:
    from tests.llm.openai_server import RecordedRequest, Reply

__all__ = [
    "CHARS_PER_TOKEN",
    "PLANS",
    "Overhead",
    "PlanScript",
    "PromptSizes",
    "est_tokens",
    "eval_utterances",
    "planning_overhead",
    "prompt_sizes",
]

CHARS_PER_TOKEN = 4
ZONE = "America/New_York"
LOOPBACK_KEY = "sk-bench-loopback"
LOOPBACK_MODEL = "bench-loopback"


def est_tokens(chars: int) -> float:
    """Estimated tokens of ``chars`` characters (no tokenizer offline)."""
    return chars / CHARS_PER_TOKEN


def eval_file() -> Path:
    return settings.BASE_DIR.parent / "shared" / "eval" / "calendar_utterances.dev.jsonl"


def eval_utterances(path: Path | None = None, *, limit: int | None = None) -> list[str]:
    """The utterances of the eval set, in file order (the first ``limit`` of them if given)."""
    texts = []
    with (path or eval_file()).open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                texts.append(json.loads(line)["text"])
            if limit is not None and len(texts) >= limit:
                break
    return texts


# -- prompt sizes ---------------------------------------------------------------------------------------


def _schema_chars(model: type[BaseModel]) -> int:
    """The output tool's parameters: the output model's JSON schema, compact."""
    return len(json.dumps(model.model_json_schema(), separators=(",", ":"), ensure_ascii=False))


def _chars(prompts: tuple[str, str], schema: int) -> int:
    instructions, prompt = prompts
    return len(instructions) + len(prompt) + schema


@dataclass(frozen=True, slots=True)
class PromptSizes:
    """Estimated tokens of each prompt: per utterance (phase 1, single-phase), per service (phase 2)
    and per skill (phase 3), the output schema counted in each."""

    phase1: tuple[float, ...]
    single: tuple[float, ...]
    select: dict[str, float]
    params: dict[str, float]
    no_params: tuple[str, ...]  # skills without inputs: the planner asks no phase 3 for them
    phase1_schema: float
    single_schema: float

    @property
    def utterances(self) -> int:
        return len(self.phase1)

    @property
    def ratios(self) -> tuple[float, ...]:
        """Phase 1 / single-phase, per utterance."""
        return tuple(p / s for p, s in zip(self.phase1, self.single, strict=True))

    @property
    def worst_ratio(self) -> float:
        return max(self.ratios)


def prompt_sizes(*, user: Any, utterances: list[str]) -> PromptSizes:
    """The planner's prompts for ``utterances`` as the chat would build them for ``user``'s first turn."""
    from assistant.llm import phases
    from assistant.llm.route import turn_of
    from skills.registry import REGISTRY

    contracts = phases.contracts()
    phase1_schema = _schema_chars(contracts.orchestration)
    single_schema = _schema_chars(contracts.single)
    turns = [turn_of(SimpleNamespace(text=text, user=user, timezone=ZONE, history=[])) for text in utterances]
    phase1 = tuple(est_tokens(_chars(phases.orchestrate_prompt(t), phase1_schema)) for t in turns)
    single = tuple(est_tokens(_chars(phases.single_prompt(t), single_schema)) for t in turns)
    # Phases 2 and 3 for the utterance of median length, standing in as the subtask's and the step's
    # instruction too, with nothing before it (each earlier task adds its output schema to phase 3).
    typical = sorted(turns, key=lambda t: len(t.text))[len(turns) // 2]
    select = {
        service: est_tokens(
            _chars(
                phases.select_prompt(typical, service, typical.text, []),
                _schema_chars(contracts.selections[service]),
            )
        )
        for service in contracts.services
    }
    step_schema = _schema_chars(phases.StepParams)
    params = {
        d.name: est_tokens(_chars(phases.params_prompt(typical, d, typical.text, []), step_schema))
        for d in REGISTRY.definitions()
        if d.input_model.model_fields
    }
    no_params = tuple(d.name for d in REGISTRY.definitions() if not d.input_model.model_fields)
    return PromptSizes(
        phase1=phase1,
        single=single,
        select=select,
        params=params,
        no_params=no_params,
        phase1_schema=est_tokens(phase1_schema),
        single_schema=est_tokens(single_schema),
    )


# -- planning overhead ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlanScript:
    """A turn and the model's answer to each of its phases ("orchestrate", "select:<service>",
    "params:<skill>"), and the tasks the plan must come out with."""

    label: str
    text: str
    answers: dict[str, dict[str, Any]]
    tasks: tuple[str, ...]


PLANS = {
    "one": PlanScript(
        label="1 subtask, 1 step",
        text="tell me what you can do",
        answers={
            "orchestrate": {
                "kind": "plan",
                "confidence": 0.9,
                "subtasks": [{"id": "say", "service": "reply", "instruction": "say what I can do"}],
            },
            "select:reply": {
                "steps": [{"id": "it", "skill": "compose_reply", "instruction": "say what I can do"}]
            },
            "params:compose_reply": {
                "params": {"style": "text", "text": "I can find, plan and change events."}
            },
        },
        tasks=("say_it",),
    ),
    # The move of tests/llm/test_planner.py: phase 2 asks two questions at once, phase 3 three.
    "two": PlanScript(
        label="2 subtasks, 3 steps",
        text="shift the dentist thing to friday 3pm",
        answers={
            "orchestrate": {
                "kind": "plan",
                "confidence": 0.9,
                "subtasks": [
                    {"id": "find", "service": "calendar", "instruction": "find the dentist appointment"},
                    {
                        "id": "move",
                        "service": "changes",
                        "instruction": "move it to Friday 3pm",
                        "dependsOn": ["find"],
                    },
                ],
            },
            "select:calendar": {
                "steps": [{"id": "events", "skill": "find_events", "instruction": "the dentist from now on"}]
            },
            "select:changes": {
                "steps": [
                    {"id": "plan", "skill": "plan_move", "instruction": "to Friday March 6 at 15:00"},
                    {
                        "id": "apply",
                        "skill": "apply_changes",
                        "instruction": "apply it",
                        "dependsOn": ["plan"],
                    },
                ]
            },
            "params:find_events": {
                "params": {
                    "start": "2026-03-02T09:00:00-05:00",
                    "end": "2027-03-02T09:00:00-05:00",
                    "text": "dentist",
                }
            },
            "params:plan_move": {
                "params": {
                    "events": "{{find_events.output.events}}",
                    "to_date": "2026-03-06",
                    "at_time": "15:00",
                }
            },
            "params:apply_changes": {"params": {"changes": "{{move_plan.output}}", "approved": True}},
        },
        tasks=("find_events", "move_plan", "move_apply"),
    ),
}


def phase_of(request: RecordedRequest) -> str:
    """Which question a request is, read from its prompt's first line (see ``assistant.llm.phases``)."""
    prompt = next(m["content"] for m in request.messages if m.get("role") == "user")
    head = str(prompt).split("\n", 1)[0]
    if head == "Services:":
        return "orchestrate"
    if head == "Skills:":
        return "single"
    if head.startswith("Service "):
        return "select:" + head.removeprefix("Service ").rstrip(":")
    if head.startswith("Skill "):
        return "params:" + head.removeprefix("Skill ").split(":", 1)[0]
    return "unknown"


def request_chars(request: RecordedRequest) -> int:
    """What a request puts before the model: its messages' text and its tools' definitions."""
    messages = sum(len(str(m.get("content") or "")) for m in request.messages)
    return messages + len(json.dumps(request.body.get("tools", []), separators=(",", ":")))


@dataclass(frozen=True, slots=True)
class Overhead:
    """Per turn: ours (wall minus the server's busy time), the wall time and the server's; and over
    every measured turn, the questions asked per phase and the estimated tokens of each request."""

    ours: Timing
    wall: Timing
    server: Timing
    calls: Counter[str]
    request_tokens: dict[str, float]  # phase -> est. tokens of one request, as sent
    turns: int

    def per_turn(self) -> dict[str, float]:
        return {phase: n / self.turns for phase, n in self.calls.items()}


def _busy(spans: list[tuple[float, float]], begin: float, end: float) -> float:
    """Seconds within [begin, end] in which the server was answering a request (overlaps once)."""
    total = 0.0
    reach = begin
    for start, stop in sorted(spans):
        start, stop = max(start, reach), min(stop, end)
        if stop > start:
            total += stop - start
            reach = stop
    return total


def planning_overhead(script: PlanScript, *, repeat: int, warmup: int = 1) -> Overhead:
    """Plan ``script``'s turn ``repeat`` times against the loopback server; raises if a plan is not
    the script's (a bench that timed failures would report nothing true)."""
    from pydantic_ai.models import override_allow_model_requests

    from assistant.llm.config import llm_model
    from assistant.llm.phases import Turn
    from assistant.llm.planner import PlanFailedError, plan
    from tests.llm.openai_server import OpenAIServer, http_error, output

    def answer(request: RecordedRequest) -> Reply:
        phase = phase_of(request)
        if phase not in script.answers:  # a 400, which the SDK does not retry: the plan fails at once
            return http_error(
                400, f"the loopback model has no answer for {phase}", type="invalid_request_error"
            )
        tokens = round(est_tokens(request_chars(request)))
        return output(script.answers[phase], prompt_tokens=tokens, completion_tokens=40)

    turn = Turn(text=script.text, now=datetime(2026, 3, 2, 9, tzinfo=ZoneInfo(ZONE)), timezone=ZONE)
    ours: list[float] = []
    wall: list[float] = []
    server_ms: list[float] = []
    calls: Counter[str] = Counter()
    with OpenAIServer(api_key=LOOPBACK_KEY, models=(LOOPBACK_MODEL,), responder=answer) as server:
        urls = {"LLM_MODEL": LOOPBACK_MODEL, "LLM_BASE_URL": server.base_url, "LLM_API_KEY": LOOPBACK_KEY}
        with override_settings(**urls), override_allow_model_requests(True):
            model = llm_model()
            assert model is not None
            for i in range(warmup + repeat):
                first = len(server.answer_spans)
                begin = time.perf_counter()
                try:
                    decision, records = plan(turn, model, tokens=40_000, trace_id="bench")
                except PlanFailedError as exc:
                    raise RuntimeError(
                        f"the loopback plan of {script.label!r}: {_failed(exc.calls)}"
                    ) from exc
                end = time.perf_counter()
                _check(script, decision, records)
                if i < warmup:
                    continue
                busy = _busy(server.answer_spans[first:], begin, end)
                wall.append((end - begin) * 1000)
                server_ms.append(busy * 1000)
                ours.append((end - begin - busy) * 1000)
                calls.update(r.phase for r in records)
            sizes: dict[str, list[int]] = {}
            for request in server.chat_requests:
                sizes.setdefault(phase_of(request), []).append(request_chars(request))
    return Overhead(
        ours=summarise(ours),
        wall=summarise(wall),
        server=summarise(server_ms),
        calls=Counter(dict(sorted(calls.items(), key=lambda item: _in_order(item[0])))),
        request_tokens={
            p: est_tokens(round(statistics.median(sizes[p]))) for p in sorted(sizes, key=_in_order)
        },
        turns=repeat,
    )


def _in_order(phase: str) -> tuple[int, str]:
    """Phases in the order they are asked, then by service or skill."""
    stages = {"single": 0, "orchestrate": 1, "select": 2, "params": 3}
    return (stages.get(phase.split(":", 1)[0], 4), phase)


def _failed(records: list[Any]) -> str:
    return ", ".join(f"{r.phase} {r.outcome} {r.error}".strip() for r in records if r.outcome != "ok")


def _check(script: PlanScript, decision: Any, records: list[Any]) -> None:
    tasks = tuple(t.id for t in decision.workflow.tasks) if decision.workflow is not None else ()
    if decision.kind != "workflow" or not set(script.tasks) <= set(tasks) or _failed(records):
        raise RuntimeError(
            f"the loopback plan of {script.label!r} came out {decision.kind} {tasks} ({_failed(records)})"
        )
