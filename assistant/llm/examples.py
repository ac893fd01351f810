"""Worked params for each skill, learned from the rules' own plans, shown to the planner's phase 3.

A model writes a skill's params far better from one real example than from the schema alone, and the
rules already plan most requests correctly: :func:`build_examples` runs them over real utterances
(shared/eval) at a fixed clock, keeps every task they planned with the request it came from, and per
skill picks the commonest shapes of params, each with its shortest request. ``manage.py
build_plan_examples`` writes the result to ``plan_examples.json`` beside this module (versioned: the
same data gives the same bytes); :func:`examples_for` reads it.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

__all__ = ["EXAMPLES_FILE", "SOURCES", "build_examples", "examples_for", "requests_in"]

EXAMPLES_FILE = Path(__file__).with_name("plan_examples.json")
SHARED = Path(settings.BASE_DIR).parent / "shared"
SOURCES = (SHARED / "eval" / "calendar_utterances.dev.jsonl", SHARED / "scenarios")
PER_SKILL = 2
MAX_CHARS = 600  # an example longer than this (a long change set) teaches less than it costs


def requests_in(path: Path) -> list[str]:
    """The requests of a JSON-lines file of utterances (``text``), a scenario file (its first turn: the
    later ones lean on the conversation) or a folder of scenario files."""
    if path.is_dir():
        return [text for file in sorted(path.glob("*.yaml")) for text in requests_in(file)]
    if path.suffix in (".yaml", ".yml"):
        import yaml

        turns = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("turns") or []
        return [turns[0]["user"]] if turns and isinstance(turns[0].get("user"), str) else []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


def build_examples(texts: Iterable[str], *, now: datetime, tz: str) -> dict[str, list[dict[str, Any]]]:
    """Per skill, up to ``PER_SKILL`` examples (request, clock, earlier tasks, params) from the rules'
    plans of ``texts``; nothing is left in the database."""
    import time_machine
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from assistant.decomposer import DecomposeRequest, rules_decision
    from assistant.decomposer.gate import ACT
    from skills.services import calendar_create

    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with transaction.atomic(), time_machine.travel(now.replace(tzinfo=ZoneInfo(tz)), tick=False):
        user = get_user_model().objects.create_user(f"examples-{uuid.uuid4().hex[:8]}", "x@example.invalid")
        calendar_create(owner=user, key="personal", name="Personal", timezone=tz, is_default=True)
        for text in texts:
            decision = rules_decision(DecomposeRequest(text=text, user=user, timezone=tz))
            if decision.workflow is None or decision.confidence < ACT:
                continue  # only what the rules act on alone: an unsure plan would teach a wrong reading
            skills = {t.id: t.skill for t in decision.workflow.tasks}
            for task in decision.workflow.tasks:
                params = json.dumps(task.params, sort_keys=True, ensure_ascii=False)
                if len(params) > MAX_CHARS:
                    continue
                found[task.skill].append(
                    {
                        "request": text,
                        "now": now.strftime("%A %Y-%m-%d %H:%M"),
                        "earlier": {d: skills[d] for d in task.depends_on},
                        "id": task.id,
                        "params": task.params,
                    }
                )
        transaction.set_rollback(True)
    return {skill: _chosen(candidates) for skill, candidates in sorted(found.items())}


def _shape(candidate: dict[str, Any]) -> tuple[str, ...]:
    """Which params an example gives: examples of one shape teach the same thing."""
    return tuple(sorted(candidate["params"]))


def _chosen(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The commonest shapes of params, each with its request of median length (the shortest are
    often the vaguest, the longest say several things)."""
    counts = Counter(_shape(c) for c in candidates)
    shapes = sorted(counts, key=lambda s: (-counts[s], s))[:PER_SKILL]
    chosen = []
    for s in shapes:
        same = sorted(
            (c for c in candidates if _shape(c) == s), key=lambda c: (len(c["request"]), c["request"])
        )
        chosen.append(same[len(same) // 2])
    return chosen


@lru_cache(maxsize=1)
def _shipped() -> dict[str, list[dict[str, Any]]]:
    if not EXAMPLES_FILE.is_file():
        return {}
    loaded: dict[str, list[dict[str, Any]]] = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    return loaded


def examples_for(skill: str) -> list[dict[str, Any]]:
    """The shipped examples of ``skill`` (none for a skill the rules never plan)."""
    return _shipped().get(skill, [])
