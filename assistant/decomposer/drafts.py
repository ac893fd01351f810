"""A new event described over several turns, and amendments to the event just made.

People rarely say everything at once: "I'd like to add an event", then "the dentist at 9:30 in the
morning", then "it's at 17705 Hale Avenue".  Each turn fills slots of a :class:`Draft` kept in the
dialogue state; the assistant asks only for what is missing and cannot be defaulted (a title and a
start time: the day defaults to the one being discussed, the length to ``default_event_minutes``, a
place to none), and creates the event as soon as it can.  A detail given right after the event was
made ("it's at ...", "call it ...", "for 45 minutes") amends that event instead of making another.

Titles and places come from the learned turn reader's spans, sliced from the user's own text, so they
keep the user's words and case; the rule frame supplies times, people and calendars.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model

from assistant.decomposer.blanks import blanked
from assistant.decomposer.changes import everyone_window
from assistant.decomposer.dayparts import stretch_of_part
from assistant.decomposer.edits import edit_tasks
from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.guards import (
    ends_before,
    long_ago,
    missing_wall_time,
    odd_length,
    too_long_overnight,
    unread_time,
)
from assistant.decomposer.intent import normalise
from assistant.decomposer.recurrence import as_hours, first_day, read_repeat, until_clause
from assistant.decomposer.shown import in_the_week_shown
from assistant.decomposer.state import Asked, DialogueState, Draft, EventRef
from assistant.decomposer.zones import said_zone
from assistant.lexicon import (
    BLOCK_FOR,
    BLOCKED,
    BLOCKING,
    DETERMINERS,
    EDGE_WORDS,
    EVENING_EVENTS,
    EVENT_FIELDS,
    EVERYONE_CUE,
    GENERIC_EVENT_WORDS,
    HEDGES,
    MEAL_LEAD,
    NAMED_OUTRIGHT,
    NAMED_PLACE,
    PLACE_KINDS,
    POINTERS,
    SOMEONES_PLACE,
    STOPWORDS,
    STREET_ADDRESS,
    WHEN_ADVERBS,
    WHEN_FIELDS,
    after_it_is,
    away_kind,
    blocks_time,
    compounds,
    tokens,
    trim_edges,
    words_pattern,
)
from assistant.nlu import Span, TurnReading
from assistant.timeexpr import TimeMatch, find_durations, find_times
from preferences.selectors import user_timezone
from skills.formatting import format_day, format_when
from workflows.builder import Plan
from workflows.definition import Decision, WorkflowDefinition

__all__ = ["amend", "draft_turn", "renames_it", "rule_title"]

# Words that only say "an event" ("add an event", "schedule something"): not a title.  A "meeting" is
# one ("a meeting with Priya"): it says what kind of event, and with whom.
_UNNAMED = frozenset({"event", "events", "something", "anything", "thing", "things"})
_PLACEHOLDER = (GENERIC_EVENT_WORDS - {"meeting", "meetings"}) | _UNNAMED | {"one", "new", "it", "slot"}
# The particle of "set aside" or "block off", which is no name for what the time is blocked for.
_BLOCK_PARTICLES = frozenset({"aside", "off", "out", "time", "some time"})
ASK_PLACE = "Where does it take place? Tell me if you want the place added."
# How long after an event a new one "right after" it may start, when that time is taken.
_AFTER_AN_EVENT = timedelta(hours=3)
# Clock hours said without am/pm that the daytime reading takes in the morning though the evening's
# is as likely ("book club at 7"; "dinner at 8" says evening, and "at 9" to "at 11" are mostly the
# working morning): a new event there is previewed, its AM shown, never written at once.
_EITHER_HALF = (7, 8)
# What ends a name or place at its end: spaces and marks, but not the full stop of an initial ("M.D.").
_TRAILING = re.compile(r"(?:[\s,;:!?\-–—]|(?<!\b[A-Z])\.)+$")  # "dentist - tue 3pm": no 'Dentist -'
# A light verb the reader took into a title it found, typed in lower case ("let's get lunch with Ana" is
# lunch; "Get Fit class" and a name in quotes keep theirs).
_LIGHT_VERB = re.compile(r"^(?:get|grab|have)(?: an?)?\s+(?=\w)")
# The request's verb taken into the name, with the article of its object ("pencil in a call"), or a
# light verb's -ing form ("Sara and I are grabbing lunch").
_VERB_AND_ARTICLE = re.compile(
    r"^(?:(?:pencil in|set aside|block off|block out|write down|put down|schedule|book|add|plan)"
    r"\s+(?:a|an|the)|(?:getting|grabbing|having)(?:\s+(?:a|an))?)\s+(?=\w)",  # "grabbing lunch with Sara"
    re.IGNORECASE,
)
# Where a name said after "call it" ends: a comma or the like, or a full stop that ends a sentence
# (not the one of "Dr." or "St.").
_NAME_END = re.compile(r"[,;!?]|(?<![A-Z][a-z])(?<![A-Z])\.(?=\s|$)")
# A clause that goes on about the event after its name: "The Struts concert and it is at 5", "Movie
# Show and is at 10:30", or says
# which field the name is for: "call it Appointment for the title".
_NAME_CLAUSE = re.compile(
    r"\s+and\s+(?:it|it's|its|is|will|the|at|on|in|located|which|that|make|set|put|schedule|book)\b"
    # "name it doctor appointment and start it at 11:30", "... and time it half past 11"
    r"|\s+and\s+[a-z]+\s+it\b"
    r"|\s+(?:for|as)\s+(?:the|its|a|an)\s+(?:event\s+)?(?:title|name)\b"
    # "under the name Doctor appointment that is scheduled at 80 Nicholl Avenue"
    r"|\s+(?:that|which)\s+(?:is|will be|'s)\s+(?:scheduled|planned|booked|set|located|held)\b"
    # "an event called Dentist to my calendar for the 14th", "... called Jason's concert added to my
    # calendar": where it goes, after its name
    r"|\s+(?:(?:added|put|placed|scheduled|booked)\s+)?(?:to|on|in|onto|into)\s+(?:the|my|your)\s+calend[ae]r\b",
    re.IGNORECASE,
)
# The words that lead from a name said outright to the time after it: "label it Movie show with a time
# of 9:30 pm", "titled out of office for 12", "out of office in the time slot 10:30".
_TO_THE_TIME = re.compile(
    r"\s+(?:(?:for|at|with|from|by)|(?:in|on)(?=\s+(?:a|an|the|this|that)\b))"
    r"(?:\s+(?:a|an|the|this|that))?(?:\s+(?:start(?:ing)?\s+)?(?:time(?:\s+slot)?|slot)(?:\s+(?:of|as|is|at|for))?)?\s*$",
    re.IGNORECASE,
)


# What comes before a time said as the end of the event: "to 3pm", "that ends at 3:30", "- 5".
_COLON_NAME = re.compile(r"\b(?P<a>\d{1,2}):(?P<b>\d{1,2}s?)\b(?!\s*(?:am|pm|a\.m|p\.m))")
# A clock time said as the end of a day, which people mean as the end of their working day.
_NO_HOUR_SAID = re.compile(r"\beod\b|\bend of (?:the )?(?:work ?|business )?day\b", re.IGNORECASE)
_ALL_DAY = re.compile(r"\b(?:all[- ]day|all the day|the whole day|whole day|the entire day)\b", re.IGNORECASE)
# Events that take a day, not an hour, when no time is said ("Ann's birthday on May 3").
# The absence that takes whole days unless hours are said, and its name when the turn gives none: the
# rules' leftover words would make 'Office' of "out of office next week" ("vacation" or "holiday" name
# themselves, and may be a party's: "a holiday party").
_AWAY_TITLES = {"out of office": "Out of office"}
_DAY_LONG = re.compile(
    r"\b(?:birthday|anniversary|holiday|day off|vacation day|public holiday|bank holiday)\b", re.IGNORECASE
)
_ONE_DAY = frozenset({"birthday", "anniversary"})
# What "put ... as the title" puts on the calendar before the name: "put this on the calendar with
# House as the event title" names it House.
_ON_THE_CALENDAR = re.compile(
    r"^(?:this|that|it)(?: event)?\s+(?:to|on|in|onto|into)\s+(?:the|my)\s+calend[ae]r\s+(?:with\s+)?",
    re.IGNORECASE,
)
_END_CUE = re.compile(
    r"(?:\b(?:to|till|til|until|through|ends?|ending|finish(?:es|ing)?)|[-–])\s*(?:at\s*)?$", re.IGNORECASE
)


def _clean(span_text: str) -> str:
    text = _VERB_AND_ARTICLE.sub("", _TRAILING.sub("", span_text.strip()))
    words = text.split()
    if len(words) > 1 and words[-1].casefold() in WHEN_ADVERBS:
        text = _TRAILING.sub("", " ".join(words[:-1]))  # "a haircut again": when, not what
    lead = words[0].casefold() if len(words) > 1 else ""
    if lead in HEDGES or lead in ("recurring", "repeating"):
        # "maybe lunch on Friday": lunch, maybe; "a recurring 1:1 with Bo on Thursdays": how often, no name
        text = " ".join(text.split()[1:])
    if len(text) > 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()  # "titled 'Pick up Gavin'": the name, not its quotes
    for quote in "'\"":
        if text.count(quote) == 1 and (text.startswith(quote) or text.endswith(quote)):
            text = text.strip(quote).strip()  # one of the quotes around the name taken with it
    first = text.split(maxsplit=1)[0] if text else ""
    if not text[:1].islower() or any(ch.isupper() for ch in first):
        return text  # "iOS release party", "eBay auction": a name written so stays so
    return text[:1].upper() + text[1:]


# A name typed with capitals after "at" ("at the Mill", "at Blue Bottle"): where the event is.
_AT_A_NAME = re.compile(
    r"\bat\s+(?P<place>(?:the\s+)?[A-Z][\w'&-]*(?:\s+(?:[A-Z][\w'&-]*|&|of))*)"
    # ... where the name ends: not "the Google conference", which names an event
    r"(?=\s*(?:$|[,.;!?(]|\d|(?:with|on|at|for|in|to|from|and|by|around|tomorrow|today|tonight|next|this)\b))"
)


# A kind of place after "at": "Ann at the office", "drinks at my place", "meet ann at the office monday".
_AT_A_KIND_OF_PLACE = re.compile(
    rf"\s+at\s+(?P<place>(?:the|my|our|his|her|their)\s+(?:{PLACE_KINDS}|place))\b(?!['’-])", re.IGNORECASE
)


def _named_place(text: str, title: str, frame: RequestFrame, times: list[TimeMatch], now: datetime) -> str:
    """A place said by its name after "at" that neither the reader nor the title took ("brunch sunday
    11 at the Mill with Kate"), or "": not a time ("at Noon"), a person or words of the title."""
    for m in _AT_A_NAME.finditer(text):
        place = _TRAILING.sub("", m["place"])
        words = [w.removesuffix("'s") for w in place.casefold().removeprefix("the ").split()]
        if any(lo < m.end() and m.start() < hi for lo, hi in (t.span for t in times)):
            continue
        if find_times(place, now=now) or set(words) & {w for n in frame.person_names for w in n.split()}:
            continue
        said_before = text[: m.start()].split()[-1:]
        named = [title] if title else frame.titles  # the rules' title only when the reader has none
        if any(place.casefold().removeprefix("the ") in t.casefold() for t in named) or (
            said_before
            and title
            and said_before[0].casefold() == title.split()[-1].casefold() in GENERIC_EVENT_WORDS
        ):
            # "an appointment at Supercuts": a title of a common word keeps its place, as it was said
            # ("dinner at Luca's" is a dinner, at Luca's)
            continue
        return place
    return ""


def _end_of_name(text: str, now: datetime) -> int:
    """Where a name said outright ends: at a mark that ends it, a clause about the event, a time, a
    length or a street address (where it is: "called Dinner with Kim at 88 Pine Street")."""
    ends = [m.start() for m in (_NAME_END.search(text), _NAME_CLAUSE.search(text)) if m is not None]
    timed = [t.span[0] for t in find_times(text, now=now) if not t.error and (t.has_date or t.has_time)]
    timed += [m.start() for m in STREET_ADDRESS.finditer(text)]
    timed += [d.span[0] for d in find_durations(text)]  # "called planning with ann for 2 hours"
    end = min([e for e in ends + timed if e > 0], default=len(text))
    if end in timed:
        lead = _TO_THE_TIME.search(text[:end])
        end = lead.start() if lead is not None and lead.start() > 0 else end
    return end


def _after_time(span: Span, times: list[TimeMatch], addresses: list[tuple[int, int]], text: str) -> Span:
    """A place the reader began inside a time expression that began before it ("on Monday at 11 in
    room 5" read with the place "11 in room 5"): the place begins after the time, without the word
    that leads it ("room 5"), and the time stays the event's.  Only where such a word parts them: in
    "at 128 El Cerrito Plz" the number is the address's, whatever the resolver reads in it."""
    if span.slot != "location" or any(lo < span.end and span.start < hi for lo, hi in addresses):
        return span
    for m in times:
        lo, hi = m.span
        if lo < span.start < hi < span.end:
            words = text[hi : span.end].split()
            if words[:1] not in (["in"], ["at"], ["on"]) or len(words) < 2:
                return span  # "at 1 Embarcadero Center": the number is the address's, not a time
            words = words[1:]
            start = text.index(words[0], hi)
            return Span(span.slot, start, span.end, text[start : span.end])
    return span


def _without_length(span: Span) -> Span:
    """A title the reader began with the event's length ("a 30 minute sync", "a 2-hour focus block"):
    the length is how long it lasts (read apart, as the turn's duration), the name what follows."""
    if span.slot != "title":
        return span
    lengths = find_durations(span.text)
    if not lengths or lengths[0].span[0] != 0:
        return span
    rest = span.text[lengths[0].span[1] :]
    name = rest.lstrip(" -").removeprefix("long ").lstrip()
    if not name:
        return span
    start = span.end - len(name)
    return Span(span.slot, start, span.end, name)


def _meaningful(title: str) -> bool:
    """Whether the title says something: a word that is no stopword or placeholder, or a compound of
    such words ("check-in", "follow-up", "kick-off"), which names an event as a whole."""
    return bool(compounds(title)) or any(w not in STOPWORDS and w not in _PLACEHOLDER for w in tokens(title))


# A detail's name leading the words left over ("the location is my office", "time is 3pm"): that
# detail is being given, and the words are no name of the event.
_FIELDS = EVENT_FIELDS | WHEN_FIELDS


def _some_day_of(match: TimeMatch, absence: bool) -> bool:
    """Whether a week, month or year said alone as when a new event is ("a party next week", "lunch
    with Bo next month"), or a stretch of days that does not run from midnight to midnight ("call Dad
    this weekend": Friday evening to Monday), is a time to find in it rather than the event's own days,
    which it is for an ``absence`` ("my vacation next week", "out of office next week")."""
    if absence or not match.has_date or match.has_time:
        return False
    if match.grain in ("week", "month", "year"):
        return True
    return (
        match.is_interval
        and match.start is not None
        and match.end is not None
        and match.end - match.start > timedelta(days=1)
        and match.start.time() != time(0)
    )


def rule_title(frame: RequestFrame, text: str = "", place: str = "") -> str:
    """The leftover words of a create request ("lunch with Sam"), when the reader found no title,
    without the ``place`` found ("Meeting in Conference Room B monday 10am" is a meeting there).

    Words left over around "an event" ("I want an event put on", "add an event during that time") are
    the request's wording, not a name: the event has none yet, and is asked for one.
    """
    phrase = _without(frame.titles[0], place) if frame.titles else ""
    phrase = _after_guests(trim_edges(phrase, EDGE_WORDS, lead=False), frame.person_names)
    for said in _COLON_NAME.finditer(text):  # the words came apart at the colon: "1:1 with Ann"
        phrase = re.sub(rf"\b{said['a']} {said['b']}\b", f"{said['a']}:{said['b']}", phrase)
    words = tokens(phrase)
    if not words or not _meaningful(phrase) or _UNNAMED & set(words) or words[0] in _FIELDS:
        return ""
    return _clean(_as_typed(phrase, text))


def _after_guests(phrase: str, names: list[str]) -> str:
    """``phrase`` without the people it opens with and the "to" after them: "ann to lunch" of "invite
    Ann to lunch" is lunch, which Ann is invited to (her name is the people's, not the title's); and
    nothing when it is only people ("invite Ann")."""
    said = {w for name in names for w in tokens(name)}
    words = phrase.split()
    lead = 0
    while lead < len(words) and (words[lead].casefold().strip(",") in said or words[lead] in ("and", ",")):
        lead += 1
    if lead and lead == len(words):
        return ""  # "invite Ann": who comes, no name for the event
    if lead and lead + 1 < len(words) and words[lead] == "to":
        return " ".join(words[lead + 1 :])
    return phrase


def _as_typed(phrase: str, text: str) -> str:
    """``phrase`` with the capitals the user typed it with ("flight to Boston", not "flight to boston"),
    where its words stand together in ``text``; as it is otherwise."""
    words = phrase.split()
    if not words or text.islower() or text.isupper():  # "CALL PRIYA NOW" shouts; no capitals to keep
        return phrase
    said = words_pattern(phrase).search(text)
    return " ".join(said[0].split()) if said else phrase


def _without(phrase: str, place: str) -> str:
    """``phrase`` without the words of ``place`` where they stand in it whole, and the words that led
    to it ("cab to 3111 Mission College Boulevard" is a cab)."""
    words, gone = phrase.split(), [w for w in (w.strip(",.;:#") for w in place.casefold().split()) if w]
    folded = [w.casefold() for w in words]
    if gone and set(folded) <= set(gone):
        return ""  # "at Sonoma Ave, # 44, 1820, Doctors Park Drive": the place's words, cut at its commas
    for at in range(len(words) - len(gone) + 1) if gone else ():
        if folded[at : at + len(gone)] == gone:
            before = at
            while before and folded[before - 1] in EDGE_WORDS:  # the words that led to it
                before -= 1
            return " ".join(words[:before] + words[at + len(gone) :])
    for size in range(min(len(gone), len(words)) - 1, 0, -1):
        if folded[-size:] == gone[:size] and len(words) > size:
            # the phrase cut inside the place's name ("ride to john f" of "to John F. Kennedy airport")
            before = len(words) - size
            while before and folded[before - 1] in EDGE_WORDS:
                before -= 1
            return " ".join(words[:before])
    return phrase


def _meal(span: Span, match: TimeMatch) -> bool:
    """A title that ends with the meal opening a time expression: "Lunch" of "Lunch at 12 PM",
    "Lowes Contractors Lunch" of "... Lunch friday at 1:30pm" (the meal is both the name and when)."""
    meal = MEAL_LEAD.match(match.text)
    return (
        span.slot == "title" and meal is not None and match.span[0] < span.end <= match.span[0] + meal.end()
    )


# Letters after a person's name that are part of how they are named: "John Toth, D.O.", "Rona Silkiss,
# MD, FACS", "Sam Lee Jr.".
_CREDENTIALS = re.compile(
    r"(?:,?\s+(?:(?:[A-Z]\.){2,3}|(?:MD|DO|DDS|DMD|PhD|RN|NP|PA|FACS|Esq|Jr|Sr)\b\.?))+"
)


def _as_said(name: str, text: str) -> str:
    """A person's name as the user wrote it, with the letters after it ("john toth" -> "John Toth, D.O.")."""
    m = words_pattern(name).search(text)
    if m is None:
        return name
    said = m.group(0) if not m.group(0).islower() else m.group(0).title()
    after = _CREDENTIALS.match(text, m.end())
    return said + (after.group(0) if after else "")


# Someone said to have the event: "my daughter has a recital", "my son has soccer practice".
_HELD = re.compile(r"^(?P<who>[\w'-]+)\s+(?:has|have)(?:\s+got)?(?:\s+(?:a|an|the))?\s+(?=\w)", re.IGNORECASE)


# A time said as when something is due: "by Friday 5pm", "by 3pm tomorrow".
_DEADLINE = re.compile(r"by\s", re.IGNORECASE)
# Someone of the user's said as the owner right before a name: "my mom's " of "my mom's birthday".
_MY_SOMEONES = re.compile(r"\b(?:my|our)\s+(?P<who>[a-z]+)['’]s\s+$", re.IGNORECASE)


def _theirs(title: str) -> str:
    """The reader's title said as someone's ("Daughter's recital" of "my daughter has a recital", "Team's
    retro" of "the team has a retro"): whoever has it owns it, never 'Daughter has a recital'."""
    held = _HELD.match(title)
    if held is None:
        return title
    who = held["who"]
    owner = who if any(ch.isupper() for ch in who) else who.capitalize()  # "eBay's auction" stays so
    return f"{owner}'s {title[held.end() :]}"


def _with_company(title: str, frame: RequestFrame, text: str) -> str:
    """The reader's title with the company the rules read after it, as typed: "dinner with my parents",
    "lunch with the team" ('Dinner' left "my parents" unused). One word after "my", "our" or "the", the
    way a group or a relation is said; not someone named (their names are the event's people, added
    to the title as such), nor more words, which may be no company at all ("with my wife tomortow")."""
    head, _, company = frame.titles[0].partition(" with ") if frame.titles else ("", "", "")
    if len(company.split()) != 1 or head.casefold() != title.casefold():
        return title
    if company in {w for name in frame.person_names for w in name.split()}:
        return title
    said = re.search(
        rf"(?<!\w){re.escape(title)}\s+with\s+(?:my|our|the)\s+{re.escape(company)}(?!\w)",
        text,
        re.IGNORECASE,
    )
    return _clean(" ".join(said[0].split())) if said else title


def _owned(name: str, title: str, text: str) -> str:
    """The title said as ``name``'s ("John's birthday" of "for john's birthday", or of "John has a
    birthday party"), or ""."""
    if not title or "'s " in title.casefold():
        return ""
    said = re.search(
        rf"(?<!\w){re.escape(name)}(?:['’]s\s+|\s+has\s+(?:got\s+)?(?:an?\s+)?){re.escape(title)}(?!\w)",
        text,
        re.IGNORECASE,
    )
    if said is None:
        return ""
    owner = name if not name.islower() else name.title()
    return f"{owner}'s {title[:1].lower() + title[1:] if not title[1:2].isupper() else title}"


def _only_meeting_them(draft: Draft, text: str) -> bool:
    """Whether the draft's title says no more than that its people are met: none ("I want to meet with
    Priya"), or the words of "meet Priya" the reader took for one; a person whose name holds "meet"
    ("for Swim meet") keeps the title said."""
    titled = set(draft.title.casefold().split())
    if not titled:
        return True
    named = {w for person in draft.people for w in person.casefold().split()}
    meets = "meet" not in named and re.search(r"\bmeet\b", text, re.IGNORECASE) is not None
    return meets and titled - {"meet", "with"} <= named


def _with_people(title: str, names: list[str]) -> str:
    words = [n.casefold().split() for n in names]
    # one person said twice, by first name and in full ("a meeting with ann lee": "Ann" and "Ann Lee")
    whole = [
        n for n, said in zip(names, words, strict=True) if not any(o[: len(said)] == said != o for o in words)
    ]
    shown = [
        n if not n.islower() else n.title()
        for n in dict.fromkeys(whole)
        if n.casefold() not in title.casefold()
    ]
    if not title or not shown:
        return title
    people = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
    return f"{title} with {people}"  # "Lunch with Ines, Tom and Wei"


def _times_between(text: str, masked: list[tuple[int, int]], now: datetime) -> list[TimeMatch]:
    """The times of each stretch of ``text`` between the masked spans, read apart: no expression joins
    words across a repetition ("9-11 every weekday in February" is "9-11" and "in February", never
    the 9th to the 11th of February)."""
    found: list[TimeMatch] = []
    at = 0
    for lo, hi in [*sorted(masked), (len(text), len(text))]:
        if lo > at:
            found += [
                replace(m, span=(m.span[0] + at, m.span[1] + at))
                for m in find_times(text[at:lo], now=now, daytime=True)
            ]
        at = max(at, hi)
    return found


class _Said:
    """What one turn says of an event: each field None when the turn does not say it."""

    def __init__(
        self,
        frame: RequestFrame,
        text: str,
        reading: TurnReading,
        now: datetime,
        tz: ZoneInfo,
    ):
        self.day = None
        self.day_said = ""  # the words the day was read from ("on Tuesday")
        self.at: str | None = None
        self.either_half = False
        self.due = False  # a deadline said ("by Friday 5pm"): the entry is then, shown first
        self.loose = False  # the hour was said without am/pm ("at 8")
        self.part: str | None = None
        self.hours: tuple[time, time] | None = None  # a stretch of the part said ("late afternoon")
        self.minutes = frame.duration_minutes
        self.repeat = read_repeat(text, now)
        # "a conference all day next Thursday", "my sister's birthday on September 3": a day, no time
        self.all_day = bool(_ALL_DAY.search(text))
        self.last_day: date | None = None
        norm = normalise(text)
        away = away_kind(norm)
        day_long = _DAY_LONG.search(text)
        absence = away is not None or day_long is not None
        # a birthday is one day: "john's birthday next week" asks which, where "vacation next week" is all
        one_day = away is None and day_long is not None and day_long[0].casefold() in _ONE_DAY
        masked = [*(self.repeat.spans if self.repeat else ()), *(m.span() for m in _ALL_DAY.finditer(text))]
        timed = blanked(text, masked)  # "every Tuesday" is no date to start on, "all day" alone no today
        found = _times_between(timed, masked, now)
        # A time read from the end of a place or a name on ("in room 4 on friday at 8" is no 4 o'clock,
        # "Board games night on Friday at 8" no night): the times read again with it set apart
        places = [(s.start, s.end) for s in reading.spans if s.slot in ("location", "title")]
        cut = [p for p in places if any(p[0] <= m.span[0] < p[1] < m.span[1] for m in found)]
        if cut:
            found = _times_between(timed, [*masked, *cut], now)
        if self.repeat is not None:
            found = [as_hours(m, now) for m in found]
        times = [m for m in found if not m.error and m.start is not None]
        # A name or place the reader found wholly inside a time expression is the time ("at 3"), but
        # for a meal that opens it ("Lunch at 12 PM"), which names the event; a time expression
        # inside a longer name or place is part of it (the "555" of "555 Center Ave").
        repeating = self.repeat.spans if self.repeat else ()
        # A street address is the place, whatever the reader made of it, and its number no time.
        addresses = [m.span() for m in STREET_ADDRESS.finditer(text)]
        beside = _beside_words(text, frame)  # "right after the dentist": the other event's words
        spans = [
            s
            for s in (_after_time(_without_length(s), times, addresses, text) for s in reading.spans)
            if not (beside is not None and beside[0] < s.end and s.start < beside[1])
            if s.slot in ("title", "location")
            and not any(m.span[0] <= s.start and s.end <= m.span[1] and not _meal(s, m) for m in times)
            and not any(lo < s.end and s.start < hi for lo, hi in repeating)
            and not (s.slot == "title" and any(lo < s.end and s.start < hi for lo, hi in addresses))
        ]
        times = [m for m in times if not any(lo < m.span[1] and m.span[0] < hi for lo, hi in addresses)]
        self.problem = unread_time(timed, found)
        if self.repeat is not None and not self.repeat.rule:
            self.problem = 'Until when should it repeat? Give me a date, e.g. "until June 30".'
        started: datetime | None = None
        evening = not EVENING_EVENTS.isdisjoint(tokens(timed))
        for match in times:
            if any(s.start < match.span[1] and match.span[0] < s.end and not _meal(s, match) for s in spans):
                continue
            if _DEADLINE.match(match.text) and match.is_interval and match.has_time and match.end is not None:
                # "remind me to submit the report by Friday 5pm": from now until then to the resolver,
                # the moment it is due to a person, and no length of it
                due = match.end
                if match.start is not None and self.minutes == (due - match.start) // timedelta(minutes=1):
                    self.minutes = None
                match = replace(match, start=due, end=due + timedelta(minutes=1), is_interval=False)
                self.due = True
            self.problem = self.problem or too_long_overnight(match) or missing_wall_time(match, tz)
            assert match.start is not None
            local = match.start.astimezone(tz)
            if match.has_time and (local.hour, local.minute) == (0, 0) and _NO_HOUR_SAID.search(match.text):
                # "at eod", "at the end of the day": midnight to the resolver, the afternoon to a person
                self.problem = self.problem or 'At what time should it start? Say a time, e.g. "at 5pm".'
            morning = match.loose and local.hour < 12
            past_morning = morning and local < now <= local + timedelta(hours=12)
            if morning and (evening or past_morning):
                # "dinner at 8": the evening's 8, as a person means it; "a call today at 8" said at 9 am:
                # tonight's, the morning's being past (shown first: the morning's may be meant)
                local += timedelta(hours=12)
            if match.has_time and started is not None and _END_CUE.search(timed[: match.span[0]]):
                # "at 4pm that ends at 3:30", "3pm to 3pm": a second time said as the end
                end = datetime.combine(started.date(), local.timetz())
                self.problem = self.problem or ends_before(started, end)
                if self.minutes is None and end > started:
                    self.minutes = int((end - started).total_seconds() // 60)
                continue
            if match.has_time and started is None:
                started = local
            if self.day is None and self.repeat is None and _some_day_of(match, absence and not one_day):
                continue  # "a neighbor party next week": a day of that week, to be asked, not all of it
            if match.has_date and self.day is None:
                self.day = local.date()
                self.day_said = match.text
                whole_days = match.day_part is None and (absence or (local.hour, local.minute) == (0, 0))
                if not match.has_time and match.is_interval and match.end is not None and whole_days:
                    # "vacation from Aug 20 to Aug 25": those days, all day
                    last = (match.end - timedelta(microseconds=1)).astimezone(tz).date()
                    if last > self.day:
                        self.all_day, self.last_day = True, last
            if match.day_part and not match.has_time and self.part is None:
                self.part = match.day_part  # "on Wednesday evening": some time then
                self.hours = stretch_of_part(match, tz)
            if match.has_time and self.at is None:
                self.at = f"{local:%H:%M}"
                self.loose = match.loose
                # "book club at 7": the morning's 7 is the reading taken, the evening's as likely
                either = match.loose and _EITHER_HALF[0] <= local.hour <= _EITHER_HALF[1]
                self.either_half = past_morning or either
                said_end = match.end if match.is_interval and not match.rest_of_day else None
                if said_end is not None and self.minutes is None:
                    self.minutes = int((said_end - match.start).total_seconds() // 60)
        other = said_zone(norm, lambda: _zones_of(frame.people))
        if other is not None and other.zone is None:
            self.problem = self.problem or 'Which time zone is that time in? Say e.g. "10am London time".'
        elif other is not None and other.zone is not None and self.at is not None:
            # "10am his time (he's in London)": ten there, at whatever hour that is here
            day = self.day or now.astimezone(tz).date()
            there = datetime.combine(day, time.fromisoformat(self.at), other.zone).astimezone(tz)
            if self.day is None and there <= now:
                # no day said and that hour there has gone today: the next one, as for any bare time
                there = datetime.combine(day + timedelta(days=1), time.fromisoformat(self.at), other.zone)
                there = there.astimezone(tz)
            self.day, self.at = there.date(), f"{there:%H:%M}"
        self.problem = self.problem or odd_length(self.minutes) or long_ago(self.day, tz)
        whole_day = bool(_DAY_LONG.search(text)) or away in _AWAY_TITLES
        if self.at is None and self.part is None and self.day is not None and whole_day:
            self.all_day = True  # "out of office on Friday": the day, not a time on it
        title = next((s for s in spans if s.slot == "title"), None)
        if title is None:
            self.title = _AWAY_TITLES.get(away or "", "")
        else:
            quoted = text[title.start - 1 : title.start] in ("'", '"')
            self.title = _clean(title.text if quoted else _LIGHT_VERB.sub("", title.text))
            self.title = _with_company(_theirs(self.title), frame, text)
            mine = _MY_SOMEONES.search(text[: title.start])
            if mine is not None and not quoted:  # "my mom's birthday": 'Mom's birthday', not 'Birthday'
                who = mine["who"]
                self.title = f"{who[:1].upper()}{who[1:]}'s {self.title[:1].lower()}{self.title[1:]}"
        named = self.outright = NAMED_OUTRIGHT.search(text.strip())
        if named:
            # "call it Dental check-up", "call it Visit to Dr. Ito": the whole name, which the reader
            # may cut at a hyphen or a dot; "put X as the title": X, whole
            said = _ON_THE_CALENDAR.sub("", named["before"]) if named["before"] else ""
            said = said or named["title"][: _end_of_name(named["title"], now)]
            whole = _clean(said)
            learned = self.title.casefold()
            # the reader's title may hold the naming word too ("Meeting named Budget review")
            kept = whole.casefold().startswith(learned) or learned.endswith(whole.casefold())
            ends_with_it = bool(learned) and whole.casefold().endswith(" " + learned)
            # "a planning session called Q2 roadmap": the kind of event, then its name; "a party at a
            # bar called Zeitgeist" names the bar, said after the title
            kind_then_name = bool(learned) and text.strip()[: named.start()].rstrip().casefold().endswith(
                learned
            )
            if not learned or kept or kind_then_name or (named["before"] and not ends_with_it):
                # "use the word doctor appointment as the title": the reader's name, without the lead
                self.title = whole
        untitled = not self.title or self.title.casefold() in _BLOCK_PARTICLES
        purpose = BLOCK_FOR.search(text.strip()) if untitled else None
        if purpose and not find_times(purpose["what"], now=now):
            # "block 9-11 tomorrow for deep work", "... for the offsite": time for that
            self.title = _clean(trim_edges(purpose["what"], DETERMINERS, trail=False))
        if not _meaningful(self.title) and not named:  # a name given outright stands ("call it Appointment")
            self.title = ""
        if not self.title and untitled and not purpose and blocks_time(text):
            self.title = BLOCKED  # "block my calendar tomorrow from 2 to 4": time held for nothing named
        place = next((s for s in spans if s.slot == "location"), None)
        self.location = _TRAILING.sub("", place.text.strip()) if place is not None else ""
        if (
            other is not None
            and place is not None
            and any(lo < place.end and place.start < hi for lo, hi in other.spans)
        ):
            self.location = ""  # "(he's in London)" says where he is, not where the event is
        for lo, hi in addresses:  # the whole address where the reader took none or a part of it
            if place is None or (lo < place.end and place.start < hi):
                self.location = _TRAILING.sub(
                    "", text[min(lo, place.start if place else lo) : max(hi, place.end if place else hi)]
                )
                break
        home = SOMEONES_PLACE.search(text) if not self.location else None
        if home is not None:
            self.location = home["place"]  # "at Ana's place", which the reader may take for a person's
        self.location = self.location or _named_place(text, self.title, frame, times, now)
        named_place = NAMED_PLACE.search(text) if not self.location else None
        if named_place is not None and named_place["place"].casefold() not in self.title.casefold():
            # "a ride to John F. Kennedy airport": there ("Title it Movie at THE LOT City Center" names it)
            self.location = named_place["place"]
        kind_of_place = _AT_A_KIND_OF_PLACE.search(self.title) if not self.location else None
        if kind_of_place is not None and kind_of_place.start() > 0 and kind_of_place.end() == len(self.title):
            # "meet Ann at the office", which the reader took whole for the title: where, not what
            self.title, self.location = self.title[: kind_of_place.start()].strip(), kind_of_place["place"]
        elif not self.location and (kind_of_place := _AT_A_KIND_OF_PLACE.search(text)) is not None:
            whose, kind = kind_of_place["place"].casefold().split(maxsplit=1)
            if not self.title and frame.titles[:1] == [kind]:
                # "meet ann at the office monday 10", which the reader gave no title or place: the kind of
                # place left over is where it is, not the title the rules would make of it ("Office with Ann")
                self.location = kind_of_place["place"]
            elif self.title.casefold() == kind and frame.titles[:1] and frame.titles[0] != kind:
                # "a meeting with Bo at the coffee shop", which the reader titled 'Coffee shop': where
                # it is, and what it is the rules' word for it ('Meeting with Bo')
                self.title, self.location = "", kind_of_place["place"]
            elif whose != "the" and kind not in self.title.casefold().split():
                # "dinner with Ann on Sunday at 7 at her place": someone's place is where, never a name
                # ("an appointment at the salon" may be one)
                self.location = kind_of_place["place"]
        # "Ann's birthday": Ann's, not an invitation to Ann
        self.people = [p for p in frame.people if p not in frame.owners]
        # the "for deep work" of a block is its purpose, not a person to meet, and "Maggiano's" in
        # "at Maggiano's Little Italy" is the place's name
        self.names = [
            _as_said(n, text)
            for n in frame.person_names
            if not (purpose and n in purpose["what"].casefold()) and n not in self.location.casefold()
        ]
        for name in list(self.names):
            owned = _owned(name, self.title, text)
            if owned:
                # "for john's birthday", "my sister's graduation": theirs, not an event with them
                self.title = owned
                self.names.remove(name)
        unknown = {s.casefold() for s in frame.strangers}
        # (not a word of the name given: 'Lunch with haters')
        self.strangers = [
            n for n in self.names if n.casefold() in unknown and n.casefold() not in self.title.casefold()
        ]
        self.calendar = frame.calendars[0] if frame.calendars else None
        if self.calendar:
            self.title = _off_the_calendar(self.title, self.calendar)

    def anything(self) -> bool:
        return bool(
            self.day or self.at or self.minutes or self.title or self.location or self.people or self.calendar
        )


def _off_the_calendar(title: str, calendar: str) -> str:
    """The title without where it goes, when the words of the new event ran on into it: 'Gym' of "add
    gym to my work calendar" (the tagger's 'Gym to my work'), 'Piano' of "piano on personal"."""
    words = title.split()
    for i, word in enumerate(words):
        if i and word.casefold() in ("to", "on", "in", "into", "onto"):
            rest = [w.casefold() for w in words[i + 1 :] if w.casefold() not in ("my", "the", "our")]
            if rest[:1] == [calendar.casefold()] and rest[1:] in ([], ["calendar"], ["cal"]):
                return " ".join(words[:i])
    return title


def _merge(draft: Draft, said: _Said, tz: ZoneInfo) -> Draft:
    """The draft with what this turn said; a new value replaces an old one (a correction)."""
    update: dict[str, Any] = {}
    for name, value in (
        ("title", said.title),
        ("day", said.day),
        ("at", said.at),
        ("duration_minutes", said.minutes),
        ("location", said.location),
        ("calendar", said.calendar),
    ):
        if value:
            update[name] = value
    if said.people:
        update["attendees"] = list(dict.fromkeys([*draft.attendees, *said.people]))
    if said.names:
        update["people"] = list(dict.fromkeys([*draft.people, *said.names]))
    if said.strangers:
        update["strangers"] = list(dict.fromkeys([*draft.strangers, *said.strangers]))
    if said.all_day:
        update["all_day"] = True
    if said.last_day is not None:
        update["last_day"] = said.last_day
    if said.at:
        update["either_half"] = said.either_half
        update["due"] = said.due
        if said.loose and draft.part is not None and said.part is None:
            # "this morning" said before, "at 8" now: eight in the morning
            update["at"], update["either_half"] = _in_part(said.at, draft.part), False
    elif said.part is not None:
        update["part"] = said.part
    if said.repeat is not None and said.repeat.rule:
        update["repeat"] = said.repeat.rule + until_clause(said.repeat, tz)
        update["repeat_days"] = list(said.repeat.days)
    return draft.model_copy(update=update)


def _in_part(at: str, part: str) -> str:
    """The clock time ``at`` (HH:MM), said without am/pm, in the half of the day ``part`` is in: 8 is
    08:00 in the morning, 20:00 in the evening; at night 9 to 11 are evening hours, 12 to 5 morning."""
    said = time.fromisoformat(at)
    hour = said.hour % 12
    if part in ("afternoon", "evening") or (part == "night" and hour >= 6):
        hour += 12
    return f"{hour:02d}:{said.minute:02d}"


_QUESTIONS: dict[tuple[Asked, ...], str] = {
    ("title", "when"): 'What is it, and when? For example "Dentist appointment on Friday at 3pm".',
    ("title", "time"): "What should I call it, and at what time does it start?",
    ("title",): "What should I call it?",
    ("when",): 'When is it? Give me a day and a time, e.g. "Thursday at 3pm".',
    ("time",): "At what time does it start?",
}


def _question(text: str, draft: Draft | None) -> Decision:
    """A question that keeps the draft so far: the answer completes the same event."""
    update = {"draft": draft.model_dump(mode="json")} if draft is not None else {}
    return Decision(kind="clarify", reply_kind="clarify", text=text, confidence=0.8, context_update=update)


def _ask(draft: Draft, missing: list[Asked]) -> Decision:
    text = _QUESTIONS[tuple(missing)]
    if draft.title and missing == ["when"]:
        text = f'When should I schedule {draft.title!r}? Give me a day and a time, e.g. "Thursday at 3pm".'
    elif draft.title and draft.day is not None and missing == ["time"]:
        text = f"At what time on {format_day(draft.day)} should I schedule {draft.title!r}?"
    return Decision(
        kind="clarify",
        reply_kind="clarify",
        text=text,
        confidence=0.8,
        context_update={"draft": draft.model_dump(mode="json"), "asked": missing[0]},
    )


def _workflow(definition: WorkflowDefinition) -> Decision:
    return Decision(kind="workflow", workflow=definition, confidence=0.85)


def _asking_place(decision: Decision, placed: bool) -> Decision:
    """Without a place, the reply asks for one (it is optional): the next turn may well be the address,
    which the reader then reads knowing it was asked for."""
    return decision if placed else decision.model_copy(update={"context_update": {"asked": "location"}})


def _create(
    draft: Draft, tz: ZoneInfo, *, search: dict[str, Any] | None = None, always_ask: bool = False
) -> Decision:
    """Plan and apply the drafted event; with ``search`` (no time said: ``search_start``,
    ``search_end``, maybe ``day_part``), at the first time in it when the user and its attendees are
    free, outside the protected preferences (``plan_create`` names the nearest when none is)."""
    title = _with_people(draft.title, draft.people)
    params: dict[str, Any] = {"summary": title}
    if search is not None:
        params["start"] = search["search_start"]
        params["search_end"] = search["search_end"]
        for key in ("day_part", "beside"):
            if search.get(key):
                params[key] = search[key]
    elif draft.all_day and draft.at is None:
        assert draft.day is not None
        params["start"] = datetime.combine(draft.day, time(), tz).isoformat()
        params["all_day"] = True
        if draft.last_day is not None:
            params["last_day"] = draft.last_day.isoformat()
    else:
        assert draft.day is not None
        assert draft.at is not None
        params["start"] = datetime.combine(draft.day, time.fromisoformat(draft.at), tz).isoformat()
    if draft.duration_minutes:
        params["duration_minutes"] = draft.duration_minutes
    if draft.attendees:
        params["attendees"] = draft.attendees
    if draft.calendar:
        params["calendar"] = draft.calendar
    if draft.location:
        params["location"] = draft.location
    if draft.repeat:
        params["rrule"] = draft.repeat
    plan = Plan()
    made = plan.add("plan_create", params, id="plan", summary=f"Plan {title}")
    then = [_not_invited(draft)] if draft.attendees and draft.strangers else []
    if not (draft.location or draft.title == BLOCKED):  # time only held ('Busy') takes place nowhere
        then.append(ASK_PLACE)
    apply = plan.add(
        "apply_changes",
        {
            "changes": made.output,
            **({"then_ask": "\n".join(then)} if then else {}),
            # its AM, or the moment it is due, shown first
            **({"always_ask": True} if draft.either_half or draft.due or always_ask else {}),
        },
        id="apply",
        summary="Apply",
    )
    when = format_day(draft.day) if draft.day is not None else "when all are free"
    decision = _workflow(plan.build("create-event", summary=f"Create {title} ({when})", output=apply))
    return _asking_place(decision, bool(draft.location))


def _not_invited(draft: Draft) -> str:
    """Why some of the people named were not invited, where others were ("a sync with Ann and Cy"):
    the title names them, and saying who they are invites them; never a silent drop."""
    names = [n if not n.islower() else n.title() for n in draft.strangers]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    example = names[0].split()[0].casefold()
    addresses = "address" if len(names) == 1 else "addresses"
    return (
        f"I didn't invite {listed}: I don't have their email {addresses}. "
        f'Say "invite {example}@example.com to it" with the real one and I\'ll add them.'
    )


def _without_it_is(said: str) -> str:
    """``said`` without the "it's" an answer to "what is it?" may begin with ("it's lunch with Ann")."""
    rest = after_it_is(said)
    return said if rest is None else rest


def renames_it(outright: re.Match[str] | None) -> bool:
    """Whether a name given outright (the turn's NAMED_OUTRIGHT match) is given to the event the turn
    points at ("call it X", "it's called X", "the title should be X"), not to a new one ("add a meeting
    called X")."""
    if outright is None or outright["title"] is None:
        return False
    return not _THE_EVENT.isdisjoint(tokens(outright.string[: outright.start("title")]))


# The words by which a name given outright points at the event already talked about.
_THE_EVENT = POINTERS | {"it's", "event", "title", "name"}


def draft_turn(
    frame: RequestFrame,
    text: str,
    state: DialogueState,
    reading: TurnReading,
    now: datetime,
    tz: ZoneInfo,
    *,
    continuing: bool,
) -> Decision:
    """Start or continue the draft of a new event with this turn; create it once it is complete."""
    said = _Said(frame, text, reading, now, tz)
    if said.problem:
        return _question(said.problem, state.draft)
    earlier = state.draft
    if not said.title and not continuing and frame.operation == "create":
        # A new request names its own event ("add a meeting with Ann on Friday"), even while another
        # is being described: it is not more of that one ("Deep work with Ann")
        said.title = rule_title(frame, text, said.location)
    if earlier is not None and not (said.title and earlier.title and said.title != earlier.title):
        continuing = True  # "can you add it, at quarter to 7": the same event, asked for again
    elif earlier is not None and renames_it(said.outright):
        continuing = True  # "call it Team lunch", "no, it's called Book club": the same event, named anew
    if not said.title and not continuing:
        said.title = rule_title(frame, text, said.location)
    if continuing and state.asked in ("title", "what") and not said.title:
        # "let's call it lunch", "Dinner with Mom at 7pm" answer "what is it?"; the leftover words of
        # "It will begin at 7 pm" do not, and are taken only from a turn that says nothing else
        rule = rule_title(frame, text, said.location)
        if rule and (
            not said.anything()
            or trim_edges(_without_it_is(normalise(text)), DETERMINERS, trail=False).startswith(
                rule.casefold()
            )
        ):
            said.title = rule
    draft = _merge(state.draft if continuing and state.draft else Draft(), said, tz)
    start_time = draft.at
    if start_time is not None and draft.repeat:
        # a repeating event starts on the first day of its rule that is still ahead (from the day
        # said: "every Saturday starting next week" starts on that Saturday)
        first = first_day(draft.repeat, time.fromisoformat(start_time), now, tz, from_day=draft.day)
        if first is None:
            return _question("I found no day that rule falls on. How often should it repeat?", draft)
        draft = draft.model_copy(update={"day": first})
    elif draft.day is None and start_time is not None:
        focus = state.focus()
        if focus is not None:
            draft = draft.model_copy(update={"day": focus[0].astimezone(tz).date()})
        else:  # a time alone: today if it is still ahead, else tomorrow
            today = now.astimezone(tz).date()
            ahead = datetime.combine(today, time.fromisoformat(start_time), tz) > now
            draft = draft.model_copy(update={"day": today if ahead else today + timedelta(days=1)})
    if draft.people and _only_meeting_them(draft, text):
        draft = draft.model_copy(update={"title": "Meeting"})
    missing = draft.missing()
    if frame.beside is not None and draft.at is None and draft.title and set(missing) <= {"time", "when"}:
        return _beside(draft, frame, tz)
    part = said.part or frame.day_part
    window = everyone_window(text, now, tz) if draft.at is None and draft.title else None
    if window is not None and set(missing) <= {"time", "when"}:
        if draft.day is not None and not _dated_after_cue(text, now):
            # "an hour with Ann on Friday when we're both free": that day, not the next two weeks
            day = datetime.combine(draft.day, time(), tz)
            end = day + timedelta(days=1)
            window = {**window, "search_start": max(day, now).isoformat(), "search_end": end.isoformat()}
        return _create(draft, tz, search=window)  # "a call with Lee when we're both free tomorrow"
    if missing == ["time"] and draft.day is not None and part and draft.title and not frame.past:
        # (not what is over: "had coffee with Omar this morning" was at a time of its own, not the
        # first free one, and is asked for)
        whole = _whole_part(draft, frame, text, tz)
        if whole is not None:  # "block Friday afternoon for planning": all of it
            return _create(whole, tz)
        # "a call on Wednesday evening": the first free time then; "in the late afternoon": in that
        # stretch of it (the frame's range, inside the day, narrower than the part)
        day = datetime.combine(draft.day, time(), tz)
        start, end = day, day + timedelta(days=1)
        if said.hours is not None and said.part == part:
            start, end = (datetime.combine(draft.day, t, tz) for t in said.hours)
        elif part == "night" and frame.start is not None and frame.end is not None:
            # "dinner friday night": that night, from the end of the evening on into the next day, not
            # the small hours that begin the day
            start, end = frame.start.astimezone(tz), frame.end.astimezone(tz)
        window = {"search_start": start.isoformat(), "search_end": end.isoformat()}
        return _create(draft, tz, search={**window, "day_part": part})
    if missing:
        return _ask(draft, missing)
    shown = in_the_week_shown(draft.day, said.day_said, state, now.astimezone(tz).date())
    if shown is not None and draft.day is not None:
        # "add one on Tuesday at noon" after next week was shown: this week's Tuesday or that one's
        asked = (
            f"Which {draft.day:%A} do you mean: {format_day(draft.day)}, or {format_day(shown)} in the "
            f'week you asked about? Say the date, e.g. "{shown:%B} {shown.day}".'
        )
        return _question(asked, draft.model_copy(update={"day": None}))
    return _create(draft, tz)


def _beside_words(text: str, frame: RequestFrame) -> tuple[int, int] | None:
    """Where ``text`` says the event a new one goes beside ("after the dentist"), or None."""
    if frame.beside is None:
        return None
    side, title = frame.beside
    folded = text.casefold()
    at = folded.find(side)
    named = folded.find(title.casefold(), at) if at >= 0 else -1
    return (at, named + len(title)) if named >= 0 else None


def _beside(draft: Draft, frame: RequestFrame, tz: ZoneInfo) -> Decision:
    """A new event placed right after or before the next of an event the calendar has ("a call with Bo
    right after the dentist"): the first free time from its end, or the time that ends at its start,
    shown first (the time is the assistant's reading); a question when none is coming."""
    assert frame.beside is not None
    side, title = frame.beside
    if frame.beside_at is None:
        asked = f"I couldn't find {title!r} coming up on your calendar. When should {draft.title!r} be?"
        return _question(asked, draft)
    start, end = (moment.astimezone(tz) for moment in frame.beside_at)
    length = timedelta(minutes=draft.duration_minutes or 60)
    window = (end, end + _AFTER_AN_EVENT) if side == "after" else (start - length, start)
    placed = draft.model_copy(update={"day": window[0].date()})
    search = {"search_start": window[0].isoformat(), "search_end": window[1].isoformat(), "beside": title}
    return _create(placed, tz, search=search, always_ask=True)


# The absences that take all of the part of the day they are said for.
_AWAY_ALL_OF_IT = ("out of office", "vacation")


def _whole_part(draft: Draft, frame: RequestFrame, text: str, tz: ZoneInfo) -> Draft | None:
    """A part of the day blocked with no length said ("block Friday afternoon for planning", "set
    aside Monday morning") or said to be away ("out of office Friday afternoon", "I'm taking Friday
    afternoon off"): the draft over the whole part, as the frame bounds it; None otherwise."""
    if draft.duration_minutes is not None:
        return None
    if not BLOCKING.match(text.strip()) and away_kind(normalise(text)) not in _AWAY_ALL_OF_IT:
        return None  # (a "conference call" or a trip in the afternoon is a time in it, not all of it)
    if frame.start is None or frame.end is None:
        return None
    start, end = frame.start.astimezone(tz), frame.end.astimezone(tz)
    if start.date() != draft.day or end <= start or end - start > timedelta(hours=12):
        return None
    minutes = int((end - start).total_seconds() // 60)
    return draft.model_copy(update={"at": f"{start:%H:%M}", "duration_minutes": minutes})


def _zones_of(emails: list[str]) -> list[str]:
    """The zones of the people of ``emails`` who are users here."""
    return [user_timezone(user=u) for u in get_user_model().objects.filter(email__in=emails)]


def _dated_after_cue(text: str, now: datetime) -> bool:
    """Whether a day is said with the wish for a time that suits everyone ("when we're both free
    tomorrow"), which then bounds the search itself."""
    norm = normalise(text)
    cue = EVERYONE_CUE.search(norm)
    return cue is not None and any(
        m.has_date and not m.error and m.span[0] >= cue.start() for m in find_times(norm, now=now)
    )


def amend(
    made: EventRef,
    frame: RequestFrame,
    text: str,
    reading: TurnReading,
    now: datetime,
    tz: ZoneInfo,
) -> Decision | None:
    """Change the event just made with the details this turn adds (its place, title or length); None
    when the turn adds none of those ("it's at 5" is a move, which the change rules make)."""
    said = _Said(frame, text, reading, now, tz)
    if said.problem:
        return _question(said.problem, None)
    if not (said.location or said.title or (said.minutes and not said.at)):
        return None
    find = {
        "start": made.start.isoformat(),
        "end": made.end.isoformat(),
        "text": made.summary,
    }
    edit: dict[str, Any] = {}
    if said.title and normalise(said.title) != normalise(made.summary):
        edit["summary"] = said.title
    if said.location:
        edit["location"] = said.location
    if said.minutes:
        edit["duration_minutes"] = said.minutes
    placed = bool(made.location or said.location)
    plan = Plan()
    apply = edit_tasks(plan, find, edit, apply={} if placed else {"then_ask": ASK_PLACE})
    when = format_when(made.start, tz)
    decision = _workflow(plan.build("amend-event", summary=f"Change {made.summary} ({when})", output=apply))
    return _asking_place(decision, placed)
