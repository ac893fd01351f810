"""A question about the events just shown, asked of them without naming them: "when's the design review?"
then "who's going?", "where is it?", "how long are they?".

The turn names no event, day or person, so on its own it is small talk ("who's going?" was answered
"Great!") or a question about the coming week ("where is it?" listed every event's place). The events
the last answer showed are what "it" and "they" are: each of them, found again by its start, with the
detail asked for on its line.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from assistant.decomposer.reading import Reading
from assistant.lexicon import POINTERS, tokens
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["about_shown", "shown_span"]

# Words that point back at what was shown (the lexicon's pointers, "they", "there"); a question of three
# words or fewer points back by itself ("who's going?", "where?").
_BACK = POINTERS | {"they", "there"}


def shown_span(shown: list[dict[str, Any]]) -> tuple[datetime, datetime]:
    """From the first start to the last end of the events an answer showed (as the conversation's
    context keeps them: ISO strings)."""
    return (
        min(datetime.fromisoformat(e["start"]) for e in shown),
        max(datetime.fromisoformat(e["end"]) for e in shown),
    )


def about_shown(r: Reading) -> Decision | None:
    """The detail asked of the events the last answer showed, or None for any other turn."""
    shown = [e for e in r.context.get("last_events") or [] if e.get("start") and e.get("end")]
    frame = r.frame
    if not shown or frame.detail is None or frame.operation not in ("query", "unknown"):
        return None
    if frame.title_words or frame.range_explicit or frame.people or frame.category or frame.places:
        return None  # "where is the dentist?": the event named, read as any question
    said = set(tokens(r.norm))
    if _BACK.isdisjoint(said) and len(r.norm.split()) > 3:
        return None
    if "you" in said:
        return None  # "who are you?", "where are you?": asked of the assistant
    start, end = shown_span(shown)
    plan = Plan()
    found = plan.add(
        "find_events",
        {
            "start": start.isoformat(),
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
