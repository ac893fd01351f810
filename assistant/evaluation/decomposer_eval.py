"""Intent accuracy, recall of people and event names, and latency of the decomposer on labelled utterances.

Each utterance is decomposed as the chat would do it, for a user with empty calendars at a fixed clock,
inside a transaction that is rolled back afterwards; with a model, within each turn's token budget but
without the per-user daily allowance (one made-up user says all of them).

What counts as a hit
--------------------
An outcome is either *acted on* (a workflow or a direct answer) or a *question* (a clarify). An acted-on
outcome is labelled by the operation the decomposer read: calendar_set (create, move, preference_set),
calendar_query (query, count, free, preference_get), calendar_remove (delete) or other.

The shared README maps to calendar_set what "creates or schedules something, or asks a question on the
way to it", and grants no such question to the other intents: nothing is read or deleted by asking. So a
question is labelled calendar_set when the reading it asks about is one that schedules (a create missing
its time, a move missing its destination): answering it leads to the event the user asked for, which is
the right move for "schedule a meeting with al". Every other question ("Which event do you mean?" for a
delete, "I didn't understand that") is labelled ``clarify`` and is no intent's hit.

Three accuracies follow, because a question is neither plainly right nor plainly wrong:

* ``intent_accuracy`` (the README's): over all utterances, the label above equals the annotated intent;
* ``strict_intent_accuracy``: over all utterances, a hit only when the decomposer acted with the
  annotated intent, so every question is a miss (never above ``intent_accuracy``);
* ``acted_intent_accuracy``: over the utterances acted on only, how often the action had the right
  intent (how far to trust it when it does act).

``clarify_rate`` is the share of utterances answered with any question; ``n_clarify_toward_set`` says how
many of those were the calendar_set questions above.

A model's decision has no such reading (no ``frame``): its operation is read from the skills of its
workflow instead (:func:`operation_of`), its people and event names from its steps' params, so a plan is
scored as the rules' reading of the same sentence would be. A question or a direct answer from the model
carries neither and is labelled as an unread one (a question is then ``clarify``, even one on the way to
scheduling: nothing says which reading it asks about).

People and event names are read from the decomposer's reading of the sentence (also when it asked;
titles as the plan or the question shows them, see :func:`reading_of`): an annotated value counts as
found when all its words are among the words of one person or one title of that reading. Words are
casefolded, without punctuation or a possessive "'s" (the annotation says "john's" where the plan
names "john"), and compared whole, so "al" is not found in "also" nor "sunday gym" in a title "gym".
For an e-mail address only the part before the "@" names the person.
"""

from __future__ import annotations

import json
import re
import statistics
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeGuard
from zoneinfo import ZoneInfo

import time_machine
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test.utils import override_settings

from assistant.evaluation.misses import Miss
from assistant.evaluation.model_calls import TurnUsage
from assistant.llm.calls import CallRecord, collect_calls
from assistant.planning import DecomposeRequest, decompose
from skills.services import calendar_create
from workflows.definition import Decision

__all__ = [
    "EvalReport",
    "evaluate_decomposer",
    "intent_of",
    "label_of",
    "name_found",
    "operation_of",
    "reading_of",
    "report_of",
]

INTENTS = ("calendar_set", "calendar_query", "calendar_remove")
CLARIFY = "clarify"
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


# A plan's operation from its skills, for a decision without a frame (a model's). A plan that changes
# events is that change whatever it reads first (find_events, then plan_move: a move); the first change
# planned names it. Otherwise the first of these kinds of skill found in the plan, in this order.
_CHANGE_SKILLS = {
    "plan_delete": "delete",
    "plan_move": "move",
    "plan_edit": "move",  # a change to an event (its title, place, length), scheduled like a move
    "plan_create": "create",
    "plan_sync": "create",  # copies of events made in another calendar
}
_OTHER_SKILLS = (
    ("set_preference", "preference_set"),
    ("undo_changes", "undo"),
    ("count_events", "count"),
    ("free_slots", "free"),
    ("people_busy", "free"),
    ("get_preference", "preference_get"),
    ("describe_preferences", "preference_get"),
)
_QUERY_SKILLS = frozenset(
    {
        "find_events",
        "filter_events",
        "sort_events",
        "nearest_events",
        "list_calendars",
        "summarise_events",
        "compose_reply",
    }
)
# Where a plan's params name people and event titles (the frame's person_names/people and titles).
_PEOPLE_PARAMS = ("attendee", "attendees", "people", "names", "invite")
_TITLE_PARAMS = {
    "find_events": "text",
    "filter_events": "text",
    "plan_create": "summary",
    "plan_edit": "summary",
}


def operation_of(decision: Decision) -> str:
    """The operation the decomposer acted on: the change its plan makes, if it makes one (what the user
    gets, whatever the frame's first reading of the words was: "I have a hike at 3:30" reads as no
    request and is then begun as a new event); else the frame's, or for a plan without one its skills'
    ("" for none)."""
    if decision.workflow is not None:
        for task in decision.workflow.tasks:
            if task.skill in _CHANGE_SKILLS:
                return _CHANGE_SKILLS[task.skill]
    if "operation" in decision.frame or decision.workflow is None:
        return str(decision.frame.get("operation", ""))
    skills = [task.skill for task in decision.workflow.tasks]
    for skill, operation in _OTHER_SKILLS:
        if skill in skills:
            return operation
    return "query" if _QUERY_SKILLS & set(skills) else ""


def intent_of(decision: Decision) -> str:
    """The intent of the operation the decomposer read, whether it then acted or asked."""
    return _OP_TO_INTENT.get(operation_of(decision), "other")


def reading_of(decision: Decision) -> tuple[list[str], list[str]]:
    """The people and the event titles of the decomposer's reading.

    Titles are the ones the user is shown: the plan's (the event it creates or edits, the text it
    searches for) or, for a question about a new event, the title of the draft it asks about; the
    frame's title words only where neither names one (the rules' first reading of the words, which a
    new event's draft replaces by the names tagger's span). People are the frame's, or a model plan's.
    """
    frame = decision.frame
    if "operation" in frame or decision.workflow is None:
        people = [*frame.get("person_names", []), *frame.get("people", [])]
        shown = _plan_reading(decision)[1] if decision.workflow is not None else []
        draft = decision.context_update.get("draft") or {}
        if isinstance(draft, dict) and _said(draft.get("title")):
            shown.append(draft["title"])
        return [p.split("@")[0] for p in people], shown or list(frame.get("titles", []))
    return _plan_reading(decision)


def _plan_reading(decision: Decision) -> tuple[list[str], list[str]]:
    """The people and titles a plan's params name."""
    people: list[str] = []
    titles: list[str] = []
    assert decision.workflow is not None
    for task in decision.workflow.tasks:
        for key in _PEOPLE_PARAMS:
            value = task.params.get(key)
            people.extend(v for v in (value if isinstance(value, list) else [value]) if _said(v))
        title = task.params.get(_TITLE_PARAMS.get(task.skill, ""))
        if _said(title):
            titles.append(title)
    return [p.split("@")[0] for p in people], titles


def _said(value: Any) -> TypeGuard[str]:
    """A plain string param (not a reference to another step's output, which says nothing itself)."""
    return isinstance(value, str) and bool(value.strip()) and "{{" not in value


def _asked(decision: Decision) -> bool:
    """A question, whichever way the decomposer marked it (the kind, or the reply kind of an answer)."""
    return decision.kind == "clarify" or decision.reply_kind == "clarify"


def label_of(decision: Decision) -> str:
    """The outcome's label for ``intent_accuracy``: see the module docstring."""
    intent = intent_of(decision)
    if _asked(decision) and intent != "calendar_set":
        return CLARIFY
    return intent


def _words(text: str) -> frozenset[str]:
    text = re.sub(r"['’]s\b", "", text.casefold())
    return frozenset(re.findall(r"[^\W_]+", text))


def name_found(value: str, names: list[str]) -> bool:
    """Every word of ``value`` is among the words of one of ``names``; a value without words is not."""
    wanted = _words(value)
    return bool(wanted) and any(wanted <= _words(name) for name in names)


@dataclass
class EvalReport:
    n: int
    intent_accuracy: float
    strict_intent_accuracy: float
    acted_intent_accuracy: float | None
    n_acted: int
    n_clarify: int
    n_clarify_toward_set: int
    per_intent: dict[str, dict[str, float]]
    clarify_rate: float
    person_recall: float | None
    n_person: int
    event_name_recall: float | None
    n_event_name: int
    p50_ms: float
    p95_ms: float
    confusion: dict[str, dict[str, int]]
    misses: list[Miss]
    model: TurnUsage

    def as_json(self, *, with_misses: bool = False) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 4)

        figures: dict[str, Any] = {
            "n": self.n,
            "intent_accuracy": rounded(self.intent_accuracy),
            "strict_intent_accuracy": rounded(self.strict_intent_accuracy),
            "acted_intent_accuracy": rounded(self.acted_intent_accuracy),
            "n_acted": self.n_acted,
            "n_clarify": self.n_clarify,
            "n_clarify_toward_set": self.n_clarify_toward_set,
            "per_intent": self.per_intent,
            "clarify_rate": rounded(self.clarify_rate),
            "person_recall": rounded(self.person_recall),
            "n_person": self.n_person,
            "event_name_recall": rounded(self.event_name_recall),
            "n_event_name": self.n_event_name,
            "p50_ms": round(self.p50_ms, 3),
            "p95_ms": round(self.p95_ms, 3),
            "confusion": self.confusion,
            "model": self.model.as_json(),
        }
        if with_misses:
            figures["misses"] = [asdict(miss) for miss in self.misses]
        return figures


def evaluate_decomposer(path: Path, *, now: datetime, tz: str) -> EvalReport:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    outcomes: list[tuple[dict[str, Any], Decision, float]] = []
    per_turn: list[list[CallRecord]] = []
    # One made-up user says every utterance: the daily allowance protects a person's day, and would cut
    # a long run short after a few hundred turns, measuring fallbacks instead of the model. Each
    # turn's own budget (LLM_TURN_TOKENS) still holds.
    with (
        override_settings(LLM_DAILY_TOKENS=0),
        transaction.atomic(),
        time_machine.travel(now.replace(tzinfo=ZoneInfo(tz)), tick=False),
    ):
        user = get_user_model().objects.create_user(f"eval-{uuid.uuid4().hex[:8]}", "eval@example.invalid")
        calendar_create(owner=user, key="personal", name="Personal", timezone=tz, is_default=True)
        for row in rows:
            with collect_calls() as calls:
                started = time.perf_counter()
                decision = decompose(DecomposeRequest(text=row["text"], user=user, timezone=tz))
                outcomes.append((row, decision, (time.perf_counter() - started) * 1000))
            per_turn.append(calls)
        transaction.set_rollback(True)  # measuring leaves no trace in the database
    return report_of(outcomes, calls=per_turn)


def _intent_miss(row: dict[str, Any], decision: Decision, label: str) -> Miss:
    if label == CLARIFY:
        got, why = (
            f"a question ({decision.text!r})",
            f"asked instead of acting (read as {intent_of(decision)})",
        )
    elif _asked(decision):
        got, why = f"{label}, asking {decision.text!r}", f"a question on the way to {label}"
    else:
        got, why = label, f"acted as {label}"
    return Miss(row["text"], row["intent"], got, why)


def report_of(
    outcomes: list[tuple[dict[str, Any], Decision, float]], *, calls: list[list[CallRecord]] | None = None
) -> EvalReport:
    """The figures of the module docstring for decided utterances with their milliseconds, and what
    the model cost when ``calls`` gives each utterance's model calls."""
    confusion: dict[str, Counter[str]] = {intent: Counter() for intent in INTENTS}
    hits = acted = acted_hits = clarified = toward_set = 0
    person_hits = person_total = name_hits = name_total = 0
    misses: list[Miss] = []
    for row, decision, _ in outcomes:
        expected, label, question = row["intent"], label_of(decision), _asked(decision)
        confusion.setdefault(expected, Counter())[label] += 1
        hits += label == expected
        clarified += question
        toward_set += question and label == "calendar_set"
        if not question:
            acted += 1
            acted_hits += label == expected
        if label != expected:
            misses.append(_intent_miss(row, decision, label))
        people, titles = reading_of(decision)
        for slot in row.get("slots", []):
            if slot["type"] == "person":
                found, kind, candidates = name_found(slot["value"], people), "person", people
                person_total += 1
                person_hits += found
            elif slot["type"] == "event_name":
                found, kind, candidates = name_found(slot["value"], titles), "event name", titles
                name_total += 1
                name_hits += found
            else:
                continue
            if not found:
                why = f"no {kind} of the reading has every word of it"
                got = ", ".join(repr(c) for c in candidates) or "none"
                misses.append(Miss(row["text"], f"{kind} {slot['value']!r}", got, why))
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
        intent_accuracy=hits / n if n else 0.0,
        strict_intent_accuracy=acted_hits / n if n else 0.0,
        acted_intent_accuracy=acted_hits / acted if acted else None,
        n_acted=acted,
        n_clarify=clarified,
        n_clarify_toward_set=toward_set,
        per_intent=per_intent,
        clarify_rate=clarified / n if n else 0.0,
        person_recall=person_hits / person_total if person_total else None,
        n_person=person_total,
        event_name_recall=name_hits / name_total if name_total else None,
        n_event_name=name_total,
        p50_ms=statistics.median(times) if times else 0.0,
        p95_ms=times[min(n - 1, int(0.95 * n))] if times else 0.0,
        confusion={k: dict(v) for k, v in confusion.items()},
        misses=misses,
        model=TurnUsage.of(
            calls if calls is not None else [[] for _ in outcomes],
            fallbacks=sum(bool(decision.notes) for _, decision, _ in outcomes),
        ),
    )
