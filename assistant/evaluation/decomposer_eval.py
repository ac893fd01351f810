"""Intent accuracy, recall of people and event names, and latency of the decomposer on labelled utterances.

Each utterance is decomposed as the chat would do it, for a user with empty calendars at a fixed clock,
inside a transaction that is rolled back afterwards.
"""

from __future__ import annotations

import json
import re
import statistics
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import time_machine
from django.contrib.auth import get_user_model
from django.db import transaction

from assistant.decomposer import DecomposeRequest, decompose
from skills.services import calendar_create
from workflows.definition import Decision

__all__ = ["EvalReport", "evaluate_decomposer", "intent_of"]

INTENTS = ("calendar_set", "calendar_query", "calendar_remove")
_OP_TO_INTENT = {
    "create": "calendar_set",
    "move": "calendar_set",
    "preference_set": "calendar_set",
    "delete": "calendar_remove",
    "query": "calendar_query",
    "count": "calendar_query",
    "free": "calendar_query",
    "preference_get": "calendar_query",
}


def intent_of(decision: Decision) -> str:
    return _OP_TO_INTENT.get(str(decision.frame.get("operation", "")), "other")


def _norm(text: str) -> str:
    text = re.sub(r"'s\b", "", text.casefold())
    return " ".join(re.findall(r"[a-z0-9]+", text))


@dataclass
class EvalReport:
    n: int
    intent_accuracy: float
    per_intent: dict[str, dict[str, float]]
    clarify_rate: float
    person_recall: float | None
    event_name_recall: float | None
    p50_ms: float
    p95_ms: float
    confusion: dict[str, dict[str, int]]

    def as_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "intent_accuracy": round(self.intent_accuracy, 4),
            "per_intent": self.per_intent,
            "clarify_rate": round(self.clarify_rate, 4),
            "person_recall": None if self.person_recall is None else round(self.person_recall, 4),
            "event_name_recall": None if self.event_name_recall is None else round(self.event_name_recall, 4),
            "p50_ms": round(self.p50_ms, 3),
            "p95_ms": round(self.p95_ms, 3),
            "confusion": self.confusion,
        }


def evaluate_decomposer(path: Path, *, now: datetime, tz: str) -> EvalReport:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    outcomes: list[tuple[dict[str, Any], Decision, float]] = []
    with transaction.atomic(), time_machine.travel(now.replace(tzinfo=ZoneInfo(tz)), tick=False):
        user = get_user_model().objects.create_user(f"eval-{uuid.uuid4().hex[:8]}", "eval@example.invalid")
        calendar_create(owner=user, key="personal", name="Personal", timezone=tz, is_default=True)
        for row in rows:
            started = time.perf_counter()
            decision = decompose(DecomposeRequest(text=row["text"], user=user, timezone=tz))
            outcomes.append((row, decision, (time.perf_counter() - started) * 1000))
        transaction.set_rollback(True)  # measuring leaves no trace in the database
    return _report(outcomes)


def _report(outcomes: list[tuple[dict[str, Any], Decision, float]]) -> EvalReport:
    confusion: dict[str, Counter[str]] = {intent: Counter() for intent in INTENTS}
    person_hits = person_total = name_hits = name_total = clarified = correct = 0
    for row, decision, _ in outcomes:
        predicted = intent_of(decision)
        confusion.setdefault(row["intent"], Counter())[predicted] += 1
        correct += predicted == row["intent"]
        clarified += decision.kind == "clarify" or decision.reply_kind == "clarify"
        frame = decision.frame
        people = [_norm(p) for p in [*frame.get("person_names", []), *frame.get("people", [])]]
        titles = [_norm(t) for t in frame.get("titles", [])]
        for slot in row.get("slots", []):
            value = _norm(slot["value"])
            if slot["type"] == "person":
                person_total += 1
                person_hits += any(value == p or value in p.split("@")[0] for p in people)
            elif slot["type"] == "event_name":
                name_total += 1
                name_hits += any(value and (value in t or (t and t in value)) for t in titles)
    per_intent: dict[str, dict[str, float]] = {}
    for intent in INTENTS:
        tp = confusion.get(intent, Counter())[intent]
        predicted_as = sum(c[intent] for c in confusion.values())
        actual = sum(confusion.get(intent, Counter()).values())
        per_intent[intent] = {
            "precision": round(tp / predicted_as, 4) if predicted_as else 0.0,
            "recall": round(tp / actual, 4) if actual else 0.0,
        }
    times = sorted(ms for _, _, ms in outcomes)
    n = len(outcomes)
    return EvalReport(
        n=n,
        intent_accuracy=correct / n if n else 0.0,
        per_intent=per_intent,
        clarify_rate=clarified / n if n else 0.0,
        person_recall=person_hits / person_total if person_total else None,
        event_name_recall=name_hits / name_total if name_total else None,
        p50_ms=statistics.median(times) if times else 0.0,
        p95_ms=times[min(n - 1, int(0.95 * n))] if times else 0.0,
        confusion={k: dict(v) for k, v in confusion.items()},
    )
