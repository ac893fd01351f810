"""A new event being described, over one turn or several, and details given for the one just made.

Each function is one handler of :mod:`assistant.decomposer.handlers`, tried in the table's order: a
create asked for in words, a statement that describes an event without asking, the operation model's
reading of a new event where the rules read no verb, and the turns that go on with a draft.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

from assistant.decomposer.blanks import blanked
from assistant.decomposer.dialogue import asks_question, reader_asked, says_what
from assistant.decomposer.drafts import amend, draft_turn, renames_it
from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.gate import MODEL_LED
from assistant.decomposer.intent import booked_elsewhere
from assistant.decomposer.reading import Reading
from assistant.decomposer.recurrence import read_repeat
from assistant.decomposer.understand import sees_the_calendar, understand
from assistant.decomposer.unsupported import unsupported_write
from assistant.lexicon import (
    NAMED_OUTRIGHT,
    POINTERS,
    POLITE_PREFIX,
    QUESTION_STARTERS,
    after_it_is,
    away_kind,
    tokens,
)
from assistant.nlu import read_turn
from assistant.nlu.operations import REQUESTS
from assistant.timeexpr import find_times
from workflows.definition import Decision

__all__ = [
    "amended",
    "asked_for",
    "described",
    "draft_goes_on",
    "draft_named_it",
    "model_reads_new",
    "no_date",
]

# How sure the operation model must be for its reading of a new event to start one where the rules found
# no verb of their own ("I have a hike with Polly at 3:30"); a write begun on its word alone is
# previewed, never made at once (its confidence is at most MODEL_LED).
_MODEL_SURE = 0.75
# The operations that name an event without describing a new one, and how likely the model must find
# one of them to keep a statement from starting a new event (more likely than anything else).
_NOT_NEW = frozenset(REQUESTS) - {"create"}
_MODEL_LEANS = 0.5


def no_date(r: Reading) -> Decision | None:
    """A create whose date could not be read ("on February 30th"): asked about, never guessed."""
    if not (r.frame.error and r.frame.operation == "create"):
        return None
    return Decision(kind="clarify", reply_kind="clarify", text=f"{r.frame.error} Which date did you mean?")


def draft_named_it(r: Reading) -> Decision | None:
    """ "Make it for 12 pm", "add it to my calendar" while an event is described: "it" (any of the
    lexicon's pointers) is that event."""
    if r.state.draft is None or r.frame.operation not in ("move", "create"):
        return None
    if POINTERS.isdisjoint(tokens(r.norm)):
        return None
    return draft_turn(r.frame, r.text, r.state, r.learned, r.now, r.tz, continuing=True)


# How sure a detail said as a correction ("not X, Y") of the event just made may be: below acting.
_CORRECTED = 0.75


def amended(r: Reading) -> Decision | None:
    """Details for the event just made ("put it in room 4", "invite Ann too"); a question when the
    turn says it was the wrong event ("not that one, the design review")."""
    made = r.state.made
    # ("put it under Budget sync" reads as a create by its verb, but names "it": the event just made)
    naming_it = renames_it(NAMED_OUTRIGHT.search(r.text.strip()))
    if made is None or _other_request(r) or (r.frame.operation == "create" and not naming_it):
        return None
    words = r.norm.replace(",", " ").split()
    if (words[:1] == ["not"] and "one" in words[1:3]) or words[:2] in (["wrong", "one"], ["wrong", "event"]):
        # renaming the event just changed after the name of another (it was done) is no fix of it
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"I just changed '{made.summary}'. If that was the wrong event, say \"undo\" to put it "
            "back, then tell me which one you meant.",
            confidence=0.9,
        )
    other = next(
        (t for t in r.frame.titles if r.frame.title_words and t.casefold() != made.summary.casefold()), None
    )
    if other is not None:
        # "and the design review too": another event the calendar has, not a new name for this one
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"I just changed '{made.summary}'. To change '{other}' too, say what to do with it, e.g. "
            f'"move the {other.casefold()} to Friday at 3pm".',
            confidence=0.9,
        )
    if words[:1] != ["not"]:
        return amend(made, r.frame, r.text, r.learned, r.now, r.tz)
    # "not at home, at the office": the detail is what follows the comma; what replaces what is the
    # rules' guess, so it is shown first
    said = r.text.partition(",")[2].strip()
    if not said:
        decision = amend(made, r.frame, r.text, r.learned, r.now, r.tz)
    else:  # the words after the comma read on their own: they are the whole detail
        learned = read_turn(said, asked=reader_asked(r.state.asked), now=r.now)
        frame = understand(said, now=r.now, world=r.world, reading=learned)
        decision = amend(made, frame, said, learned, r.now, r.tz)
    if decision is not None and decision.kind == "workflow":
        return decision.model_copy(update={"confidence": min(decision.confidence, _CORRECTED)})
    return decision


_ASKS_OF_ONESELF = re.compile(r"^(?:did|have|had|will|am|was) (?:i|we)\b")


def asked_for(r: Reading) -> Decision | None:
    """A new event asked for in words ("add", "schedule", "book"), or by the learned reader's intent;
    not a question of what the user did or will do ("did I put the hike on my calendar?", "will I see
    Ann this week?"), which asks whether it is there."""
    starts = r.frame.operation == "create" or (
        r.learned.intent == "AddEvent" and r.frame.operation in ("unknown", "query")
    )
    if not starts or _ASKS_OF_ONESELF.match(r.norm):
        return None
    return draft_turn(_unrepeated(r.frame, r), r.text, r.state, r.learned, r.now, r.tz, continuing=False)


def described(r: Reading) -> Decision | None:
    """A statement that describes an event without asking ("The event is located at 801 Welch Road.")."""
    if _other_request(r) or not _describes_event(r):
        return None
    drafted = draft_turn(_unrepeated(r.frame, r), r.text, r.state, r.learned, r.now, r.tz, continuing=False)
    if drafted.kind == "clarify":
        # details with no request and not enough for an event ("the location is my office"):
        # begun as one, but only a guess (a model, where there is one, may read it better)
        drafted = drafted.model_copy(update={"confidence": min(drafted.confidence, 0.6)})
    elif r.state.draft is None and away_kind(r.norm) is not None:
        # an absence begun on a statement alone ("out of office next week"): shown before it is made
        drafted = drafted.model_copy(update={"confidence": min(drafted.confidence, MODEL_LED)})
    return drafted


def model_reads_new(r: Reading) -> Decision | None:
    """A new event by the operation model's reading, in a turn the rules read no write in ("I have a
    hike with Polly at 3:30"), or written as shorthand ("gym mon 7am"): previewed, never made at once;
    the decision's frame says "create"."""
    if r.state.draft is not None or not (_model_reads_create(r) or _shorthand(r)):
        return None
    frame = replace(r.frame, operation="create")
    guarded = unsupported_write(frame, r.text, r.now, r.world)
    if guarded is not None:  # "... if not, add one at 2": a condition, asked about as any write's
        return guarded.model_copy(update={"frame": r.frame.as_json()})
    drafted = draft_turn(_unrepeated(frame, r), r.text, r.state, r.learned, r.now, r.tz, continuing=False)
    return drafted.model_copy(
        update={"confidence": min(drafted.confidence, MODEL_LED), "frame": frame.as_json()}
    )


def draft_goes_on(r: Reading) -> Decision | None:
    """Another detail of the event being described ("at 3", "with Ann", "call it Planning"); a turn said
    of "it" ("it's a meeting with the landlord") is one, though it would read as a look-up alone."""
    if r.state.draft is None or (_other_request(r) and not _said_of_it(r.norm)):
        return None
    return draft_turn(r.frame, r.text, r.state, r.learned, r.now, r.tz, continuing=True)


def _said_of_it(norm: str) -> bool:
    """Whether the turn is a statement about "it" ("it's a meeting with the landlord", "it is at 3"),
    not a question ("is it at 3?")."""
    return "?" not in norm and after_it_is(norm) is not None


def _other_request(r: Reading) -> bool:
    """A turn that asks for something else than a new event's details: a change, an undo, a count, or a
    question (a statement of details reads as a query too, but names something)."""
    frame = r.frame
    return frame.operation in ("move", "delete", "undo", "count", "free", "preference_get") or (
        frame.operation == "query"
        and (asks_question(frame, r.text) or (says_what(frame, r.text, r.learned) and not r.learned.spans))
    )


def _unrepeated(frame: RequestFrame, r: Reading) -> RequestFrame:
    """The frame of a create request read without its repetition ("every Tuesday", "until May"), whose
    weekdays and dates would otherwise pass for the title or the start."""
    repeat = read_repeat(r.text, r.now)
    if repeat is None:
        return frame
    reread = replace(
        understand(blanked(r.text, repeat.spans), now=r.now, world=r.world), operation=frame.operation
    )
    if frame.at_time is not None and reread.at_time is None:
        # the repetition's words made a clock time of what, alone, reads as dates ("9-11 every weekday
        # in February" is 9 to 11; "9-11 in February" is the 9th to the 11th): the times stay the
        # whole turn's, only the title is read without the repetition
        reread = replace(
            reread,
            start=frame.start,
            end=frame.end,
            at_time=frame.at_time,
            range_explicit=frame.range_explicit,
            duration_minutes=frame.duration_minutes,
        )
    return reread


def _model_reads_create(r: Reading) -> bool:
    """A new event, by the operation model's reading, in a turn the rules read no write in.

    Not a turn that opens as a question ("do I have a 3 hour block on Tuesday?", "show me ..."), asks
    for the next of something ("next meeting with John") or names only a stretch of days: SMCalFlow,
    which the model learnt from, answers some of those by booking, and this assistant answers them.
    """
    return (
        r.frame.operation in ("unknown", "query")
        and _model_sure_of_create(r)
        and not r.frame.wants_next
        and not QUESTION_STARTERS.match(POLITE_PREFIX.sub("", r.norm))
        and not _only_a_range(r.frame)
        and not sees_the_calendar(r.norm)
    )


def _model_sure_of_create(r: Reading) -> bool:
    """Whether the operation model is sure the turn asks for a new event; read again without its
    repetition where it is not: the model learnt from few wishes that repeat, and hears "I need to pick
    up my kids at 3:15 every weekday" as out of scope, the same without "every weekday" as a create."""
    if r.learned.operation == "create" and r.learned.operation_confidence >= _MODEL_SURE:
        return True
    repeat = read_repeat(r.text, r.now)
    if repeat is None or not repeat.rule:
        return False
    plain = read_turn(blanked(r.text, repeat.spans), now=r.now)
    return plain.operation == "create" and plain.operation_confidence >= _MODEL_SURE


def _shorthand(r: Reading) -> bool:
    """A new event written as a calendar entry is: what, then a day (or days it repeats on) and a clock
    time, and no word of a request or a question ("gym mon 7am 1hr", "brainstorm with Ana & Ben thursday
    11", "gym daily at 7am", "yoga every tuesday 6pm")."""
    frame = r.frame
    if not (
        frame.operation == "unknown"
        and bool(frame.titles)
        and not frame.title_words  # "standup thursday 9am" names the standup the calendar has
        and "?" not in r.text
        and not QUESTION_STARTERS.match(POLITE_PREFIX.sub("", r.norm))
    ):
        return False
    # a day and a clock time said together ("mon 7am"): "for now" is no time to book
    times = find_times(r.norm, now=r.now, daytime=True)
    clock = [m for m in times if m.has_time and m.grain in ("hour", "minute")]
    if read_repeat(r.text, r.now) is not None:
        return bool(clock)
    # "team sync with ann and bob monday 11-12": a clock interval on a day is a time too
    timed = frame.at_time is not None or any(m.is_interval and m.has_date for m in clock)
    return timed and frame.range_explicit and any(m.has_date for m in clock)


def _only_a_range(frame: RequestFrame) -> bool:
    """A turn whose only time is a stretch longer than a day and no time of day ("dentist calendar
    november"): a range to look through, not a time to book; the rules' reading of it stands."""
    return (
        frame.at_time is None
        and frame.range_explicit
        and frame.start is not None
        and frame.end is not None
        and frame.end - frame.start > timedelta(days=1)
    )


def _describes_event(r: Reading) -> bool:
    """A statement that names an event by its title or place, or an absence on a day ("The event is
    located at 801 Welch Road.", "out of office next week"), asking nothing: the start of a new event's
    description, even without "add"; not a booking with someone else ("reserve a table at Nopa at 7")."""
    learned = r.learned
    return (
        r.frame.operation in ("unknown", "query", "yes", "out_of_scope")
        and not booked_elsewhere(r.norm)
        and not asks_question(r.frame, r.text)
        and "?" not in r.text
        and not QUESTION_STARTERS.match(r.norm)
        and "INFORM" in learned.acts
        and not learned.acts & {"REQUEST", "REQUEST_ALTS", "INFORM_INTENT"}
        and (
            any(s.slot in ("title", "location") for s in learned.spans)
            or bool(NAMED_OUTRIGHT.search(r.text))
            or (away_kind(r.norm) is not None and r.frame.range_explicit)
        )
        and not _model_reads_another_request(r)
    )


def _model_reads_another_request(r: Reading) -> bool:
    """The operation model reads a look-up or a change of an existing event in the turn ("first week of
    march meetings", "I forgot where I'm having dinner tonight", "James can't go bowling tonight, so
    Tommy is going instead"), which names an event without describing a new one."""
    return r.learned.operation in _NOT_NEW and r.learned.operation_confidence >= _MODEL_LEANS
