"""Golden files: the decision for every line of the shared material, so that a change of behaviour is
seen line by line before it lands.

Two kinds of record, one JSON object a line in ``tests/golden/``:

- every utterance of ``../shared/eval``'s request files (NLU-Evaluation-Data, SMCalFlow's first requests,
  the SGD calendar turns), decomposed as the chat would for a user with one empty calendar at a fixed
  clock (Wednesday 2026-03-04 09:00 in New York), summarised in one line: the decision's kind and
  confidence, and its question or its workflow's steps with their literal parameters;
- every conversation of ``../shared/scenarios`` (its own files, ``sgd/`` and ``smcalflow/``): each turn's
  reply kind and text, whether the scenario passed and the writes the judge found unexpected.

``manage.py golden`` writes them afresh and prints what differs from the committed files; with
``--check`` it changes nothing and fails when something differs.  A commit that changes behaviour
carries the new files, and its message explains the difference.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import time_machine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from assistant.planning import DecomposeRequest, decompose
from assistant.scenarios import run_scenario, scenario_files
from skills.services import calendar_create
from workflows.definition import Decision

__all__ = ["GOLDEN", "Difference", "compare", "decision_line", "sources", "write_records"]

SHARED = settings.BASE_DIR.parent / "shared"
GOLDEN = settings.BASE_DIR / "tests" / "golden"
CLOCK = datetime(2026, 3, 4, 9, 0)
ZONE = "America/New_York"
UTTERANCES = {
    "nlu-calendar": "eval/calendar_utterances.dev.jsonl",
    "smcalflow-requests": "eval/smcalflow_utterances5.dev.jsonl",
    "sgd-turns": "eval/sgd_calendar_turns.dev.jsonl",
}
CONVERSATIONS = {
    "scenarios-shared": "scenarios",
    "scenarios-sgd": "scenarios/sgd",
    "scenarios-smcalflow": "scenarios/smcalflow",
}


def sources() -> list[str]:
    """The names of the golden files, in the order they are made."""
    return [*UTTERANCES, *CONVERSATIONS]


def _literal(value: Any) -> bool:
    return not (isinstance(value, str) and value.startswith("{{")) and value not in (None, "", [], {}, False)


def _compact(value: Any) -> Any:
    """A parameter without its empty parts (an expectation says only what it checks)."""
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items() if _literal(v)}
    return value


def decision_line(decision: Decision) -> str:
    """One line that says what a decision does: its kind, confidence and question or steps."""
    head = f"{decision.reply_kind or decision.kind} {decision.confidence:.2f}"
    if decision.workflow is None:
        return f"{head} | {decision.text}"
    steps = []
    for task in decision.workflow.tasks:
        params = ", ".join(f"{k}={_compact(v)!r}" for k, v in sorted(task.params.items()) if _literal(v))
        steps.append(f"{task.skill}({params})")
    return f"{head} | " + " > ".join(steps)


def _utterances(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)["text"]


def _decide(texts: Iterator[str]) -> Iterator[dict[str, Any]]:
    zone = ZoneInfo(ZONE)
    with transaction.atomic(), time_machine.travel(CLOCK.replace(tzinfo=zone), tick=False):
        user = get_user_model().objects.create_user(
            f"golden-{uuid.uuid4().hex[:8]}", "golden@example.invalid"
        )
        calendar_create(owner=user, key="personal", name="Personal", timezone=ZONE, is_default=True)
        for text in texts:
            decision = decompose(DecomposeRequest(text=text, user=user, timezone=ZONE))
            yield {"text": text, "decision": decision_line(decision)}
        transaction.set_rollback(True)


def _conversations(folder: Path) -> Iterator[dict[str, Any]]:
    for path in scenario_files([folder]):
        result = run_scenario(path)
        yield {
            "scenario": result.name,
            "passed": result.passed,
            "unexpected_writes": result.unexpected_writes,
            "turns": [f"{turn['kind']} | {turn['text']}" for turn in result.replies],
        }


def records(name: str) -> Iterator[dict[str, Any]]:
    """The golden records of one source, made now."""
    if name in UTTERANCES:
        return _decide(_utterances(SHARED / UTTERANCES[name]))
    return _conversations(SHARED / CONVERSATIONS[name])


def write_records(name: str, rows: list[dict[str, Any]], folder: Path = GOLDEN) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


@dataclass(frozen=True, slots=True)
class Difference:
    key: str
    before: Any
    after: Any


def _key(row: dict[str, Any]) -> str:
    return row.get("scenario") or row["text"]


def compare(name: str, rows: list[dict[str, Any]], folder: Path = GOLDEN) -> list[Difference]:
    """What differs between ``rows`` and the committed golden file of ``name`` (a line's text or a
    scenario's name is its key; a line said twice is compared in order)."""
    path = folder / f"{name}.jsonl"
    old: dict[str, list[dict[str, Any]]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            old.setdefault(_key(row), []).append(row)
    differences = []
    for row in rows:
        before = old.get(_key(row), [])
        earlier = before.pop(0) if before else None
        if earlier != row:
            differences.append(Difference(_key(row), earlier, row))
    differences += [Difference(key, row, None) for key, left in old.items() for row in left]
    return differences
