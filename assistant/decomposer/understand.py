"""From a sentence to a :class:`RequestFrame`: recognise entities, classify, fill the frame.

Entities are found in layers, each masking what it consumed so the next does not read it again:
time expressions and durations, exception clauses ("but not on Mondays"), constraint clauses
("leave time for lunch"), people, calendars, categories and day parts, then titles (known ones from
the user's calendars, else the words left over).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from assistant.decomposer.blanks import blanked
from assistant.decomposer.dayparts import in_users_day_parts
from assistant.decomposer.frame import Operation, RequestFrame
from assistant.decomposer.intent import classify, normalise
from assistant.decomposer.world import World
from assistant.decomposer.zones import said_zone
from assistant.lexicon import (
    ABOUT_OTHERS,
    CALENDAR_TALK,
    CATEGORY_WORDS,
    COUNT_CUES,
    CREATE_VERBS,
    DELETE_VERBS,
    DETAIL_ASKED,
    EMAIL,
    EVENT_NOUNS,
    EVERYONE_CUE,
    EXCEPTING,
    FILLER,
    FIRST_FREE,
    FIRST_PERSON,
    FREE_CUES,
    GENERIC_EVENT_WORDS,
    MEAL_LEAD,
    MEETING_VERBS,
    MOVE_VERBS,
    NAMED_OUTRIGHT,
    NAMED_PLACE,
    NOT_ATTENDING,
    ORDINALS,
    PARTICLES,
    PICK,
    POLITE_PREFIX,
    PREFERENCE_WORDS,
    QUANTIFIERS,
    QUERY_CUES,
    QUESTION_NOUNS,
    QUESTION_STARTERS,
    REMINDER_CUES,
    STOPWORDS,
    WEEKDAY_STEM,
    WEEKDAY_WORD,
    WHEN_ADVERBS,
    WHEN_FIELDS,
    WISHING,
    phrasal_noun,
    singular,
    token_spans,
    tokens,
    weekday_number,
    whole_words,
    words_pattern,
)
from assistant.nlu import TurnReading
from assistant.timeexpr import DurationMatch, TimeMatch, find_durations, find_times
from assistant.timeexpr.lexicon import MODIFIERS_BY_FIRST, MONTHS
from assistant.turnmemo import shared
from skills.providers.base import CalendarInfo

__all__ = ["sees_the_calendar", "understand"]

# A negated relative clause ("events that aren't meetings", "anything which is not a class") excepts
# what follows it, like "except".
_EXCEPTION_CUE = re.compile(
    rf"\b(?:{EXCEPTING}|not on|not the|(?:that|which)(?:'s not| is not| are not| isn't| aren't)|"
    r"(?:do not|don't|dont|never) (?:touch|move|change|include)|leave(?: out)?|skip(?:ping)?|without|"
    rf"not (?={WEEKDAY_STEM})|"
    # where or with whom an event is not ("not in Seattle", "aren't with ann", "not taking place at the
    # office"; "I'm not at the office" says where the user is),
    # never a time ("not at 9", "not in the morning" are the turn's times, read apart)
    r"(?<!i'm )(?<!i am )(?:(?:is|are)(?:n't| not)|not)(?: \w+ing(?: place)?| held| located| scheduled)? "
    r"(?=(?:in|at|with) (?!\d)))\b"
)
_CONSTRAINT = re.compile(
    r"\b(?:leave|keep|protect|save|allow|make) (?:some )?(?:time|room|space|a gap)? ?"
    r"(?:for|free for)\b[^,.;?!]*"
    r"|\bkeep (?:my |the )?(?:\w+ ){1,2}(?:free|open|clear)\b|\bavoid(?:ing)? (?:my )?\w+\b"
)
_CLAUSE_END = re.compile(r"[,.;?!()—–]| - | but | and (?=\w+ (?:my|the|all)\b)")
# A lookahead, so the cues overlap: in "a meeting with al" both "meeting" ("with al", refused: it starts
# with a stopword) and "with" ("al") are read, and in "with sara and jamie" both "with" and "and".
_PEOPLE_AFTER = re.compile(
    r"\b(?=(?:with|invite|inviting|and|for|meet|meeting|see|call|email|text)\s+"
    r"([a-z][a-z.'-]*(?:\s+[a-z][a-z'-]*)?))"
)
_POSSESSIVE = re.compile(r"\b([a-z][a-z-]+)'s\b")
_A_LENGTH_BEFORE = re.compile(r"\b(?:hours?|hrs?|minutes?|mins?)\s+$")
# People said together, as the ones who must be free ("when are ann and raj both free", "a slot where
# ana, bo and i are all available", "when can ann lee and raj both meet") or after a cue that leads a
# list ("with ann, bo and raj", "a time that suits ann and raj"): every name of the list, not only
# the one after "and".  A name is one or two words, never a word of the predicate; a determiner before
# the list makes it things ("are the room and the projector free").
_NOT_A_NAME = (
    "and|or|are|is|both|all|each|can|could|will|would|free|available|"
    "the|a|an|my|our|your|his|her|their|this|these|those|you|thanks|thank"
)
_LIST_NAME = rf"\b(?!(?:{_NOT_A_NAME})\b)[a-z][a-z'-]*"
_ONE = rf"{_LIST_NAME}(?:\s+{_LIST_NAME})?"
_LIST = rf"{_ONE}(?:\s*,\s*{_ONE})*\s*,?\s+(?:and|&)\s+{_ONE}"
_TOGETHER_FREE = re.compile(
    rf"(?<![a-z'])(?<!\bthe )(?<!\bmy )(?<!\bour )(?<!\byour )(?<!\ba )(?<!\ban )(?<!\bthis )(?<!\bthese )"
    rf"(?P<list>{_LIST})\s+(?:(?:are|is|were|will be|would be|can|could)\s+)?(?:(?:both|all)\s+)?"
    r"(?:free|available|around|not busy|make it|meet)\b"
)
_LIST_AFTER = re.compile(
    rf"\b(?:with|invite|inviting|for|meet|meeting|see|suits?|fits?|between)\s+(?P<list>{_LIST})"
)
# People said with the user as who does something together: "Ann and I are meeting Thursday at 11",
# "Bo, Cy and I need a call": who it is with.
_AND_I = re.compile(
    rf"^(?P<list>{_ONE}(?:\s*,\s*{_ONE})*\s*,?\s+(?:and|&)\s+i)\s+"
    r"(?:are|'re|will|'ll|have|'ve|had|need|want|should|must|plan|plan to|would like|'d like)\b"
)
# One person said as the one who must be free: "is Ann free at 10?", "will Ann Lee be available?".
_ONE_FREE = re.compile(
    rf"\b(?:is|was|will|would|could)\s+(?P<list>{_ONE})\s+(?:(?:be|still|also)\s+)?"
    r"(?:free|available|around|not busy)\b"
)
# Not someone, though it stands where a name would: "is lunch free?", "is everything available?".
_NOT_SOMEONE = frozenset(
    [
        "it'll",
        "it's",
        "that'll",
        "name",
        "title",
        "location",
        "address",
        "time",
        "date",
        "everything",
        "anything",
        "something",
        "nothing",
        "lunch",
        "dinner",
        "breakfast",
        "noon",
        "midnight",
        "room",
        "office",
        "desk",
        "slot",
        "spot",
        "he",
        "she",
        "they",
        "him",
        "her",
        "them",
        "one",
        "i've",  # "and I've got yoga": the user, no one met
        "i'm",
        "i'd",
        "i'll",
        "we've",
        "we're",
    ]
)
# Said of the time or of the request, not part of a name: "and zoe free" is Zoe, "with mom instead" Mom.
_PREDICATE_WORDS = frozenset(["free", "available", "busy", "around", "both", "instead", "again", "anyway"])
_LIST_MEMBER = re.compile(_ONE)
_CHANGE_LEAD = re.compile(r"\b(?:to|into|until|till|for|at|onto)\s*$")
# Nouns of time that head a name right after a word of it ("focus time", "spa day", "game night"),
# which elsewhere are words of when ("at the same time", "all day") and no name's.
_NAME_HEADS = frozenset(["time", "day", "night"])
_QUANTIFIERS = frozenset(
    [
        "all",
        "every",
        "each",
        "any",
        "some",
        "my",
        "the",
        "a",
        "an",
        "our",
        "your",
        "recurring",
        "scheduled",
        "upcoming",
        "next",
        "current",
        "entire",
        "whole",
    ]
)
_CONFLICTS = re.compile(r"\b(?:overlap\w*|conflict\w*|clash\w*|(?:double|over)[- ]?book\w*|collid\w*)\b")
# Asking whether something is on at a time, the other way round from "am I free": "am I busy at 3?",
# "do I have anything at 10 tomorrow?", "is anything on Friday at 2?", "am I booked at noon?".
_ASKED_BUSY = re.compile(
    r"^(?:and\s+|so\s+)?(?:am i|are we|will i be|would i be)\s+(?:busy|booked|tied up|occupied)\b"
    r"|^(?:and\s+|so\s+)?(?:do|will) (?:i|we) have (?:anything|something|any\w*)\b"
    r"|^(?:and\s+|so\s+)?(?:have i got|is there) (?:anything|something)\b"
    r"|^(?:and\s+|so\s+)?is (?:anything|something) (?:on|scheduled|booked|planned)\b"
)
# The past tense: the most recent matching day or event, not the next one.
_PAST = re.compile(r"\b(?:was|were|did|had|went|happened|last|previous|ago|yesterday)\b")
# What is still ahead of a period, or has been of it: "what's left this week", "so far this month".
_STILL_AHEAD = re.compile(r"\b(?:left|remaining|still (?:coming|to come|ahead|on)|yet to come)\b")
_SO_FAR = re.compile(r"\b(?:so far|until now|up to now|(?:have|'ve) (?:i |we )?had)\b")
# "did I schedule the dentist?", "did I remember to add the review?": whether it is on the calendar, which
# asks of the coming events as well, not only of those gone by
_DID_I_ADD = re.compile(
    r"\bdid (?:i|we) (?:already |ever |remember to |forget to )?"
    r"(?:schedule|book|add|put|set up|enter|create)\b"
)
# "my next yoga", "the next dentist appointment": one event, not the next few (nor "next few", "next
# meetings", "next 3").
_NEXT_ONE = re.compile(
    r"(?:\b(?:my|the|our)\s+|^)next\s+(?!(?:few|couple|several|\d+|two|three|four|five|events|meetings)\b)"
    r"(?:[\w'-]+\s+){0,3}?[\w'-]*(?:[^s\W]|ss)(?=[\s?.!,]*$|\s+(?:with|at|in|on|is|starts?|begins?)\b)"
)
# One event of a period, by its place in the period's order: "my first meeting next week", "the last
# thing on Friday", "for my second event tomorrow", "what's first on Saturday"; or in the order of their
# lengths: "my longest meeting this week", "the shortest event on Friday".
_NTH = re.compile(
    r"\b(?:(?:my|the)\s+(?P<nth>first|second|third|fourth|fifth|last|final|earliest|latest|longest|shortest)\s+"
    r"(?:[\w'-]+\s+)?(?:event|meeting|class|lecture|thing|appointment|item|one)\b"
    r"|(?:what's|what is)\s+(?P<alone>first|last)\s+(?:on|in|for|at)\b)"
)
_NEXT_CUE = re.compile(
    r"\b(?:next|upcoming|when is|when's|when are|how soon|coming up|how long (?:until|till|til|before))\b"
)
# A day of the month said without its month ("the 3rd", "on the 21st").
_DAY_OF_MONTH = re.compile(r"(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)", re.IGNORECASE)
_BARE_PERIOD = re.compile(r"\b(?:my|the|this|whole|entire)\s+(week|weekend|month|day)\b")
# People in general, never one person's name ("with other people", "with everyone").
_ANYONE = frozenset(
    [
        "other",
        "others",
        "people",
        "anyone",
        "anybody",
        "everyone",
        "everybody",
        "someone",
        "somebody",
        "attendees",
    ]
)
_EVERY = re.compile(r"\b(?:every|each|any|all(?: of)?(?: my| the)?)\s+([a-z]+)(?:\s+([a-z]+))?")
# The period in "after lunch this month", which the time grammar reads as one afternoon.
_PERIOD = re.compile(r"\b(?:(?:the )?rest of )?(?:this|next|the|coming)\s+(?:week|weekend|month|year)\b")


def understand(
    text: str,
    *,
    now: datetime,
    world: World,
    reading: TurnReading | None = None,
    existing: bool = False,
    operation: Operation | None = None,
) -> RequestFrame:
    """The request frame of ``text``; with the turn reader's ``reading`` of the same text, an event the
    calendar's titles do not name is named by the names tagger's title rather than by the words the
    rules left over.  ``existing``: the words name an event the calendar has ("my lunch on monday" of
    "add ann to my lunch on monday"), so a title some of them name is it, as for a change.
    ``operation``: what the turn does, where the conversation already says it ("cancel it" after a
    list deletes; alone it is a "no"), read with the turn's own words rather than others put in them."""
    operation, confidence = (operation, 0.9) if operation is not None else classify(text)
    frame = RequestFrame(operation=operation, confidence=confidence)
    if operation in ("yes", "no", "greet", "undo"):
        return frame
    norm = normalise(text)
    mask = [False] * len(norm)

    def take(start: int, end: int) -> None:
        for i in range(start, min(end, len(mask))):
            mask[i] = True

    polite = POLITE_PREFIX.match(norm)
    if polite:
        take(*polite.span())  # "I want to meet Priya" is about Priya, not a "want"
    for cue in (REMINDER_CUES, NOT_ATTENDING):
        for m in cue.finditer(norm):
            take(*m.span())  # "don't let me forget the meeting": the meeting is the event

    # Durations are read on their own ("for an hour"), so they cannot stretch a time into an interval.
    durations = _durations(norm)
    if operation in ("query", "unknown") and any(_finds(norm[: d.span[0]]) for d in durations):
        # "find me an hour with Ann on Friday": free time that long, not the day's events
        operation, confidence = "free", max(confidence, 0.75)
        frame.operation, frame.confidence = operation, confidence
    # "Friday (the 13th)": a date put in brackets after another says which one, it is no second date
    timed_text = blanked(norm.replace("(", " ").replace(")", " "), [d.span for d in durations])
    nth = _NTH.search(norm) if operation in ("query", "unknown") else None
    if nth is not None:  # "what's first on Friday": the first event, not the first Friday of a month
        timed_text = blanked(timed_text, [nth.span("nth") if nth["nth"] else nth.span("alone")])
    times = find_times(timed_text, now=now, daytime=True)
    for pick in PICK.finditer(norm):  # "delete the first one": a pick of the events shown, no date
        times = [t for t in times if not (pick.start() < t.span[1] and t.span[0] < pick.end())]
        take(*pick.span())
    if polite:  # "now check the 12th": the "now" of an opening, not a time
        times = [t for t in times if t.span[0] >= polite.end()]
    bad = next((t for t in times if t.error), None)
    if bad is not None:
        frame.error = bad.error
        return frame
    if not times:
        bare = _BARE_PERIOD.search(norm)
        if bare:
            times = [t for t in find_times(f"this {bare.group(1)}", now=now, daytime=True) if not t.error]
            times = [replace(t, span=bare.span()) for t in times]
    asks_room = operation == "create" and text.rstrip().endswith("?") and FREE_CUES.match(norm)
    if asks_room and not any(t.has_time for t in times):
        # "can we fit in a sync with Ann on Friday?": asked whether there is room, with no time to make it
        # at; free time, not a new event whose time is asked for
        operation, confidence = "free", 0.75
        frame.operation, frame.confidence = operation, confidence
    frame.conflicts = bool(_CONFLICTS.search(norm)) and operation in ("query", "count", "unknown")
    frame.asked_busy = bool(_ASKED_BUSY.search(norm)) and operation in ("query", "free", "unknown")
    nth = nth if times else None
    if nth is not None:
        frame.pick = (
            0 if nth["nth"] in ("earliest", "longest") else ORDINALS.get(nth["nth"] or nth["alone"], -1)
        )
        frame.by_length = nth["nth"] in ("longest", "shortest")
    # "my last class this week" is the week's last, not a class gone by
    said = blanked(norm, [nth.span()] if nth is not None else [])
    said = blanked(said, [m.span() for m in _DID_I_ADD.finditer(said)])
    frame.past = bool(_PAST.search(said)) and operation in ("query", "count", "unknown")
    if operation in ("query", "unknown") or (operation == "count" and not FREE_CUES.search(norm)):
        # "where is my coffee date?", "who is coming to the gala?", "how long is the review?", "how many
        # hours of meetings do I have?" (not "how much time do I have free?": that is no event's length)
        frame.detail = next((what for what, cue in DETAIL_ASKED.items() if cue.search(norm)), None)
    elif operation == "free" and COUNT_CUES.search(norm):
        frame.detail = "duration"  # "how much free time do I have tomorrow": the free time, in all
    elif operation == "free" and FIRST_FREE.search(norm):
        frame.detail = "first"  # "what's the earliest I can meet Ann tomorrow": that time, not all of them
    if frame.past:
        # a day of the month looks back only in a question ("what was on the 3rd?"), not in "I was
        # referring to the 14th", whose past tense is about what was said
        asks = "?" in norm or bool(QUESTION_STARTERS.match(norm))
        times = [_most_recent(t, now, month_day=asks) for t in times]
    # "skip the standup tomorrow" opening the turn is the request, no exception to one
    opening = polite.end() if polite else 0
    exception_spans = [
        _clause(norm, m.start())
        for m in _EXCEPTION_CUE.finditer(norm)
        if norm[opening : m.start()].strip() or not NOT_ATTENDING.match(norm)
    ]
    learned_exceptions = _learned_exceptions(reading, text, norm, times, exception_spans)
    exception_spans += [clause for clause in learned_exceptions if clause not in exception_spans]
    constraint_spans = [m.span() for m in _CONSTRAINT.finditer(norm)]
    for span in constraint_spans:
        take(*span)
        frame.notes.append("constraint: " + norm[span[0] : span[1]])

    targets: list[TimeMatch] = []
    parts = [part for match in times for part in _part_and_period(match, now)]
    # a day said only inside an exception: "cancel all but the standup on friday"
    undated = all(any(lo <= t.span[0] < hi for lo, hi in exception_spans) for t in parts)
    turns_days: list[tuple[int, int]] = []  # the spans of days said in an exception that are the turn's
    for t in parts:
        meal = MEAL_LEAD.match(t.text) if operation in ("create", "unknown") else None
        named = _night_named(norm, t) if operation in ("create", "unknown") and meal is None else 0
        # "add lunch tomorrow at 1": "lunch" is the event (and at most when), not only a time
        take(t.span[0] + (meal.end() if meal else named), t.span[1])
        excepting = next(((lo, hi) for lo, hi in exception_spans if lo <= t.span[0] < hi), None)
        if excepting is not None and undated and _names_then_one_day(norm, excepting, t):
            turns_days.append(t.span)
        elif excepting is not None and not _dates_the_turn(norm, excepting, t):
            days = _days_of(t)
            if not days and t.grain == "day" and t.start is not None:
                # "except the 12th", "but not tomorrow": that day, not every day of its weekday
                frame.exclude_dates.append(t.start.date().isoformat())
            else:
                frame.exclude_weekdays.extend(days)
            continue
        if operation == "move" and _CHANGE_LEAD.search(norm[: t.span[0]]):
            frame.change_day_part = t.day_part if not t.has_date and not t.has_time else None
            frame.change_start = t.start if t.has_time else None
            continue
        targets.append(t)
    for lo, hi in exception_spans:
        for m in WEEKDAY_WORD.finditer(norm, lo, hi):
            day = weekday_number(m[0])
            if any(a <= m.start() < b for a, b in turns_days):
                continue
            if day is not None and day not in frame.exclude_weekdays:
                frame.exclude_weekdays.append(day)
        _fill_exclusions(
            frame,
            norm[lo:hi],
            now,
            world,
            as_said=learned_exceptions.get((lo, hi), ("", False)),
            typed=text,
        )
        take(lo, hi)
    # "tomorrow afternoon" is the user's afternoon (their ``day_parts``), not the product's
    _fill_range(frame, in_users_day_parts(_joined_parts(_days_of_the_week_said(targets), norm), world))
    if operation in ("query", "count") and frame.start is not None and frame.end is not None:
        if frame.start < now < frame.end and _STILL_AHEAD.search(norm):
            frame.start = now  # "what's left this week": from now, as "the rest of this week" is
        elif frame.start < now < frame.end and _SO_FAR.search(norm):
            frame.end = now  # "how many meetings have I had so far this week": until now

    for d in durations:
        frame.duration_minutes = d.minutes
        take(*d.span)

    anchor = _anchored(norm, world) if operation == "create" and frame.at_time is None else None
    if anchor is not None:
        # "a call with Bo right after the dentist": placed beside that event, whose words name no new one
        frame.beside, frame.beside_at = anchor[:2], world.next_titled(anchor[1])
        take(*anchor[2])
    wisher = _wisher(norm, world)
    if wisher is not None:
        take(*wisher[1])  # "ann wants to meet tomorrow": a meeting with Ann, no 'Ann wants'
    unread = "".join(" " if mask[i] else ch for i, ch in enumerate(norm))
    learned_people = (
        _learned_people(reading, unread, world, text)
        or _named_after_meeting_verb(text, unread, world)
        or ([wisher[0]] if wisher is not None else [])
    )
    _fill_people(frame, norm, unread, world, take, learned_people, text)
    if operation in ("query", "count") and not frame.people and not frame.person_names:
        _fill_known_names(frame, unread, world, take)
    seeing = _meets_someone(learned_people, unread, text, norm, targets)
    if seeing is not None and (frame.operation in ("query", "unknown") or frame.confidence < 0.6):
        # "I need to see Omar tomorrow at 3": a person the tagger found is who is seen, a meeting
        frame.operation, frame.confidence = "create", 0.6
        take(*seeing)
        subject = unread[: seeing[0]].split()
        if all(word in STOPWORDS or word in _SUBJECTS for word in subject):
            take(0, seeing[0])  # "I'm", "we'll be", "I will": who sees them, no words of a title
    if operation == "free" and _about_others(unread, frame):
        frame.notes.append(ABOUT_OTHERS)
    for m in EVERYONE_CUE.finditer(norm):
        take(*m.span())  # "a call when we're both free": the search, no words of the title
    zoned = said_zone(norm, list)
    for span in zoned.spans if zoned is not None else ():
        take(*span)  # "3pm Paris time", "her time, she's in Tokyo": where the time is, no title's words
    _fill_calendars(frame, norm, world, take, exception_spans, mask)
    _fill_preference(frame, norm)
    for category, pattern in CATEGORY_WORDS.items():
        found = pattern.search(norm)
        if found and not any(mask[found.start() : found.end()]):
            frame.category = frame.category or category
    frame.wants_next = bool(_NEXT_CUE.search(norm)) and not frame.range_explicit
    frame.next_one = frame.wants_next and bool(_NEXT_ONE.search(norm))
    residual = "".join(" " if mask[i] else ch for i, ch in enumerate(norm))
    known = _fill_titles(frame, residual, world, norm, existing)
    if operation in ("query", "count") and reading is not None:
        asked = _places_asked(reading, text, residual)
        frame.places = [place for _, place in asked]
        frame.places_said = [f"{lead} {place}" for lead, place in asked]
    if _states_an_event(frame, text, norm, targets):
        # a statement of an event adds it; one of an event that is off ("no lunch date tomorrow", "there's
        # no standup on friday") the operation model reads as a cancellation, which is previewed
        frame.operation, frame.confidence = "create", 0.6
    # "my standups next week except the standup on Friday": the exception is the day, not the standups
    frame.exclude_titles = [t for t in frame.exclude_titles if t not in frame.titles]
    frame.exclude_people = [p for p in frame.exclude_people if p not in frame.people]
    if frame.exclude_category == frame.category:
        frame.exclude_category = None  # "my classes except the lab": the classes asked for stay
    said = _said_title(reading, frame)
    if said and not known and frame.operation in _NAMES_AN_EVENT:
        # an event asked about or changed, which no title of the calendar names, is named by the title
        # the tagger learnt to find in real requests ("Who has not declined the invite to karaoke
        # night?": "karaoke night", where the words left over began at "declined"); a new event's
        # draft takes the tagger's title itself
        frame.titles = [said]
    # an event to move, or to cancel on a day said, that no title of the calendar names: one with the
    # words of its kind (a deletion with no day said is read by its words: changes._said_target); the
    # word of a category is the category ("every afternoon class", "the staff meeting": 'staff')
    changes = frame.operation == "move" or (frame.operation == "delete" and frame.range_explicit)
    if changes and frame.titles and not (known or existing or frame.title_words):
        kind = CATEGORY_WORDS[frame.category] if frame.category else None
        frame.title_words = [
            w for w in _kind_named(frame.titles[0], residual) if not (kind and kind.fullmatch(w))
        ]
    if frame.conflicts:
        frame.involving = _involved(frame, norm, residual)
    elif frame.operation in ("query", "unknown") and frame.titles:
        side = _beside(norm, frame.titles[0])
        if side is not None:
            frame.operation, frame.beside = "query", (side, frame.titles[0])
    return frame


def _night_named(norm: str, t: TimeMatch) -> int:
    """How much of a time expression that begins with "night" right after a word of the name is the
    name's ("game night friday at 7pm", "date night saturday": 'Game night', not 'Game' on Friday
    night): that word's length, or 0. When it is still read as the evening of that day; only "night",
    as "breakfast morning of the 5th" is no 'Breakfast morning'."""
    lead = t.text.split(maxsplit=1)[0].casefold() if t.text else ""
    before = norm[: t.span[0]].split()[-1:]
    if lead != "night" or not t.has_date or not before or not before[0].isalpha():
        return 0
    word = before[0]
    if word in STOPWORDS or _request_verb(word):
        return 0
    return len(lead)


def _request_verb(word: str) -> bool:
    """Whether ``word`` is a verb by which a request adds, cancels or moves events ("book", "drop")."""
    return any(p.fullmatch(word) for p in (CREATE_VERBS, DELETE_VERBS, MOVE_VERBS))


_BESIDE = re.compile(r"\b(?:right |just |directly |straight )?(?P<side>after|before) (?:the |my |our )?")


def _anchored(norm: str, world: World) -> tuple[str, str, tuple[int, int]] | None:
    """Which side of an event the calendar has a new one goes ("lunch after the offsite", "a call with
    Bo right before my dentist appointment"): the side, the title as the calendar has it, and the span
    of the words that say so; None when no title of the calendar follows "after" or "before"."""
    titles = {title.casefold(): title for title in world.titles}
    for m in _BESIDE.finditer(norm):
        words = norm[m.end() :].split()
        for n in range(min(4, len(words)), 0, -1):
            said = " ".join(words[:n]).strip(" ,.!?")
            if said in titles:
                # "my dentist appointment" of 'Dentist': the word for an event is of the same words
                n += n < len(words) and words[n].strip(" ,.!?") in GENERIC_EVENT_WORDS
                end = m.end() + len(" ".join(words[:n]).rstrip(" ,.!?"))
                return m["side"], titles[said], (m.start(), end)
    return None


def _beside(norm: str, title: str) -> str | None:
    """ "after" or "before" when the turn says it right before the event's name ("what's after the
    design review", "anything right before my dentist appointment"), else None."""
    said, named = tokens(norm), tokens(title)
    at = next((i for i in range(len(said)) if said[i : i + len(named)] == named), None)
    if at is None:
        return None
    before = [w for w in said[:at] if w not in ("the", "my", "our", "right", "just")][-1:]
    return before[0] if before in (["after"], ["before"]) else None


# What a question about overlaps says besides the events it names: "does the design review clash with
# anything else", "do the standup and the dentist overlap", "got any conflicts?" (the verbs of having
# that STOPWORDS lacks).
_NAMES_NO_EVENT = STOPWORDS | GENERIC_EVENT_WORDS | {"else", "other", "got", "get", "gotten", "having"}


def _involved(frame: RequestFrame, norm: str, residual: str) -> list[str]:
    """The events a question about overlaps names, in the order said: the words left unread (no time,
    no one of the directory) between the overlap word, "with" and "and" that name no event in general,
    where they are words of a title read or follow the overlap word ("clash with the gym"). A name
    nobody in the directory has, said after the overlap word ("clash with calculus"), is such an event,
    not someone the events are with; what opens the question ("got any conflicts?") is none."""
    cue = _CONFLICTS.search(norm)
    after = cue.start() if cue else len(norm)
    others: list[str] = []
    for name in frame.strangers:
        at = norm.find(" ".join(tokens(name)), after)
        if at > after:
            others.append(name)
            residual = residual[:at] + norm[at : at + len(name)] + residual[at + len(name) :]
    titled = {word for title in frame.titles for word in tokens(title)}
    named: list[str] = []
    words: list[str] = []
    # the overlap words part what is named as "with" does ("the review clash with calculus")
    read = _CONFLICTS.sub(lambda c: "with".ljust(len(c[0])), residual) + " and"
    for at, word in token_spans(read):
        if word in ("and", "with"):
            if words and " ".join(words) not in named:
                named.append(" ".join(words))
            words = []
        elif word not in _NAMES_NO_EVENT and (word in titled or at > after):
            words.append(word.removesuffix("'s"))  # "Bob's meeting": a meeting of Bob's
    frame.strangers = [s for s in frame.strangers if s not in others]
    return named


# An event said as a fact, with its day or time and nothing asked: "dentist appointment today at nine
# am", "I have a meeting at noon today", "church with mom and dad on Sunday".
# Several events, or the calendar itself ("meeting july calendar"), are looked up, not told about.
_SINGLE_EVENT = re.compile(
    r"^(?!.*\b(?:events|meetings|appointments|plans|schedule|agenda|anything|calendar)\b)"
)
# "march one is susan's birthday, right": a statement made a question by its tag.
_TAG_QUESTION = re.compile(r"\b(?:right|correct|isn't it|is it not|no|yes|true)$")


# "a free hour", "90 free minutes", "two spare hours", "a free hour-long slot": a length with a word of
# free time between the number and the unit, which the duration reader does not read ("an hour", "90
# minutes", "a half hour" it does).
_FREE_WORD = r"(?:free|spare|open|clear|available|empty|uninterrupted|unbooked|quiet|solid)"
_UNIT = r"(?:hours?|hrs?|minutes?|mins?)\b"
_FREE_BEFORE_UNIT = re.compile(rf"\b{_FREE_WORD}\s+(?=(?:half[- ]?)?{_UNIT})")


def _durations(norm: str) -> list[DurationMatch]:
    """The lengths said in ``norm``, read by the duration reader with the word of free time between a
    number and its unit blanked ("two free hours" as "two      hours");
    positions are kept, and each length's span covers the words set aside, so none is left for a title.
    """
    text, rewritten = norm, list[tuple[int, int]]()
    for m in reversed(list(_FREE_BEFORE_UNIT.finditer(text))):
        rewritten.append(m.span())
        text = blanked(text, [m.span()])
    found = find_durations(text)
    if not rewritten:
        return found
    widened = []
    for d in found:
        lo, hi = d.span
        for a, b in sorted(rewritten):  # a blanked word just before the length, or a rewritten one in it
            if a < hi and not text[b:lo].strip():
                lo, hi = min(lo, a), max(hi, b)
        widened.append(replace(d, span=(lo, hi), text=norm[lo:hi]))
    return widened


def _kind_named(title: str, residual: str) -> list[str]:
    """The words that tell an event the calendar does not have from the others, where the words left
    over name a kind of event ("my nail appointment", "Saturday dinner", "my dinner date": 'nail',
    'dinner', 'dinner date'): the event to move or cancel is one with them in its title, and with none
    such it is not there (to look among every event of the day and ask which one of them was meant
    reads the request as another). The head noun and the words the turn says right before it that
    nothing else read (``residual``: no day, no time, no one's name), up to a word of no name ("get rid
    of the vet appointment": 'vet'; "take away all events": none). None for words that name no event
    ("for travel") or only say "an event" ("my appointment")."""
    words = tokens(_singular(title))
    if not words or (not EVENT_NOUNS.fullmatch(words[-1]) and words[-1] not in GENERIC_EVENT_WORDS):
        return []
    runs = [tokens(run) for run in _RUN_BREAK.split(residual)]
    said, at = next(
        ((run, n) for run in runs for n, word in enumerate(run) if _stem(word) == words[-1]), ([], None)
    )
    if at is None:
        return []
    kept = [words[-1]] if words[-1] not in GENERIC_EVENT_WORDS else []
    for word in reversed(said[max(0, at - 3) : at]):
        if not word.isalpha() or word in STOPWORDS or word in _QUANTIFIERS or word in ORDINALS:
            break
        if word in GENERIC_EVENT_WORDS or _request_verb(word):
            break
        kept.insert(0, singular(word))  # "kids soccer game": 'kid soccer game'
    return kept


def _singular(title: str) -> str:
    return " ".join(_stem(w) for w in title.split())


def _states_an_event(frame: RequestFrame, text: str, norm: str, targets: list[TimeMatch]) -> bool:
    """A statement that names one event and when it is, asking nothing, which the classifier could
    only guess at (no verb): the user is telling the calendar about it ("and the 12th?" names no
    event, and asks)."""
    return (
        frame.operation in ("query", "unknown")
        and frame.confidence <= 0.5
        and "?" not in text
        and not _TAG_QUESTION.search(norm)
        and any(EVENT_NOUNS.search(_singular(title)) for title in frame.titles)
        # "the date is the 9th of March": when something is, not a date (the event) on the 9th
        and not any(title in WHEN_FIELDS and f"the {title} is " in norm for title in frame.titles)
        and any(t.has_date or t.has_time for t in targets)
        and not QUESTION_STARTERS.match(norm)
        and not QUERY_CUES.search(norm)
        and bool(_SINGLE_EVENT.match(norm))
    )


# The time expressions' own words for a day ahead or the current one ("this", "next", "coming", "the
# following"): a day said with one is that day, in any tense.
_NOT_PAST = frozenset(
    w for said in MODIFIERS_BY_FIRST.values() for words, meaning in said if meaning != "last" for w in words
) - {"the"}


def _most_recent(t: TimeMatch, now: datetime, *, month_day: bool) -> TimeMatch:
    """In the past tense a weekday or a day of the month said alone is the last one ("what was on
    Monday?", "what was on the 3rd?"), not the next."""
    if t.start is None or t.start <= now or not _NOT_PAST.isdisjoint(tokens(t.text)):
        return t
    named_month = not MONTHS.keys().isdisjoint(tokens(t.text))  # "friday, march 13th" is that one
    if (t.weekdays or WEEKDAY_WORD.search(t.text)) and _DAY_OF_MONTH.search(t.text) and not named_month:
        # "monday the 2nd": the last month whose 2nd was a Monday, not the week before the next one
        said = t.start
        earlier = next(
            (
                day
                for back in range(1, 41)  # the weekday of a day of the month comes round within 40 months
                if (day := _months_before(said, back)) is not None
                and day <= now
                and day.weekday() == said.weekday()
            ),
            None,
        )
        if earlier is None:
            return t
        return replace(t, start=earlier, end=earlier + (t.end - t.start) if t.end is not None else None)
    if t.weekdays or WEEKDAY_WORD.search(t.text):
        week = timedelta(days=7)
        return replace(t, start=t.start - week, end=t.end - week if t.end is not None else None)
    if named_month and not any(w.isdigit() and len(w) == 4 for w in tokens(t.text)):
        # "did I have yoga on feb 23?" on March 4: the one days ago, not next year's; the nearer of the
        # two, since the past tense may be of something else ("I forgot what my plans were on the 13th")
        earlier = _months_before(t.start, 12)
        if earlier is None or earlier > now or now - earlier > t.start - now:
            return t
        if t.end is None:
            return replace(t, start=earlier)
        # "in february" keeps its own length (28 or 29 days)
        return replace(t, start=earlier, end=_months_before(t.end, 12) or earlier + (t.end - t.start))
    if month_day and _DAY_OF_MONTH.fullmatch(t.text.strip()):
        earlier = _months_before(t.start, 1)
        if earlier is None:
            return t
        return replace(t, start=earlier, end=earlier + (t.end - t.start) if t.end is not None else None)
    return t


def _months_before(moment: datetime, back: int) -> datetime | None:
    """The same day and time ``back`` months earlier (None when that month has no such day: "the
    31st")."""
    index = moment.year * 12 + moment.month - 1 - back
    try:
        return moment.replace(year=index // 12, month=index % 12 + 1)
    except ValueError:
        return None


def _part_and_period(t: TimeMatch, now: datetime) -> list[TimeMatch]:
    """ "after lunch this month" as a day part that filters and the period it filters, not the first
    afternoon of the month; any other match as it is, and one that names a day of the period too
    ("next week on Tuesday afternoon": that afternoon)."""
    period = _PERIOD.search(t.text) if t.day_part and t.has_date and not t.has_time else None
    if period is None:
        return [t]
    rest = f"{t.text[: period.start()]} {t.text[period.end() :]}"
    if any(m.has_date for m in find_times(rest, now=now, daytime=True) if not m.error):
        return [t]
    found = [m for m in find_times(period.group(0), now=now, daytime=True) if not m.error]
    if not found:
        return [t]
    return [replace(t, has_date=False), replace(found[0], span=t.span, day_part=None)]


# The exclusion tagger's reading is taken when it gives every word of it at least this chance: at this
# level it read nothing as left out that was not, in SMCalFlow dialogues it had not seen (eval_exclusions).
_EXCLUDED_CONFIDENCE = 0.5


def _learned_exceptions(
    reading: TurnReading | None,
    text: str,
    norm: str,
    times: list[TimeMatch],
    found: list[tuple[int, int]],
) -> dict[tuple[int, int], tuple[str, bool]]:
    """Where the exclusion tagger reads the turn leaving something out that no exception cue begins
    ("anything not in Bellevue", "what do I have that's not a party?", "it can't be on the weekend"):
    each as a clause of ``norm`` of its own, over the whole of a time expression it lies in ("the
    weekend"), so that it is read like any exception (:func:`_fill_exclusions`); each with the words
    left out as typed and whether they are a place. A span in a time expression is taken only where
    that names days to leave out (a weekday, the weekend): "that's not a class tomorrow" keeps
    tomorrow as the day asked about."""
    if reading is None or not reading.excluded or reading.excluded_confidence < _EXCLUDED_CONFIDENCE:
        return {}
    clauses: dict[tuple[int, int], tuple[str, bool]] = {}
    for span in reading.excluded:
        words = normalise(span.text).strip()
        # the same words may stand twice ("I have a lab on Friday, what else ... that's not a lab"):
        # the one the tagger read, by how many times they stand before it
        before = len(_all_whole_words(text.lower(), span.text.lower(), span.start))
        at = _all_whole_words(norm, words, len(norm))
        if not at:
            continue
        lo = at[min(before, len(at) - 1)]
        hi = lo + len(words)
        timed = [t for t in times if t.span[0] < hi and lo < t.span[1]]
        if any(not _days_of(t) for t in timed):
            continue
        for t in timed:
            lo, hi = min(lo, t.span[0]), max(hi, t.span[1])
        # a place when the names tagger read those words as one ("not in Bellevue"), else a title
        place = any(s.slot == "location" and s.start < span.end and span.start < s.end for s in reading.spans)
        # inside an exception the rules found ("that aren't in Truckee"), the tagger's words say what it
        # leaves out, as typed
        within = next(((a, b) for a, b in found if a <= lo < b), None)
        if within is not None or not any(a <= lo < b for a, b in clauses):
            clauses[within or (lo, hi)] = (span.text, place)
    return clauses


def _all_whole_words(text: str, words: str, before: int) -> list[int]:
    """Where ``words`` stand in ``text`` as whole words, starting before ``before``."""
    found: list[int] = []
    at = text.find(words) if words else -1
    while 0 <= at < before:
        end = at + len(words)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            found.append(at)
        at = text.find(words, at + 1)
    return found


def _dates_the_turn(norm: str, clause: tuple[int, int], t: TimeMatch) -> bool:
    """Whether a date inside an exception clause is the turn's rather than the exception's: one that
    names no weekday, after what the exception names ("anything that isn't a class *tomorrow*"), as
    against "except tomorrow" or "except the standup on Friday"."""
    if _days_of(t) or t.start is None or t.end is None or t.end - t.start < timedelta(days=1):
        return False  # a weekday or the weekend left out, or no day at all ("skip that for now")
    cue = _EXCEPTION_CUE.match(norm, clause[0])
    if cue is not None and cue.group(0).startswith("skip"):
        return False
    return _named_before(norm, clause, cue, t)


def _names_then_one_day(norm: str, clause: tuple[int, int], t: TimeMatch) -> bool:
    """Whether an exception names something and then one day, in a turn that says no day elsewhere:
    "cancel all but the standup on friday" is Friday's events but the standup, not every event ahead
    but Fridays and the standup ("except on Fridays" and "but not Friday" still leave the days out)."""
    if t.weekdays or t.grain != "day" or t.start is None:
        return False
    return _named_before(norm, clause, _EXCEPTION_CUE.match(norm, clause[0]), t)


def _named_before(norm: str, clause: tuple[int, int], cue: re.Match[str] | None, t: TimeMatch) -> bool:
    """Whether the exception clause names something (a word of no stopword or generic event word)
    between its cue and the time ``t`` said in it."""
    said = norm[cue.end() if cue else clause[0] : t.span[0]]
    return any(w not in STOPWORDS and w not in GENERIC_EVENT_WORDS for w in tokens(said))


# Words before "in/at X" that make X where the user is, not where events are.
_WHERE_THE_USER_IS = re.compile(r"\b(?:i'm|i am|i'll be|i will be|we're|we are|be|i'm not|i am not|not)$")
_ONE_OR_OTHER = re.compile(r"\s+(?:or|and)\s+")


def _places_asked(reading: TurnReading, text: str, residual: str) -> list[tuple[str, str]]:
    """The places a question asks about, as typed: what the names tagger read as one ("what meetings do
    I have in bellevue", "anything at Nopa?") after "in" or "at", in words no other reading took (a
    time, a calendar, a title, an exception); each with the word that led it in."""
    places: list[tuple[str, str]] = []
    folded = text.casefold()
    for span in reading.spans:
        if span.slot != "location":
            continue
        before = folded[: span.start].split()
        lead = before[-1:]
        words = span.text.casefold().strip()
        if lead not in (["in"], ["at"]) or not words or words not in residual:
            continue  # "Nopa lunch" is a title; a place already read as something else stays that
        if _WHERE_THE_USER_IS.search(" ".join(before[-4:-1])) or folded[span.end :].split()[:1] == ["time"]:
            continue  # "I'll be in Seattle", "I'm at home": where the user is; "in Seattle time" a clock
        if _is_category_word(words):
            continue  # "in class": the kind of event
        for place in _ONE_OR_OTHER.split(span.text.strip()):  # "in bellevue or seattle": either
            places.append((lead[0], place))
    return places


def _joined_parts(targets: list[TimeMatch], norm: str) -> list[TimeMatch]:
    """A part of the day joined to a day's part ("Thursday afternoon and evening", "tomorrow morning or
    afternoon") is on that day too: it was today's, and as a filter of the first part it left nothing."""
    joined: list[TimeMatch] = []
    for t in targets:
        before = joined[-1] if joined else None
        if (
            before is not None
            and t.day_part
            and not t.has_date
            and before.day_part
            and before.has_date
            and before.start is not None
            and t.start is not None
            and t.end is not None
            and norm[before.span[1] : t.span[0]].strip(" ,&") in ("", "and", "or")
        ):
            shift = timedelta(days=(before.start.date() - t.start.date()).days)
            t = replace(t, start=t.start + shift, end=t.end + shift, has_date=True)
        joined.append(t)
    return joined


def _days_of_the_week_said(targets: list[TimeMatch]) -> list[TimeMatch]:
    """A weekday said apart from the week it is in ("am I free next week, say Tuesday afternoon?") is
    that week's, and the day is what is asked about: the week's Tuesday afternoon, not this week's
    Tuesday and all of next week."""
    weeks = [t for t in targets if t.grain == "week" and t.has_date and not t.has_time and not t.day_part]
    if len(weeks) != 1 or weeks[0].start is None or weeks[0].end is None:
        return targets
    week, first, last = weeks[0], weeks[0].start, weeks[0].end
    moved: dict[int, TimeMatch] = {}
    for t in targets:
        if t is week or not (t.has_date and WEEKDAY_WORD.search(t.text)):
            continue
        if t.start is None or t.end is None or t.end - t.start > timedelta(days=1):
            return targets  # "tuesday to thursday": a stretch of days, not one day of the week
        weeks_off = 0 if first <= t.start < last else (first.date() - t.start.date()).days // 7 + 1
        shift = timedelta(weeks=weeks_off)
        if not first <= t.start + shift < last:
            return targets
        moved[id(t)] = replace(t, start=t.start + shift, end=t.end + shift)
    if not moved:
        return targets
    return [moved.get(id(t), t) for t in targets if t is not week]


def _days_of(t: TimeMatch) -> list[int]:
    """The weekdays a time expression names to leave out: its weekdays ("not on Mondays"), or the days
    wholly inside it when it is shorter than a week ("the weekend": Saturday and Sunday, not Friday
    evening); none for a date ("tomorrow"), which says which day is asked about."""
    if t.weekdays:
        return sorted(t.weekdays)
    if t.start is None or t.end is None or t.grain == "day" or t.end - t.start >= timedelta(days=7):
        return [t.start.weekday()] if t.start is not None and WEEKDAY_WORD.search(t.text) else []
    days = []
    day = t.start.replace(hour=0, minute=0, second=0, microsecond=0)
    while day < t.end:
        following = (day + timedelta(days=1)).replace(hour=0)
        if day >= t.start and following <= t.end:
            days.append(day.weekday())
        day = following
    return days


def _fill_exclusions(
    frame: RequestFrame,
    clause: str,
    now: datetime,
    world: World,
    *,
    as_said: tuple[str, bool] = ("", False),
    typed: str = "",
) -> None:
    """What an exception clause ("besides the standups", "except the one with Ann") leaves out, read
    like a request of its own: the calendar's titles it names whole or in part, or else the people it
    names; a day or a time it names is an excluded weekday, read apart.

    ``typed``: the turn as the user wrote it, for the words of a place as they were written.

    ``as_said``: the words left out as typed, when the clause is the exclusion tagger's, which found
    exactly them, and whether the names tagger read them as a place: words that name no title of the
    calendar, nobody and no category are left out as a place ("not in Bellevue") or words of a title. A
    category it names (classes, meetings) is left out whole, unless it is the one asked for."""
    cue = _EXCEPTION_CUE.match(clause)
    what = clause[cue.end() :] if cue else clause
    then = _EXCEPTION_CUE.search(what)
    what = what[: then.start()] if then else what  # each exception read once: "except x except y"
    if not what.strip():
        return
    # read once a turn: the turn's whole text and its target part hold the same exception
    left = shared(
        f"exception:{world.user.pk}:{now.isoformat()}:{what}",
        lambda: understand(what, now=now, world=world, existing=True),
    )
    parts = list_parts(what)
    if len(parts) > 1 and (
        len(left.titles) > 1 or not (left.title_words or left.people or left.strangers or left.category)
    ):
        # "except standups and yoga": two titles, which read as one name several titles or none; each
        # is left out
        for part in parts:
            _fill_exclusions(frame, part, now, world, typed=typed)
        return
    if left.calendars and not left.title_words and not left.category:
        return  # "outside of school": a calendar, which the turn's calendars leave out
    if left.title_words:
        frame.exclude_titles.extend(t for t in left.titles if t not in frame.exclude_titles)
    else:
        # the directory's people, or a name it does not know, found among the attendees' addresses
        people = left.people or left.strangers
        frame.exclude_people.extend(p for p in people if p not in frame.exclude_people)
        said, place = as_said
        if (
            not people
            and left.category in ("class", "meeting")
            and _a_whole_category(cue, what, left, as_said)
        ):
            frame.exclude_category = left.category  # "besides meetings", "that's not a class"
            return
        first, _, rest = what.strip().partition(" ")
        timed = bool(left.start is not None or left.day_part or left.at_time)
        if said:  # the tagger's words: a time said after them is the turn's ("not in Bellevue tomorrow")
            timed = bool(find_times(said, now=now))
        elif first in ("in", "at"):
            # "that isn't in Bellevue (this week)": a place, as the rules read it, up to a time the turn
            # goes on with ("in the afternoon" is a time, no place)
            said, place, timed = _untimed(rest, now, typed), True, False
        if people or not said or timed or left.category:
            return
        known = [p.email for found in world.people_named([said]).values() for p in found]
        listed = frame.exclude_places if place else frame.exclude_titles
        if known:  # "aren't with ann": the directory's Ann, whom the rules did not find in lower case
            frame.exclude_people.extend(p for p in known if p not in frame.exclude_people)
        elif said not in listed:
            listed.append(said)


def list_parts(words: str) -> list[str]:
    """The items of a list said with commas, "and" or "or" ("standups, the hike and yoga"); one item
    when there is no list."""
    return _ONE_OR_OTHER.split(words.replace(",", " and "))


def _untimed(words: str, now: datetime, typed: str) -> str:
    """``words`` up to the first time expression in them, as ``typed`` (the turn as the user wrote it)
    has them when it holds them ("Seattle", not the normalised "seattle")."""
    times = find_times(words, now=now)
    cut = min((t.span[0] for t in times), default=len(words))
    said = words[:cut].strip(" .,;:!?")
    at = typed.lower().find(said) if said else -1
    return typed[at : at + len(said)] if at >= 0 else said


def _a_whole_category(
    cue: re.Match[str] | None, what: str, left: RequestFrame, as_said: tuple[str, bool]
) -> bool:
    """Whether an exception's category word means every event of the kind: said in the plural or as
    "a class" ("besides meetings", "that's not a class"), after a word that excepts (not "skip my
    classes", a request of its own) and with no weekday ("Monday classes" are days); "besides the sync" or
    "except the seminar" is one event, which the category's many names would overreach."""
    if left.weekdays or WEEKDAY_WORD.search(what):
        return False  # "leave Monday classes alone"; "classes tomorrow" are the turn's day's classes
    if not as_said[0] and (cue is None or cue.group(0).startswith("skip")):
        return False
    said = CATEGORY_WORDS[left.category or ""].search(what)
    if said is None:
        return False
    before = what[: said.start()].split()
    return said.group(0).endswith("s") or before[-1:] in (["a"], ["an"])


def _clause(text: str, start: int) -> tuple[int, int]:
    m = _CLAUSE_END.search(text, start + 1)
    return start, (m.start() if m else len(text))


def _fill_range(frame: RequestFrame, targets: list[TimeMatch]) -> None:
    for t in targets:
        if t.weekdays:
            frame.weekdays.extend(sorted(t.weekdays))
        if t.day_part and not t.has_date:
            frame.day_part = t.day_part  # "afternoon classes": a filter, not a range
            continue
        if t.weekdays and not t.has_date:
            continue
        if t.start is None:
            continue
        end = t.end or (t.start + timedelta(days=365))
        if t.end is None and frame.operation == "delete" and t.grain == "day":
            # "remove an event from sunday": what is on that day, not everything from then on ("from
            # Monday on", "from Friday onwards" end a series, read before: :func:`changes.onward_of`)
            end = t.start + timedelta(days=1)
        if t.has_time and not t.is_interval:
            frame.at_time = t.start
            if frame.operation in ("query", "count"):
                end = t.start + timedelta(minutes=1)
        elif t.has_time and t.end is not None and frame.operation == "create":
            # "lunch from 1 to 2pm": the new event's start and length ("after 3pm tomorrow": its start)
            frame.at_time = t.start
            if not t.rest_of_day:
                frame.duration_minutes = int((t.end - t.start).total_seconds() // 60)
        if t.day_part and t.has_date:
            frame.day_part = None
        frame.start = t.start if frame.start is None else min(frame.start, t.start)
        frame.end = end if frame.end is None else max(frame.end, end)
        frame.range_explicit = True
    frame.time_only = frame.at_time is not None and not any(t.has_date or t.weekdays for t in targets)


def _learned_people(
    reading: TurnReading | None, unread: str, world: World, text: str
) -> list[tuple[str, tuple[int, int]]]:
    """The people the people tagger found, where their words stand unread in the normalised text: the
    tagger learnt from real requests where a name stands ("I need to see Omar", "Omar and I"), and
    where it stops ("with Omar at 3pm London time" is Omar)."""
    people = [s for s in reading.spans if s.slot == "person"] if reading is not None else []
    if not people:
        return []
    # "a ride to John F. Kennedy airport": a place's name, whatever its first word sounds like
    places = [m.span("place") for m in NAMED_PLACE.finditer(text)]
    found: list[tuple[str, tuple[int, int]]] = []
    for span in people:
        if any(lo <= span.start < hi for lo, hi in places):
            continue
        name = " ".join(span.text.casefold().replace("’", "'").split())
        if name.endswith("'s") or name in world.folded_titles:
            # "john's birthday": an owner, whose name stays in the title (see _POSSESSIVE); "look up
            # Test" with a "Test" on the calendar: that event, whatever the name sounds like
            continue
        at = _whole_word(unread, name)
        if at >= 0:
            found.append((name, (at, at + len(name))))
    return found


# Contractions of who speaks, before a verb of meeting ("I'm seeing Omar", "we'll visit Gran").
_SUBJECTS = frozenset({"i'm", "im", "i'll", "we're", "we'll", "i've"})
# The words after a verb of meeting, up to what was read away (two spaces) or the end: three at most.
_SEEN = re.compile(rf"\b(?:{'|'.join(sorted(MEETING_VERBS))}) (?P<who>[^ ]+(?: [^ ]+){{0,2}}?)(?=  |\s*$)")


# Someone else's wish that opens a turn: "ann wants to meet", "omar asked to catch up", "raj would like to
# meet", "raj asked for a call", "my boss wants a meeting": the person, a verb said of them, and "to" and
# a verb of making or meeting, or an event ("a call", "a coffee").
_WISH = re.compile(
    r"^(?:my\s+)?(?P<who>[a-z][\w'-]*)\s+(?P<wish>\w+(?:s|ed)|would like|'d like)\s+"
    r"(?:(?:me\s+|us\s+)?to\s+|(?:for\s+)?(?P<article>an?\s+))"
)


def _wisher(norm: str, world: World) -> tuple[tuple[str, tuple[int, int]], tuple[int, int]] | None:
    """Who opens the turn wishing for a meeting ("ann wants to meet tomorrow", "omar asked to catch up
    friday") and where, with the words of the wish (up to "to"): the request is the meeting, with them.
    None when the turn opens otherwise, or with a word no one is called (a title, "it", "standup
    needs to be ...")."""
    m = _WISH.match(norm)
    if m is None or any(m["who"] in words for words in (STOPWORDS, GENERIC_EVENT_WORDS, world.folded_titles)):
        return None
    rest = norm[m.end() :]
    if m["article"]:  # "raj asked for a call tomorrow": an event, its words the title's
        if not (EVENT_NOUNS.match(rest) or CATEGORY_WORDS["meeting"].match(rest)):
            return None  # "ann needs an answer", "raj wants a new time"
        return (m["who"], m.span("who")), (m.start("wish"), m.start("article"))
    if not (CREATE_VERBS.match(rest) or any(rest.startswith(f"{verb} ") for verb in MEETING_VERBS)):
        return None
    return (m["who"], m.span("who")), (m.start("wish"), m.end())


def _named_after_meeting_verb(text: str, unread: str, world: World) -> list[tuple[str, tuple[int, int]]]:
    """Who a statement says is seen or visited where the tagger found no one: the words after the
    verb, up to what was read as the time, when the user wrote each with a capital ("I'm seeing Dr.
    Patel Friday at 10", "visiting Grandma Rose on Sunday"). A name typed in lower case stays
    unread (the tagger's to find), and so does anything of more than three words."""
    for m in _SEEN.finditer(unread):
        who = m["who"]
        if who in world.folded_titles or not all(_capitalised(text, word) for word in who.split()):
            continue
        return [(who, m.span("who"))]
    return []


def _capitalised(text: str, word: str) -> bool:
    """Whether ``word`` (folded) stands in ``text`` written with a capital: a name, as the user typed it."""
    found = words_pattern(word).search(text)
    return found is not None and found[0][0].isupper()


def _whole_word(text: str, words: str) -> int:
    """Where ``words`` first stand in ``text`` as whole words, or -1."""
    at = text.find(words)
    while at >= 0:
        end = at + len(words)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return at
        at = text.find(words, at + 1)
    return -1


def _meets_someone(
    learned: list[tuple[str, tuple[int, int]]], unread: str, text: str, norm: str, targets: list[TimeMatch]
) -> tuple[int, int] | None:
    """Where the verb stands in a statement with a day or time in which someone the tagger found is
    the one seen or visited: "I need to see Omar tomorrow at 3", not "when do I see Omar?" nor "let
    me see Friday"."""
    if "?" in text or QUESTION_STARTERS.match(norm) or not any(t.has_date or t.has_time for t in targets):
        return None
    for _, (lo, _hi) in learned:
        verb = _word_before(unread, lo)
        if verb in MEETING_VERBS:
            return lo - 1 - len(verb), lo - 1
    # or someone by what they are: "I need to see the doctor next Tuesday at 10", "I'm seeing my
    # accountant on Friday at 2" (not "see my schedule", the calendar; "visit the apartment at 1" is
    # read as any new event, its verb in its name)
    for m in _SEES_SOMEONE.finditer(unread):
        noun = m["noun"]
        if noun not in STOPWORDS and noun not in GENERIC_EVENT_WORDS and not CALENDAR_TALK.match(noun):
            return m.span("verb")
    return None


_SEES_SOMEONE = re.compile(
    r"\b(?P<verb>see|seeing) (?:the|my|our|a|an|his|her|their) (?P<noun>[a-z][a-z'-]+)\b"
)


def sees_the_calendar(norm: str) -> bool:
    """Whether the words ask to see the calendar itself ("I need to see my schedule for Tuesday at 10"):
    a look-up, whatever a model trained on bookings makes of a time said with it."""
    return any(CALENDAR_TALK.match(m["noun"]) for m in _SEES_SOMEONE.finditer(norm))


def _word_before(unread: str, start: int) -> str:
    """The word right before ``start`` with one space between, or "" (nothing there, or something
    read away between: two spaces or more)."""
    before = unread[:start]
    if not before.endswith(" ") or before.endswith("  "):
        return ""
    return before.split()[-1] if before.strip() else ""


def _object_of(unread: str, start: int) -> bool:
    """Whether the words at ``start`` follow a word of a phrase with nothing between: "give jane a
    call", not "lunch with jane", "see jane" (a meeting), "jane and i", "with both jane and raj" (who
    the people are, lexicon.QUANTIFIERS) or a name after a time read away."""
    word = _word_before(unread, start)
    return word.isalpha() and word not in STOPWORDS and word not in MEETING_VERBS and word not in QUANTIFIERS


def _objects(unread: str, spans: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The names (``spans``, in order) that are a phrase's object (see :func:`_object_of`), with the
    names listed after one ("invite Ann and Bo to dinner", "ask Ann, Bo and Cy"): a list is the object
    as a whole, and reading its second name apart would cut the phrase in two."""
    found: set[tuple[int, int]] = set()
    last: tuple[int, int] | None = None
    for span in spans:
        listed = last is not None and _listed_next(unread, last[1], span[0])
        if _object_of(unread, span[0]) or (last in found and listed):
            found.add(span)
        last = span
    return found


def _listed_next(unread: str, end: int, start: int) -> bool:
    """Whether the name at ``start`` is the next of a list the name ending at ``end`` is in: only a
    comma or "and" between them ("Ann, Bo and Cy"; not "Ann or Bo", nor "Ann ... and yoga with Bo")."""
    return unread[end:start].strip(" ,") in ("", "and")


def _finds(before: str) -> bool:
    """Whether the words before a length ask to find that much time: "find an hour", "find me 30 minutes"."""
    words = before.split()
    return words[-1:] == ["find"] or words[-2:] == ["find", "me"]


_A_WORD = re.compile(r"[a-z][a-z'-]+")
_BEFORE_SOMEONE = frozenset(
    {"have", "has", "including", "involving", "invites", "is", "are", "does", "did", "see"}
)
_AFTER_SOMEONE = frozenset({"is", "in", "coming", "invited", "attending", "going", "joining", "on"})


def _fill_known_names(
    frame: RequestFrame, unread: str, world: World, take: Callable[[int, int], None]
) -> None:
    """A person of the directory named anywhere in a question, not only after "with" ("which meetings
    have ann", "is bill in any of my meetings", "events involving ann"): the first word the directory
    knows as someone's name, when no title of the calendar holds it."""
    titled = {w for title in world.folded_titles for w in title.split()}  # "the standup": a title's
    not_names = STOPWORDS | GENERIC_EVENT_WORDS | _PREDICATE_WORDS | titled
    # a name beside a word that says someone takes part: "meetings have ann", "is bill in", "ann is invited"
    words = [
        m
        for m in _A_WORD.finditer(unread)
        if m.group(0) not in not_names
        and (
            set(unread[: m.start()].split()[-1:]) & _BEFORE_SOMEONE
            or set(unread[m.end() :].split()[:1]) & _AFTER_SOMEONE
        )
    ]
    directory = world.people_named([m.group(0) for m in words]) if words else {}
    for m in words:
        found = directory.get(m.group(0)) or []
        if found:
            frame.people.append(found[0].email)
            frame.person_names.append(m.group(0))
            take(*m.span())
            return


def _fill_people(
    frame: RequestFrame,
    norm: str,
    unread: str,
    world: World,
    take: Callable[[int, int], None],
    learned: list[tuple[str, tuple[int, int]]],
    text: str,
) -> None:
    """People named by email, where the people tagger found them (``learned``), after
    "with"/"invite"/..., or as a possessive.  Names are looked for in ``unread`` (``norm`` with what
    earlier layers consumed blanked), so "with Priya Thursday at 3" does not make "Priya Thursday" a
    name; where the tagger's bounds and the cues' differ, the tagger's stand."""
    seen: set[str] = set()
    for m in EMAIL.finditer(norm):
        frame.people.append(m.group(0))
        seen.add(m.group(0))
        take(*m.span())
        unread = blanked(unread, [m.span()])  # not "zoe" of zoe@…
    candidates = [(name, span) for name, span in learned if unread[span[0] : span[1]] == name]

    def overlaps_learned(span: tuple[int, int]) -> bool:
        return any(lo < span[1] and span[0] < hi for _, (lo, hi) in learned)

    for m in _PEOPLE_AFTER.finditer(unread):
        if (
            unread.startswith("for", m.start())
            and _A_LENGTH_BEFORE.search(norm, 0, m.start())
            and not _capitalised(text, first := m.group(1).split()[0])
            and not world.people_named([first]).get(first)
        ):
            # "2 hours for taxes", "an hour for reading": what the time is for ("for Bob", "for ann"
            # whom the directory knows: whom)
            continue
        if not _POSSESSIVE.match(m.group(1)) and not overlaps_learned(m.span(1)):
            # "for john's birthday": the possessive below names him
            candidates.append((m.group(1), m.span(1)))
    listed: set[tuple[int, int]] = set()
    for pattern in (_TOGETHER_FREE, _LIST_AFTER, _ONE_FREE, _AND_I):
        for m in pattern.finditer(unread):
            if pattern is _ONE_FREE and _not_someone(m.group("list")):
                continue
            for member in _LIST_MEMBER.finditer(unread, *m.span("list")):
                if overlaps_learned(member.span()):
                    continue
                if member.span() not in listed and not any(member.span() == s for _, s in candidates):
                    listed.add(member.span())
                    candidates.append((member.group(0), member.span()))
    candidates.sort(key=lambda c: c[1])  # in the order said: "ann and raj" is Ann first
    owners: set[str] = set()
    owned: set[tuple[int, int]] = set()  # where a name is said as an owner ("ann's")
    for m in _POSSESSIVE.finditer(unread):
        if _word_before(unread, m.start()) in _PLACE_LEADS:
            continue  # "dinner at Luca's with Priya": where it is (a restaurant, someone's home), no guest
        candidates.append((m.group(1), m.span(1)))
        owners.add(m.group(1))
        owned.add(m.span(1))
    # "give jane a call", "saw Kate": a name right after a word of the phrase belongs to the title too
    in_phrase = _objects(unread, sorted(span for _, span in learned))
    cleaned = [
        (
            " ".join(
                w
                for w in name.split()
                if w not in STOPWORDS and w not in GENERIC_EVENT_WORDS and w not in _PREDICATE_WORDS
            ),
            name,
            span,
        )
        for name, span in candidates
    ]
    lookups = [c for c, _, _ in cleaned if c]
    directory = world.people_named(lookups + [c.split()[0] for c in lookups]) if lookups else {}
    tagged = {span for _, span in learned}
    ends: list[int] = []  # where the names taken end: "with mom and dad" is two people
    cased = _writes_names_cased(text)

    going_on, listed_to = True, 0  # whether the list of the first person said goes on, and where it is
    with_list = False  # whether that list is of people the user is with ("with Ann, Bo and Cy")
    for words, name, span in cleaned:
        if not words:
            continue
        found = directory.get(words) or []
        if not found and directory.get(words.split()[0]):
            # "with priya let's ...": the directory knows the first word only, so that is the name.
            words, found = words.split()[0], directory[words.split()[0]]
            span = (span[0], span[0] + len(name.split()[0]))
        if found:
            email = found[0].email
            if email not in seen:
                frame.people.append(email)
                seen.add(email)
                if span in owned:
                    frame.owners.append(email)
            elif span not in owned and email in frame.owners:
                frame.owners.remove(email)  # "Ann's farewell party, invite Ann": named as a guest too
        elif (
            name.split()[0] in STOPWORDS
            or NAMED_OUTRIGHT.match(name)  # "a meeting called roadmap sync": its title, no one's name
            or _looks_like_thing(name)
            or _NOT_SOMEONE & set(name.split())
            or (span not in tagged and words in world.folded_titles)
            or (span not in tagged and _takes_it(name, unread, span))
            or (
                span not in tagged
                and not _after_with(unread, span, ends)
                and _not_a_name_as_typed(name, text, cased)
            )
        ):
            # "search for birthday", "look for tea party event" with those on the calendar: the
            # events, where a cue stood before them and the tagger found no one
            continue
        ends.append(span[1])
        who = found[0].email if found else words
        with_them = span in tagged or unread[: span[0]].split()[-1:] == ["with"]
        if not frame.together or (going_on and _listed_next(unread, listed_to, span[0])):
            # "with Ann and Cy": Cy is listed with Ann, as much someone to meet as she is
            with_them = with_them or (with_list and bool(frame.together))
            with_list = with_them if not frame.together else with_list
            frame.together += [who] if who not in frame.together else []
            listed_to = span[1]
        else:
            going_on = False  # "lunch with Ann ... and have yoga with Bo", "Ann or Bo": the list has ended
        if words not in frame.person_names:
            frame.person_names.append(words)
        if (
            not found
            and with_them
            and name not in owners
            and span not in in_phrase
            and words not in frame.strangers
        ):
            frame.strangers.append(words)
        if name not in owners and span not in in_phrase:
            take(*span)  # "John's birthday" keeps its owner in its title


def _noun_of_a_name(word: str, after: list[str], operation: str) -> bool:
    """Whether a word that asks and names ("check", "show", "list") ends a new event's name right after
    its other words ("add tire check at 10", "a dog show on Sunday"), rather than asking something of
    its own ("... check my calendar", "show me")."""
    if operation not in ("create", "unknown") or word not in QUESTION_NOUNS:
        return False
    return not after or after[0] not in STOPWORDS or after[0] in _PLACE_LEADS


# A word typed with a capital inside a sentence ("on Thursday", "at Britannia Arms"), not after its end.
_CAPITAL_INSIDE = re.compile(r"(?<![.!?:;\n])\s+(?!I\b|I')[A-Z]")


def _after_with(unread: str, span: tuple[int, int], ends: list[int]) -> bool:
    """Whether a name stands after "with", or after "and" after a name taken ("with mom and dad"):
    the people met, however they are typed ("lunch with sis")."""
    before = unread[: span[0]].split()
    if before[-1:] == ["with"]:
        return True
    return before[-1:] == ["and"] and any(unread[end : span[0]].strip() == "and" for end in ends)


def _writes_names_cased(text: str) -> bool:
    """Whether the user types capitals inside a sentence, so a name typed in lower case is none (in a
    turn all in lower case, or shouted, the case tells nothing)."""
    return not text.isupper() and _CAPITAL_INSIDE.search(text) is not None


def _takes_it(name: str, unread: str, span: tuple[int, int]) -> bool:
    """Whether a cue's words are a verb that takes "it" ("and label it Movie show", "with Ann at 3 and
    call it Planning"): no one's name, unless said right after "with"."""
    return name.split()[1:2] in (["it"], ["this"], ["that"]) and unread[: span[0]].split()[-1:] != ["with"]


def _not_a_name_as_typed(name: str, text: str, cased: bool) -> bool:
    """Whether a cue's words are no one's name by how the user typed them: words typed in lower case by
    someone who writes names with capitals (``cased``: "an appointment for nails on Thursday", "it
    starts at 7 and lasts 2 hours")."""
    words = name.split()
    if not cased:
        return False
    said = words_pattern(words[0]).finditer(text)
    return all(m.group(0).islower() for m in said)


def _not_someone(name: str) -> bool:
    words = [w for w in name.split() if w not in STOPWORDS]
    return not words or words[0] in _NOT_SOMEONE or _looks_like_thing(name)


def _about_others(unread: str, frame: RequestFrame) -> bool:
    """Whether a free-time question is about the people named alone: "are Ann and Raj free?", "is Ann
    free?", not "are Ann, Raj and I free?", "can we all meet with Ann?", "is Ann free to meet me?"."""
    said = EMAIL.sub(lambda m: "x" * len(m.group(0)), unread)  # an address stands for a name
    subjects = [m.group("list") for m in _TOGETHER_FREE.finditer(said)]
    subjects += [m.group("list") for m in _ONE_FREE.finditer(said) if not _not_someone(m.group("list"))]
    return bool(subjects) and bool(frame.people or frame.person_names) and not FIRST_PERSON.search(unread)


# What an event does in time, said after "and" where a name could stand: "and lasting one hour".
_RUNNING = frozenset(
    ["lasting", "starting", "ending", "beginning", "finishing", "running", "taking", "going"]
)


def _looks_like_thing(name: str) -> bool:
    """Not a person's name: an event word ("with the meeting"), people in general ("with others") or
    what the event does in time ("and lasting one hour")."""
    return any(
        w in GENERIC_EVENT_WORDS or w in _ANYONE or w in _RUNNING or CATEGORY_WORDS["class"].fullmatch(w)
        for w in name.split()
    )


def _fill_calendars(
    frame: RequestFrame,
    norm: str,
    world: World,
    take: Callable[[int, int], None],
    exceptions: list[tuple[int, int]],
    taken: Sequence[bool],
) -> None:
    """The calendars the turn names; one named in an exception ("anything outside of school", "except
    my work calendar") is left out: the others are kept (and named in the answer as left out). A name
    the time reader took ("after work", the evening) names no calendar."""
    if "calendar" not in norm and not world.calendars:
        return
    left_out: list[CalendarInfo] = []
    for cal in world.calendars:
        for label in {cal.name.casefold(), cal.key.casefold()}:
            m = re.search(rf"\b{re.escape(label)}\b(?:\s+calendar)?", norm)
            # with one calendar, its name alone may be a word of the request ("after work"): only
            # "... calendar" names it ("add gym to my work calendar")
            said_whole = m is not None and (
                m.group(0).endswith("calendar") or "calendar" in norm[m.end() : m.end() + 10]
            )
            named = m is not None and (len(world.calendars) > 1 or said_whole)
            if not named or m is None or _is_category_word(label):
                continue
            within = next(((lo, hi) for lo, hi in exceptions if lo <= m.start() < hi), None)
            if within is None and all(taken[m.start() : m.end()]):
                continue  # "drinks friday after work": the evening
            if within is not None:
                # "outside of school", "except my work calendar"; not "except the work meeting", where
                # the calendar's name says which meeting
                whole = m.group(0).endswith("calendar") or not norm[m.end() : within[1]].strip(" .,;:!?")
                if whole and cal not in left_out:
                    left_out.append(cal)
            elif cal.key not in frame.calendars:
                frame.calendars.append(cal.key)
                take(*m.span())
    if left_out and not frame.calendars:
        frame.calendars = [c.key for c in world.calendars if c not in left_out]
        frame.exclude_calendars = [f"your {c.name} calendar" for c in left_out]


def _is_category_word(label: str) -> bool:
    return any(p.fullmatch(label) for p in CATEGORY_WORDS.values())


def _fill_preference(frame: RequestFrame, norm: str) -> None:
    if frame.detail in ("location", "attendees") or frame.person_names:
        return  # "where is my lunch meeting?", "my lunch with Abby": an event, not the lunch habit
    for key, pattern in PREFERENCE_WORDS.items():
        said = pattern.search(norm)
        if said and EVENT_NOUNS.match(norm, said.end() + 1):
            return  # "my lunch event", "my gym session": an event of that kind
        if said and re.search(r"\bmy\b", norm):
            frame.preference_key = key
            if frame.operation == "query" and not frame.range_explicit:
                frame.operation = "preference_get"
            return


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


# Where the words left over for a title break: words read as something else stood there (two spaces
# or more: a time, a person), or a mark that ends a phrase.
_RUN_BREAK = re.compile(r"\s{2,}|[,;!?()]|[.:](?!\d)|\s-\s")  # "1:1 with Ann" is one name


# What a request may call the thing it adds before saying what it is ("a note: call mom").
_RECORDS = GENERIC_EVENT_WORDS | {"note", "notes", "following"}


# The operations whose title names an event that is already on the calendar.
_NAMES_AN_EVENT = frozenset({"query", "count", "move", "delete"})


def _said_title(reading: TurnReading | None, frame: RequestFrame) -> str:
    """The names tagger's title of the turn, lower-cased, unless it is only the people's names."""
    span = reading.first("title") if reading is not None else None
    if span is None:
        return ""
    said = " ".join(tokens(span.text))
    named = {w for n in frame.person_names for w in n.split()}
    return said if set(said.split()) - named - STOPWORDS else ""


def _fill_titles(frame: RequestFrame, residual: str, world: World, norm: str, existing: bool) -> bool:
    """Fill the frame's titles: the calendar's titles the words name (True), or else the words left
    over (False)."""
    cleaned = FILLER.sub(lambda m: " " * max(2, len(m.group(0))), residual)
    residual_tokens = tokens(cleaned)
    content = {_stem(w) for w in residual_tokens if w not in STOPWORDS and w not in GENERIC_EVENT_WORDS}
    named = {_stem(w) for n in frame.person_names for w in n.split()}
    content -= named
    if frame.category:
        # "lectures, labs and classes", "every class" name the category; "the lab" may name a title.
        said = CATEGORY_WORDS[frame.category]
        every = {w for m in _EVERY.finditer(norm) for w in m.groups() if w}  # "every afternoon class"
        titled = {t.casefold() for t in world.titles}  # "every standup" with a "Standup": that title
        content -= {
            _stem(w)
            for w in residual_tokens
            if said.fullmatch(w) and (_stem(w) != w or w in every) and _stem(w) not in titled
        }
    best: list[tuple[float, str, list[str]]] = []
    with_names: set[str] = set()  # titles that were said whole only with the people's names in them
    if frame.operation not in ("free", "preference_get", "out_of_scope"):
        title_words = [(title, tokens(title)) for title in world.titles]
        # A word no title has whole may be the start of one of a title's words: "calc" for
        # "Calculus II", "bio lab" for "Biology Lab", "stats" for "Statistics".
        known = {_stem(w) for _, words in title_words for w in words}
        shortened = [w for w in content if len(w) >= 3 and w not in known]
        for title, words in title_words:
            distinct = [w for w in words if w not in STOPWORDS and w not in GENERIC_EVENT_WORDS]
            if not distinct:
                # "Check-in", "Move-out": a title of common words only, which counts when said whole.
                if words and words_pattern(" ".join(words), joined=True).search(cleaned):
                    best.append((1.0, title, words))
                continue
            hits = [w for w in distinct if _stem(w) in content or any(w.startswith(s) for s in shortened)]
            if not hits:
                continue
            names = [w for w in distinct if w not in hits and _stem(w) in named]
            if names and len(hits) + len(names) == len(distinct):
                # "move dinner with Ann to 8" names "Dinner with Ann" whole, whoever attends it
                with_names.add(title)
                best.append((1.0, title, hits + names))
            else:
                best.append((len(hits) / len(distinct), title, hits))
    new = not existing and frame.operation in ("create", "unknown")
    if best and new and max(score for score, _, _ in best) < 1.0:
        # "add a piano lesson" beside a "Surf lesson": a new event is named by the words said, and an
        # existing title only when all of its own words were said ("another surf lesson"); so is one
        # said without a verb ("lunch with Priya thursday at 1" beside "Lunch with Omar")
        best = []
    if best:
        top = max(score for score, _, _ in best)
        chosen = [(title, hits) for score, title, hits in best if score == top]
        frame.titles = [title for title, _ in chosen]
        frame.named_in_title = all(title in with_names for title in frame.titles)
        shared = (
            set(chosen[0][1]).intersection(*[set(h) for _, h in chosen[1:]]) if len(chosen) > 1 else set()
        )
        frame.title_words = sorted(shared) if shared else chosen[0][1] if len(chosen) == 1 else []
        if len(chosen) > 1 and not shared:
            frame.title_words = []
            frame.notes.append("several titles match: " + ", ".join(frame.titles))
        if frame.category and frame.title_words:
            # "the team sync" names that event, whoever attends it: the "sync" that made it a meeting
            # is a word of its title, not a second condition on it; and "my yoga class" names Yoga
            # whole, which the calendar need not count as a class
            said = CATEGORY_WORDS[frame.category]
            if top == 1.0 or any(said.search(title.casefold()) for title in frame.titles):
                frame.category = None
                # "my calculus lectures": the category word said is a word of the title too
                kept = {_stem(w) for w in residual_tokens if said.fullmatch(w)}
                named = {w for title in frame.titles for w in tokens(title) if _stem(w) in kept}
                frame.title_words += sorted(named - set(frame.title_words))
        return True
    # No known title: the words left over name the event ("a meeting with al" -> "meeting").  They
    # name a new event, or are noted; they never filter, since no title in the calendar has them.
    # A name is said in one piece: the first run of words left over that names something, never words
    # gathered from across the sentence ("Set up a call with Bo on Wednesday at 11 and let him know" is
    # a call, not 'Call know with Bo and Let Him').
    # Words before a colon that only say what kind of record it is ("add a note to my calendar: call
    # mom", "new event: lunch with Sam") are the request's wording: the name is what the colon leads to.
    lead = CREATE_VERBS.search(norm)
    ends = [m.start() for m in _RUN_BREAK.finditer(cleaned)] + [len(cleaned)]
    for end, run in zip(ends, _RUN_BREAK.split(cleaned), strict=True):
        phrase = _leftover_phrase(whole_words(run), frame, lead.group(0) if lead else "")
        before_colon = cleaned[end:].lstrip().startswith(":")
        if phrase and not (before_colon and set(phrase.split()) - STOPWORDS <= _RECORDS):
            frame.titles = [phrase]
            break
    return False


# The small words a name keeps inside it ("Book of the month", "Lunch with Omar").  "at" and "in" lead
# to a place, which stays in the name only when said next to it ("an appointment at the salon", but no
# 'in slot' of "an appointment with the dentist in this time slot").
_CONNECTIVES = frozenset({"of", "and", "the", "a", "an", "out", "to", "for", "on", "with"})
_PLACE_LEADS = frozenset({"at", "in"})
_MY_WORDS = frozenset({"my", "our", "your"})


def _particle(kept: list[str]) -> bool:
    """Whether the last word ends a phrasal verb said as a gerund: "working out", "catching up"."""
    return kept[-1] in PARTICLES and len(kept) > 1 and kept[-2].endswith("ing")


def _heads_name(words: list[str], at: int) -> bool:
    """Whether the noun of time at ``at`` heads a name with the word before it ("focus time", "spa
    day"): not after a word of no name ("the same day") nor one that only says "an event" ("the meeting
    time" is when the meeting is), nor in "the ... time", the time of something said before."""
    modifier = words[at - 1] if at > 0 else ""
    return (
        bool(modifier)
        and modifier not in STOPWORDS
        and modifier not in GENERIC_EVENT_WORDS
        and (at < 2 or words[at - 2] != "the")
    )


def _leftover_phrase(words: list[str], frame: RequestFrame, lead_verb: str = "") -> str:
    kept: list[str] = []
    linking: list[str] = []  # "at the", waiting for the place's name
    particle = -1  # where the particle of a phrasal verb said as a noun stands, taken with its verb
    last = -1  # where the last word kept stands
    verb, *rest = lead_verb.split() or [""]
    phrasal = len(rest) == 1 and rest[0] in PARTICLES  # the request's verb has one ("squeeze in")
    for at, w in enumerate(words):
        if at == particle:
            continue
        if at and frame.operation in ("create", "unknown") and phrasal_noun(words, at):
            # "a catch up with Bo", "a check in": the pair names the event ("check" alone is a verb
            # of questions, "up" a particle); only a new event's, as "move the sync up" moves the sync
            kept.extend(linking)
            linking.clear()
            kept.append(f"{w} {words[at + 1]}")
            particle = last = at + 1
            continue
        if any(p.fullmatch(w) for p in (CREATE_VERBS, DELETE_VERBS, MOVE_VERBS, QUERY_CUES, COUNT_CUES)):
            if kept and last == at - 1 and _noun_of_a_name(w, words[at + 1 : at + 2], frame.operation):
                kept.append(w)  # "tire check", "dog show": a word of questions said as the name's noun
                last = at
                continue
            if kept:
                break  # a second verb ends the object phrase ("remind me of X", "X i added")
            if lead_verb and w not in lead_verb.split() and CREATE_VERBS.fullmatch(w):
                kept.append(w)  # but in "add book club" the "book" after the request's verb is the name's
            continue
        if not kept and w in WISHING:
            continue  # "I want this to be added": how the user asks, never the name
        if not kept and phrasal and w in (verb, *rest):
            continue  # "squeeze in a call": the request's verb, said with its particle
        if frame.operation == "free" and w in _PREDICATE_WORDS:
            continue  # "are Ann and Raj free for a session?": the question's words, not the session's
        if w in _MY_WORDS and kept[-1:] == ["to"] and at == len(words) - 2:
            kept.pop()  # "lunch with mom to my datebook": where it is written, no part of its name
            break
        if w in _NAME_HEADS and last == at - 1 and _heads_name(words, at):
            kept.append(w)  # "focus time", "spa day", "game night": the name's own head noun
            last = at
            continue
        if w in _QUANTIFIERS or (w in STOPWORDS and w not in GENERIC_EVENT_WORDS):
            if kept and (w in _PLACE_LEADS or (linking and w in _CONNECTIVES)):
                linking.append(w)
            elif kept and w in _CONNECTIVES:
                kept.append(w)
            else:
                linking.clear()
            continue
        kept.extend(linking)
        linking.clear()
        kept.append(w)
        last = at
    del kept[8:]
    while kept and (
        (
            kept[-1] in STOPWORDS
            and kept[-1] not in GENERIC_EVENT_WORDS
            and kept[-1] not in QUESTION_NOUNS  # kept above as the name's noun ("tire check")
            and not _particle(kept)
            and not (kept[-1] in _NAME_HEADS and _heads_name(kept, len(kept) - 1))
        )
        or (kept[-1] in WHEN_ADVERBS and len(kept) > 1)
    ):
        kept.pop()
    return " ".join(kept)
