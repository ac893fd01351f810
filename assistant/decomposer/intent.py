"""Which operation a turn asks for, with how sure the rules are.

The main verb decides: politeness ("please", "can you", "I need to") is stripped, then the earliest
write verb in imperative position wins; a question form reads unless a write verb follows it.
"""

from __future__ import annotations

import re

from assistant.decomposer.frame import Operation
from assistant.decomposer.lexicon import (
    COUNT_CUES,
    CREATE_VERBS,
    DELETE_VERBS,
    FREE_CUES,
    GREETINGS,
    MOVE_VERBS,
    NO_WORDS,
    OUT_OF_SCOPE,
    POLITE_PREFIX,
    QUERY_CUES,
    QUESTION_STARTERS,
    UNDO_CUES,
    YES_WORDS,
)

__all__ = ["classify", "normalise"]

_CALENDAR_WORDS = re.compile(
    r"\b(calendar|event|events|meeting|meetings|appointment|appointments|schedule|agenda|class|classes|"
    r"lecture|reminder|reminders|busy|free|booked|plans|scheduled)\b"
)
# "my schedule", "the reminder": the noun, not the verb.
_NOUN_USE = re.compile(
    r"\b(?:my|the|your|our|a|any|this|that|its)\s+(schedule|reminders?|plans?|note|log|block)\b"
)


def normalise(text: str) -> str:
    text = text.casefold().replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip(" .!?")


def _first(pattern: re.Pattern[str], text: str) -> int:
    m = pattern.search(text)
    return m.start() if m else 10_000


def classify(text: str) -> tuple[Operation, float]:
    t = normalise(text)
    core = POLITE_PREFIX.sub("", t).strip() or t  # "ok" alone is an answer, not a polite opening
    words = core.split()
    if not words:
        return "unknown", 0.0
    if len(words) <= 6 and YES_WORDS.match(core) and not DELETE_VERBS.search(core):
        return "yes", 0.95
    if NO_WORDS.match(core):
        return "no", 0.95
    if GREETINGS.match(core):
        return "greet", 0.9
    if UNDO_CUES.search(core):
        return "undo", 0.9
    masked = _NOUN_USE.sub(" ", core)
    positions: dict[Operation, int] = {
        "delete": _first(DELETE_VERBS, masked),
        "create": _first(CREATE_VERBS, masked),
        "move": _first(MOVE_VERBS, masked),
    }
    write_op = min(positions, key=lambda op: positions[op])
    write_pos = positions[write_op]
    question = QUESTION_STARTERS.match(core)
    in_scope = bool(_CALENDAR_WORDS.search(core))
    if OUT_OF_SCOPE.search(core) and write_pos > 1000 and not in_scope:
        return "out_of_scope", 0.8
    if COUNT_CUES.search(core):
        return "count", 0.9
    if question:
        if FREE_CUES.search(core):
            return "free", 0.85
        # "when should I schedule...", "can I move ..." stay writes; "what's on my schedule" reads.
        if write_pos < 1000 and re.match(
            r"^(?:should i|shall i|could i|can i|may i|will you|would you)\b", core
        ):
            return write_op, 0.7
        return "query", 0.85
    if write_pos == 0:
        return write_op, 0.9
    if FREE_CUES.search(core) and write_pos > 1000:
        return "free", 0.75
    if write_pos < 1000:
        query_pos = _first(QUERY_CUES, masked)
        if query_pos < write_pos and query_pos == 0:
            return "query", 0.7
        return write_op, 0.75
    if QUERY_CUES.search(core):
        return "query", 0.7
    if OUT_OF_SCOPE.search(core):
        return "out_of_scope", 0.6
    if in_scope:
        return "query", 0.5
    return "unknown", 0.2
