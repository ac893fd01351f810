"""Reading a turn as an update of the dialogue state: follow-ups, small talk, what the reply asked.

The sentence-level reading (:func:`understand`, the rule frame) says what a turn says on its own; this
module decides what it means *here*: a turn that names only a day asks the last question again for
that day, a question without a day asks about the day being discussed, and thanks or goodbyes get a
short answer.  The learned turn reader (:mod:`assistant.nlu`) supplies the dialogue acts, which
phrasing lists could never cover.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.decomposer.frame import READS, RequestFrame
from assistant.decomposer.intent import classify, normalise
from assistant.decomposer.reading import Reading
from assistant.decomposer.recurrence import read_repeat
from assistant.decomposer.state import Asked, DialogueState, LastQuestion
from assistant.lexicon import (
    CALENDAR_TALK,
    CONJUNCTIONS,
    COUNT_CUES,
    FREE_CUES,
    POLITE_PREFIX,
    SAME_AGAIN,
    STREET_ADDRESS,
    THE_NEXT_PERIOD,
    TITLES_OF_ADDRESS,
    trim_edges,
)
from assistant.nlu import Asked as ReaderAsked
from assistant.nlu import TurnReading, read_turn
from assistant.nlu.operations import REQUESTS
from assistant.timeexpr import find_times
from skills.changes import shift_wall
from workflows.definition import Decision

__all__ = [
    "NOTHING_WAITING",
    "asks_question",
    "chat",
    "follow_up",
    "last_question",
    "reader_asked",
    "says_what",
    "small_talk",
]

NOTHING_WAITING = "There is nothing waiting for your answer right now."
# Below this the rule classifier only guessed (calendar words, no cue), and the learned intent decides.
_SURE = 0.7
_SOCIAL_ACTS = frozenset({"THANK_YOU", "GOODBYE", "AFFIRM", "NEGATE", "SELECT", "REQ_MORE"})


_READER_ASKED: dict[str, ReaderAsked] = {
    "date": "date",
    "time": "time",
    "when": "time",
    "title": "title",
    "what": "title",
    "location": "location",
    "confirm": "confirm",
}


# A question: asked outright ("when is ...", "do I have ...") or as a wish to know ("(I need to) find
# out when ...", "check whether ..."); not a command that reads ("find another time that day").
_ASKING = re.compile(
    r"(?:what|what's|whats|when|when's|where|who|whom|which|why|how|find out|look up|"
    r"check (?:if|whether|when)|know|see if|see whether|tell me|show me|remind me)\b"
    r"|(?:is|are|do|does|did|am|was|were|has|have|will|shall|should|can|could)\s+"
    r"(?:i|you|we|they|he|she|it|there|my|the|anything|anyone)\b"
)


def asks_question(frame: RequestFrame, text: str) -> bool:
    """A turn read as a question that asks ("when is my physio?", "I need to find out when ..."): it
    names an event to ask about it, never to describe or change one (a statement of details reads as
    a query too, but only at the classifier's guess, 0.5)."""
    norm = normalise(text)
    core = POLITE_PREFIX.sub("", norm).strip()
    asks = "?" in text or bool(_ASKING.match(norm) or _ASKING.match(core))
    return frame.operation == "query" and frame.confidence >= 0.8 and asks


def reader_asked(asked: Asked | None) -> ReaderAsked | None:
    """What the turn reader should take the assistant's last question to have asked for."""
    return _READER_ASKED.get(asked) if asked else None


def says_what(frame: RequestFrame, text: str, reading: TurnReading) -> bool:
    """Whether a turn names what it asks about, not only when."""
    norm = normalise(text)
    return bool(
        frame.title_words
        or frame.category
        or frame.people
        or FREE_CUES.search(norm)
        or COUNT_CUES.search(norm)
        or CALENDAR_TALK.search(norm)
        or reading.intent in ("GetEvents", "GetAvailableTime")
        or (frame.operation == "free" and frame.duration_minutes is not None)  # "find an hour on Friday"
    )


_READ_INTENTS = {"GetEvents": "query", "GetAvailableTime": "free"}


_DOING = re.compile(
    r"\b(?:make|set|change|put|move|add|book|schedule|cancel|delete|rename|invite|remove|update|show|check)\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"(?<=[,.!?;])\s+|(?<=[.!?])(?=[A-Z])")
# "ok but make it 10 instead": a "but" after a word or two, no comma, ends an acknowledgement too
_BUT = re.compile(r"^((?:[^\s,.;!?]+\s+)?[^\s,.;!?]+)\s+but\s+", re.IGNORECASE)
_ABBREVIATED = re.compile(rf"\b(?:{'|'.join(TITLES_OF_ADDRESS)})\.$", re.IGNORECASE)
# "lunch with Ann, Bo and Raj tomorrow", "can Ann, Raj and I all meet": a comma inside a list of people,
# not after a clause of its own
_LIST_GOES_ON = (
    re.compile(
        r"(?:\bwith|^(?:can|could|will|would|do|does|should|shall))\s+[\w'-]+(?:\s+[\w'-]+)?,$", re.IGNORECASE
    ),
    re.compile(r"^[\w'-]+(?:\s+[\w'-]+)?(?:,\s*[\w'-]+(?:\s+[\w'-]+)?)*,?\s+(?:and|&)\s", re.IGNORECASE),
)


def without_acknowledgements(text: str, *, now: datetime) -> str:
    """``text`` without the clauses before the request that only acknowledge ("Fine, now check the
    6th", "Sure. It's 17705 Hale Avenue", "That's awesome. When is my schedule clear?"): what follows
    is the turn, and the rules would otherwise read the whole as a "yes". ``now`` is the turn's clock."""
    clauses: list[str] = []
    for piece in (c for c in _CLAUSE.split(_BUT.sub(r"\1, but ", text.strip(), count=1)) if c):
        if clauses and _ABBREVIATED.search(clauses[-1]):
            clauses[-1] += " " + piece  # "I'm seeing Dr. Patel": the dot of a title, not a sentence's end
        else:
            clauses.append(piece)
    dropped = 0
    while dropped < len(clauses) - 1:
        first, then = clauses[dropped : dropped + 2]
        listing = _LIST_GOES_ON[1].search(then) is not None
        if (listing and _LIST_GOES_ON[0].search(first)) or not _acknowledges(first, now, listing=listing):
            break
        dropped += 1
    if dropped and normalise(" ".join(clauses[dropped:])).strip(" .!") in ("please", "pls"):
        return text  # "Yes, please.": the yes is the turn, not an acknowledgement before a request
    # "No, don't add it, but let's schedule the visit": the request, without the link to what was dropped
    return trim_edges(" ".join(clauses[dropped:]), CONJUNCTIONS, trail=False) if dropped else text


# What the operation model reads in a clause that only acknowledges: a yes, a no, thanks.
_SOCIAL_OPERATIONS = frozenset({"approve", "decline", "small_talk"})


def _acknowledges(clause: str, now: datetime, *, listing: bool = False) -> bool:
    """``listing``: the next clause goes on with a list of people ("Cy and I need a call"), so a name
    before it ("Bo, Cy and I ...") is its first member, which the model hears only faintly as a yes:
    then only a clear acknowledgement is one."""
    operation = classify(clause.rstrip(",") if listing else clause)[0]
    if operation in ("yes", "no", "greet"):
        return True
    if operation != "unknown" or _DOING.search(clause):
        # "I need to book a meeting with Priya,", "Also make the location Room B,": a request,
        # whatever acts the reader hears in it
        return False
    if STREET_ADDRESS.search(clause):
        return False  # an address gives a place, whatever else the clause sounds like
    if find_times(clause, now=now):
        return False  # "For the rest of the month," says when, whatever the reader makes of it
    # the learned reading last: it costs the most, and the clauses that give a place or a time need none
    reading = read_turn(clause, now=now)
    if not reading.acts or not reading.acts <= _SOCIAL_ACTS or reading.spans:
        return False
    # "I have to go to 1447 Cedarwood Lane # A,": more of the request, as the model reads it
    if listing:
        return reading.operation in _SOCIAL_OPERATIONS and reading.operation_confidence >= 0.5
    return reading.operation in _SOCIAL_OPERATIONS or reading.operation_confidence < 0.5


def heed_intent(frame: RequestFrame, text: str, reading: TurnReading, now: datetime) -> RequestFrame:
    """The rule frame, corrected where the learned reader hears a question the rules took for a write
    or an answer: "Sounds good, when am I available?" asks rather than agrees; a vague wish to create
    followed by a question asks the question.  Only ever towards reading, and only where the rules are
    unsure: a write is never made, nor a clear write request unmade, on the reader's guess alone."""
    operation = _READ_INTENTS.get(reading.intent or "")
    if operation is None:
        return frame
    repeat = read_repeat(text, now) if frame.operation == "unknown" and "?" not in text else None
    if repeat is not None and repeat.rule:
        # "I need to take my meds at 9pm every day": something done again and again, said, not asked;
        # the intent model, which learnt from few such wishes, hears a look-up in it
        return frame
    vague_create = frame.operation == "create" and frame.at_time is None
    if frame.operation in ("yes", "no", "unknown") or (vague_create and "?" in text):
        # "I'm trying to schedule an appointment, can you check the events on my calendar?"
        return replace(frame, operation=operation, confidence=0.75)  # type: ignore[arg-type]
    return frame


def follow_up(
    frame: RequestFrame, text: str, state: DialogueState, reading: TurnReading, now: datetime
) -> RequestFrame:
    """The frame with what the conversation supplies: the operation of a day-only turn, the day of a
    question that names none."""
    if frame.operation not in ("unknown", *READS) or frame.error:
        return frame
    last = state.last_question
    norm = normalise(text)
    asked_again = last is not None and bool(SAME_AGAIN.search(norm))
    after = _period_after(norm, last, now) if last is not None and asked_again else None
    if after is not None:  # "same for the week after": the week after the one asked about, not this
        frame = replace(frame, start=after[0], end=after[1], range_explicit=True)
    again = asked_again and frame.range_explicit
    named = not again and says_what(frame, text, reading)
    if frame.range_explicit and (frame.operation == "unknown" or not named):
        # "and the 12th?", "I want to know about the 4th", "the 10th I have something going on": the
        # last question for that day; "do the same for March", "what about next week?": of the same
        # events too
        operation = last.operation if last is not None and not named else "query"
        if last is None or not again:
            return replace(frame, operation=operation, confidence=max(frame.confidence, 0.75))
        return replace(
            frame,
            operation=last.operation,
            confidence=max(frame.confidence, 0.75),
            titles=list(last.titles),
            title_words=list(last.title_words),
            category=last.category,
            people=list(last.people),
            person_names=list(last.person_names),
        )
    weak = frame.confidence < _SURE  # the rules saw no cue of their own, only calendar words or nothing
    if weak and frame.operation == "query" and reading.intent == "GetAvailableTime" and not frame.title_words:
        frame = replace(frame, operation="free")  # "my calendar is vacant then?": learned, not listed
    focus = state.focus()
    if (
        frame.operation in READS
        and focus is not None
        and not frame.range_explicit
        and not frame.wants_next
        and not frame.title_words
    ):
        # "When am I available?" right after talking about the 9th: the 9th.
        return replace(frame, start=focus[0], end=focus[1], range_explicit=True)
    return frame


def _period_after(norm: str, last: LastQuestion, now: datetime) -> tuple[datetime, datetime] | None:
    """The day or week after the one last asked about, when the turn says "the week after" or "the
    following day" of a question asked of a day or a week; None otherwise."""
    m = THE_NEXT_PERIOD.search(norm)
    if m is None or last.start is None or last.end is None or not isinstance(now.tzinfo, ZoneInfo):
        return None
    days = 7 if (m["after"] or m["following"]) == "week" else 1
    start, end = last.start.astimezone(now.tzinfo), last.end.astimezone(now.tzinfo)
    if (end.date() - start.date()).days != days:
        return None  # "the week after" of a question about one day: not read as the next period
    return end, shift_wall(end, now.tzinfo, days=days)


def last_question(frame: RequestFrame, now: datetime, tz: ZoneInfo) -> LastQuestion | None:
    """What a read-only turn asked, to remember, of which events, with the range the user named (if
    any)."""
    if frame.operation not in READS:
        return None
    subject = {
        "titles": list(frame.titles) if frame.title_words else [],
        "title_words": list(frame.title_words),
        "category": frame.category,
        "people": list(frame.people),
        "person_names": list(frame.person_names),
    }
    if not frame.range_explicit or frame.start is None or frame.end is None:
        return LastQuestion(operation=frame.operation, **subject)
    start, end = frame.start, frame.end
    if frame.at_time is not None and end - start <= timedelta(minutes=1):
        # "what do I have at 3pm tomorrow": the day is what a follow-up goes on about
        day = start.astimezone(tz).replace(hour=0, minute=0, second=0, microsecond=0)
        start, end = day, day + timedelta(days=1)
    local_start, local_end = start.astimezone(tz), (end - timedelta(microseconds=1)).astimezone(tz)
    return LastQuestion(
        operation=frame.operation,
        start=start,
        end=end,
        single_day=local_start.date() == local_end.date(),
        **subject,
    )


def chat(r: Reading) -> Decision | None:
    """The answer to a turn that only thanks, greets, agrees or takes leave (see :func:`small_talk`); a
    question among them ("who are you?", "what's 2+2?", answered "You're welcome!" and "Great!") is told
    what the assistant does."""
    said = small_talk(r.frame, r.learned)
    if said is None or not any(ch.isalpha() for ch in r.text):
        return None  # "???", "12345": no word, nothing thanked or agreed to
    if said == GREAT and r.learned.operation == "out_of_scope":
        said = WHAT_I_DO  # "send Ann an email saying I'll be late": no offer taken up, nothing done
    if r.frame.operation != "greet" and _ASKING.match(r.norm) and said != NOTHING_WAITING:
        if r.learned.operation == "query":
            return None  # "What do I have scheduled": the calendar asked about, answered by the look-up
        if r.learned.operation != "small_talk":  # "what would I do without you" thanks
            said = WHAT_I_DO
    if said == NOTHING_WAITING and r.frame.operation == "yes" and r.state.offered:
        # "Sounds good.", "Yes, please." after free times were shown: no question was waiting, but what
        # may come next is something put in one of them
        said = FREE_TIME_TAKEN_UP
    if said == GREAT and r.state == DialogueState():
        # nothing was said before that could be taken up ("ok done", "just this one", "nice"): what the
        # assistant does, not a "Great!" to nothing
        said = WHAT_I_DO
    return Decision(kind="answer", reply_kind="answer", text=said, confidence=0.9)


GREAT = "Great!"
FREE_TIME_TAKEN_UP = (
    'Good. To put something in one of those times, tell me what and when, e.g. "Lunch with Sam at 12:30".'
)
WHAT_I_DO = (
    "I'm your calendar assistant: I can tell you what's on (\"What do I have on Friday?\"), find free "
    'time ("When am I free tomorrow afternoon?"), add, move or cancel events ("Move the dentist to '
    'Monday at 3"), and keep your working hours, lunch and other habits in mind.'
)


def small_talk(frame: RequestFrame, reading: TurnReading, *, waiting: bool = False) -> str | None:
    """A short friendly answer to a turn that only thanks, greets, agrees or takes leave; None when
    the turn asks for something."""
    if frame.operation == "greet" and not reading.acts & {"THANK_YOU", "GOODBYE"}:
        return "Hello! What would you like to do with your calendar?"
    if frame.operation not in ("unknown", "yes", "no", "query", "greet") or frame.range_explicit:
        return None
    if frame.at_time:
        return None
    if frame.title_words or frame.category or frame.people or frame.person_names:
        return None  # "Take Bo off the design review" names things: it asks for something
    acts = reading.acts
    # a date or time the tagger saw and the time reader does not read ("not right now") asks nothing
    named = [s for s in reading.spans if s.slot not in ("date", "time")]
    if not acts or not acts <= _SOCIAL_ACTS or named:
        return None
    if acts == {"THANK_YOU"} and frame.operation in ("yes", "no"):
        return NOTHING_WAITING  # "nope" heard as thanks: a yes or a no word alone thanks nobody
    if "GOODBYE" in acts or ("NEGATE" in acts and "THANK_YOU" in acts):
        return "You're welcome! Have a good day."
    if "THANK_YOU" in acts:
        return "You're welcome!"
    if "SELECT" in acts and frame.operation not in ("yes", "no"):
        if reading.operation in REQUESTS:  # a request of the calendar: a SELECT read so is no "Great!"
            return None  # "show me my events", "find another time that evening": a request, not a yes
        return GREAT  # "That sounds great.": taking up what was said, not a yes to a question
    return NOTHING_WAITING
