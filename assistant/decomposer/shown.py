"""A question about the events just shown, asked of them without naming them: "when's the design review?"
then "who's going?", "where is it?", "how long are they?".

The turn names no event, day or person, so on its own it is small talk ("who's going?" was answered
"Great!") or a question about the coming week ("where is it?" listed every event's place). The events
the last answer showed are what "it" and "they" are: each of them, found again by its start, with the
detail asked for on its line.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from assistant.decomposer.reading import Reading
from assistant.decomposer.state import ABOUT_ONE_SHOWN, DialogueState
from assistant.lexicon import ORDINALS, PICK, POINTERS, WEEKDAY_WORD, tokens
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["about_shown", "in_the_week_shown", "nth_shown", "shown_span"]

# Words that point back at what was shown (the lexicon's pointers, "they", "there"); a question of three
# words or fewer points back by itself ("who's going?", "where?").
_BACK = POINTERS | {"they", "there"}


def nth_shown(nth: str, shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The shown event at the place ``nth`` names ("second", "last": a key of ORDINALS), or None past
    the end of the list."""
    index = ORDINALS[nth]
    return shown[index] if -len(shown) <= index < len(shown) else None


def _picked(norm: str, shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The shown event a question picks by its place in the list ("the second one", "the last
    meeting"), or None where it picks none (or one past the end)."""
    m = PICK.search(norm)
    if m is None or not m["nth"] or m["nth"] == "other" or not shown:
        return None
    return nth_shown(m["nth"], shown)


def shown_span(shown: list[dict[str, Any]]) -> tuple[datetime, datetime]:
    """From the first start to the last end of the events an answer showed (as the conversation's
    context keeps them: ISO strings)."""
    return (
        min(datetime.fromisoformat(e["start"]) for e in shown),
        max(datetime.fromisoformat(e["end"]) for e in shown),
    )


def about_shown(r: Reading) -> Decision | None:
    """The detail asked of the events the last answer showed, or of the one of them picked by its place
    in the list ("where is the first one?", "tell me about the second one": all it gives); None for any
    other turn."""
    shown = [e for e in r.context.get("last_events") or [] if e.get("start") and e.get("end")]
    frame = r.frame
    picked = _picked(r.norm, shown)
    if picked is not None:
        shown = [picked]
    detail = frame.detail or ("all" if picked is not None else None)
    if not shown or detail is None or frame.operation not in ("query", "unknown"):
        return None
    if frame.title_words or frame.range_explicit or frame.people or frame.category or frame.places:
        return None  # "where is the dentist?": the event named, read as any question
    said = set(tokens(r.norm))
    if picked is None and _BACK.isdisjoint(said) and len(r.norm.split()) > 3:
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
        {"style": "agenda", "events": found["events"], "subject": "events", "detail": detail},
        id="reply",
        summary="Write the answer",
    )
    return Decision(
        kind="workflow",
        workflow=plan.build(
            ABOUT_ONE_SHOWN if picked is not None else "about-shown",
            summary="Answer about the events just shown",
            output=reply,
        ),
        confidence=0.85,
    )


def in_the_week_shown(day: date | None, said: str, state: DialogueState, today: date) -> date | None:
    """The same weekday in the stretch of days the conversation is on, when a new event's day was said
    as a bare weekday ("on Tuesday") that falls outside it ("what's on next week?", then "add lunch on
    Tuesday at noon" or "cancel everything on Tuesday": this Tuesday, by the words, or next week's, by
    the talk); None otherwise."""
    asked = state.last_question
    if day is None or asked is None or asked.start is None or asked.end is None or asked.single_day:
        return None
    words = tokens(said)
    if not WEEKDAY_WORD.search(said.casefold()) or not _NAMES_WHICH_ONE.isdisjoint(words):
        return None
    if any(w[:1].isdigit() for w in words):
        return None  # "Tuesday the 10th": that date
    first, end = asked.start.date(), asked.end.date()
    if first <= day < end or (end - first).days > 14:
        return None
    ahead = (day.weekday() - first.weekday()) % 7
    shown = first + timedelta(days=ahead)
    return shown if today <= shown < end else None  # (not one gone by: "this week" asked on a Wednesday)


# Words that say which of the weekdays of that name is meant ("next Tuesday", "this Friday").
_NAMES_WHICH_ONE = frozenset({"this", "next", "coming", "following", "last", "past", "previous", "the"})
