"""A question about the events just shown, asked of them without naming them: "when's the design review?"
then "who's going?", "where is it?", "how long are they?".

The turn names no event, day or person, so on its own it is small talk ("who's going?" was answered
"Great!") or a question about the coming week ("where is it?" listed every event's place). The events
the last answer showed are what "it" and "they" are: each of them, found again by its start, with the
detail asked for on its line.
"""

from __future__ import annotations

import re
from datetime import datetime

from assistant.decomposer.reading import Reading
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["about_shown"]

# Words that point back at what was shown; a question of three words or fewer points back by itself
# ("who's going?", "where?").
_TO_ME = re.compile(r"\byou\b")
_BACK = re.compile(r"\b(?:it|they|them|that|those|these|this one|there)\b")


def about_shown(r: Reading) -> Decision | None:
    """The detail asked of the events the last answer showed, or None for any other turn."""
    shown = [e for e in r.context.get("last_events") or [] if e.get("start") and e.get("end")]
    frame = r.frame
    if not shown or frame.detail is None or frame.operation not in ("query", "unknown"):
        return None
    if frame.title_words or frame.range_explicit or frame.people or frame.category or frame.places:
        return None  # "where is the dentist?": the event named, read as any question
    if not _BACK.search(r.norm) and len(r.norm.split()) > 3:
        return None
    if _TO_ME.search(r.norm):
        return None  # "who are you?", "where are you?": asked of the assistant
    starts = [datetime.fromisoformat(e["start"]) for e in shown]
    end = max(datetime.fromisoformat(e["end"]) for e in shown)
    plan = Plan()
    found = plan.add(
        "find_events",
        {
            "start": min(starts).isoformat(),
            "end": end.isoformat(),
            "starts": [e["start"] for e in shown],
            # one event shown: its title too, as another may start at the same time
            **({"text": shown[0]["summary"]} if len(shown) == 1 and shown[0].get("summary") else {}),
        },
        id="find",
        summary="Find the events just shown",
    )
    reply = plan.add(
        "compose_reply",
        {"style": "agenda", "events": found["events"], "subject": "events", "detail": frame.detail},
        id="reply",
        summary="Write the answer",
    )
    return Decision(
        kind="workflow",
        workflow=plan.build("about-shown", summary="Answer about the events just shown", output=reply),
        confidence=0.85,
    )
