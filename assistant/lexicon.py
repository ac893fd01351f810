"""Words the reading of a turn recognises, grouped by what they signal: the rules and the learned
operation model (as features) share them.

Kept as data, apart from the code that uses them, so the vocabulary can grow without the logic
changing; every entry is lower-case and matched on word boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import get_close_matches
from functools import lru_cache

from assistant.timeexpr.lexicon import DAY_PARTS, WEEKDAYS

__all__ = [
    "ABOUT_OTHERS",
    "BLOCKED",
    "BLOCKING",
    "BLOCK_FOR",
    "CALENDAR_TALK",
    "CATEGORY_WORDS",
    "COUNT_CUES",
    "CREATE_VERBS",
    "DAY_PART_WORD",
    "DELETE_VERBS",
    "DETAIL_ASKED",
    "DETERMINERS",
    "EDGE_WORDS",
    "EMAIL",
    "EVENING_EVENTS",
    "EVENT_NOUNS",
    "EVERYONE_CUE",
    "EXCEPTING",
    "FILLER",
    "FIRST_FREE",
    "FIRST_PERSON",
    "FREE_CUES",
    "GENERIC_EVENT_WORDS",
    "GREETINGS",
    "HEDGES",
    "HOLDING",
    "JUST_POLITE",
    "LIGHTEN_CUES",
    "LINKS",
    "MEAL_LEAD",
    "MOVE_VERBS",
    "NAMED_OUTRIGHT",
    "NAMED_PLACE",
    "NAME_LIST_BREAK",
    "NAMING_VERBS",
    "NEW_TIME_LEADS",
    "NOT_ATTENDING",
    "NO_LEADS",
    "NO_WORDS",
    "ORDINALS",
    "OUT_OF_SCOPE",
    "PICK",
    "PLACE_KINDS",
    "POLITE_PREFIX",
    "PREFERENCE_WORDS",
    "QUERY_CUES",
    "QUESTION_NOUNS",
    "QUESTION_STARTERS",
    "REMINDER_CUES",
    "SOMEONES_PLACE",
    "STOPWORDS",
    "STREET_ADDRESS",
    "THE_NEXT_PERIOD",
    "TITLES_OF_ADDRESS",
    "UNDO_CUES",
    "WEEKDAY",
    "WEEKDAYS_EVERY",
    "WEEKDAY_STEM",
    "WEEKDAY_WORD",
    "WHEN_ADVERBS",
    "WHEN_FIELDS",
    "WISHING",
    "YES_WORDS",
    "blocks_time",
    "compounds",
    "every_week",
    "misspelt_verb",
    "phrase_re",
    "singular",
    "spelled_out",
    "tokens",
    "trim_edges",
    "weekday_number",
    "weekday_of",
    "whole_words",
    "words_pattern",
]

# Shorthand written for a word ("tea w/ sam", "w/o the kids"): read as the word, by the rules and the
# learned reader alike (neither learnt the shorthand: the shared corpora hold it once).
# So is a question word's "'s" typed without its apostrophe ("whens my next dentist", "whos at lunch").
_SHORTHAND = {
    "w/o": "without",
    "w/": "with",
    "w": "with",  # "lunch w priya": a lower-case w alone between words (never the W of "1234 W 7th St")
    "whens": "when's",
    "whos": "who's",
    "wheres": "where's",
    "->": "to",  # "dentist -> thurs 3pm": to Thursday, never a title 'Dentist ->'
    "→": "to",
    "=>": "to",
    "@": "at",  # "lunch w/ Bo thursday noon @ Cafe Rex": at a place or a time (never an address's @)
}
_SHORTHAND_RE = re.compile(
    r"\b(?:w/o?|whens|whos|wheres)(?=\s|$)|(?<!\S)(?:->|→|=>|@)(?=\s)|(?-i:(?<=[a-z] )w(?= [a-z]))",
    re.IGNORECASE,
)
# What any shorthand holds, looked for before the pattern (which tries every position of a text).
_SHORTHAND_MARKS = ("w/", "wh", ">", "→", " w ", " @ ")


def spelled_out(text: str) -> str:
    """``text`` with its shorthand written out ("tea w/ sam fri 4pm" -> "tea with sam fri 4pm") and a
    misspelt verb it starts with spelt right ("schdule call w ben" -> "schedule call with ben", see
    :func:`misspelt_verb`)."""
    folded = text.lower()
    misspelt = misspelt_verb(text)
    if misspelt is not None:
        at = folded.index(misspelt[0])
        text = text[:at] + misspelt[1] + text[at + len(misspelt[0]) :]
        folded = text.lower()
    if not any(mark in folded for mark in _SHORTHAND_MARKS):
        return text  # none to write out
    return _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0).lower()], text)


# The request verbs long enough to be known misspelt ("schdule", "cancle", "delte", "reschdule"); a
# short one ("add", "move", "book") is too near other words to guess at.
_LONG_VERBS = ("schedule", "reschedule", "cancel", "delete", "remove", "create", "postpone")
# Endings of a verb's other forms, and of nouns near them ("scheduled", "deletes", "creation"): a word
# ending so is read as it is.
_INFLECTED = ("ed", "es", "s", "ing", "ion")


def misspelt_verb(text: str) -> tuple[str, str] | None:
    """The word a request starts with (after "please", "can you"...) when it misspells one of the long
    request verbs, with that verb: ("schdule", "schedule").  Only the first word: a request leads with
    its verb, and elsewhere a word near a verb is more often another word."""
    first = text.lower().lstrip()
    lead = POLITE_PREFIX.match(first)
    words = first[lead.end() if lead else 0 :].split(maxsplit=1)
    if not words:
        return None
    word = words[0].strip(",.!?")
    verb = _verb_misspelt(word) if word.isalpha() and 4 <= len(word) <= 12 else None
    return (word, verb) if verb is not None else None


@lru_cache(maxsize=4096)
def _verb_misspelt(word: str) -> str | None:
    """The long verb ``word`` misspells or cuts short, as close as a typo makes it, or None (kept: the
    same first words come back turn after turn)."""
    if word in _LONG_VERBS:
        return None
    # cut short: "resched", "sched" (five letters or more, most of the verb, of one verb alone)
    cut = [verb for verb in _LONG_VERBS if verb.startswith(word) and len(word) >= max(5, 0.6 * len(verb))]
    if len(cut) == 1:
        return cut[0]
    if word.endswith(_INFLECTED):
        return None
    swapped = next((verb for verb in _LONG_VERBS if _one_swap(word, verb)), None)  # "cancle"
    close = get_close_matches(word, _LONG_VERBS, n=1, cutoff=0.85)
    return swapped or (close[0] if close else None)


def _one_swap(word: str, verb: str) -> bool:
    """Whether ``word`` is ``verb`` with two letters side by side typed the other way round."""
    if len(word) != len(verb):
        return False
    apart = [i for i, (a, b) in enumerate(zip(word, verb, strict=True)) if a != b]
    if len(apart) != 2 or apart[1] != apart[0] + 1:
        return False
    i, j = apart
    return word[i] == verb[j] and word[j] == verb[i]


_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def tokens(text: str) -> list[str]:
    """The words of ``text``, casefolded: letters and digits, with an apostrophe's ending ("don't")."""
    return _TOKEN.findall(text.casefold())


def singular(word: str) -> str:
    """A noun said in the plural as one ("classes": class, "sessions": session, "kids": kid), so that
    it can be compared with the vocabulary's nouns; a word that only ends in s stays ("tennis", "bus",
    "class")."""
    if word.endswith("sses"):
        return word[:-2]
    plural = len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "is", "us"))
    return word[:-1] if plural else word


_COMPOUND = re.compile(r"[a-z0-9]+(?:'[a-z]+|-[a-z0-9]+)*")


def whole_words(text: str) -> list[str]:
    """The words of ``text`` as :func:`tokens` has them, but a hyphenated word kept whole ("catch-up",
    "follow-up", "check-in"): where the words become a name, the pieces would make another one ('Catch
    with Ann')."""
    return _COMPOUND.findall(text.casefold())


def compounds(text: str) -> list[str]:
    """The words of ``text`` (split at spaces) joined by a hyphen ("check-in", "follow-up"), and the
    phrasal verbs it says as nouns ("check in" of "a check in with Sarah", see :func:`phrasal_noun`): a
    compound of little words that names a thing as a whole, where each piece alone says nothing."""
    words = text.split()
    folded = [word.casefold() for word in words]
    hyphened = [word for word in words if "-" in word.strip("-")]
    return hyphened + [f"{words[at]} {words[at + 1]}" for at in range(len(words)) if phrasal_noun(folded, at)]


# The particles of phrasal verbs ("catch up", "check in", "work out", "run through"): with their verb
# they name an event when the pair is said as a noun.
PARTICLES = frozenset({"up", "in", "out", "down", "through", "over", "off", "back"})


def phrasal_noun(words: Sequence[str], at: int) -> bool:
    """Whether ``words[at]`` (casefolded words) and the particle after it are a phrasal verb said as a
    noun ("a catch up with Bo", "a quick check in", "the work out at 7"): first, or after a determiner
    with perhaps one word between, and the particle ends the phrase (last, or a link follows it). Not
    "in" of "a lunch in Boston", which leads to a place, nor "up" of "set up a call", a verb's."""
    if at + 1 >= len(words) or words[at + 1] not in PARTICLES or not words[at].isalpha():
        return False
    if words[at] in DETERMINERS or words[at] in PARTICLES or words[at] in LINKS:
        return False
    named = at == 0 or words[at - 1] in DETERMINERS or (at > 1 and words[at - 2] in DETERMINERS)
    return named and (at + 2 == len(words) or words[at + 2] in LINKS)


def token_spans(text: str) -> list[tuple[int, str]]:
    """The words of ``text`` as :func:`tokens` has them, each with where it starts."""
    return [(m.start(), m[0]) for m in _TOKEN.finditer(text.casefold())]


# The words a cut leaves at a phrase's edges that belong to the sentence around it, not the phrase
# ("for the design review on" is the design review; "and then the standup" is the standup): the
# articles, possessives and demonstratives before a noun, and the prepositions and links between the
# parts of a sentence.
DETERMINERS = frozenset(
    {"a", "an", "the", "some", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those"}
)
LINKS = frozenset({"for", "at", "of", "with", "to", "into", "on", "in", "and", "then", "also"})
# What joins a clause to the one before it ("No, don't add it, *but* let's schedule the visit").
CONJUNCTIONS = frozenset({"and", "but", "so", "then", "also"})
EDGE_WORDS = DETERMINERS | LINKS  # either kind, at the edges of a title or a reason cut from a sentence
# The words that point back at what the conversation is about ("add Kim to *that* meeting").
POINTERS = frozenset({"it", "that", "this", "them", "these", "those"})
# The user as said: "ann, raj and i", "can we all meet", "I can't make it".
FIRST_PERSON = re.compile(r"\b(?:i|me|myself|we|us|ourselves|i'm|we're|i'll|we'll)\b")
# What an event has that a change names ("change *the title* to ...", "*the location* is ..."): said
# without an event, of the one talked about.
EVENT_FIELDS = frozenset(
    {"title", "name", "subject", "label", "location", "place", "venue", "address", "attendees", "guests"}
)
# ... and when it is ("the date is the 9th", "the time is 3pm"), though "a date" may be an event.
WHEN_FIELDS = frozenset({"time", "date", "day"})


def trim_edges(phrase: str, words: frozenset[str], *, lead: bool = True, trail: bool = True) -> str:
    """``phrase`` without ``words`` at its start (``lead``) and end (``trail``), its words joined by
    single spaces: what a span names once the sentence's own words are cut off."""
    said = phrase.split()
    start, end = 0, len(said)
    while lead and start < end and said[start].casefold() in words:
        start += 1
    while trail and end > start and said[end - 1].casefold() in words:
        end -= 1
    return " ".join(said[start:end])


@lru_cache(maxsize=2048)
def words_pattern(phrase: str, *, joined: bool = False) -> re.Pattern[str]:
    """A regex finding the words of ``phrase`` where they stand together in a text as whole words, in
    any case, with any spaces between them ("flight to Boston" in "Flight  to boston"); ``joined``:
    with any punctuation or nothing between them too ("check in" in "Check-in", "checkin"). How a
    title, a name or a calendar's label that the turn or the world gives is found in what was typed."""
    gap = r"\W*" if joined else r"\s+"
    return re.compile(r"(?<!\w)" + gap.join(map(re.escape, phrase.split())) + r"(?!\w)", re.IGNORECASE)


# An email address said in a turn ("invite ann@example.com"): it names a person outright.
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


# A day part's name, as the time resolver knows them ("mornings" too): the one the group holds.
DAY_PART_WORD = re.compile(rf"\b({'|'.join(DAY_PARTS)})s?\b", re.IGNORECASE)
# What parts a list of names said in a sentence: "Ann, Bo and Cy", "Ann & Bo", "Ann or Bo".
NAME_LIST_BREAK = re.compile(r"\s*(?:,|;|\band\b|&|\bor\b)\s*")
# The kinds of place an event is at ("the clinic", "my office"), as one alternation for patterns.
PLACE_KINDS = (
    "clinic|office|hospital|caf[eé]|coffee shop|restaurant|diner|bistro|bakery|studio|gym|library"
    "|cent(?:er|re)|building|hotel|bar|pub|club|lounge|park|lobby|auditorium|campus|room|boardroom|hall"
    "|school|house|home|apartment|store|shop|mall|market|station|airport|church|museum|theat(?:er|re)"
    "|venue|salon|barber(?:shop)?|spa|pharmacy|practice|surgery|bank|garage|pool|stadium|arena|garden"
)
# A place named with capitals and its kind ("to John F. Kennedy airport", "at St. Mary's hospital"): where,
# though its first word may sound like someone's name.
NAMED_PLACE = re.compile(
    rf"\b(?:to|at|from)\s+(?P<place>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*\s+(?i:{PLACE_KINDS}))\b"
)
# A place in an order, from the start (0) or the end (-1): "the second one", "my first meeting", "the last
# Monday of the month".
ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3}
ORDINALS |= {"fifth": 4, "5th": 4, "last": -1}
# "the second one", "the last meeting", "that one": an event of the list the conversation last showed,
# or a free time it offered ("the first slot"); never a time, though "the first one" reads as April 1
# at 1 o'clock.
PICK = re.compile(
    rf"\b(?:the (?P<nth>{'|'.join(ORDINALS)}|other) "
    r"(?:one|event|meeting|appointment|class|slot)|(?P<that>that|this) one)\b"
)
# The weekdays as the time resolver spells them ("monday", "tues", "weds", "thur"), by their stems
# ("mon", "tues", "wednes", "thur"): one vocabulary for every rule that names a weekday.
_WEEKDAY_STEMS = {(name[:-3] if name.endswith("day") else name): n for name, n in WEEKDAYS.items()}
# One weekday's stem, longest first so "thursday" is "thurs" + "day", not "thu" + ...
WEEKDAY_STEM = "(?:" + "|".join(sorted(_WEEKDAY_STEMS, key=lambda stem: (-len(stem), stem))) + ")"
# One weekday as said: "monday", "mondays", "mon", "tues", "thurs", "weds".
WEEKDAY = rf"{WEEKDAY_STEM}(?:day)?s?"
WEEKDAY_WORD = re.compile(rf"\b({WEEKDAY})\b")  # any spelling, as a word of its own
# A weekday said in the plural, every such day: "mondays", "on Tuesdays". A spelling of one day that
# ends in "s" ("tues", "weds", "thurs") is that one day, never the plural of a shorter one ("tue").
_ONE_DAY_IN_S = "|".join(sorted((w for w in WEEKDAYS if w.endswith("s")), key=len, reverse=True))
WEEKDAYS_EVERY = rf"(?!(?:{_ONE_DAY_IN_S})\b){WEEKDAY_STEM}(?:day)?s"
_ONE_WEEKDAY = re.compile(rf"({WEEKDAY_STEM})(?:day)?s?")


_EVERY_WEEKDAY = re.compile(WEEKDAYS_EVERY, re.IGNORECASE)


def every_week(word: str) -> bool:
    """Whether a weekday as said is every such day: "mondays", not "monday" or "tues"."""
    return _EVERY_WEEKDAY.fullmatch(word) is not None


def weekday_number(word: str) -> int | None:
    """0 for Monday ... 6 for Sunday, for any spelling of :data:`WEEKDAY`; None for another word."""
    m = _ONE_WEEKDAY.fullmatch(word.lower())
    return _WEEKDAY_STEMS[m[1]] if m else None


def weekday_of(word: str) -> int:
    """:func:`weekday_number` of a word a pattern built on :data:`WEEKDAY` or :data:`WEEKDAY_STEM`
    matched, which is always a weekday (a ValueError otherwise, never a silent Monday)."""
    number = weekday_number(word)
    if number is None:
        raise ValueError(f"{word!r} is no weekday")
    return number


def phrase_re(phrases: list[str] | tuple[str, ...]) -> re.Pattern[str]:
    """One regex matching any of the phrases as whole words (longest first).

    The phrases are grouped by their first character, each alternative starting with it, so that a
    search skips at once the characters no phrase starts with (a regex that starts with ``\\b`` is tried
    at every position of the text); the word boundary before it is the lookbehind after it. Phrases with
    the same first character keep their order, and no two groups can match at one place: the same
    matches as ``\\b(?:longest|...|shortest)\\b``.
    """
    ordered = sorted(phrases, key=len, reverse=True)
    if not all(p[:1].isalnum() or p.startswith("_") for p in ordered):  # each starts with a word character
        return re.compile(r"\b(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered) + r")\b")
    groups: dict[str, list[str]] = {}
    for p in ordered:
        groups.setdefault(p[0], []).append(re.escape(p[1:]).replace(r"\ ", r"\s+"))
    return re.compile(
        "(?:"
        + "|".join(rf"{re.escape(c)}(?<!\w.)(?:{'|'.join(rest)})" for c, rest in groups.items())
        + r")\b"
    )


POLITE_PREFIX = re.compile(
    r"^(?:(?:please|pls|plz|kindly|hey|hi|ok(?:ay)?|so|now|and|also|then|actually|hmm+|um+|uh+|well|assistant|olly|"
    r"(?:can|could|would|will) you(?: please)?|(?:i|we) (?:want|need|would like|'d like|d like) (?:you )?to|"
    r"i want you to|help me(?: to)?|go ahead and|let'?s|let us|i'd like to|you should|try to|"
    r"(?:is|would) it (?:be )?possible (?:for you )?to|"
    r"(?:i )?(?:want|need) to|time to|remember to|(?:i )?gotta|(?:i'm )?gonna|(?:i )?wanna)\b[\s,.!]*)+"
)

DELETE_VERBS = phrase_re(
    [
        "delete",
        "deleted",
        "deleting",
        "remove",
        "removed",
        "cancel",
        "cancelled",
        "canceled",
        "erase",
        "clear",
        "clean",
        "clean up",
        "clear off",
        "clear out",
        "drop",
        "get rid of",
        "take away",
        "take off",
        "take out",
        "rm",
        "wipe",
        "wipe out",
        "empty",
        "scrap",
        "call off",
        "scratch",
        "discard",
        "purge",
        "unschedule",
        "dump",
        "strike",
        "replace",
        "dismiss",
        "destroy",
        "disregard",
        "deletes",
        "removes",
        "cancels",
        "erased",
        "erases",
        "discarded",
        "called off",
        "reset",
        "nix",
        "ditch",
        "axe",
        "kill",
    ]
)
# Saying one will not be at something: the event is off ("I will no longer be joining mom for lunch",
# "I'm not going to the party", "I won't be attending the seminar", "I can't make it to dinner", "I
# can't make the dentist"), or
# that it comes off the calendar ("take the dentist off my calendar", "cross yoga off my list", "skip
# the standup tomorrow" as the request; not "skip that", "skip the event" of an event offered, nor
# "..., skip the private ones" of an exception), or that it is off ("tomorrow's standup is off", "let's
# not do the review", "no standup tomorrow").
NOT_ATTENDING = re.compile(
    r"\b(?:(?:no longer|not|never|won't|wont|will not|can't|cant|cannot|am not|i'm not|isn't|is not)"
    r"(?: be)? (?:going|joining|attending|doing|coming|happening|make it to|go to|attend|join"
    r"|make(?= (?:the|my|our|this|tomorrow's|today's|\w+day's) ))\b"
    r"(?! (?:anything|much|well|great|to be)\b)"
    r"|(?:take|cross|knock|strike|scratch)(?= (?:[\w'-]+ ){1,5}off (?:my|the|our) "
    r"(?:calendar|schedule|agenda|list|diary|planner)\b)"
    r"|^(?:please |can you |could you )?skip"
    r"(?= (?:(?:the|my|our) next |(?:the|my|our|this|next|tomorrow's|today's|\w+day's) )?"
    r"(?!(?:event|adding|add|that|this|it|them|those|these|part|to|ahead|the|my|our|next)\b)[a-z])"
    r"|(?<!\bi )(?:is|'s) off\b(?! (?:to|for|work|limits)\b)"
    r"|\b(?:not|won't|wont) (?:do|have|hold)"
    r"(?= (?:the|my|our|this|that|tomorrow's|today's|\w+day's) [a-z])(?! that\b)"
    # "no standup tomorrow": an event's name, then its day (not "no problem", "no, that's all today")
    r"|^(?:there(?:'s| is| will be) )?no(?! (?:problems?|need|worries|way|thanks|thank|more|one|other|longer"
    r"|matter|rush|hurry|idea|luck|change|plans?|that|that's|this|it|not|make|i|we|you)\b)"
    r"(?= [a-z][\w'-]*(?: [a-z][\w'-]*)? (?:today|tomorrow|tonight|this|next|on)\b))"
)
# Asking that others be told of a change, as a clause after it ("..., and let Bo know", "then email the
# team", "and send Ann a heads-up", "make sure everyone is notified"); ``whom`` is what follows the verb.
# "message" and "ping" are verbs only with an object ("delete my last email message", "ping pong");
# "let's" tells nobody ("let's change it to end at 3").
TELL_OTHERS = re.compile(
    r"\s*(?:,|\band\b|\bthen\b)?\s*\b(?:let(?!['’]s\b)|tell|notify|inform|email|(?:message|ping)(?=\s+(?!pong\b)\w)|"
    r"(?:send|give)(?=\s+\w+\s+(?:a|an)\s+(?:heads[- ]up|note|message|email|notice|invite))|"
    r"make sure(?=.*\b(?:notified|told|informed|knows?|heads[- ]up|email|invite)))\b(?P<whom>.*)$",
    re.IGNORECASE,
)
# Asking to be told or reminded at a time: a reminder to create ("notify me an hour before ...",
# "don't let me forget ...", "alert me at ...", "send me a notice of ...", "tell me on Tuesday to ...").
REMINDER_CUES = re.compile(
    r"\b(?:(?:notify|alert|ping|warn|nudge|buzz) me|(?:don't|do not|dont) let me forget|"
    r"send me (?:an? )?(?:notice|notification|alert|reminder|heads up)|"
    r"tell me (?:(?:on|at|in|by) [\w ]+? )?to\b|remember (?:to remind|that)|turn on (?:\w+ )?reminders?|"
    r"set (?:\w+ )?(?:notifications?|alerts?|alarms?)|call me (?:for|about|before|at|when))\b"
)
CREATE_VERBS = phrase_re(
    [
        "schedule",
        "add",
        "create",
        "book",
        "set up",
        "setup",
        "set",
        "put",
        "plan",
        "arrange",
        "new",
        "remind",
        "reminder",
        "write down",
        "mark",
        "note",
        "save",
        "block",
        "block off",
        "set aside",
        "pencil in",
        "squeeze in",
        "slot in",
        "organise",
        "organize",
        "invite",
        "insert",
        "enter",
        "register",
        "repeat",
        "make an appointment",
        "make appointment",
        "make a",
        "make reservations",
        "make a reservation",
        "make dinner reservations",
        "repeating",
        "flag",
        "added",
        "place it",
        "place this",
        "place that",
        "placed",
        "to be updated with",
        "update my calendar with",
        "update the calendar with",
        "pencil in",
        "squeeze in",
        "slot in",
        "fit in",  # "fit in a call with Bo at 3" (a title 'Fit in a call with Bo' was written at once)
        "jot down",
        "log",
        "reserve",
        "fix",
        "mark down",
        "slot in",
        "meet",
        "meet up",
        "catch up",
    ]
)
MOVE_VERBS = phrase_re(
    [
        "move",
        "moved",
        "reschedule",
        "push",
        "push back",
        "shift",
        "postpone",
        "bring forward",
        "change",
        "rename",
        "shorten",
        "extend",
        "lengthen",
        "make it",
        "make that",
        "swap",
        "switch",
        "delay",
        "pull forward",
        "bump",
        "rearrange",
        "update",
        "edit",
        "modify",
    ]
)
# "a time when everyone is available", "when we're all free", "a morning that works for everyone":
# a free-time search in which every attendee must be free too.
_WHO_ALL = (
    r"(?:everyone|everybody|all of us|all of them|both of us|both of them|we|they|the others|"
    r"(?:all )?(?:the )?(?:attendees|participants|invitees))"
)
_NAMED = r"(?!(?:and|are|is|both|all|the|my|our|your|free|available)\b)[a-z][a-z'-]*"
_NAMED_ALL = rf"{_NAMED}(?:\s*,\s*{_NAMED})*\s*,?\s+(?:and|&)\s+{_NAMED}"
EVERYONE_CUE = re.compile(
    r"(?:\b(?:an?|some|the (?:first|next|earliest|soonest))\s+)?"
    r"(?:\b(?P<noun>time|slot|moment|hour|day|morning|afternoon|evening)s?\s+)?"
    rf"(?:\b(?:whenever|when|where|that|in which)\s+{_WHO_ALL}"
    r"(?:'re|'s|'ll be|\s+are|\s+is|\s+will be|\s+can)?"
    r"(?:\s+(?:all|both))?\s+(?:available|free|make it|attend|join)\b"
    r"|\b(?:that\s+)?(?:suits|works for|fits|is good for)\s+(?:everyone|everybody|all of us|us all|"
    r"both of us|us both|all of them|them all|them both|all attendees|the attendees)\b"
    # "when ann and raj are both free", "where ana, bo and i are all available": people named
    rf"|\b(?:whenever|when|where|in which)\s+(?:are\s+)?{_NAMED_ALL}(?:'re|\s+are|\s+will be|\s+can)?"
    r"(?:\s+(?:all|both))?\s+(?:available|free)\b)"
)
# The note on the frame of a free-time question whose subject is people named alone ("are Ann and Raj
# free at 10?", "is Ann free?"): the user is not one of those who must be free. Without it the user is
# ("are Ann, Raj and I free?", "can we all meet?", "am I free at 10 with Ann?").
ABOUT_OTHERS = "asks about the people named, not the user"
# Words that make what they qualify more than one thing: "all my standups", "every class", "both".
QUANTIFIERS = frozenset({"all", "every", "each", "both"})
# The words that introduce an exception, however it is said ("except for the crit", "besides the
# standups", "apart from Monday's", "but not the lab"): one alternation, which each reading of an
# exception (a bulk change's, a question's, a repetition's, a sync's) builds its pattern on.
EXCEPTING = (
    r"(?:except(?:\s+for)?|excluding|apart\s+from|aside\s+from|other\s+than|save\s+for|besides"
    r"|but\s+not|and\s+not|not\s+counting|not\s+including|leaving\s+out"
    # "everything on Friday but the standup", "all but my 1:1": "but" before what is left out, not
    # before what is done ("ok but make it 10", "move it but keep the time")
    r"|but(?=\s+(?:the|my|those|these|(?!(?:let|it|that|there|here|what|who|he|she|where|how|when)'s)\w+'s)\s)"
    # "cancel all but Friday", "everything but tomorrow": whatever follows "all but" is left out
    r"|(?<=\ball\s)but|(?<=\beverything\s)but)"
)
COUNT_CUES = phrase_re(["how many", "how much", "count", "number of", "total of"])
# A question for the first free time only, not all of it: "what's the earliest I can meet Ann?", "when
# is my next free slot?", "the first time I'm free tomorrow" ("free next week" is a week, and "the next
# available day" a whole day, not this).
FIRST_FREE = re.compile(
    r"\b(?:earliest|soonest)\b|\bfirst (?:free |open )?(?:time|slot|opening|window|hour|gap)\b"
    r"|\bnext (?:free|open|opening|available|slot|window|gap)\b(?! (?:day|date|week)s?\b)"
)
FREE_CUES = phrase_re(
    [
        "free",
        "available",
        "availability",
        "free time",
        "open slot",
        "free slot",
        "slot",
        "slots",
        "find time",
        "find a time",
        "find some time",
        "when can i",
        "when could i",
        "gap",
        "gaps",
        "spare time",
        "open time",
        "when can we",
        "a good time",
        "best time",
        # "what's the earliest I can meet Ann?", "what time works for me and Ann?"
        "earliest i can",
        "soonest i can",
        "earliest we can",
        "what time works",
        "what times work",
        "time that works",
        "times that work",
        "both meet",
        "all meet",
        # "any spare half hour on Thursday?", "45 spare minutes": free time ("spare" alone may be a room)
        "spare hour",
        "spare hours",
        "spare half hour",
        "spare minutes",
        "spare mins",
        # "do I have time for a 2 hour meeting on Thursday?", "is there time for lunch on Friday?"
        "have time",
        "have any time",
        "is there time",
        "is there any time",
        # "do I have room for a 2 hour meeting on Friday?", "can I fit a call in on Thursday?": the same
        # question in other words (a request to fit something in says what and when: "fit in a call at 3")
        "have room",
        "have any room",
        "is there room",
        "is there any room",
        "can i fit",
        "could i fit",
        "can we fit",
        "could we fit",
    ]
)
# The words of QUERY_CUES that are nouns too, and end a name said before them ("tire check", "dog
# show", "reading list"), where the others only ask ("where", "busy", "next").
QUESTION_NOUNS = frozenset({"check", "show", "list", "agenda", "summary", "overview", "search"})
QUERY_CUES = phrase_re(
    [
        "what",
        "what's",
        "whats",
        "when",
        "when's",
        "where",
        "who",
        "which",
        "show",
        "list",
        "tell me",
        "check",
        "any",
        "anything",
        "agenda",
        "look like",
        "looks like",
        "do i have",
        "have i got",
        "is there",
        "are there",
        "am i",
        "find",
        "search",
        "look up",
        "lookup",
        "see",
        "view",
        "display",
        "give me",
        "read",
        "how soon",
        "how long",
        "next",
        "upcoming",
        "coming up",
        "happening",
        "details",
        "info",
        "information",
        "busy",
        "remind me what",
        "overview",
        "summary",
        "summarize",
        "summarise",
    ]
)
# The last request asked again of something else: "do the same for March", "same for next week", "the
# same question for Friday" (not "the same time next week", a time of its own).
SAME_AGAIN = re.compile(
    r"\b(?:the )?same(?: thing| question| again| one)?\s+(?:for|with|about|on|in)\b"
    r"|^(?:and|so|ok|okay)?\s*(?:what|how) about\b|^and\b"  # "what about March?", "and next week?"
)
# Which way an offset said beside a length moves an event ("an hour later", "back 15 minutes"): +1 later,
# -1 earlier.
OFFSET_WAYS = {"later": 1, "back": 1, "earlier": -1, "forward": -1, "ahead": -1, "up": -1, "sooner": -1}
# Verbs of copying: events to another time ("copy my standups to next week") or calendars to another
# calendar ("copy my work week to personal").
COPY_VERBS = re.compile(r"\b(?:cop(?:y|ies|ied|ying)|duplicat\w*|clon(?:e|ed|ing)|mirror\w*|replicat\w*)\b")
# A period said from the one before it: "to the week after", "into the following week" (where copies go),
# "same for the week after", "what about the following day?" (a question asked again of it).
THE_NEXT_PERIOD = re.compile(
    r"\b(?:to|into|onto|for|about)\s+the\s+(?:(?P<after>day|week)\s+after\b|following\s+(?P<following>day|week)\b)"
)
# Why someone is away for days, by the words that say it: what a span of whole days is for ("my
# vacation next week", "I'm travelling Friday, clear the day"), in the order they are looked for.
TAKING_OFF = "taking off"
AWAY: dict[str, str] = {
    **dict.fromkeys(
        ["travel", "travels", "travelling", "traveling", "travelled", "traveled", "trip", "flying", "flight"],
        "travel",
    ),
    **dict.fromkeys(["vacation", "holiday", "holidays"], "vacation"),
    **dict.fromkeys(["conference", "offsite", "off-site"], "conference"),
    **dict.fromkeys(["out of office", "out of the office", "ooo", "pto", "day off", "sick"], "out of office"),
    # the user away, said of themselves ("I'm off next Monday", "I'll be off on Friday"): not someone
    # else ("Ann will be off"), and not "I'm off to the dentist", which goes somewhere
    **dict.fromkeys(
        ["i'm off", "im off", "i am off", "i'll be off", "i will be off", "off work"], "out of office"
    ),
    # the days said between, of the user's own time ("I'm taking next Monday off"): see away_words
    TAKING_OFF: "out of office",
}


def away_words(norm: str) -> str | None:
    """The words of :data:`AWAY` a normalised text names an absence with ("ooo", "day off"), or None."""
    said = " " + " ".join(word.strip(".,;:!?()\"'") for word in norm.split()) + " "
    words = said.split()
    if words[-1:] == ["off"] and "taking" in words[:-1]:
        return TAKING_OFF  # "I'm taking next Monday off", "taking the afternoon off": time taken off
    going = said.replace(" for ", " to ")  # "I'm off to the dentist", "I'm off for a run": somewhere
    return next(
        (
            w
            for w in AWAY
            if w != TAKING_OFF and f" {w} " in said and not (w.endswith(" off") and f" {w} to " in going)
        ),
        None,
    )


def away_kind(norm: str) -> str | None:
    """The kind of absence a normalised text names (see :data:`AWAY`), or None."""
    words = away_words(norm)
    return AWAY[words] if words is not None else None


# How a statement about "it", the event being talked of, begins: "it's a meeting with the landlord".
IT_IS = ("it's ", "it is ", "that's ", "this is ")


def after_it_is(said: str) -> str | None:
    """``said`` (normalised) without the "it's" it begins with, or None when it begins otherwise."""
    lead = next((lead for lead in IT_IS if said.startswith(lead)), None)
    return None if lead is None else said.removeprefix(lead)


# Titles written before a name and shortened with a dot ("Dr. Patel"): the dot ends no sentence.
TITLES_OF_ADDRESS = ("dr", "mr", "mrs", "ms", "mx", "prof", "st")
# Verbs whose object, when it is a person, makes a meeting of the turn: "I need to see Omar at 3" is
# time with Omar, where "see" alone asks to be shown something ("let me see Friday").
MEETING_VERBS = frozenset({"see", "seeing", "visit", "visiting"})
# Words that make the time after them a move's new time, where "to" does not lead it ("reschedule it
# *for* Tuesday", "make the review *be* at 9"; "at" and "on" may stand between): a time after any other
# word may be the event's own ("update the event on Tuesday").
NEW_TIME_LEADS = frozenset({"for", "be"})
QUESTION_STARTERS = re.compile(
    r"^(?:what|what's|whats|when|when's|where|who|whom|which|how|is|are|do|does|did|am|any|anything|"
    r"have i|has|was|were|shall|should i|show|list|tell me|check|find|give me|read|display|view"
    # "will Tina be at the gala?", "will I see Ann this week?"
    r"|will (?!you\b)[a-z]+ (?:be|join|come|attend|make it|see|meet|visit|have)"
    # "remind me what I have this afternoon": what is there, asked ("remind me about X" sets a reminder)
    r"|remind me (?:what|when|where|which|who|how))\b"
)
# "put them back", "change it back": a change reverted, not a move by some amount ("move it back an hour").
UNDO_CUES = re.compile(
    r"\b(?:undo|revert|roll ?back|take that back|restore (?:it|them|that|those)(?! (?:to|at|for|on|by)\b))\b"
    r"|\b(?:put|move|change|set|switch|bring) (?:it|them|that|those|these|everything|all|things) back\b"
    r"(?! (?:by|to|until|till|later|earlier|an?|one|two|three|half|\d))"
)
YES_WORDS = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|ok|okay|k|fine|go ahead|go for it|do it|confirm|confirmed|approve|approved|"
    r"sounds good|that works|please do|absolutely|of course|correct|right|y)\b"
)
# The words of a no that may lead a correction ("no, 11", "nope, find another time"); a word of a
# no answer that is also a request of its own ("cancel", "stop") is not one of them.
NO_LEADS = frozenset({"no", "nope", "nah"})
NO_WORDS = re.compile(
    r"^(?:no|nope|nah|don't|do not|cancel|stop|never ?mind|abort|decline|forget (?:it|that)|"
    r"not (?:right |for )?now|n)"
    r"(?:[\s,.!]+(?:thanks|thank you|please|it|that|this|way|don't|do not|do it|do that|never ?mind|"
    r"cancel|stop|wait|sorry|not (?:right |for )?now|not yet|forget (?:it|that)|leave it|"
    r"keep (?:it|them|everything)|as is|"
    r"i changed my mind|"
    r"changed my mind|i'm good|all good))*$"
)
# A wish for a less crowded day: move something off it, the user picks what ("make Thursday lighter").
LIGHTEN_CUES = phrase_re(
    [
        "lighter",
        "lighten",
        "lighten up",
        "less busy",
        "less packed",
        "less crowded",
        "less hectic",
        "less full",
        "too busy",
        "too packed",
        "too full",
        "too crowded",
        "too hectic",
        "too much on",
        "overloaded",
        "overbooked",
        "packed",
        "swamped",
        "free up",
        "free it up",
        "clear up some time",
        "clear some time",
        "make some room",
        "make room",
        "breathing room",
        "declutter",
        "thin out",
        "too many",
        "overwhelming",
        "overwhelmed",
        "hectic",
        "slammed",
        "crammed",
        "jam packed",
        "something off",
        "some things off",
        "some stuff off",
        "a few things off",
        "anything off",
    ]
)
# A greeting, a thanks or a call for help said alone, maybe to someone ("hi there", "hello again",
# "hey assistant", "thanks everyone").
GREETINGS = re.compile(
    r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|help)"
    r"(?:[\s,]+(?:there|again|all|everyone|you|assistant|olly|friend))?\b[\s!.?]*$"
)
OUT_OF_SCOPE = phrase_re(
    [
        "weather",
        "forecast",
        "temperature",
        "rain",
        "snow",
        "news",
        "stock",
        "stocks",
        "score",
        "scores",
        "recipe",
        "joke",
        "song",
        "music",
        "play",
        "translate",
        "traffic",
        "flight status",
        "bitcoin",
        "election",
        "horoscope",
        "movie times",
        "restaurant",
        "directions",
        "sunny",
        "cloudy",
        "windy",
        "umbrella",
        "raining",
        "snowing",
    ]
)
# What a question asks of an event besides when it is: its place, its people, its length.
DETAIL_ASKED: dict[str, re.Pattern[str]] = {
    "location": re.compile(r"\bwhere\b|\b(?:location|located|address|venue)\b"),
    "attendees": re.compile(
        r"^(?:and |so )?who\b|\bwho(?:'s| is| are| will| has| have| else)\b"
        # "is Ann coming to the review?", "are Ann and Raj invited?": asked of its people
        r"|^(?:is|are|will|does|do|did)\b.*"
        r"\b(?:coming(?! up| through)|come|going(?! on\b)|attending|attend|invited|joining|join"
        r"|be (?:at|there))\b"
    ),
    # "how many hours of meetings ...?": how long they are in all
    "duration": re.compile(
        # not "how long until the review": when it is, not how long it lasts
        r"\bhow long\b(?! (?:until|till|til|before|to go)\b)|\b(?:length|duration)\b"
        r"|\bhow (?:many|much) (?:hours|minutes|time)\b(?! (?:until|till|til|before|left)\b)"
    ),
    # "what time does the offsite end?", "when is the review over?": when it ends, or when it starts
    "end": re.compile(
        r"^(?:(?:and|so|ok|okay)\s+)?(?:how late\b|(?:when|what time)\b.*"
        r"\b(?:end|ends|ended|finish|finishes|finished|over|wrap up|wraps up|wrapped up)\b)"
    ),
    "start": re.compile(
        r"^(?:(?:and|so|ok|okay)\s+)?(?:when|what time|how early)\b.*"
        r"\b(?:start|starts|started|begin|begins|began|kick off|kicks off|kicked off)\b"
    ),
}
PREFERENCE_WORDS = {
    "working_hours": phrase_re(
        [
            "working hours",
            "work hours",
            "office hours",
            "workday",
            "workdays",
            "work day",
            "work days",
            "working day",
            "working days",
        ]
    ),
    "lunch_hours": phrase_re(["lunch", "lunch break", "lunch hour", "lunch hours", "lunch time"]),
    "gym_schedule": phrase_re(
        [
            "gym",
            "gym schedule",
            "gym session",
            "gym sessions",
            "gym day",
            "gym days",
            "workout",
            "workouts",
            "work out",
            "exercise",
            "training",
        ]
    ),
    "writing_block": phrase_re(["writing block", "writing time", "focus block", "deep work"]),
    "default_event_minutes": phrase_re(["default event length", "default length", "default duration"]),
}
CATEGORY_WORDS = {
    "class": phrase_re(
        [
            "class",
            "classes",
            "lecture",
            "lectures",
            "seminar",
            "seminars",
            "lab",
            "labs",
            "tutorial",
            "tutorials",
            "course",
            "courses",
        ]
    ),
    "meeting": phrase_re(
        [
            "meeting",
            "meetings",
            "meet",
            "call",
            "calls",
            "1:1",
            "one on one",
            "sync",
            "standup",
            "with other people",
            "with others",
            "with attendees",
        ]
    ),
}
# Words that say a turn is about the calendar (its events, its free time, how busy it is): a question
# with none of them says only *when* and repeats the last one asked; a turn with none of them and an
# out-of-scope word ("weather") is out of scope.
CALENDAR_TALK = re.compile(
    r"\b(?:calendar|events?|meetings?|appointments?|schedule[ds]?|agenda|plans?|classes|class|lectures?|"
    r"reminders?|booked|busy|free|happening|going on|on my)\b"
)
# Nouns of things people put in a calendar: a statement naming one with its day ("dentist appointment
# today at nine", "church with mom on Sunday") tells the calendar about an event.
EVENT_NOUNS = phrase_re(
    [
        "appointment",
        "meeting",
        "event",
        "reminder",
        "lunch",
        "dinner",
        "breakfast",
        "brunch",
        "party",
        "plans",
        "birthday",
        "anniversary",
        "wedding",
        "date",
        "game",
        "match",
        "practice",
        "rehearsal",
        "concert",
        "play",
        "show",
        "conference",
        "interview",
        "call",
        "chat",
        "catch-up",
        "coffee",
        "drinks",
        "session",
        "class",
        "lesson",
        "lecture",
        "exam",
        "test",
        "trip",
        "flight",
        "visit",
        "checkup",
        "check-up",
        "church",
        "service",
        "mass",
        "dentist",
        "doctor",
        "haircut",
        "workout",
        "training",
        "festival",
        "ceremony",
        "celebration",
        "reunion",
        "holiday",
        "vacation",
        "deadline",
        "payment",
        "shift",
    ]
)
# A street address said in a sentence: a house number, up to four words of the street's name and its
# kind, maybe a unit ("401 Gregory Ln # 248", "2500 milvia street", "1234 West 7th Street"). Its number
# is never a clock time ("at 455 Main St" is no 4:55). The words of the name are not the sentence's
# own ("for 2 hours on Elm Street" is a length and a street, not an address).
_STREET_KINDS = (
    "street|st|road|rd|avenue|ave|drive|dr|boulevard|blvd|lane|ln|way|court|ct|place|pl|square|sq|"
    "parkway|pkwy|highway|hwy|circle|cir|terrace|ter|trail|trl|plaza|alley|crescent|close|row"
)
_NOT_A_STREET_WORD = r"(?!(?:on|at|in|for|to|from|and|or|the|a|an|by|hours?|minutes?|mins?|hrs?|am|pm)\b)"
STREET_ADDRESS = re.compile(
    rf"\b\d{{1,6}}[a-z]?(?:-\d+)?\s+(?:{_NOT_A_STREET_WORD}[\w'.-]+\s+){{0,4}}?(?:{_STREET_KINDS})\b\.?"
    r"(?:\s*(?:#|apt\.?|suite|ste\.?|unit)\s*[\w-]+)?",
    re.IGNORECASE,
)
# Someone's home as where an event is: "at Ana's place", "at Ms. Kim's house" (Ana is not invited by it).
SOMEONES_PLACE = re.compile(
    rf"\b(?:at|to|in)\s+(?P<place>(?:(?:{'|'.join(TITLES_OF_ADDRESS)})\.?\s+)?[\w-]+'s\s+"
    r"(?:place|house|home|apartment|flat|condo|studio|office|room))\b",
    re.IGNORECASE,
)
# A name given outright: "call it Dental check-up", "the title is X", "label it as X", "put it under
# X", "under the name X", "the name of the event to be X"; or before its cue: "put X as the title",
# "use X for the name".
NAMED_OUTRIGHT = re.compile(
    r"\b(?:(?:the )?(?:event |activity )?(?:name|title)"
    r"(?: of (?:the|this|my) (?:event|activity|appointment))? (?:is|should be|will be|would be|to be)|"
    r"(?:call|name|title|label) (?:it|th(?:e|is) (?:event|activity)(?: title| name)?)(?: as)?|"
    r"(?:put|file|save) it under(?! the name)|under the name|"
    r"(?:it's|it is) (?:called|named|titled)|called|named|titled|entitled)\s+(?P<title>\S.*)"
    r"|\b(?:put|use|make|set|save)\s+(?P<before>\S.*?)\s+(?:as|for) (?:the |its )?(?:event |activity )?"
    r"(?:title|name)\b",
    re.IGNORECASE,
)
# A meal that opens a time expression ("lunch tomorrow at 1", "Lunch at 12 PM"): in a new event's
# words it names the event, and says at most when.
MEAL_LEAD = re.compile(r"(?:breakfast|brunch|lunch|dinner|supper)\b\s*", re.IGNORECASE)
# Events that happen in the evening: "dinner at 8" is at 8 pm, as "lunch at 1" is at 1 pm.
EVENING_EVENTS = frozenset(
    {
        "dinner",
        "dinners",
        "supper",
        "drinks",
        "party",
        "concert",
        "movie",
        "movies",
        "cinema",
        "theatre",
        "theater",
        "opera",
        "gala",
        "karaoke",
        "night",
    }
)
# Words that name "an event" in general: never a title on their own.
GENERIC_EVENT_WORDS = frozenset(
    [
        "event",
        "events",
        "appointment",
        "appointments",
        "thing",
        "things",
        "stuff",
        "item",
        "items",
        "entry",
        "entries",
        "plan",
        "plans",
        "schedule",
        "calendar",
        "calendars",
        "agenda",
        "reminder",
        "reminders",
        "meeting",
        "meetings",
    ]
)
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "me",
        "myself",
        "ourselves",
        "i",
        "we",
        "you",
        "us",
        "it",
        "them",
        "to",
        "of",
        "for",
        "on",
        "in",
        "at",
        "by",
        "with",
        "from",
        "and",
        "or",
        "but",
        "all",
        "any",
        "some",
        "every",
        "each",
        "is",
        "are",
        "am",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "will",
        "would",
        "can",
        "could",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "please",
        "pls",
        "what",
        "what's",
        "whats",
        "when",
        "where",
        "who",
        "which",
        "how",
        "there",
        "here",
        # the same words run together with "is": "there's a webinar on Thursday" is a webinar
        "there's",
        "theres",
        "here's",
        "up",
        "out",
        "off",
        "about",
        "into",
        "onto",
        "as",
        "over",
        "than",
        "then",
        "so",
        "if",
        "not",
        "no",
        "yes",
        "just",
        "also",
        "though",
        "anyway",
        "too",
        "very",
        "much",
        "many",
        "more",
        "most",
        "next",
        "last",
        "this",
        "coming",
        "upcoming",
        "today",
        "tomorrow",
        "tonight",
        "yesterday",
        "week",
        "weekend",
        "month",
        "year",
        "day",
        "days",
        "time",
        "times",
        "morning",
        "afternoon",
        "evening",
        "night",
        "o'clock",
        "oclock",
        "pm",
        "am",
        "a.m.",
        "p.m.",
        "ok",
        "okay",
        "okey",
        "hey",
        "hi",
        "set",
        "calendar",
        "calendars",
        "remind",
        "reminder",
        "reminders",
        "delete",
        "remove",
        "cancel",
        "schedule",
        "add",
        "create",
        "book",
        "show",
        "tell",
        "check",
        "list",
        "find",
        "clear",
        "make",
        "put",
        "move",
        "events",
        "event",
        "anything",
        "anywhere",
        "everywhere",
        "something",
        "everything",
        "everyone",
    ]
)
FILLER = phrase_re(
    [
        "please",
        "pls",
        "thanks",
        "thank you",
        "okay",
        "ok",
        "right",
        "now",
        "for me",
        "right now",
        "asap",
        "from my calendar",
        "from the calendar",
        "in my calendar",
        "on my calendar",
        "to my calendar",
        "to the calendar",
        "in the calendar",
        "on the calendar",
        "my calendar",
        "the calendar",
        "calendar",
    ]
)

# Words that end a request with when it is done, not what it is: "book an appointment first".
WHEN_ADVERBS = frozenset({"first", "again", "later", "instead", "asap", "sometime", "anytime"})
# A request that sets time aside ("block Friday afternoon", "set aside 2 hours"), and what for ("block
# 9-11 tomorrow for deep work", "reserve Friday afternoon for planning"): the time is for that.
BLOCKING = re.compile(r"^(?:please\s+)?(?:block|reserve|hold|set aside|keep)\b", re.IGNORECASE)
# The name of time blocked with nothing said of what for ("block my calendar tomorrow from 2 to 4"), as
# calendars show such time to others.
BLOCKED = "Busy"


def blocks_time(text: str) -> bool:
    """Whether a request blocks time in so many words ("block ...", "please block ..."); "reserve" and
    "hold" are said of a room or a table as much as of time."""
    said = BLOCKING.match(text.strip())
    return said is not None and said.group(0).split()[-1].casefold() == "block"


BLOCK_FOR = re.compile(BLOCKING.pattern + r".*?\bfor\s+(?P<what>[A-Za-z][\w' -]*?)[\s.!]*$", re.IGNORECASE)
# Words that say the request may not hold ("dinner at 7 tonight maybe", "maybe lunch on Friday"): never
# a title's first word ("tentative" may name one); nothing is left unread, but what they ask for is
# shown before it is written.
HEDGES = frozenset(["maybe", "perhaps", "probably", "possibly", "tentatively"])
# Verbs of making that are also nouns heading names people give events ("Book club", "book signing",
# "Plan review"): right before a bare word they may be its first word rather than the request.
NAMING_VERBS = frozenset(["book", "plan"])
# Words of wanting, which start a request and never a name ("I want this added": no event 'Want').
WISHING = frozenset(
    ["want", "wants", "wanna", "need", "needs", "like", "would", "love", "wish", "i'd", "i'm"]
)
# Closing words after a no that ask nothing more: "no, it's fine", "no, that's all, thanks".
JUST_POLITE = re.compile(
    r"^(?:(?:thanks|thank you|please|never ?mind|(?:it|that)'?s (?:fine|ok|okay|all)|all good|i'?m good)"
    r"[\s,.!]*)*$",
    re.I,
)
# A turn that only holds the change back ("hold on, no", "no wait, don't", "not yet", "stop"): words of
# waiting or refusing, and nothing else: declined, nothing changes (asked again, it can still be made).
HOLDING = re.compile(
    r"^(?:[\s,.!;:-]*(?:no|nope|nah|hold on|hang on|wait(?: a (?:sec|second|minute|moment))?|stop|"
    r"actually|hmm+|not (?:yet|now|right now|that)|don'?t(?: do (?:it|that)(?: yet)?)?|do not|"
    r"let me think(?: about it)?|never ?mind|thanks|thank you|please|"
    r"(?:keep|leave) (?:it|them|that|everything)(?: (?:alone|as (?:it is|they are|is)))?))+[\s,.!;:-]*$",
    re.I,
)
