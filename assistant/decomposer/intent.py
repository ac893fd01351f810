"""Which operation a turn asks for, with how sure the rules are.

The main verb decides: politeness ("please", "can you", "I need to") is stripped, then the earliest
write verb in imperative position wins; a question form reads unless a write verb follows it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from assistant.decomposer.blanks import blanked_matches
from assistant.decomposer.frame import Operation
from assistant.lexicon import (
    CALENDAR_TALK,
    COUNT_CUES,
    CREATE_VERBS,
    DELETE_VERBS,
    DETERMINERS,
    EVENT_NOUNS,
    FREE_CUES,
    GREETINGS,
    LIGHTEN_CUES,
    MOVE_VERBS,
    NO_WORDS,
    NOT_ATTENDING,
    OFFSET_WAYS,
    OUT_OF_SCOPE,
    POINTERS,
    POLITE_PREFIX,
    QUANTIFIERS,
    QUERY_CUES,
    QUESTION_STARTERS,
    REMINDER_CUES,
    UNDO_CUES,
    WEEKDAY_STEM,
    YES_WORDS,
    spelled_out,
)
from assistant.timeexpr import find_durations, find_times
from assistant.turnmemo import per_turn

__all__ = ["booked_elsewhere", "classify", "normalise"]

# "my schedule", "the reminder": the noun, not the verb.
_NOUN_USE = re.compile(
    # One word boundary for the phrases that start at one (tried at every position of the text, each its
    # own would be checked once for each); "today's schedule", which cannot start where they do, apart.
    r"\b(?:(?:my|the|your|our|a|any|this|that|its)\s+(?:(?:daily|weekly|monthly|whole|full|entire|work|"
    r"personal|current|new)\s+)?(schedule|reminders?|plans?|note|log|block)\b"
    # "can I fit a 2 hour block on Friday?", "a 30-minute block": a length of time, not blocking it
    r"|\b(?:an?|any|one|another)\s+(?:(?:\d+(?:\.\d+)?|one|two|three|four|half(?: an)?)[- ]?)?"
    r"(?:minutes?|mins?|hours?|hrs?)(?:[- ]long)?\s+(block)\b"
    # "change of plans, cancel lunch": a remark that leads to the change, not a move of "plans"
    r"|change (?:of|in|my|the) plans?\b"
    # "make a list of the events": a list asked for, not an event made
    r"|make (?:me )?a(?= list\b)"
    # "I won't make it on Thursday": not being there, not "make it 3pm"
    r"|(?:won't|wont|can't|cant|cannot|couldn't|not|never)(?: be able to)? make it\b"
    # "any empty slot", "a clear day": words of emptying used of free time, which they describe
    r"|(?:empty|clear|free)(?= (?:slots?|spots?|times?|periods?|hours?|days?|windows?)\b)"
    # "when my schedule is clear": said of the calendar, not done to it
    r"|(?:is|are|be|am|was|were|looks?|seems?|stays?) (?:clear|empty|open|free)\b"
    # "I'm all set": nothing more to do, nothing set up
    r"|all set\b"
    # "the meetings I have set up this week": what was done, said of the events asked about
    r"|(?:meetings?|events?|appointments?|things?|ones?|that|which) (?:i|we) (?:have |'ve |had )?"
    r"(?:already )?(?:set up|scheduled|booked|planned|arranged|added|made|created)\b)"
    r"|(?<=\w's )(?<!\blet's )(?:schedule|plans?|agenda)\b"  # "today's schedule"; "let's schedule" does
)
# "next Friday", "this week": a date, not the "next" of "when's my next meeting" that asks.
_DATE_PHRASE = re.compile(
    rf"\b(?:next|this|coming|upcoming)\s+(?:{WEEKDAY_STEM}(?:day)?|"
    r"week(?:end)?|month|year)\b"
)
# "bring tomorrow's meetings forward": the verb split around its object ("pull up my calendar" reads).
_BRING_FORWARD = re.compile(r"\b(?:bring|pull)\b(?=(?: [\w']+){1,5} (?:forward|earlier)\b)")
# "free up all of Friday": the day emptied, not lightened.
_WHOLE = re.compile(r"\b(?:all|whole|entire|entirely|everything|completely)\b")
# "yes, cancel them", "ok delete it": an approval that names what it approves.
_BACK_REFERENCE = re.compile(
    r"^[\s,.!]*(?:please )?(?:go ahead and )?[a-z]+(?: [a-z]+)? (?:them|it|those|these|that|both|all of them)"
    r"(?: please)?$"
)
# "find my next event and delete it", "list all events and then remove them": a look that leads to a
# change, which is what the turn asks for.
_THEN_WRITE = re.compile(r"\b(?:and|then)(?: then)?(?: (?:please|also))? $")
# "don't cancel it", "please do not delete the meeting": the write the verb says is refused.
_REFUSED = re.compile(r"\b(?:don'?t|do not|never)\s+$")
# "do remove the next event": an emphatic "do", not a question.
_EMPHATIC_DO = re.compile(r"^do (?=\w+)")
_LETS_DO = re.compile(r"^(?:so |ok |okay )?let'?s do ")
# "can we all meet on Thursday at 10?", "could Ann, Raj and I all meet ...", "can Ann and Raj make it at
# 4?": whether they are free then, asked; no meeting made ("can we meet" alone may ask for one).
# One way to read the space between two names (",? " alone: "(?:,? | )" read each space two ways, and a
# long question that starts with "could" took time exponential in its words: 18 words, a quarter second).
_CAN_ALL_MEET = re.compile(
    r"^(?:can|could|will|would) (?:(?:we|you and i|you and me) (?:all|both)|"
    r"[a-z][a-z'-]*(?:,? [a-z][a-z'-]*)*,? (?:and|&) [a-z][a-z'-]*(?: (?:all|both))?)"
    r" (?:meet|make it|get together)\b"
)


# Whether words say an offset does not depend on the day they are read.
_ANY_DAY = datetime(2019, 3, 1, 8, tzinfo=UTC)


def _offset_at(text: str) -> int:
    """Where the turn says how far to move something ("an hour earlier", "30 minutes later"): a length,
    or a time the resolver reads from now, followed by a word of which way; as far as :func:`_first`
    puts a cue not found when it says none."""
    if not OFFSET_WAYS.keys() & set(text.replace("?", " ").split()):
        return 10_000  # no word of which way: most turns, read without the resolver
    found = [m.span for m in find_times(text, now=_ANY_DAY) if m.text.split()[-1] in OFFSET_WAYS]
    for length in find_durations(text):
        after = text[length.span[1] :].split()
        if after and after[0].strip("?.!,") in OFFSET_WAYS:
            found.append(length.span)
    return min((lo for lo, _ in found), default=10_000)


@per_turn
def normalise(text: str) -> str:
    text = text.casefold().replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = text.replace(" & ", " and ")  # "mom & dad", as the rules read "and"
    return " ".join(spelled_out(text).split()).strip(" .!?")


# What "put" takes when it is what is there already: "put everything from Friday onto Monday".
_ALREADY_THERE = QUANTIFIERS | {"everything"}


def _puts_what_is_there(said: str) -> bool:
    """Whether ``said`` (from the verb on) puts somewhere all of what is there ("put everything from
    Friday onto Monday", "put all my calls on Tuesday"), which moves it: a new event is one thing
    ("put lunch on Friday")."""
    words = said.split()[:2]
    return words[:1] == ["put"] and words[1:] != [] and words[1] in _ALREADY_THERE


def _first(pattern: re.Pattern[str], text: str) -> int:
    m = pattern.search(text)
    return m.start() if m else 10_000


# A booking made with someone else (a restaurant's table, a ticket, a ride, a flight): not the
# assistant's to make, and no event to write in its place.
_BOOKED_ELSEWHERE = re.compile(
    r"\b(?:reserve|book|order|get|make)\s+(?:me\s+|us\s+)?(?:a|an|the|two|three|four|\d+)?\s*"
    r"(?:table|tables|seats?|tickets?|cab|taxi|uber|lyft|ride|flight|flights|hotel|pizza|takeout|delivery"
    r"|(?:dinner |restaurant )?reservation)\b"
)


def booked_elsewhere(norm: str) -> bool:
    """Whether the turn asks for a booking made with someone else ("reserve a table for two at Nopa",
    "get me a cab at 5"), which no calendar entry stands in for."""
    return _BOOKED_ELSEWHERE.search(norm) is not None


def _an_event_named(core: str, m: re.Match[str]) -> bool:
    """Whether a word of another service names an event the user goes to ("that play", "the school
    play"): an event noun a determiner leads, never a request to play something."""
    before = core[: m.start()].split()[-2:]
    pointed = not (DETERMINERS | POINTERS).isdisjoint(before)
    return pointed and EVENT_NOUNS.fullmatch(m.group(0)) is not None


@per_turn  # the turn's own reading asks it, and the gate and a part of several requests again
def classify(text: str) -> tuple[Operation, float]:
    t = normalise(text)
    core = POLITE_PREFIX.sub("", t).strip() or t  # "ok" alone is an answer, not a polite opening
    words = core.split()
    if not words:
        return "unknown", 0.0
    yes = YES_WORDS.match(core)
    approves = yes is not None and (not DELETE_VERBS.search(core) or _BACK_REFERENCE.match(core[yes.end() :]))
    if approves and len(words) <= 6:
        return "yes", 0.95
    if NO_WORDS.match(core):
        return "no", 0.95
    if GREETINGS.match(core) or GREETINGS.match(t):  # "ok thanks"; "hi there", whose "hi" is no politeness
        return "greet", 0.9
    if UNDO_CUES.search(core):
        return "undo", 0.9
    if booked_elsewhere(core):
        return "out_of_scope", 0.8  # "reserve a table at Nopa at 7": no calendar entry called 'Table'
    if LIGHTEN_CUES.search(core) and not QUESTION_STARTERS.match(core):
        # "Thursday is too packed, can you help?": move something off that day ("free up all of
        # Friday" empties it instead).
        return ("delete", 0.8) if _WHOLE.search(core) else ("move", 0.8)
    masked = blanked_matches(_NOUN_USE, core)
    question = QUESTION_STARTERS.match(core)
    if question and _LETS_DO.match(t) and EVENT_NOUNS.match(core[3:].removeprefix("a ").removeprefix("an ")):
        return "create", 0.75  # "let's do lunch Friday at 1": a plan made, no "do I ...?" asked
    if question and _EMPHATIC_DO.match(core):
        emphatic = core[3:]
        if any(v.match(emphatic) for v in (DELETE_VERBS, CREATE_VERBS, MOVE_VERBS)):
            core, masked, question = emphatic, masked[3:], None
    positions: dict[Operation, int] = {
        "delete": _first(DELETE_VERBS, masked),
        "create": min(_first(CREATE_VERBS, masked), _first(REMINDER_CUES, masked)),
        "move": min(_first(MOVE_VERBS, masked), _first(_BRING_FORWARD, masked), _offset_at(masked)),
    }
    # "I'm not going to the gala", "I can't make it to the book club": it is off, unless the turn moves
    # it ("I can't make the review, can you move it to Friday")
    if not question and positions["move"] >= 1000:
        positions["delete"] = min(positions["delete"], _first(NOT_ATTENDING, core))
    write_op = min(positions, key=lambda op: positions[op])
    if write_op == "create" and _puts_what_is_there(masked[positions["create"] :]):
        write_op = "move"
        positions["move"] = positions["create"]
    if positions[write_op] < 1000 and _REFUSED.search(masked[: positions[write_op]]):
        later = [
            _first(v, masked[positions[write_op] + 1 :]) for v in (DELETE_VERBS, CREATE_VERBS, MOVE_VERBS)
        ]
        if min(later) >= 1000:
            return "no", 0.9  # "actually no, don't cancel it": nothing to do ("don't X, Y it" does Y)
    if write_op == "create" and positions["delete"] < 1000 and _WHOLE.search(masked):
        write_op = "delete"  # "block Friday for travel and cancel everything on it": an emptied day
    write_pos = positions[write_op]
    leads_to_write = write_pos < 1000 and bool(_THEN_WRITE.search(masked[:write_pos]))
    asked_back = question is not None and question.group(0).startswith("remind")  # "remind me what ..."
    if question and not asked_back and (leads_to_write or (write_op == "create" and write_pos == 0)):
        question = None  # "find X and delete it"; "tell me on Tuesday to call Jane" (a reminder)
    in_scope = bool(CALENDAR_TALK.search(core))
    outside = any(not _an_event_named(core, m) for m in OUT_OF_SCOPE.finditer(core))
    if outside and write_pos > 1000 and not in_scope:
        return "out_of_scope", 0.8
    if COUNT_CUES.search(core):
        # "how much free time do I have tomorrow", "how many hours am I free": free time, not events
        return ("free", 0.85) if question and FREE_CUES.search(core) else ("count", 0.9)
    if _CAN_ALL_MEET.match(core):
        return "free", 0.8
    if question:
        if FREE_CUES.search(core):
            return "free", 0.85
        # "when should I schedule...", "can I move ..." stay writes; "what's on my schedule" reads.
        if write_pos < 1000 and re.match(
            r"^(?:should i|shall i|could i|can i|may i|will you|would you|is there a way to|"
            r"how (?:do|can) i)\b",
            core,
        ):
            return write_op, 0.7
        return "query", 0.85
    if write_pos == 0:
        return write_op, 0.9
    if FREE_CUES.search(core) and write_pos > 1000:
        return "free", 0.75
    if write_pos < 1000:
        query_pos = _first(QUERY_CUES, blanked_matches(_DATE_PHRASE, masked))
        opening = len(masked) - len(masked.lstrip())  # after a blanked "make a" of "make a list"
        if query_pos < write_pos and query_pos == opening and not leads_to_write:
            return "query", 0.7
        return write_op, 0.75
    if QUERY_CUES.search(blanked_matches(_DATE_PHRASE, core)):  # not the "next" of "starting next week"
        return "query", 0.7
    if outside:
        return "out_of_scope", 0.6
    if in_scope:
        return "query", 0.5
    return "unknown", 0.2
