"""The Schema-Guided Dialogue calendar turns (shared/eval/sgd_calendar_turns.dev.jsonl) as examples.

This adapts that dataset's wording to the reader's inputs for training and evaluation only; nothing
here runs when the chat reads a turn. The one real adaptation is ``asked``: our chat knows what it
asked, but the dataset only gives the words its own assistant said before the turn (``prev_system``),
so :func:`asked_from_prompt` reads them with a few cues.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from django.conf import settings

from assistant.nlu.examples import Example
from assistant.nlu.labels import sgd_operation
from assistant.nlu.reading import Asked, Slot, Span

__all__ = ["DEV_FILE", "asked_from_prompt", "load"]

DEV_FILE = Path(settings.BASE_DIR).parent / "shared" / "eval" / "sgd_calendar_turns.dev.jsonl"

_SLOTS: dict[str, Slot] = {
    "event_date": "date",
    "event_time": "time",
    "event_name": "title",
    "event_location": "location",
}

# A read-back of details ("Please confirm: ...", "..., correct?", "To be clear, ...") asks to confirm
# wherever it stands ("confirmed" reports a booking instead). The other cues count only in a sentence
# that asks, an open question or a request ("Which day?", "Can you tell me the time?"): statements name
# dates, places and events all the time, and a yes/no question ("Is the location 12 Oak Street?",
# "Would you like to visit this location?") asks for a yes or a no, not for the thing it names. A
# question that already holds a street number ("..., with the location 12 Oak Street?") reads a place
# back, it does not ask for one.
_CONFIRM = re.compile(
    r"\bconfirm(?:ation)?\b|\bverify|\bcorrect\b|\bto be clear\b|\bis (?:that|this|it) right\b", re.I
)
_SENTENCE = re.compile(r"[^.?!]+[.?!]*")
_REQUEST = re.compile(r"\b(?:please|tell|specify|suggest|give|provide|let me know)\b", re.I)
_YES_NO = re.compile(
    r"\s*(?:\w+,\s*)?(?:is|are|was|will|would|should|shall|do|does|did|can|could|may|have|has)\b", re.I
)
_DIGIT = re.compile(r"\d")
_CUES: tuple[tuple[Asked, re.Pattern[str]], ...] = (
    ("date", re.compile(r"\bdates?\b|\bdays?\b|\bwhen\b", re.I)),
    ("time", re.compile(r"\btime\b|\bwhat hour\b", re.I)),
    ("title", re.compile(r"\bname\b|\btitle\b|\blabel\b|\bcall\b|\bwhat (?:is the |type of )?event\b", re.I)),
    ("location", re.compile(r"\bwhere\b|\blocation\b|\baddress\b|\btak(?:es|ing) place\b", re.I)),
)


def asked_from_prompt(prompt: str) -> Asked | None:
    """What the dataset's assistant asked for in ``prompt``: the earliest cue of its questions.

    "What time, and what should I call it?" asks for a time first; a single ``asked`` is all the
    reader takes, as our chat asks one thing at a time.
    """
    if _CONFIRM.search(prompt):
        return "confirm"
    found: list[tuple[int, Asked]] = []
    for sentence in _SENTENCE.finditer(prompt):
        words = sentence.group()
        if not (_REQUEST.search(words) or (words.endswith("?") and not _YES_NO.match(words))):
            continue
        for asked, cue in _CUES:
            hit = cue.search(words)
            if hit and not (asked == "location" and _DIGIT.search(words)):
                found.append((sentence.start() + hit.start(), asked))
    return min(found)[1] if found else None


def load(path: Path) -> list[Example]:
    """Every turn of the JSON-lines file at ``path``, in file order."""
    with path.open(encoding="utf-8") as lines:
        return [_example(json.loads(line)) for line in lines if line.strip()]


def _example(record: dict[str, Any]) -> Example:
    text: str = record["text"]
    slots = sorted((s for s in record["slots"] if s["slot"] in _SLOTS), key=lambda s: (s["start"], s["end"]))
    intents = [a["values"][0] for a in record["acts"] if a["act"] == "INFORM_INTENT" and a["values"]]
    acts = frozenset(a["act"] for a in record["acts"])
    intent = intents[0] if intents else None
    return Example(
        dialogue=record["dialogue_id"],
        text=text,
        asked=asked_from_prompt(record.get("prev_system", "")),
        acts=acts,
        intent=intent,
        spans=tuple(
            Span(_SLOTS[s["slot"]], s["start"], s["end"], text[s["start"] : s["end"]]) for s in slots
        ),
        canonical=tuple(str(s["canonical"]) for s in slots),
        operation=sgd_operation(acts, intent),
    )
