"""Requests that change what an event is, not when: rename it, put it somewhere, note something on it,
invite or drop people, give it another length or end.

"Rename my 1:1 with Priya to Career chat", "and put it in room 4B", "change the dentist location to 12
Main St", "add a note to the dentist: bring x-rays", "Add Lee to the roadmap review and let him know",
"take Bo off the design review", "shorten my meetings on Thursday to 25 minutes", "the design review
should end at 4:30".
The sentence is split by its verb's frame into the event it names (read like a query, or "it" for
the event the conversation is about) and the new value; the plan is find -> choose -> plan_edit ->
apply (-> notify).  An edit of a recurring event without a date applies to the series (its
occurrences are one candidate), as people mean "rename the standup" of the standup, not of next
Monday's.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from assistant.decomposer.blanks import blanked, blanked_matches
from assistant.decomposer.changes import an_hour_first, notify_step, onward_of, shift_of
from assistant.decomposer.compiler import find_params
from assistant.decomposer.gate import MODEL_LED
from assistant.decomposer.guards import odd_length
from assistant.decomposer.intent import normalise
from assistant.decomposer.reading import Reading
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from assistant.lexicon import (
    DETERMINERS,
    EDGE_WORDS,
    EMAIL,
    EVENT_FIELDS,
    EVENT_NOUNS,
    FIRST_PERSON,
    GENERIC_EVENT_WORDS,
    LINKS,
    MOVE_VERBS,
    NAME_LIST_BREAK,
    PLACE_KINDS,
    POINTERS,
    QUANTIFIERS,
    STOPWORDS,
    STREET_ADDRESS,
    TELL_OTHERS,
    tokens,
    trim_edges,
)
from assistant.nlu import Span, read_edit
from assistant.timeexpr import find_durations, find_times
from workflows.builder import Handle, Plan
from workflows.definition import Decision

__all__ = ["PENDING", "edit_decision", "edit_tasks"]

PENDING = "pending_edit"
"""Context key of an edit waiting for the next turn to say who someone it names is."""

_HORIZON = timedelta(days=365)
_NAME = r"[\w .'&+:/#@-]+?"
_RENAME = re.compile(
    rf"\b(?:rename|retitle)\s+(?P<target>{_NAME})\s+(?:to|as)\s+(?P<title>.+)$"
    rf"|\b(?:change|set)\s+the\s+(?:name|title)\s+of\s+(?P<target2>{_NAME})\s+to\s+(?P<title2>.+)$"
    # "change the design review title to design crit", "change standup's name to daily sync"
    rf"|\b(?:change|set)\s+(?P<target3>{_NAME})(?:'s)?\s+(?:name|title)\s+to\s+(?P<title3>.+)$",
    re.IGNORECASE,
)
_PLACE = re.compile(
    rf"\b(?:put|move|hold|have|set|change)\s+(?P<target>{_NAME})\s+(?:in|into|at)\s+(?P<place>.+)$"
    rf"|\b(?:change|set|move)\s+the\s+(?:location|place|room|venue)\s+of\s+(?P<target2>{_NAME})\s+"
    r"to\s+(?P<place2>.+)$",
    re.IGNORECASE,
)
# The place of the event the conversation is about: "and set the location to the Spree room", "also
# make the location Conference Room B", "oh and it's at Blue Bottle on Market St now".
_LEAD = r"^(?:(?:oh|and|also|ok|okay|then|so|actually)[\s,]+)*(?:please\s+|can you\s+|could you\s+)*"
_WHERE = r"(?:location|place|room|venue|address)"
_PLACE_OF_IT = re.compile(
    rf"{_LEAD}(?:set|change|make|update|put)\s+(?:the\s+)?{_WHERE}\s+(?:to\s+|as\s+|is\s+)?(?P<place>.+)$"
    rf"|{_LEAD}(?:the\s+)?(?:new\s+)?{_WHERE}\s+(?:is|will be|should be)\s+(?:now\s+)?(?P<place2>.+)$"
    rf"|{_LEAD}(?:it'?s|it is|it will be|it'll be|it should be)\s+(?:now\s+)?(?:at|in)\s+(?P<place3>.+?)"
    r"(?:,?\s+now)?$",
    re.IGNORECASE,
)
# The place of an event named: "change the dentist location to 12 Main St", "set the dentist's location
# to ...", "update the location for the dentist to ...", "the dentist's address is now ...".  The word
# "location" says it is a place, whatever it looks like ("12 Main St" is no noon).
_OWNED = r"(?:'s|s'|’s)?"
_PLACE_NAMED = re.compile(
    rf"\b(?:change|set|update|make|switch|edit|fix)\s+(?:the\s+)?(?P<target>{_NAME}){_OWNED}\s+{_WHERE}\s+"
    r"(?:to|as|into)\s+(?P<place>.+)$"
    rf"|\b(?:change|set|update|move|switch|edit|fix)\s+the\s+{_WHERE}\s+(?:of|for|on)\s+(?P<target2>{_NAME})\s+"
    r"(?:to|as)\s+(?P<place2>.+)$"
    rf"|{_LEAD}(?:the\s+)?(?P<target3>{_NAME}){_OWNED}\s+(?:new\s+)?{_WHERE}\s+"
    r"(?:is|will be|should be|has changed to|changed to)\s+(?:now\s+)?(?P<place3>.+?)(?:,?\s+now)?$",
    re.IGNORECASE,
)
# A statement that an event named is somewhere else now: "the dentist is now at 12 Main St", "the
# review moved to the Spree room", "relocate the dentist to ...", "move the dentist to the clinic on 5th
# Ave" (a place, never a time: "the dentist is at 3 now" and "move the dentist to the 5th" are moves).
_PLACE_SAID = re.compile(
    rf"{_LEAD}(?:the\s+)?(?P<target>{_NAME})\s+(?:is|will be|'s|should be|has moved|moved|is moving"
    r"|is being held|will be held|takes place|will take place)\s+(?:now\s+)?(?:at|in|to)\s+(?P<place>.+?)"
    r"(?:,?\s+(?:now|instead))?$"
    rf"|\b(?:move|switch|shift|relocate)\s+(?P<target2>{_NAME})\s+(?:over\s+)?to\s+(?P<place2>.+)$",
    re.IGNORECASE,
)
_PERSON = re.compile(r"^(?:i|we|you|they|he|she|everyone|everybody)$", re.IGNORECASE)
_CALENDAR = re.compile(r"\b(?:calendar|schedule|diary|agenda|planner)\b", re.IGNORECASE)
_NOT_A_NAME = frozenset({"the", "its", "it", "my", "this", "that", "the new", "new"})
# "relocate" says a place even without one of the words below.
_RELOCATE = re.compile(r"\brelocate\b", re.IGNORECASE)
# What makes the end of "move X to ..." a place rather than a time: a street address ("12 Main St", the
# lexicon's STREET_ADDRESS), a numbered street ("5th Ave"), a numbered room or floor, or a word for a
# place ("the clinic", "my office").
_ADDRESS = re.compile(
    STREET_ADDRESS.pattern + r"|\b\d+(?:st|nd|rd|th)\s+(?:st|street|ave|avenue|floor|fl)\b\.?"
    r"|\b(?:room|suite|floor|building|bldg|unit|apt|level|gate|hall|studio|office)\s+#?\d+\w*",
    re.IGNORECASE,
)
_PLACE_NOUN = re.compile(rf"\b(?:{PLACE_KINDS}|(?:my|your|his|her|our|their) place)\b", re.IGNORECASE)
_TIME_NOUN = re.compile(
    r"\b(?:time|times|slot|slots|hour|hours|session|usual|available|availability|free|same)\b", re.IGNORECASE
)
# Notes (the event's description).  Adding keeps what the notes said; "set the description to" replaces
# it; "remove the notes" empties it.  Read on the whole sentence: a note may say "tell" or "email".
_NOTE_WORD = r"(?:notes?|description|comments?|memo)"
_NOTE_SAID = r"(?:\s*[:—–]\s*|\s+-\s+|,?\s+(?:saying|that says|which says|reading|that reads|to say|that)\s+)"
# What is added to an event's notes, said by what it is: a note, or a link or agenda that goes there
# ("add the zoom link to the review: ...").
_NOTE_KIND = r"(?:note|comment|memo|agenda|url|(?:[\w-]+\s+)?link)"
_NOTE_ITSELF = frozenset({"note", "comment", "memo"})
_NOTE_ADD = re.compile(
    # "add a note to the dentist: bring x-rays", "add a note to the dentist saying bring x-rays"
    rf"\b(?:add|put|attach|leave|write|include|make)\s+(?:a|an|this|the|one)?\s*(?P<kind>{_NOTE_KIND})\s+"
    rf"(?:to|on|for|in)\s+(?P<target>{_NAME}){_NOTE_SAID}(?P<note>.+)$"
    # "add a note: bring x-rays" (to the event the conversation is about)
    rf"|{_LEAD}(?:add|put|attach|leave|write|include)\s+(?:a|an|this|the|one)?\s*(?P<kind2>{_NOTE_KIND}){_NOTE_SAID}"
    r"(?P<note2>.+)$"
    # "dentist notes: bring x-rays", "notes for the dentist: bring x-rays"
    rf"|{_LEAD}(?:(?:the\s+)?(?P<target3>{_NAME}){_OWNED}\s+{_NOTE_WORD}|{_NOTE_WORD}\s+(?:for|on|of|to)\s+"
    rf"(?P<target4>{_NAME}))\s*:\s*(?P<note3>.+)$"
    # "put 'bring x-rays' in the dentist's notes", "add bring x-rays to the notes of the dentist"
    rf"|\b(?:put|add|write|include|append|jot down|note)\s+(?P<note4>.+?)\s+(?:in|into|to|on)\s+(?:the\s+)?"
    rf"(?:(?P<target5>{_NAME}){_OWNED}\s+{_NOTE_WORD}|{_NOTE_WORD}\s+(?:of|for|on)\s+(?P<target6>{_NAME}))"
    r"\s*[.!]*$",
    re.IGNORECASE,
)
_NOTE_SET = re.compile(
    rf"\b(?:set|change|update|replace|make|edit)\s+(?:the\s+)?{_NOTE_WORD}\s+(?:of|for|on)\s+(?P<target>{_NAME})\s+"
    r"(?:to|as|with)\s+(?P<note>.+)$"
    rf"|\b(?:set|change|update|make|edit)\s+(?:the\s+)?(?P<target2>{_NAME}){_OWNED}\s+{_NOTE_WORD}\s+(?:to|as)\s+"
    r"(?P<note2>.+)$",
    re.IGNORECASE,
)
# ... and the notes or the place removed ("remove the notes from X", "clear the location of X").
_DROPPED = rf"(?:{_NOTE_WORD}|location|place|address|venue)"
_NOTE_DROP = re.compile(
    rf"\b(?:remove|delete|clear|drop|erase|wipe|take off|take out)\s+(?:the\s+|all\s+(?:the\s+)?)?"
    rf"(?P<field>{_DROPPED})\s+(?:from|of|on|in|for|off)\s+(?P<target>{_NAME})\s*[.!]*$"
    rf"|\b(?:remove|delete|clear|drop|erase|wipe)\s+(?:the\s+)?(?P<target2>{_NAME}){_OWNED}\s+"
    rf"(?P<field2>{_DROPPED})\s*[.!]*$"
    rf"|{_LEAD}(?:remove|delete|clear|drop|erase|wipe)\s+(?:the\s+|all\s+(?:the\s+)?)?(?P<field3>{_DROPPED})"
    r"\s*[.!]*$",
    re.IGNORECASE,
)
# A new end, the start kept: "the design review should end at 4:30", "end X at 4:30", "make X end at
# 4:30", "have X finish at 5", "extend X until 5pm", "X ends at 4:30 now", "change the end of X to 5".
_ENDS = r"(?:end|finish|wrap up|stop|be over|(?:run|go|last) (?:until|till)|run to|go to)"
_END_AT = re.compile(
    rf"{_LEAD}(?:the\s+)?(?P<target>{_NAME})\s+(?:should|will|must|needs? to|has to|can|is going to|is to)\s+"
    rf"(?:now\s+)?{_ENDS}\s+(?P<at>.+)$"
    rf"|{_LEAD}(?:the\s+)?(?P<target2>{_NAME})\s+(?:now\s+)?(?:ends|finishes|wraps up|runs until|runs till"
    r"|goes until|lasts until|is over)\s+(?P<at2>.+)$"
    rf"|\b(?:end|finish|wrap up|close)\s+(?P<target3>{_NAME})\s+(?P<at3>(?:at|by)\s+.+)$"
    # "make it end at 4", "make it until 10", "change it to end at 3", "reschedule the review to end at 10"
    rf"|\b(?:make|have|let|get)\s+(?P<target4>{_NAME})\s+(?:{_ENDS}|until|till)\s+(?P<at4>.+)$"
    rf"|\b(?:change|set|update|reschedule|move|push)\s+(?P<target8>{_NAME})\s+to\s+{_ENDS}\s+(?P<at7>.+)$"
    rf"|\b(?:extend|push|move|change|set|shift|make)\s+(?:the\s+end(?:ing)?(?:\s+time)?\s+(?:of|for)\s+"
    rf"(?P<target5>{_NAME})|(?P<target6>{_NAME}){_OWNED}\s+end(?:ing)?(?:\s+time)?)\s+(?:to|until|till|at)\s+"
    r"(?P<at5>.+)$"
    rf"|\b(?:extend|lengthen|prolong|stretch|keep)\s+(?P<target7>{_NAME})\s+(?:going\s+)?(?:until|till|to|through)\s+"
    r"(?P<at6>.+)$",
    re.IGNORECASE,
)
_END_TAIL = re.compile(r"(?:,?\s+(?:now|instead|please|today))+\s*$", re.IGNORECASE)
# "add Ann to the review", "put Brandon on the list of people attending the meeting at 10" ("put" only
# onto a list: "put the dentist on Friday" is a move)
_INVITE = re.compile(
    rf"\b(?P<verb>add|invite|include|put)\s+(?P<who>{_NAME}(?:,\s*{_NAME})*)\s+(?:to|on|in|into)\s+"
    r"(?P<list>the\s+(?:guest\s+|invite\s+|attendee\s+)?list\s+"
    r"(?:of\s+(?:people\s+(?:attending|coming\s+to)|attendees|guests|invitees)(?:\s+(?:for|of|to))?\s+|for\s+)?)?"
    r"(?P<target>.+)$",
    re.IGNORECASE,
)
_INVITE_IT = re.compile(
    rf"{_LEAD}(?P<verb>add|invite|include)\s+(?P<who>{_NAME})(?P<too>\s+(?:too|as well|also))?\s*[.!]*$",
    re.IGNORECASE,
)
# Someone else who will not come, said as a fact ("Bo can't make it to the offsite", "Ann and Raj won't
# be able to join"): they are taken off the event, shown first.  Not the user ("I can't make it": the
# event is off for them), nor an event that is off ("the review isn't happening").
_ABSENT = re.compile(
    rf"^(?P<who>{_NAME}(?:(?:,\s*|\s+and\s+){_NAME})*)\s+(?:can'?t|cannot|can not|couldn'?t|won'?t|will not"
    r"|isn'?t|is not|aren'?t|are not)\s+(?:be\s+)?(?:able\s+to\s+)?"
    r"(?:make(?: it)?|come|coming|attend|attending|join|joining|go|going|be there)\b"
    r"(?:\s+(?:to|for))?(?P<target>[^,;]*?)[\s.!]*$",
    re.IGNORECASE,
)
_UNINVITE = re.compile(
    rf"\b(?:take|remove|drop|uninvite)\s+(?P<who>{_NAME})\s+(?:off|from|out of)\s+(?P<target>.+)$",
    re.IGNORECASE,
)
_LENGTH = re.compile(
    rf"\b(?:shorten|lengthen|extend|cut|make|change|set)\s+(?P<target>{_NAME})\s+(?:to\s+)?"
    r"(?P<length>(?:\d+(?:\.\d+)?\s*|(?:an?|one|two|three|four|half)\s+(?:[\w-]+\s+){0,3}?)"
    r"(?:minutes?|mins?|hours?|hrs?|h|half))(?:\s+long)?\s*[.!]*$",
    re.IGNORECASE,
)
# "extend the review by 30 minutes", "shorten the standup by 10 minutes", "make the review half an hour
# longer", "add 15 minutes to the standup", "give the standup another 15 minutes": the event's own
# length, changed by that much (never set to it).
_LONGER_BY = re.compile(
    rf"\b(?P<verb>extend|lengthen|prolong|shorten|cut|trim)\s+(?P<target>{_NAME})\s+by\s+(?P<length>.+?)[\s.!]*$"
    rf"|\b(?:make|keep)\s+(?P<both>{_NAME})\s+(?P<way>longer|shorter)[\s.!]*$"
    rf"|\badd\s+(?:another\s+|an?\s+(?:extra|additional)\s+)?(?P<added>{_NAME})\s+(?:more\s+)?(?:on\s+)?to\s+"
    rf"(?:the\s+end\s+of\s+)?(?P<target2>{_NAME})[\s.!]*$"
    rf"|\bgive\s+(?P<target3>{_NAME})\s+(?:another|an?\s+(?:extra|additional))\s+(?P<given>{_NAME})[\s.!]*$",
    re.IGNORECASE,
)
# "make the team sync biweekly", "change my 1:1 to every other week", "switch yoga to weekly"
_REPEAT_EDIT = re.compile(
    rf"\b(?:make|change|set|switch|turn|move)\s+(?P<target>{_NAME})\s+(?:to\s+|into\s+)?(?:be\s+)?"
    r"(?:(?P<two>biweekly|bi-weekly|fortnightly|every other week|every two weeks|every 2 weeks)"
    r"|(?P<one>weekly|every week)|every (?P<n>\d+|three|four) weeks)\b"
    r"(?:\s+instead)?\s*[.!]*$",
    re.IGNORECASE,
)
# The edits whose new value is words of the user's own (a scope said in them is part of them).
_WORDED = frozenset({"summary", "location", "description"})
# Where a new name ends because another request begins: "rename the dentist to Checkup and move it to
# 3" (the name is 'Checkup'; the move is words of their own, previewed as not used).
_NEXT_REQUEST = re.compile(
    r",?\s+(?:and\s+|then\s+)+(?=(?:move|push|shift|reschedule|cancel|delete|remove|make|change|put|set)\s+"
    r"(?:it|them|that|this|the|my)\b|(?:add|invite|include)\s+\w)",
    re.IGNORECASE,
)
_EVERYONE = re.compile(r"\b(?:everyone|everybody|all|attendees|the others|the team)\b", re.IGNORECASE)
_IT = re.compile(r"^(?:it|its|it's|that|this|this one|that one|the event|the meeting)$", re.IGNORECASE)
# A place is not a time: "move it to 3pm" moves; "put it in room 4B" does not.
# Who is meant by a word that names nobody ("take him off it", "he can't come"): asked, never looked up.
_PRONOUNS = POINTERS | {"him", "her", "he", "she", "they"}
_TIMEISH_PLACE = re.compile(r"^(?:the )?(?:morning|afternoon|evening|night|next|same|later|earlier)\b")


@dataclass(frozen=True, slots=True)
class _Edit:
    target: str
    params: dict[str, Any]
    what: str
    who: str = ""  # the people an invite or an uninvite names, as said
    told: str | None = None  # whom "and let ... know" names; None: nobody is told
    # "add Lee to X" and "put X in Y" also read as new events ("add lunch to my calendar"): they edit
    # only an event the calendar has by that name; a length can be given to a day's events too
    by_name_only: bool = True
    # "add Lee" invites only people the directory knows (an email or a name): "add lunch" is no invite
    named_only: bool = False
    # A sentence that is surely this edit ("remove the notes from ..."): an event it names that cannot
    # be found is asked about, never left to another reading (that one would be a deletion).
    asks_which: bool = False
    # Another request follows that this edit does not carry out ("... and move it to 3"): asked first.
    unfinished: bool = False
    # The people taken off in the same edit as ``who`` are invited ("replace woakes with julie")
    off: str = ""
    # ``who`` are taken off rather than invited ("take Bo off the review", "Darren won't be there")
    away: bool = False
    # Read by the models, not the rules: the event is the rest of the words, or the one talked about
    learned: bool = False
    # Said as a fact, not asked for ("Bo can't make it"): what it would change is shown first
    stated: bool = False


def _clean(text: str) -> str:
    return re.sub(r"[\s.!?]+$", "", text.strip())


def _names(who: str) -> list[str]:
    """The names of a list said ("Ann, Raj and Wei")."""
    return [n for n in NAME_LIST_BREAK.split(who.strip()) if n]


def _people(who: str, world: World) -> tuple[list[str], list[str]]:
    """Addresses of the people named, and the names nobody in the directory answers to."""
    emails: list[str] = []
    unknown: list[str] = []
    names = _names(who)
    directory = world.people_named([n.casefold() for n in names if not EMAIL.fullmatch(n)])
    for name in names:
        if EMAIL.fullmatch(name):
            emails.append(name)
        elif directory.get(name.casefold()):
            emails.append(directory[name.casefold()][0].email)
        else:
            unknown.append(name)
    return emails, unknown


def _unquote(text: str) -> str:
    return _clean(text).strip("\"'“”‘’ ")


def _note(text: str) -> _Edit | None:
    """A change to an event's notes: added to ("add a note to X: ..."), set ("set the description of X
    to ..."), or removed ("remove the notes from X"); None when the sentence is about no notes."""
    body = text.strip()
    target, what = "", ""
    params: dict[str, Any] = {}
    if m := _NOTE_DROP.search(body):
        target = m["target"] or m["target2"] or "it"
        if (m["field"] or m["field2"] or m["field3"]).casefold() in EVENT_FIELDS:
            params, what = {"location": ""}, "remove the place"  # "clear the location of the review"
        else:
            params, what = {"description": ""}, "remove the notes"
    elif m := _NOTE_SET.search(body):
        note = _unquote(m["note"] or m["note2"])
        target, params, what = m["target"] or m["target2"], {"description": note}, f"notes: {note}"
    elif m := _NOTE_ADD.search(body):
        note = _unquote(next(m[g] for g in ("note", "note2", "note3", "note4") if m[g]))
        kind = (m["kind"] or m["kind2"] or "note").casefold()
        if kind not in _NOTE_ITSELF and note:
            note = f"{kind[:1].upper()}{kind[1:]}: {note}"  # "Zoom link: zoom.us/j/123": what it is
        target = next((m[g] for g in ("target", "target3", "target4", "target5", "target6") if m[g]), "it")
        params, what = {"description": note, "add_note": True}, f"add a note: {note}"
    if not what or (params.get("add_note") and not params["description"]) or _CALENDAR.search(target):
        return None  # no note said; "put a note in my calendar for Friday: ..." is a new entry
    # "add a note to tomorrow's meeting: ..." names it by its day
    return _Edit(target, params, what, by_name_only=False, asks_which=True)


def _end(target: str, said: str, now: datetime) -> _Edit | None:
    """ "... end at 4:30": the new end as a wall time (either half of the day when no am/pm was said,
    which the plan reads by the event's own start); None when ``said`` is no clock time alone."""
    said = _END_TAIL.sub("", _clean(said))
    said = "at " + re.sub(r"^(?:at|by|until|till|to|through)\s+", "", said, flags=re.IGNORECASE)
    found = [m for m in find_times(said, now=now, daytime=True) if not m.error and m.start is not None]
    if len(found) != 1 or not found[0].has_time or found[0].has_date or found[0].is_interval:
        return None  # "should end at the end of May", "end it on Friday at 5": no end of its own day
    match = found[0]
    if said[match.span[1] :].strip() or match.span[0] != 0 or match.start is None:
        return None  # words after the time that were not understood
    at = match.start
    hour = at.hour % 12 if match.loose else at.hour
    end_at = f"{hour:02d}:{at.minute:02d}"
    params: dict[str, Any] = {"end_at": end_at, "either_half": True} if match.loose else {"end_at": end_at}
    if _PERSON.match(target.strip()):
        return None  # "I need to finish by 5": a person's day, not an event's end
    return _Edit(
        target, params, f"end at {match.text.removeprefix('at ')}", by_name_only=False, asks_which=True
    )


def _masked(place: str) -> str:
    """``place`` with its street addresses blanked: "12 Main St" holds no noon, "5th Ave" no 5th."""
    return blanked_matches(_ADDRESS, place)


def _timeish(place: str, now: datetime, *, at_start: bool = False) -> bool:
    """Whether the place said is a time ("3pm", "the afternoon", "Friday"); with ``at_start`` only a
    time it starts with counts ("Room B, 12th floor" is a place)."""
    if _TIMEISH_PLACE.match(place.casefold()):
        return True
    masked = _masked(place)
    read = find_times(masked, now=now, daytime=True)
    hour = an_hour_first(place)  # "have lunch at 2 instead": an hour, where "at 8 Hindustan Park" is a place
    if at_start:
        return hour or any(t.span[0] == 0 for t in read)
    return bool(hour or read or find_times(f"in {masked}", now=now, daytime=True))


def _placeish(place: str, *, capitals: bool = False) -> bool:
    """Whether the end of "move X to ..." or "X is at ..." names a place: an address, a numbered room,
    a word for a place ("the clinic"), or (with ``capitals``) a name ("Blue Bottle"); never words
    about a time ("my usual gym time", "the next free slot")."""
    if _TIME_NOUN.search(place):
        return False
    return bool(
        _ADDRESS.search(place) or _PLACE_NOUN.search(place) or (capitals and re.search(r"\b[A-Z]", place))
    )


def _place(text: str, now: datetime) -> _Edit | None:
    """A new place for an event, named or "it"; None when the sentence names no place (or a time)."""
    asks = text.rstrip().endswith("?")
    if (m := _PLACE_NAMED.search(text)) and not (asks and m["target3"]):
        place = _clean(m["place"] or m["place2"] or m["place3"])
        target = m["target"] or m["target2"] or m["target3"]
        if target.casefold() in _NOT_A_NAME:
            target = "it"  # "set the location to ...", "change its address to ..."
        # "location" said: a place; asked to change it ("change the location of X to ..."), an edit,
        # asked about when X is not found (a statement, "the location is ...", may describe a new one)
        ordered = not m["target3"]
        return _Edit(target, {"location": place}, f"place: {place}", asks_which=ordered)
    if m := _PLACE_OF_IT.search(text):
        place = _clean(m["place"] or m["place2"] or m["place3"])
        if _timeish(place, now, at_start=True):
            return None  # "it's at 3pm", "it is in the morning": a time; "Room B, 12th floor" a place
        return _Edit("it", {"location": place}, f"place: {place}")
    if (m := _PLACE_SAID.search(text)) and not (asks and m["target"]):
        place = _clean(m["place"] or m["place2"])
        named = _RELOCATE.search(text) or _placeish(place, capitals=bool(m["target"]))
        if named and not _timeish(place, now):
            return _Edit(m["target"] or m["target2"], {"location": place}, f"place: {place}")
    if m := _PLACE.search(text):
        place = _clean(m["place"] or m["place2"])
        target = m["target"] or m["target2"] or ""
        if _timeish(place, now) or re.search(r"\bto\b", target, re.IGNORECASE):
            return None  # "move it to the afternoon", "put it at 3", "... to 9 in two weeks": a move
        return _Edit(target, {"location": place}, f"place: {place}")
    return None


def _longer_by(body: str) -> _Edit | None:
    """An event's length changed by a length said (see ``_LONGER_BY``), or None: the words added or
    given must be a length whole ("add lunch to my calendar" adds no length)."""
    m = _LONGER_BY.search(body)
    if m is None:
        return None
    said = m["length"] or m["both"] or m["added"] or m["given"]
    length = next(iter(find_durations(said)[-1:]), None)  # the length ends what was said
    if length is None or length.minutes <= 0 or length.span[1] != len(said):
        return None
    named = m["target"] or m["target2"] or m["target3"]
    if (m["added"] or m["given"]) and (length.span[0] != 0 or {"calendar", "schedule"} & set(tokens(named))):
        # "add a 30 minute break to it", "add 2 hours to my calendar for writing": a new event with its
        # length, no length added to one
        return None
    target = named or said[: length.span[0]].strip()
    if not target:
        return None
    less = (m["verb"] or "").casefold() in ("shorten", "cut", "trim") or m["way"] == "shorter"
    minutes = -length.minutes if less else length.minutes
    what = f"{abs(minutes)} minutes {'shorter' if less else 'longer'}"
    return _Edit(target, {"longer_minutes": minutes}, what, by_name_only=False)


def _read(text: str, now: datetime) -> _Edit | None:
    """The edit a sentence asks for, or None when it asks for none."""
    note = _note(text)  # before "and let Bo know" is split off: a note may say "tell them ..."
    if note is not None:
        return note
    told = TELL_OTHERS.search(text)
    body = text[: told.start()] if told else text
    whom = told["whom"] if told else None
    if m := _RENAME.search(body):
        said = m["title"] or m["title2"] or m["title3"]
        more = _NEXT_REQUEST.search(said)
        title = _unquote(said[: more.start()] if more else said)  # 'rename yoga to "vinyasa"': Vinyasa
        target = m["target"] or m["target2"] or m["target3"]
        invite = _INVITE_IT.match(said[more.end() :]) if more else None
        if invite is not None:  # "rename X to Y and invite Lee": both, in one change of X
            return _Edit(target, {"summary": title}, f"rename to {title}; invite", invite["who"], whom)
        return _Edit(target, {"summary": title}, f"rename to {title}", unfinished=more is not None)
    if (longer := _longer_by(body)) is not None:  # before an invite: "add 15 minutes to the standup"
        return longer
    if (m := _INVITE.search(body)) and (m["verb"].casefold() != "put" or m["list"]) and _someone(m["who"]):
        # onto an event's list of guests: an event, whether or not a title is said ("the meeting at 10")
        by_name = not m["list"] and not _an_event(m["target"], now)
        return _Edit(
            m["target"], {}, "invite", m["who"], whom, by_name_only=by_name, asks_which=bool(m["list"])
        )
    if m := _INVITE_IT.match(body.strip()):
        # "and invite Ann", "add Lee too": to the event the conversation is about; "add" alone may add
        # an event ("add lunch"), but a name written as one with "too" is someone ("add Ann too")
        someone = bool(m["too"]) and m["who"][:1].isupper()
        return _Edit(
            "it", {}, "invite", m["who"], whom, named_only=m["verb"].casefold() == "add" and not someone
        )
    if (m := _ABSENT.match(body.strip())) and _someone_else(m["who"]):
        target = m["target"].strip(" ,") or "it"
        return _Edit(target, {}, "take off", m["who"], whom, by_name_only=False, away=True, stated=True)
    if m := _UNINVITE.search(body):
        return _Edit(
            m["target"],
            {},
            "take off",
            m["who"],
            whom,
            by_name_only=not _an_event(m["target"], now),
            away=True,
        )
    if (m := _REPEAT_EDIT.search(body)) and not find_times(m["target"], now=now):
        # ("move yoga to 2pm every week" moves the series: its time is no part of the event's name)
        n = m["n"] or ""
        weeks = 2 if m["two"] else 1 if m["one"] else {"three": 3, "four": 4}.get(n.casefold()) or int(n)
        said = {1: "every week", 2: "every other week"}.get(weeks, f"every {weeks} weeks")
        return _Edit(m["target"], {"every_weeks": weeks}, f"repeat {said}")
    if m := _LENGTH.search(body):
        lengths = find_durations(m["length"])  # "90 minutes", "an hour and a half": the whole of it
        # a length in words ends many a new event's description too ("make an item called Team
        # Meeting on Monday at 9:30 and lasting one hour"): taken only of an event said without a time
        in_words = not m["length"][0].isdigit()
        whole = bool(lengths) and lengths[0].span == (0, len(m["length"]))
        if whole and lengths[0].minutes > 0 and not (in_words and find_times(m["target"], now=now)):
            minutes = lengths[0].minutes
            return _Edit(
                m["target"],
                {"duration_minutes": minutes},
                f"{minutes} minutes long",
                by_name_only=False,
                # a length set is an edit, its event asked about when not found; but not where the
                # words taken for the event hold a length too ("make X 1 hour instead of 30 minutes")
                asks_which=not find_durations(m["target"]),
            )
    ends = _END_AT.search(body.strip())
    if ends is not None and not (body.rstrip().endswith("?") and (ends["target"] or ends["target2"])):
        target = next(g for g in (ends[f"target{n}"] for n in ("", 2, 3, 4, 5, 6, 7, 8)) if g)
        said = next(g for g in (ends[f"at{n}"] for n in ("", 2, 3, 4, 5, 6, 7)) if g)
        end = _end(target, said, now)
        if end is not None:
            return end
    return _place(body.strip(), now)


# The least chance the operation model must give an edit, and the edit tagger each word of what it
# gives, for the models' reading of an edit to be taken where the rules read none; it is previewed
# (its confidence is MODEL_LED), never written at once.
_LEARNED = 0.5


def _learned(r: Reading) -> _Edit | None:
    """The edit the models read where the rules read none: the operation model says the turn edits an
    event (or gives a detail of the one talked about) and the edit tagger finds what it gives (a new
    title or place, people invited or taken off, a length set or added: "I need it to be called
    prototyping though", "Kim needs to be there as well", "replace woakes with julie", "it should be 45
    minutes long", "add an hour to that meeting"); the event is what the rest of the words
    name, or the one talked about. None when the models do not agree."""
    # a detail said of the event just talked about, with none being described or just made ("Kim
    # needs to be there as well" after "when is the review?") is an edit of it
    of_shown = r.state.last_events and r.state.draft is None and r.state.made is None
    if r.learned.operation not in ("edit", "detail" if of_shown else "edit"):
        return None
    if r.learned.operation_confidence < _LEARNED:
        return None
    spans, sure = read_edit(r.text, now=r.now)
    if not spans or sure < _LEARNED:
        return None
    people = [s for s in r.learned.spans if s.slot == "person"]
    said: dict[str, list[str]] = {}
    for span in spans:
        if span.slot in ("invited", "uninvited") and not any(
            p.start < span.end and span.start < p.end for p in people
        ):
            return None  # someone the people tagger does not read as a person ("add it", "add him")
        said.setdefault(span.slot, []).append(_unquote(span.text))
    if len(said.get("new_title", [])) > 1 or len(said.get("new_place", [])) > 1:
        return None  # two new names: which one is meant is not read
    params: dict[str, Any] = {}
    what: list[str] = []
    if "new_title" in said:
        params["summary"] = said["new_title"][0]
        what.append(f"rename to {params['summary']}")
    if "new_place" in said:
        params["location"] = said["new_place"][0]
        what.append(f"place: {params['location']}")
    lengths = [_length_minutes(r.text, s) for s in spans if s.slot in ("new_length", "added_length")]
    if len(lengths) > 1 or None in lengths:
        return None  # two lengths, or one the time reader does not read: which is meant is not known
    if lengths and (_new_time_besides(r, spans) or shift_of(r.norm, r.now)[0] or MOVE_VERBS.match(r.norm)):
        # "reschedule the dentist to Friday and include 40 minutes of travel": a move first; "push the
        # review back an hour": the hour is how far it moves, not how long it lasts; "push the review
        # to 4 and make it an hour": the move's own new length
        return None
    if lengths:
        added = any(s.slot == "added_length" for s in spans)
        params["longer_minutes" if added else "duration_minutes"] = lengths[0]
        what.append(f"{lengths[0]} minutes {'longer' if added else 'long'}")
    invited, gone = ", ".join(said.get("invited", [])), ", ".join(said.get("uninvited", []))
    if invited or gone:
        what.append("invite" if invited else "take off")
    target = blanked(r.text, [(s.start, s.end) for s in spans])
    # the event named by its title, or by a day and what it is ("add Ross to the meeting on Tuesday"):
    # both models read an edit, so a day's events are what it edits, not a new event
    return _Edit(
        target,
        params,
        "; ".join(what),
        invited or gone,
        off=gone if invited else "",
        by_name_only=False,
        learned=True,
        away=bool(gone) and not invited,
    )


def edit_tasks(
    plan: Plan,
    find: dict[str, Any],
    params: dict[str, Any],
    *,
    expect_one: bool = True,
    per_series: bool = False,
    following: bool = False,
    what: str = "",
    apply: dict[str, Any] | None = None,
) -> Handle:
    """find -> choose -> plan_edit -> apply: the plan of every edit, whether asked for ("rename the
    standup to ...") or given as a detail of the event just made ("it's at 4045 Castro Valley Blvd");
    the apply step's handle.  ``following``: each series from its first occurrence found on ("make the
    standup 30 minutes from next week on")."""
    scope = "following" if following else "series" if per_series else "occurrence"
    found = plan.add("find_events", find, id="find", summary="Find the event")
    chose = plan.add(
        "choose_event",
        {
            "events": found["events"],
            "action": "Change",
            "expect_one": expect_one,
            "per_series": per_series,
            "outcome": what,
            "scope": scope,
        },
        id="choose",
        summary="Make sure which one",
    )
    edited = plan.add(
        "plan_edit",
        {"events": chose["events"], "scope": chose["scope"], **params},
        id="plan",
        summary=f"Plan the edit ({what})" if what else "Plan the edit",
    )
    return plan.add(
        "apply_changes",
        {"changes": edited.output, "approved": chose["chosen"], **(apply or {})},
        id="apply",
        summary="Apply",
    )


def _a_new_event(who: str, now: datetime) -> bool:
    """Whether what an "add ... to it" adds is an event ("a meeting at 11 am", "an event" of "add an
    event on that day"), not someone: a kind of event said with its time, or with "a" (nobody is)."""
    if EVENT_NOUNS.search(who) is None:
        return False
    return who.split()[:1] in (["a"], ["an"]) or any(t.has_time for t in find_times(who, now=now))


def _told_who(edit: _Edit) -> bool:
    """Whether the rules read people invited or taken off in words that say so ("invite Lee", "take Bo
    off it"), not "add X", which may name a new event, nor the models' reading."""
    return bool(edit.who) and not edit.named_only and not edit.learned


def _who(name: str, *, away: bool) -> str:
    """The question for a person the directory does not know, by what is to be done with them."""
    done = "take them off" if away else "add them"
    if name.casefold() in _PRONOUNS:  # "remove him from my 3pm": not "Who is him?"
        return f"Who do you mean by '{name}'? Give me their name or email address and I'll {done}."
    return f"Who is {name}? Give me their email address and I'll {done}."


def _clarify(text: str) -> Decision:
    return Decision(kind="clarify", reply_kind="clarify", text=text)


def _ask_who(edit: _Edit, onward: datetime | None, name: str, *, away: bool) -> Decision:
    """Who ``name`` is, with the edit kept for the next turn: the answer (an address, or a name the
    directory knows) carries it out, as "Who is Zed? ... I'll take them off" promised."""
    pending = {"edit": asdict(edit), "name": name, "onward": onward.isoformat() if onward else None}
    return _clarify(_who(name, away=away)).model_copy(update={"context_update": {PENDING: pending}})


def _answered(r: Reading) -> Decision | None:
    """The edit waiting on who someone is, with the person the turn names: an email address, or a name
    the directory knows; None for any other turn (read as a turn of its own)."""
    pending = r.context.get(PENDING)
    said = r.text.strip().strip(".!")
    if not isinstance(pending, dict) or not said:
        return None
    if not EMAIL.fullmatch(said) and not r.world.people_named([said.casefold()]).get(said.casefold()):
        return None
    edit = _Edit(**pending["edit"])

    def named(names: str) -> str:
        return ", ".join(said if n == pending["name"] else n for n in _names(names))

    onward = datetime.fromisoformat(pending["onward"]) if pending.get("onward") else None
    return _planned(r, replace(edit, who=named(edit.who), off=named(edit.off)), onward)


def edit_decision(r: Reading) -> Decision | None:
    """A workflow for an edit request, a question about it, or None when the turn is no edit (nor an
    answer or an undo, whose words may look like one)."""
    if (answered := _answered(r)) is not None:
        return answered
    if r.frame.operation in ("yes", "no", "greet", "undo"):
        return None
    # "from next week on", "starting Monday", "going forward": each series changed from then on; not
    # in a new name, place or note ("rename the review starting tomorrow to Budget review")
    onward, rest = onward_of(r.text, r.now)
    edit = _read(rest, r.now) if onward is not None else None
    if edit is None or _WORDED & set(edit.params):
        onward, edit = None, _read(r.text, r.now)
    if edit is not None and edit.who and _a_new_event(edit.who, r.now):
        edit = None  # "can you add a meeting at 11 am to it?" (the day just looked at): an event, no guest
    planned = _planned(r, edit, onward) if edit is not None else None
    if planned is None and (learned := _learned(r)) is not None:
        # the rules read no edit, or one that comes to nothing ("add an hour to that meeting" is
        # no invite of "an hour"): the models' reading, if they read one
        planned = _planned(r, learned, None)
    return planned


def _planned(r: Reading, edit: _Edit, onward: datetime | None) -> Decision | None:
    """The workflow (or the question) of an edit read, or None when it edits no event the turn
    names (the words then mean something else: "add lunch to my calendar")."""
    now, world, context = r.now, r.world, r.context
    target = _clean(trim_edges(edit.target, LINKS, trail=False))
    shown = context.get("last_events") or []
    frame = None if _IT.match(target) else understand(target, now=now, world=world, existing=True)
    named = frame is not None and (frame.title_words or (frame.range_explicit and frame.start is not None))
    if shown and frame is not None and not named:
        # "add Kim to that meeting", "change the title to ...": no event of the calendar by its title
        # or its day, so the one talked about, if one is
        # an edit only the models read is of the one event shown whatever the other words are ("Kim
        # needs to be there as well"): they read it as a detail of that event
        shown = shown if edit.learned and len(shown) == 1 else _talked_about(target, shown)
        if shown:
            target = "it"
    if _IT.match(target) and not shown and r.state.draft is not None:
        return None  # "invite Ann" while a new event is described or shown for approval: its people
    per_series = False
    if (
        _IT.match(target)
        and not shown
        and ("description" in edit.params or "end_at" in edit.params or _told_who(edit))
    ):
        # "take Bo off it" with no event talked about: which one, not a "Great!" or a new event
        example = (
            (f"take {edit.who} off the design review" if edit.away else "invite Lee to the design review")
            if edit.who
            else "add a note to the dentist: bring x-rays"
        )
        return _clarify(f'Which event do you mean? Name it, e.g. "{example}".')
    if _IT.match(target) and shown:
        last = shown[0]
        find: dict[str, Any] = {"start": last["start"], "end": last["end"], "text": last["summary"]}
    else:
        if frame is None:  # "it" with nothing shown: read as words, like any other target
            frame = understand(target, now=now, world=world, existing=True)
        explicit = frame.range_explicit and frame.start is not None and frame.end is not None
        if not frame.title_words and (edit.by_name_only or not explicit):
            if _IT.match(target) and MOVE_VERBS.match(r.norm):
                return None  # "move the standup to 1:30 and make it 30 minutes": the move's own length
            if edit.asks_which:
                return _clarify(f'I couldn\'t tell which event "{target}" is. Name it as your calendar does.')
            return None  # "add lunch to my calendar", "put the dentist in my calendar": no event edited
        start, end = (frame.start, frame.end) if explicit else (now, now + _HORIZON)
        assert start is not None
        assert end is not None
        if onward is not None:
            start, end = onward, max(end, onward + _HORIZON)
        find = find_params(frame, start, end)
        per_series = not explicit or onward is not None
    params = dict(edit.params)
    odd = odd_length(params.get("duration_minutes"))
    if odd:
        return _clarify(odd)
    notify_only: list[str] | None = None
    by_guest_name = False
    if edit.who:
        emails, unknown = _people(edit.who, world)
        given = [m.group(0) for m in EMAIL.finditer(r.text) if m.group(0) not in emails]
        if unknown and not edit.away and len(given) == len(unknown):
            # "add Bo to the review, his email is bo@example.com": the addresses said are theirs, and
            # no guest the event must already have
            emails, unknown = emails + given, []
            if find.get("attendee") in given:
                find = {k: v for k, v in find.items() if k != "attendee"}
        if unknown and edit.named_only:
            return None
        if (
            unknown
            and edit.away
            and edit.told is None
            and _PRONOUNS.isdisjoint(n.casefold() for n in unknown)
        ):
            # "take Bo off the offsite": whom the directory does not know, the event's guest list may
            # (bo@example.com); the skill takes off whom it names, and the change is shown first (to
            # tell them too, their address is asked for)
            emails, by_guest_name = emails + unknown, True
        elif unknown:
            return _ask_who(edit, onward, unknown[0], away=edit.away)
        params["uninvite" if edit.away else "invite"] = emails
        if edit.off:
            gone, unknown = _people(edit.off, world)
            if unknown:
                return _ask_who(edit, onward, unknown[0], away=True)
            params["uninvite"] = gone
        if edit.told is not None:
            notify_only = [] if _EVERYONE.search(edit.told) else emails
    plan = Plan()
    output = edit_tasks(
        plan,
        find,
        params,
        expect_one=not QUANTIFIERS & set(tokens(target)),
        per_series=per_series,
        following=onward is not None and per_series,
        what=edit.what,
        # a server (Google) tells every attendee or none: asked to only when all are to be told;
        # "add Lee and let him know" is mail to Lee alone, sent by the notify step
        apply={
            **({"notify": True} if notify_only == [] else {}),
            **({"always_ask": True} if edit.unfinished or edit.stated or by_guest_name else {}),
        }
        or None,
    )
    if notify_only is not None:
        output = notify_step(plan, output, only=notify_only)
    return Decision(
        kind="workflow",
        workflow=plan.build("edit-event", summary=f"Edit {target} ({edit.what})", output=output),
        confidence=MODEL_LED if edit.learned else 0.8,
    )


def _talked_about(words: str, shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The one event of those just shown that ``words`` refer back to, as a list of it, or none: the
    one shown whose title has a word of theirs ("the lunch" after "Lunch with Ann"), or the only one
    shown when they point at it ("that meeting", "this one", only "the" of "change the title to
    ...") or name it as an event or by what it has ("the appointment", "the title"); never the first
    of several by its place in the list ("add Kim to that meeting" after a list says no one of them)."""
    if _CALENDAR.search(words):
        return []  # "add it to my calendar": a new event, not the one talked about
    said = set(tokens(words))
    titled = [e for e in shown if (said - STOPWORDS) & set(tokens(e.get("summary") or ""))]
    if len(titled) == 1:
        return titled
    pointed = not said - EDGE_WORDS or said & (POINTERS | GENERIC_EVENT_WORDS | EVENT_FIELDS)
    return shown if len(shown) == 1 and pointed else []


def _new_time_besides(r: Reading, spans: tuple[Span, ...]) -> bool:
    """Whether the turn says two days or times apart from the edit's spans: the event's and a new one
    ("reschedule the dentist on the 21st to Friday and include 40 minutes of travel"), a move that
    another handler reads, the length part of it."""
    found = [m for m in find_times(r.text, now=r.now) if not m.error]
    apart = [m for m in found if not any(s.start < m.span[1] and m.span[0] < s.end for s in spans)]
    return len(apart) >= 2


def _an_event(words: str, now: datetime) -> bool:
    """Whether ``words`` say an event without its title ("the meeting on Thursday", "Friday's
    appointment", or by its hour: "my 3pm", "my 2pm on Thursday"): with a day or an hour, the events
    then are the ones meant; never the calendar itself, nor a time not led by "my" or "the" ("add Ann
    on Friday at 7") or not opening with the hour ("add a spa appointment on the 3rd at 10am")."""
    if _CALENDAR.search(words):
        return False
    first, _, rest = normalise(words).partition(" ")
    times = find_times(rest, now=now) if first in DETERMINERS else []
    whole = len(times) == 1 and times[0].span == (0, len(rest))
    by_hour = whole and any(t.has_time and not t.has_date for t in find_times(rest.split()[0], now=now))
    return by_hour or bool(set(tokens(words)) & GENERIC_EVENT_WORDS)


def _someone_else(who: str) -> bool:
    """Whether the words before "can't make it" name people other than the user, each by a name of one
    or two words: not an event ("the review isn't happening"), a pointer ("it can't") or a clause
    ("please note that Greg won't come")."""
    words = tokens(who)
    return (
        bool(words)
        and words[0] not in DETERMINERS | POINTERS
        and not FIRST_PERSON.search(who.casefold())
        and all(len(name.split()) <= 2 for name in _names(who))
    )


def _someone(who: str) -> bool:
    """Whether the words "add" takes may be people: never a length ("add an hour to it") nor what an
    event has ("add the location to the dentist, which is ...")."""
    return not _minutes(who) and not set(tokens(who)) & EVENT_FIELDS


def _length_minutes(text: str, span: Span) -> int | None:
    """The minutes of the length the tagger's words are part of, as the time reader reads it in
    ``text`` ("half an hour" where the tagger took "an hour"), or of the words alone (see
    :func:`_minutes`)."""
    around = [d for d in find_durations(text) if d.span[0] <= span.start and span.end <= d.span[1]]
    if around:
        return around[0].minutes if around[0].minutes > 0 else None
    return _minutes(span.text)


def _minutes(said: str) -> int | None:
    """The minutes of a length said alone ("two hours", "an hour and a half"), or None."""
    found = find_durations(said)
    return found[0].minutes if len(found) == 1 and found[0].minutes > 0 else None
