"""Requests that change calendars: split the sentence into its target, its destination and its extras,
then compile find -> (choose) -> plan -> apply [-> notify].

The split is by cues, not by sentence patterns: a destination follows "to"/"into" or reads as an
offset ("one hour later"), a second action follows "and schedule"/"and notify", an exception follows
"but not".  The target part goes back through :func:`understand`, so every way of naming events that
reads work for queries (dates, day parts, categories, titles, people) works for changes too.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.blanks import blanked
from assistant.decomposer.compiler import find_params
from assistant.decomposer.dayparts import stretch_of_part
from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.guards import unread_time
from assistant.decomposer.intent import normalise
from assistant.decomposer.reading import Reading, SeriesEnd
from assistant.decomposer.recurrence import read_repeat
from assistant.decomposer.shown import in_the_week_shown, nth_shown, shown_span
from assistant.decomposer.understand import list_parts, understand
from assistant.decomposer.world import World
from assistant.lexicon import (
    DAY_PART_WORD,
    DELETE_VERBS,
    DETERMINERS,
    EDGE_WORDS,
    EVENT_NOUNS,
    EVERYONE_CUE,
    EXCEPTING,
    GENERIC_EVENT_WORDS,
    LIGHTEN_CUES,
    LINKS,
    NEW_TIME_LEADS,
    OFFSET_WAYS,
    PICK,
    POINTERS,
    POLITE_PREFIX,
    QUANTIFIERS,
    STOPWORDS,
    TELL_OTHERS,
    WEEKDAY_WORD,
    WHEN_ADVERBS,
    away_kind,
    every_week,
    singular,
    tokens,
    trim_edges,
    weekday_number,
    weekday_of,
    words_pattern,
)
from assistant.nlu import Span, TurnReading, read_new_time
from assistant.timeexpr import TimeMatch, find_durations, find_times
from skills.formatting import format_day, format_time, join_and
from workflows.builder import Handle, Plan
from workflows.definition import Decision, WorkflowDefinition

__all__ = [
    "PENDING_MOVE",
    "compile_change",
    "everyone_window",
    "notify_step",
    "onward_of",
    "shift_of",
    "undo_decision",
    "undo_workflow",
]

PENDING_MOVE = "pending_move"
"""Context key of the words of a move asked where to, which the next turn may answer with a time."""
HORIZON = timedelta(days=365)
# How far ahead "my 9am coffee" looks for the coffee at nine.
_NEXT_AT_TIME = timedelta(days=7)
# How far ahead the events offered to pick from reach when a delete names none ("delete that").
_OFFERED = timedelta(days=7)
_SECOND_CREATE = re.compile(
    r"(?:(?:\b(?:and|then) (?:then )?|[.;] )"
    r"(?P<verb>(?:re-?)?(?:schedule|create|add|book|set|put|make|plan|arrange|move))\b"
    r"|\bwith (?=a new one\b|another\b|a replacement\b))(?P<rest>.*)$"  # "replace X with a new one at 2"
)
# "... and put it on Friday at 10", "... . Reschedule it for 10 AM on Friday": after a cancel, the same
# event goes elsewhere (after "recreate it at 2" or "add it", a new one is made like it); the words
# after the pronoun (and a word leading them in) say where.
_SAME_ONE_VERBS = frozenset({"reschedule", "re-schedule", "schedule", "put", "move", "set"})
_SAME_ONE = re.compile(
    r"^\s*(?:it|that|this one|that one|them|those|these)\s+(?:(?:for|to|on|at)\s+)?(?P<dest>\S.*)$"
)
# Which way a length said beside it moves an event ("back 15 mins", "up an hour", "later by 45m"); a
# length after "by" alone goes the way of the verb: earlier after these, later otherwise.
# Verbs that say which way a move goes: "bring the review forward by an hour", "push the sync 15 minutes".
_WAY_OF_VERB = {"bring": -1, "pull": -1, "advance": -1, "push": 1, "delay": 1, "bump": 1, "postpone": 1}
_DEST = re.compile(
    r"\b(?:to|into|onto|until|till)\b (?P<dest>(?!do\b|be\b|make\b|leave\b|move\b|have\b|go\b).*)$"
)
# Where a destination ends and the target's period resumes: "to mornings for the rest of the month".
_PERIOD_AFTER = re.compile(
    r"\b(?:for|during|over|throughout|in)\s+(?:the\s+)?(?:rest|remainder|next|this|coming)\b"
    r"|\b(?:this|next)\s+(?:week|month)\b"
)
_EVERYONE = EVERYONE_CUE
EVERYONE_DAYS = 14
"""How far a search for a time that suits everyone looks when the turn names no period."""
# A clock time said without am/pm, a day part or a 24-hour reading: "8", "at 8:30", "to 11".
_BARE_HOUR = re.compile(r"(?:(?:at|to|for|by)\s+)?(?P<hour>\d{1,2})(?:[:.]\d{2})?(?:\s*o'?clock)?")
_SAME_TIME = re.compile(r"\bsame (?:times?|hours?)\b")
# An exception that names people, not a title: "except the one with Lee", "but not Bo's".
_WITH_WHOM = re.compile(
    r"^(?:(?:one|ones|meeting|meetings|event|events|call|calls)\s+)?with\s+(?P<who>[\w.' -]+)$"
    r"|^(?P<owner>[\w-]+)'s(?:\s+\w+)?$"
)
# "..., can you make it 5 instead": the event was named before, "it" is it and the rest the destination.
_MAKE_IT = re.compile(
    r"(?:[,;]\s*|\s+)(?:(?:can|could|would) you\s+|please\s+)*(?:make|move|change|push|put|set|shift|bump)"
    r" (?:it|that|this)\s+(?:to\s+|for\s+|at\s+)?(?P<dest>.+)$"
)
_AFTERTHOUGHT = re.compile(r"[\s,]+(?:instead|please|then|though|if possible|if you can)\s*[.!?]*$")
_IT = re.compile(
    r"^(?:(?:actually|ok|okay|no|then|oh|hmm|wait|sorry|so|just|please|(?:can|could|would) (?:you|we))"
    r"[\s,]+)*(?:make|move|change|push|put|set|shift|bump|reschedule) "
    r"(?:it|that|this|the event|the time|the start(?: time)?)\b"
)
# "delete it", "remove them", "cancel both", "delete all of them": the events the conversation last
# showed, when it names no other (one, or all of them: ``every``, ``both`` and a plural ``which``).
_SHOWN_ONES = re.compile(
    r"\b(?:delete|remove|cancel|drop|erase|scrap|clear|get rid of|take out)\s+"
    r"(?:(?P<every>all|both|each)(?:\s+of)?\s+)?(?P<which>it|that|this|them|those|these|both)\b(?P<both>\s+(?:all|both))?"
    r"(?!\s+(?:week|month|year|weekend|morning|afternoon|evening|night|\w+day|time|one)\b)"
)
_THEY = frozenset({"them", "those", "these", "both"})
_PLURAL = re.compile(r"\b(?:all|every|everything|each|both)\b|\b\w+(?:ings|es|s)\b")
_EVERYTHING = re.compile(
    r"\b(?:everything|(?<!from )(?<!off )(?<!in )(?<!on )my (?:whole |entire )?calendar|clear|"
    r"(?:all|every)(?: of)?(?: my| the)? (?:events?|appointments?|entries|entry|items?|things?|stuff))\b"
)
# "clear Friday for travel": the day is emptied and blocked for the reason ("for Friday" is no reason).
_CLEARING = re.compile(r"\b(?:clear|wipe|empty|free up|block)\b")
_FOR_WHY = re.compile(r"\bfor (?P<why>[a-z][\w ]*?)(?= and\b|[,.;:!?]|$)")
# Ends of a clause: punctuation (not the dots of "a.m." or "12.30"), "but", "except", "and leave".
_CLAUSE_BREAK = re.compile(
    r"[,;?!(—–]| - |(?<![ap]\.m)\.(?=\s|$)|\bbut\b|\bexcept\b|\band (?=leave|keep|don't|do not|not|skip)"
)
_SINGULAR_NOUNS = frozenset({"meeting", "class", "event", "appointment", "one", "lecture", "lab"})


def _told_by_name(whom: str, world: World) -> list[str]:
    """The addresses of the people "and let Ann know" names, as the directory knows them (each name
    one person); none for "and tell everyone", "and let them know": every attendee is told."""
    named = world.people_named([w for w in tokens(whom) if w not in STOPWORDS])
    return [people[0].email for people in named.values() if len(people) == 1]


def notify_step(plan: Plan, apply: Handle, **params: Any) -> Handle:
    """The step that mails the people a change affects, after the apply step."""
    return plan.add(
        "notify_attendees",
        {"result": apply.output, **params},
        id="notify",
        summary="Tell the people affected",
    )


_CLAUSE_END = r"(?:,?\s+(?:though|please|of course|thanks))?\s*(?=$|[,.;!?])"
_EXCEPTIONS = (
    # "..., apart from the catch-up with Chloe", "except for the crit", "other than Tom's"
    re.compile(rf"(?:[,;]\s*|\s+)(?:(?:but|and)\s+)?{EXCEPTING}\s+(?P<what>[^,.;!?]+?)" + _CLAUSE_END),
    # "Not the one with Tom though." as a sentence or clause of its own
    re.compile(
        r"(?:^|[.!?]\s+|[,;]\s*)(?:but\s+)?not\s+(?P<what>(?:the|my|that|those)\s+[^,.;!?]+?)" + _CLAUSE_END
    ),
    # "Leave the design crit where it is.", "but keep the 1:1 as it is", "but keep the standup" (after
    # "but", keeping needs no "as it is"; after "and" it does: "and keep it short" keeps no event)
    re.compile(
        r"(?:(?:^|[.!?]\s+|[,;]\s*|\s+(?:but|and)\s+)(?:please\s+)?(?:leave|keep)\s+(?P<what>[^,.;!?]+?)\s+"
        r"(?:where (?:it is|they are)|alone|as (?:it is|they are|is)|in place|untouched)"
        r"|\s+but\s+(?:please\s+)?(?:leave|keep)\s+(?P<kept>[^,.;!?]+?))" + _CLAUSE_END
    ),
    # "don't move the standup", "but do not touch the lab"
    re.compile(
        r"(?:^|[.!?]\s+|[,;]\s*|\s+(?:but|and)\s+)(?:please\s+)?(?:don'?t|do not|never)\s+"
        r"(?:move|touch|change|shift|cancel|delete)\s+(?P<what>[^,.;!?]+?)" + _CLAUSE_END
    ),
)


def _said_when(what: str) -> bool:
    """Whether an exception names days or a part of the day ("on Mondays", "mornings", "weekends"),
    which the target's reading takes as weekdays left out, not as a title."""
    said = WEEKDAY_WORD.search(what) or DAY_PART_WORD.search(what)
    return said is not None or not {"weekend", "weekends"}.isdisjoint(tokens(what))


def _exception(norm: str, now: datetime) -> tuple[str, str]:
    """What a bulk change is told to leave alone, in any of the ways people say it, and the text
    without it.  One named by a day or a part of the day ("don't touch the ones on Mondays", "except
    the 12th") stays in the text: the target's reading takes it as excluded weekdays or dates."""
    for pattern in _EXCEPTIONS:
        m = pattern.search(norm)
        what = m and next(g for g in m.groups() if g is not None)
        if m is None or not what or _said_when(what) or _is_a_day(what, now):
            continue
        rest = f"{norm[: m.start()].strip()} {norm[m.end() :].strip()}".strip(" ,;")
        return what.strip(), rest
    return "", norm


def _is_a_day(said: str, now: datetime) -> bool:
    """Whether ``said`` is one day and nothing else ("the 12th", "tomorrow", "March 9")."""
    found = _times(said, now)
    return len(found) == 1 and found[0][0].grain == "day" and not said.replace(found[0][0].text, "").strip()


def _leave_out(excluded: str, world: World, now: datetime) -> dict[str, Any]:
    """The filter that leaves out what an exception names: people's events, titles ("the crit" is the
    calendar's "Design crit"), a category ("except classes"), or else the words themselves; each item
    of a list ("except standups and yoga", "the ones with Ann and Omar") when its items name more
    titles than the whole."""
    excluded = trim_edges(excluded, DETERMINERS, trail=False)
    whom = _WITH_WHOM.match(excluded)
    if whom is not None:
        found: list[str] = []
        for name in list_parts((whom["who"] or whom["owner"]).strip()):
            found += [p.email for p in world.people_named([name]).get(name) or []] or [name]
        return {"exclude_attendees": found}
    frame = understand(excluded, now=now, world=world)
    parts = list_parts(excluded)
    if len(parts) > 1:
        each: dict[str, Any] = {}
        for part in parts:
            for key, value in _leave_out(part, world, now).items():
                each[key] = [*each.get(key, []), *value] if isinstance(value, list) else each.get(key, value)
        if len(each.get("exclude_text", [])) > len(frame.titles if frame.title_words else []):
            return each
    if frame.titles and frame.title_words:
        return {"exclude_text": list(frame.titles)}
    if frame.category in ("class", "meeting"):
        return {"exclude_category": frame.category}  # "except classes": keeping more, never less
    return {"exclude_text": [excluded]}


# "cancel the 2pm", "move the one at 2:30": a shown event picked by its start ("the 2 meetings" is no pick).
_AT_PICK = re.compile(
    r"\b(?:the|that) (?:one (?:at )?)?(?P<hour>\d{1,2})(?::(?P<minute>\d\d))? ?(?P<half>am|pm)?"
    r"(?=[\s?.!,]|$)(?! ?(?:meetings|events|classes|appointments|of|days|weeks|hours|minutes)\b)"
)


def _shown_at(at: re.Match[str], shown: list[dict[str, Any]], tz: ZoneInfo) -> list[dict[str, Any]]:
    """The shown events that start at the clock time ``at`` says (either half of the day without am/pm)."""
    hour, minute = int(at["hour"]), int(at["minute"] or 0)
    starts = [datetime.fromisoformat(e["start"]).astimezone(tz) for e in shown]
    return [
        e
        for e, s in zip(shown, starts, strict=True)
        if s.minute == minute
        and (
            s.hour == hour % 12 + (12 if at["half"] == "pm" else 0)
            if at["half"]
            else s.hour % 12 == hour % 12
        )
    ]


def _picked(
    norm: str, shown: list[dict[str, Any]], tz: ZoneInfo
) -> tuple[dict[str, Any] | None, str, list[dict[str, Any]]]:
    """The shown event a turn picks by position ("the second one"), by its start ("the 2pm", when one
    shown event starts then) or points at ("that one", when one was shown; "the other one" of two);
    for a pick by its start, the words that picked it, which name no day ("cancel the 11" after a
    list with an 11 o'clock event is that event, not one on the 11th); and the shown events that start
    at the time said when more than one does ("cancel the 2pm" of two at 2: which, to ask)."""
    at = _AT_PICK.search(norm) if shown else None
    hits = _shown_at(at, shown, tz) if at is not None else []
    if at is not None and len(hits) == 1:
        return hits[0], at[0], []
    tied = hits if len(hits) > 1 else []
    m = PICK.search(norm)
    if m is None or not shown:
        return None, "", tied
    nth = m["nth"]
    if nth == "other":
        return (shown[1] if len(shown) == 2 else None), "", tied
    if nth is None:
        return (shown[0] if len(shown) == 1 else None), "", tied
    return nth_shown(nth, shown), "", tied


# What a search leaves out when the target's reading found an exception ("except the one on Thursday").
_EXCEPTED = frozenset(
    {"exclude_weekdays", "exclude_text", "exclude_places", "exclude_category", "exclude_attendees"}
)
_MOVE_TO = frozenset({"shift_minutes", "to_date", "to_weekday", "at_time", "either_half"})
"""Move params whose new time is known before planning (a free-time search's is not)."""


_ONWARD = re.compile(
    r"(?:,\s*)?\b(?:(?P<now>from now on|going forward|from here on(?: out)?|for all future ones"
    r"|for good|permanently|forever|once and for all|any ?more)"
    r"|(?:starting|beginning|effective)(?: from| on| with)? (?P<from>[^,.;]+?)"
    r"|from (?P<from2>[^,.;]+?) on(?:wards?)?)(?=\s*(?:$|[,.;]))",
    re.IGNORECASE,
)


# "move yoga to Wednesdays from next week": "from" after the destination, without "on", starts the
# change when it names a coming week or month, or any day after a weekly destination ("to Thursdays
# from Sept 1"); "move the 1:1 to Friday from Thursday" names where it comes from.
_ONWARD_FROM = re.compile(
    r"\bto\b.+?(?P<cue>,?\s*\bfrom (?P<from>next (?:week|month)|the (?:week|month) after(?: next)?"
    r"|(?P<date>[^,.;]+?)))\s*[.!]*$",
    re.IGNORECASE,
)


def onward_of(norm: str, now: datetime) -> tuple[datetime | None, str]:
    """When "from now on" or "starting next week" starts a change of every later occurrence, and the
    text without it; (None, text) when the turn says no such thing or its day cannot be read."""
    m = _ONWARD.search(norm)
    if m is None:
        onward, rest = _onward_from(norm, now)
        repeat = read_repeat(norm, now) if onward is None else None
        said_last = repeat is not None and set(norm[max(b for _, b in repeat.spans) :].split()) <= {"now"}
        if repeat is not None and said_last and not repeat.days and repeat.until is None:
            # "move standup to 9:30 every day", "make it 15 minutes daily now": said of the change, last,
            # every one from the next on ("the monthly team meeting" names the event; a weekday said,
            # "to every Wednesday", is where the series goes, read as the destination)
            return now, " ".join(blanked(norm, repeat.spans).split())
        return onward, rest
    rest = f"{norm[: m.start()].strip()} {norm[m.end() :].strip()}".strip()
    if m["now"]:
        return now, rest
    found = _times(m["from"] or m["from2"], now)
    if not found:
        return None, norm
    return max(found[0][1], now), rest


# Words that may follow a clock time in a destination, part of a time or not ("to 3 with Bo", "to 9
# every day"): no address goes on with them.
_AFTER_A_TIME = re.compile(
    r"(?:instead|please|then|and|but|or|with|for|so|if|because|sharp|again|every|each|on|in|at|from|starting"
    r"|beginning|until|till|through|this|next|tomorrow|today|tonight|same|ish|o'clock|oclock)"
)


def _weekday_from(destination: str, onward: datetime) -> date | None:
    """ "to Wednesdays" from a day on: the first such weekday on or after that day (the series'
    first occurrence in its new place); None when the destination names no weekday."""
    said = WEEKDAY_WORD.search(destination)
    if said is None:
        return None
    day = onward.date()
    return day + timedelta(days=(weekday_of(said[1]) - day.weekday()) % 7)


def an_hour_first(text: str) -> bool:
    """Whether ``text`` opens with a bare number that only a clock time is: alone, or before a word that
    follows clock times and never goes on with an address ("2 instead of 12", "3 with Bo"; not "8
    Hindustan Park")."""
    said = re.match(r"^(?:at\s+)?\d{1,2}(?::\d\d)?(?:\s+(?P<word>[a-z][\w'-]*)|[\s.!?]*$)", text.casefold())
    return said is not None and (said["word"] is None or bool(_AFTER_A_TIME.fullmatch(said["word"])))


def _number_then_words(destination: str, now: datetime) -> str | None:
    """A question when a destination starts with a number followed by words no time reading takes:
    "to 12 Maple" may be an address, and a place that begins with a number is never a move."""
    said = re.match(r"^(?:at\s+)?\d{1,5}[a-z]?\s+(?P<word>[a-z][\w'-]*)", destination)
    if said is None or _AFTER_A_TIME.fullmatch(said["word"]):
        return None
    read = [m.span for m, _ in _times(destination, now)]
    lo, hi = said.span("word")
    if any(a <= lo and hi <= b for a, b in read):
        return None  # "to 11 tomorrow", "to 5 on friday"
    place = destination.split(",")[0].strip()
    return (
        f'Is "{place}" a place or a time? Say "set the location to {place}" to change where it is, or a '
        'time such as "to 12pm" to move it.'
    )


def _names_another(after: str, shown: list[dict[str, Any]], now: datetime) -> bool:
    """Whether the words after "delete that" or "move that" name an event by a word none of those shown
    has in its title ("that date night", "that dentist appointment to Friday"), rather than only
    pointing ("that one", "that please", "it to the 22nd", "it 11"): the words up to the first link
    word, times and numbers left out."""
    said = [
        w for w in tokens(blanked(after, [m.span for m in find_times(after, now=now)])) if not w.isdigit()
    ]
    ends = next((i for i, word in enumerate(said) if word in LINKS), len(said))
    named = set(said[: min(ends, 3)]) - STOPWORDS - GENERIC_EVENT_WORDS - EDGE_WORDS - WHEN_ADVERBS
    titles = {word for event in shown for word in tokens(event.get("summary") or "")}
    return bool(named) and not named & titles


def _onward_from(norm: str, now: datetime) -> tuple[datetime | None, str]:
    """ "... to Wednesdays from next week": like :func:`onward_of`, for a "from" after the destination."""
    after = _ONWARD_FROM.search(norm)
    if after is None:
        return None, norm
    if after["date"]:
        said = WEEKDAY_WORD.search(norm, after.start(), after.start("cue"))
        if said is None or not every_week(said[1]):
            return None, norm  # "to Friday from Thursday": where it comes from
    found = _times(after["from"], now)
    if not found:
        return None, norm
    return max(found[0][1], now), norm[: after.start("cue")].strip()


_ENDING = re.compile(
    r"^(?:(?:please|can you|could you|i want to|i'd like to)\s+)*"
    r"(?:(?:end|stop|finish|discontinue)\s+(?P<target>.+?)|(?:make|have|let)\s+(?P<target2>.+?)\s+(?:end|stop))"
    r"\s+(?:after|at the end of|by the end of|in|on)\s+(?P<when>[^,.;!?]+?)[.!?]*$"
)


def series_end(text: str, now: datetime) -> SeriesEnd | None:
    """ "End the history seminar after April", "make the standup stop at the end of May": the same as
    cancelling every occurrence from the day after that period on, which is how the turn is read then
    (a series is cut, its past kept).  None when the turn says no such thing."""
    m = _ENDING.match(normalise(text))
    if m is None:
        return None
    found = [t for t, _ in _times(m["when"], now) if t.end is not None]
    if not found or any(t.has_time for t in found):
        return None  # "end the review on Thursday at 4:30" ends that meeting earlier, it cancels nothing
    end = found[0].end
    assert end is not None
    return SeriesEnd(target=m["target"] or m["target2"], onward=max(end, now))


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _any_day_at(frame: RequestFrame) -> datetime | None:
    """The clock time of an event named by something besides a time said with no day ("move my 9am
    coffee"): the next one then, today's or a later day's, not only today's."""
    return frame.at_time if frame.time_only and (frame.title_words or frame.category) else None


def _range_of(frame: RequestFrame, now: datetime) -> tuple[datetime, datetime]:
    if _any_day_at(frame) is not None:  # find keeps those starting then (see compile_change)
        return now.replace(hour=0, minute=0, second=0, microsecond=0), now + _NEXT_AT_TIME
    if frame.start is not None and frame.end is not None and frame.range_explicit:
        return frame.start, frame.end
    return now, now + HORIZON


def _target_frame(text: str, now: datetime, world: World, learned: TurnReading | None = None) -> RequestFrame:
    """The target part read like a query, with a bare time joined to a bare date ("10am ... tomorrow"),
    and with what the exclusion tagger read the turn as leaving out ("delete everything next week that
    isn't in Seattle"): of the learned reading only that, and the places that tell a place left out
    from a title, are passed on, since the target's words are read by the rules."""
    only = (
        TurnReading(
            acts=frozenset(),
            intent=None,
            spans=tuple(s for s in learned.spans if s.slot == "location"),
            excluded=learned.excluded,
            excluded_confidence=learned.excluded_confidence,
        )
        if learned is not None and learned.excluded
        else None
    )
    frame = understand(text, now=now, world=world, reading=only)
    matches = _times(text, now)
    timed = [at for m, at in matches if m.has_time and not m.has_date and not m.is_interval]
    dated = [at for m, at in matches if m.has_date and not m.has_time]
    if timed and dated:
        at = datetime.combine(dated[0].date(), timed[0].timetz())
        frame.start, frame.end, frame.range_explicit = at, at + timedelta(minutes=1), True
    elif timed and not dated and frame.start is not None:
        frame.start, frame.end = timed[0], timed[0] + timedelta(minutes=1)
    return frame


# A day's hours before a time, as the time resolver reads "Tuesday before 1 PM" or "before noon tomorrow".
_BEFORE_ON_A_DAY = re.compile(r"(?:^|\s)before\s")


def _times(text: str, now: datetime) -> list[tuple[TimeMatch, datetime]]:
    """The resolved time expressions of ``text`` with their starts (impossible dates left out)."""
    found = find_times(text, now=now, daytime=True)
    return [(m, m.start) for m in found if not m.error and m.start is not None]


def _is_plural(target: str, frame: RequestFrame) -> bool:
    if frame.title_words:
        # "all my standups", "the biology labs", "my calculus lectures" (any word of the title said in
        # the plural): every occurrence of the title
        words = {w for title in frame.titles for w in tokens(title)} | set(frame.title_words)
        said_plural = any(words_pattern(w + ending).search(target) for w in words for ending in ("s", "es"))
        return said_plural or _kinds_after(target, words) or bool(QUANTIFIERS & set(tokens(target)))
    words = set(tokens(target))
    if words & _SINGULAR_NOUNS and not QUANTIFIERS & words:
        return False
    return bool(_PLURAL.search(target))


def _kinds_after(target: str, words: set[str]) -> bool:
    """Whether a word of the title is followed by a kind of event in the plural ("my yoga classes",
    "the standup meetings", "dentist appointments"): every occurrence of the title."""
    said = tokens(target)
    return any(
        word in words and singular(kind) != kind and EVENT_NOUNS.fullmatch(singular(kind))
        for word, kind in pairwise(said)
    )


def _days_listed(norm: str, now: datetime) -> bool:
    """Whether the turn lists days with "and" ("cancel yoga on tuesday and thursday"): the events of
    each, not one of them to pick ("tuesday or thursday" is one)."""
    dated = [m for m, _ in _times(norm, now) if m.has_date and not m.is_interval]
    return any(norm[a.span[1] : b.span[0]].strip(" ,") in ("and", "&") for a, b in pairwise(dated))


def _over_a_stretch(norm: str, now: datetime, frame: RequestFrame) -> bool:
    """ "cancel standup for the rest of the week", "skip yoga for March": days said as how long the
    change lasts ("for") hold every occurrence of the title named in them, not one to pick ("the
    meeting for next week" is one meeting: no title, so "for" may say which)."""
    if not frame.title_words or not frame.range_explicit or frame.start is None:
        return False
    for m, start in _times(norm, now):
        said_for = m.text.startswith("for ") or norm[: m.span[0]].endswith("for ")
        # the stretch the target is looked for in ("move the standup for this week to 10" is no range
        # of the search: one standup, asked about)
        if said_for and m.end is not None and m.end - start > timedelta(days=1) and frame.start >= start:
            return True
    return False


def _whole_span(frame: RequestFrame) -> bool:
    """ "cancel next Friday", "cancel tomorrow afternoon": a span named with no event in it singled out
    means all that is in it."""
    narrowed = frame.title_words or frame.category or frame.people
    return frame.range_explicit and frame.at_time is None and not narrowed


def _reason(norm: str, now: datetime, everything: bool) -> str:
    """Why a day is cleared ("clear Friday for travel"), when it is cleared: the block's title.
    "for Friday" or "for the rest of the month" is no reason, and "travel next Friday" is "travel"."""
    # the first word of emptying, whether it deletes ("cancel") or only clears ("free up", "block")
    clearing = _CLEARING.search(norm)
    verb = min(filter(None, (DELETE_VERBS.search(norm), clearing)), key=re.Match.start, default=None)
    if verb is None or not (everything or clearing):
        return ""
    for m in _FOR_WHY.finditer(norm, verb.end()):
        why = m["why"].strip()
        found = find_times(why, now=now)
        if found:
            why = why[: found[0].span[0]]
        why = trim_edges(why, EDGE_WORDS, lead=False)
        if why and not _EVERYTHING.fullmatch(why):
            return why
    # "I'm travelling next Friday, cancel everything that day": the reason said without "for".
    return away_kind(norm) or ""


def shift_of(norm: str, now: datetime) -> tuple[int, str]:
    """The offset a move says ("an hour later", "back by 30 min", "by 1h") in minutes, signed, and the
    text without it; a bare "by an hour" goes the way of the verb ("delay" later, "bring forward" earlier).

    The time resolver reads both: "an hour later" is a time an hour from now to it, "back 15 mins" a
    length with a word of which way beside it."""
    for match in find_times(norm, now=now):
        said_way = match.text.split()[-1] in OFFSET_WAYS
        if match.start is None or match.grain not in ("minute", "second") or not said_way:
            continue
        lo, hi = match.span
        # from now as the resolver counted it: to the minute (or second) the match is read at
        said_from = now.replace(second=now.second if match.grain == "second" else 0, microsecond=0)
        minutes = round((match.start - said_from).total_seconds() / 60)
        return minutes, f"{norm[:lo].strip()} {norm[hi:].strip()}".strip()
    verbs = _ways_said(norm)
    for length in find_durations(norm):
        lo, hi = length.span
        before, after = norm[:lo].split(), norm[hi:].split()
        by = bool(before) and before[-1] == "by"
        if by:
            before.pop()
        way = OFFSET_WAYS.get(after[0]) if after else None
        if way is not None:
            after.pop(0)
        elif before and before[-1] in OFFSET_WAYS:
            way = OFFSET_WAYS[before.pop()]
        led = length.text.split()[0] in LINKS or (bool(before) and before[-1] in LINKS)
        # "... and make it an hour": what the event is made, said of it, not how far it goes
        made = bool(before) and before[-1] in POINTERS
        if way is None and not by and (after or not verbs or not before or led or made):
            continue  # "move the sync 15 minutes": which way is not said; "push it to 3 for an hour"
        if way is None:
            way = verbs[0] if verbs else 1
        return way * length.minutes, " ".join([*before, *after])
    return 0, norm


def _destination(norm: str, now: datetime, said: str | None) -> tuple[str, str]:
    """Where a move goes ("to Friday at 3pm", "for Friday") and the target's text without it.

    A destination led by "to" runs to the end of its clause; what follows still narrows the target
    ("to mornings, but not the ones on Mondays", "to mornings for the rest of the month"). Any other
    is the new time the move tagger reads in what the user ``said`` (see :mod:`assistant.nlu.moves`;
    None when the turn was restated) after a word
    that makes it one: "reschedule my call on Monday for Tuesday at 10", "make the review be at 9 next
    Wednesday"."""
    dest = _DEST.search(norm)
    everyone = _EVERYONE.search(norm)
    if dest is None and everyone is not None:
        # "reschedule the budget review for when everyone is free", "... when we're all free next
        # week": the destination is the search, from its cue to the end of its clause.
        destination, _, rest = _clause_split(norm[everyone.start() :], now)
        before = trim_edges(norm[: everyone.start()], LINKS, lead=False)
        return destination, f"{before} {rest}".strip()
    if dest is None:
        return _learned_destination(norm, read_new_time(said, now=now)[0] if said else None)
    destination, _, rest = _clause_split(dest["dest"], now)
    return destination, f"{norm[: dest.start()].strip()} {rest}".strip()


def _learned_destination(norm: str, learned: Span | None) -> tuple[str, str]:
    """The tagger's new time, as it stands in ``norm`` (the turn as normalised and narrowed), and the
    text without it and the words that lead it in; ("", norm) when it read none, its words are no
    longer there or no word of :data:`NEW_TIME_LEADS` (nor, after "put", "on" or "at") leads them in."""
    said = normalise(learned.text) if learned is not None else ""
    at = norm.rfind(said) if said else -1
    if at < 0:
        return "", norm
    before = norm[:at].split()
    # what "put" puts goes "on" or "at" the new time ("put everything from Tuesday on Thursday")
    placed = before[-1:] in (["at"], ["on"]) and "put" in before
    if before and before[-1] in ("at", "on"):
        before.pop()
    if not placed and (not before or before.pop() not in NEW_TIME_LEADS):
        return "", norm
    return said, f"{' '.join(before)} {norm[at + len(said) :].strip()}".strip()


@dataclass(frozen=True)
class _Said:
    """How a deletion names events the calendar has no title for: by the words said, its people, or as
    the next event; found at run time, which says so when nothing matches (and asks before deleting)."""

    find: dict[str, Any]
    next_one: bool
    everything: bool


# "my next dentist": the next one of what is named; with the words that say which of the events (not
# what they are called) when they are not the next one.
_NEXT_WORDS = frozenset(["next", "upcoming", "coming", "soonest", "earliest", "first"])
_WHICH = _NEXT_WORDS | {"future", "scheduled", "current", "planned"}
_NOW_WORDS = re.compile(r"\b(?:current|ongoing|present|now)\b")


def _said_target(target: RequestFrame, norm: str, now: datetime) -> _Said | None:
    """The events a deletion names when no title of the calendar was said ("delete my dentist
    appointment", "erase my next event", "cancel my appointment with Ted", "remove all upcoming
    events"), or None when it names none (only "this" or "that", with nothing shown before)."""
    said = [w for title in target.titles for w in tokens(title)]
    owners = {w[:-2] for w in said if w.endswith("'s")}
    words = [
        w[:-2] if w.endswith("'s") else w
        for w in said
        if w not in STOPWORDS
        and w not in GENERIC_EVENT_WORDS
        and w not in _WHICH
        and not DELETE_VERBS.fullmatch(w)
    ]
    names = [n for n in target.person_names if n not in owners]
    find: dict[str, Any] = {}
    if _NOW_WORDS.search(norm):
        # "delete the current event": the one going on now
        find.update(start=now.isoformat(), end=(now + timedelta(minutes=1)).isoformat())
    if words:
        find["text"] = " ".join(dict.fromkeys(words))
    if names and not target.people:
        find["attendee"] = names[0]
    # "my next dentist" is one; "all upcoming events", "every next meeting" more than the next one
    next_one = bool(_NEXT_WORDS & set(tokens(norm))) and not QUANTIFIERS & set(tokens(norm))
    if find or next_one:
        return _Said(find=find, next_one=next_one, everything=False)
    # "this event", "delete that", "it": an event pointed at, known only from the conversation
    if not POINTERS.isdisjoint(tokens(norm)) or not _PLURAL.search(norm):
        return None
    return _Said(find={}, next_one=False, everything=True)  # "erase events", "remove all upcoming events"


def _workflow(definition: WorkflowDefinition, confidence: float) -> Decision:
    return Decision(kind="workflow", workflow=definition, confidence=confidence)


def _clarify(text: str, **remember: Any) -> Decision:
    return Decision(kind="clarify", reply_kind="clarify", text=text, context_update=remember)


# -- move and delete ---------------------------------------------------------------------------------------
def _which_weekday(norm: str, r: Reading) -> str | None:
    """The question which day is meant, when the change names a bare weekday outside the week the
    conversation is on ("show me next week", then "cancel everything on Tuesday": this Tuesday, by the
    words, or next week's, by the talk), as a new event's day is asked; None otherwise."""
    dated = [m for m in find_times(norm, now=r.now, daytime=True) if m.has_date and m.start is not None]
    if len(dated) != 1:
        return None
    said = dated[0]
    assert said.start is not None
    day = said.start.astimezone(r.tz).date()
    shown = in_the_week_shown(day, said.text, r.state, r.now.astimezone(r.tz).date())
    if shown is None:
        return None
    # the turn as typed, the date in place of the weekday: "Cancel everything on March 10"
    lead = "on " if said.text.casefold().startswith("on ") else ""
    at = r.text.casefold().find(said.text.casefold())
    typed = (
        r.text.strip()
        if at < 0
        else f"{r.text[:at]}{lead}{shown:%B} {shown.day}{r.text[at + len(said.text) :]}"
    )
    typed = typed[:1].upper() + typed[1:]
    return (
        f"Which {day:%A} do you mean: {format_day(day)}, or {format_day(shown)} in the week you asked "
        f'about? Say it with the date, e.g. "{typed}".'
    )


def compile_change(r: Reading) -> Decision | None:
    """A Decision for a move or delete request; None for any other."""
    frame, text, now, tz, world, context = r.frame, r.text, r.now, r.tz, r.world, r.context
    operation = frame.operation
    if operation not in ("move", "delete"):
        return None
    if frame.error:
        return Decision(kind="clarify", reply_kind="clarify", text=f"{frame.error} Which date did you mean?")
    norm = normalise(text)
    unread = unread_time(norm, find_times(norm, now=now, daytime=True))
    if unread:
        # "move the dentist to friday at 9:99" is not a move to Friday at 9
        return _clarify(unread)
    norm = POLITE_PREFIX.sub("", norm).strip() or norm  # "I need to move ...": no "to" destination
    told = TELL_OTHERS.search(norm) if operation in ("delete", "move") else None
    notify = told is not None
    told_only = _told_by_name(told["whom"], world) if told is not None else []
    if notify:
        norm = TELL_OTHERS.sub("", norm).strip(" ,;:")
    create_clause = destination = ""
    if r.moves is not None:  # "how about 3pm instead?" right after it was made: it, to 3pm
        destination, norm = r.moves.destination, normalise(r.moves.target)
    the_one_talked_about = r.moves is not None and not r.moves.target
    second = _SECOND_CREATE.search(norm)
    if second and operation == "delete":
        again = _SAME_ONE.match(second["rest"]) if second["verb"] in _SAME_ONE_VERBS else None
        if again is not None:
            # "cancel Thursday's call with Bill and put it on Friday at 10": the same event, elsewhere
            operation, destination = "move", again["dest"]
            r.frame = frame = replace(frame, operation="move")  # what the gate and the record read it as
        else:
            create_clause = second.group("rest")  # "... and schedule a new one at 2pm"
        norm = norm[: second.start()].strip(" ,;:.")
    onward: datetime | None
    if r.ends is not None:  # "end the seminar after April": every one of it from May on
        onward, norm = r.ends.onward, normalise(r.ends.target)
    else:
        onward, norm = onward_of(norm, now)
        if onward is None and r.moves is not None:  # "the seminar is at 2pm every week now": its scope
            onward, destination = onward_of(destination, now)
    # "Thursday is too packed": one event, which the user picks, moves off that day.
    lighten = operation == "move" and bool(LIGHTEN_CUES.search(norm))
    everything = not lighten and bool(_EVERYTHING.search(norm))
    # what is left alone is no reason: "cancel everything on friday, but do not cancel the offsite" made
    # a 'Conference' day of the offsite's word when the reason was read before the exception was cut
    excluded, norm = _exception(norm, now)
    why = "" if lighten else _reason(norm, now, everything)
    # "clear friday for the offsite": the day is emptied for an event it has, which stays, and no
    # other is made for it (it deleted the Offsite and made 'The offsite')
    for_an_event = bool(why) and bool(understand(why, now=now, world=world, existing=True).title_words)
    if for_an_event:
        excluded = f"{excluded} and {why}" if excluded else why
    shift = 0
    if operation == "move" and not destination:
        shift, norm = shift_of(norm, now)
        if not shift:
            destination, norm = _destination(norm, now, r.text)
        said = _MAKE_IT.search(norm) if not shift else None
        if not destination and said is not None and said.start() > 0 and not _IT.search(norm):
            # "Thursday's planning huddle, can you make it 5 instead?": the event named, then "it"
            destination, norm = said["dest"], norm[: said.start()].strip(" ,;")
    if operation == "move":
        destination = _AFTERTHOUGHT.sub("", destination).strip()
        unsure = _number_then_words(destination, now)
        if unsure:
            return _clarify(unsure)
        said = WEEKDAY_WORD.search(destination)  # a weekday a series moves to: "to Wednesdays"
        if onward is None and said is not None and every_week(said[1]):
            onward = now  # "move yoga to Wednesdays": every week from now on

    shown = context.get("last_events") or []
    offered = False  # no event named or shown: the coming ones offered to pick from
    day_talked_about = False  # no day said: the one the conversation is on, shown first
    picked, clock, tied = _picked(norm, shown, tz)
    if picked is None and tied:  # "cancel the 2pm" when two of the events shown start at 2
        names = join_and([repr(e["summary"]) for e in tied])
        when = datetime.fromisoformat(tied[0]["start"]).astimezone(tz)
        to = f" to {destination}" if operation == "move" and destination else ""
        verb = "cancel" if operation == "delete" else "move"
        typed = " or ".join(f'"{verb} the {e["summary"]}{to}"' for e in tied)
        return _clarify(
            f"{names} both start at {format_time(when, tz)} on {format_day(when.date())}. "
            f"Which one do you mean? Say {typed}."
        )
    if clock:
        r.frame = frame = replace(frame, clock_pick=clock)  # for the gate: "the 11" names no day
    among: tuple[datetime, datetime] | None = None  # "delete that" after a list: the span it showed
    every_shown = False  # "delete them" after a list: each event it showed, and no other
    they = _SHOWN_ONES.search(norm) if picked is None and shown and operation == "delete" else None
    if they is not None and _names_another(norm[they.end() :], shown, now):
        they = None  # "delete that date night" after the team meeting was shown: the date night
    if they is not None:
        if len(shown) == 1:
            picked = shown[0]
        elif not frame.title_words and not frame.range_explicit:
            among = shown_span(shown)
            every_shown = bool(they["every"] or they["both"]) or they["which"] in _THEY
    pointed = _IT.search(norm)
    if pointed is not None and _names_another(norm[pointed.end() :], shown, now):
        pointed = None  # "move that dentist appointment to Friday": the dentist, not the event shown
    use_context = (picked is not None or the_one_talked_about or pointed is not None) and bool(shown)
    by_words: _Said | None = None
    made_whole = False  # "actually make it 6:30" right after a series was made: the series, as made
    if among is not None and every_shown:
        start, end = among
        find = {"start": start.isoformat(), "end": end.isoformat(), "starts": [e["start"] for e in shown]}
        plural, everything, use_context = True, False, True  # the events themselves, as "it" is one
        target = RequestFrame(operation=operation, confidence=0.9)
    elif use_context:
        last = picked or shown[0]
        start, end = datetime.fromisoformat(last["start"]), datetime.fromisoformat(last["end"])
        made = r.state.made
        made_whole = bool(made and made.series and (made.summary, made.start) == (last["summary"], start))
        find = {"start": start.isoformat(), "end": end.isoformat(), "text": last["summary"]}
        plural = False
        target = RequestFrame(operation=operation, confidence=0.9)
        said = _IT.search(norm) or PICK.search(norm)
        if destination == "" and said is not None:
            destination = norm[said.end() :].strip()  # "make it 12:30", "actually make that 3"
    else:
        target = _target_frame(norm, now, world, r.learned)
        if why:
            target.category, target.title_words = None, []
        focus = r.state.focus()
        named = target.range_explicit or bool(target.title_words or target.category)
        if focus is not None and among is None and not named:
            # "show me Thursday", then "cancel everything that day" or "move all my meetings to
            # Friday": the day the conversation is on, which this turn did not say, so shown first
            # (a day or an event said is found where it is; "cancel it" picks among the events shown)
            target.start, target.end, target.range_explicit = *focus, True
            day_talked_about = True
        if (which := _which_weekday(norm, r)) is not None:
            return _clarify(which)
        start, end = _range_of(target, now)
        if not target.range_explicit and not target.title_words and not target.category and not everything:
            by_words = _said_target(target, norm, now) if operation == "delete" else None
            if by_words is None and operation == "delete":
                # "delete that", "please remove this event" with nothing shown: the coming week's
                # events to pick from (those with the people named, if any, the coming year's), and
                # the pick previewed before anything goes
                offered = True
                if among is not None:
                    start, end = among
                elif not target.people:
                    start, end = now, now + _OFFERED
            elif by_words is None:
                return _clarify(
                    'Which event do you mean? Name it or give its day, e.g. "the dentist on Friday".'
                )
            else:
                everything = by_words.everything
        # "everything with other people tomorrow" is narrowed by what it names; "clear Friday" is not
        everything = everything and not (target.category or target.title_words or target.people)
        if everything and operation == "move" and not target.range_explicit:
            # "modify my calendar for Wednesday", "move everything to Friday": the events of which days?
            return _clarify(
                'What should I change? Name the event or the day, e.g. "move the dentist to Friday" or '
                '"move everything on Thursday to Friday".'
            )
        if everything or why:
            # "clear Friday", "cancel everything next week that isn't in Seattle": every event of the
            # days, less what the target's reading leaves out, in the calendars it names if it does
            left_out = {
                k: v for k, v in find_params(target, start, end).items() if k in _EXCEPTED or k == "calendars"
            }
            find = {"start": start.isoformat(), "end": end.isoformat(), **left_out}
        else:
            find = find_params(target, start, end)
            at = _any_day_at(target)
            if at is not None:
                find["starts_at"] = f"{at.astimezone(tz):%H:%M}"
            if by_words is not None:
                find.update(by_words.find)
        plural = not lighten and (
            everything
            or bool(why)
            or _is_plural(norm, target)
            or _whole_span(target)
            or _over_a_stretch(norm, now, target)
            or _days_listed(norm, now)
        )
    scope = "series" if (everything and not target.range_explicit) or made_whole else "occurrence"
    if plural and not use_context and not target.past and "start" in find and start < now:
        # "cancel all my classes this week" on a Tuesday: the ones still ahead, not Monday's
        find = {**find, "start": now.isoformat()}
    # "delete all my yoga", "remove the recurring yoga", "cancel my yoga series": each series whole
    whole = plural or bool({"series", "recurring", "repeating"} & set(tokens(norm)))
    all_named = operation == "delete" and whole and bool(target.title_words)
    open_ended = False
    if onward is not None and not use_context:
        # "from now on", "starting next week": each series from its first time then on, changed whole;
        # one series, unless the turn says everything ("delete everything from Sunday onwards")
        horizon = max(end, onward + HORIZON)
        find = {**find, "start": onward.isoformat(), "end": horizon.isoformat()}
        if "weekdays" in find:
            # "cancel yoga on thursdays from now on": each Thursday's, never the series from its first
            # Thursday on, which would take the Tuesdays of a Tuesday-and-Thursday yoga with it; the
            # days are those of the year ahead, not the one "from now on" starts on
            plural, scope, open_ended = True, "occurrence", True
        else:
            plural, scope = everything, "following"
    elif all_named and not target.range_explicit and not use_context:
        # no time said: each series whole from its next time on, not a year of its occurrences with the
        # series going on after them
        scope = "following"

    plan = Plan()
    found = plan.add("find_events", find, id="find", summary="Find the events")
    events = found["events"]
    if (by_words is not None and by_words.next_one) or (target.next_one and not plural and not use_context):
        # "erase my next event", "cancel my next haircut", "move the next calculus lecture to Friday":
        # the first of them from now on
        events = plan.add(
            "sort_events", {"events": events, "limit": 1}, id="next", summary="Take the next one"
        )["events"]
    leave_out = _leave_out(excluded, world, now) if excluded else {}
    if leave_out and (not target.title_words or "exclude_attendees" in leave_out):
        events = plan.add(
            "filter_events", {"events": events, **leave_out}, id="except", summary=f"Leave out {excluded}"
        )["events"]
    action = "Cancel" if operation == "delete" else "Move"
    move: dict[str, Any] | None = None
    earlier_asked = False
    if operation != "delete":
        weekday = _weekday_from(destination, onward.astimezone(tz)) if onward is not None else None
        if weekday is not None:
            # "to Wednesdays starting next week": the first Wednesday from then, not this week's; with
            # no day said ("to Wednesdays going forward"), the Wednesday of the series' next week
            # (Monday's yoga goes to that week's Wednesday, never back to a day before it)
            said_time = [m for m, _ in _times(destination, now) if m.has_time]
            to_day: dict[str, Any] = (
                {"to_weekday": weekday.weekday()} if onward == now else {"to_date": weekday.isoformat()}
            )
            move = dict(to_day)
            if said_time:
                move.update(_move_params(said_time[0].text, 0, target, now, tz, frame) or {})
                move.pop("to_date", None)
                move.update(to_day)
        else:
            move = _move_params(destination, shift, target, now, tz, frame)
            alone = _weekday_alone(move, destination, now)
            if alone is not None and 1 in _ways_said(norm):
                # "push the shift to Wednesday", "postpone it to Friday": the weekday after each event's
                # own day, never back to one before it
                assert move is not None
                move = {**{k: v for k, v in move.items() if k != "to_date"}, "to_weekday": alone}
            else:
                # "move the shift to Wednesday": the resolver's Wednesday, from today, shown first where
                # it is before the event's own day (the Wednesday after it may be meant)
                earlier_asked = alone is not None
        if move is not None and move.get("other_day") and not lighten:
            move = None  # "postpone the standup", "move the dentist later": where to is not said
        if move is None:
            # the next turn may be only where it goes ("to Friday at 11"): that move, of these words
            return _clarify(
                'Where should it go? Say a day, a time or a part of the day, e.g. "to Friday at 3pm".',
                **({PENDING_MOVE: norm} if not destination and not shift else {}),
            )
    choose: dict[str, Any] = {
        "events": events,
        "action": action,
        "expect_one": not plural,
        "question": "Which one should I move to a lighter day?"
        if lighten
        else "Which event should I cancel?"
        if offered
        else "",
        "scope": scope if operation == "delete" or scope == "following" or made_whole else "occurrence",
    }
    if scope == "following":
        choose["per_series"] = True  # one candidate a series: its first occurrence from then on
    elif target.range_explicit and not use_context and not plural and not lighten:
        choose["within"] = True  # "cancel yoga next week": "all of them" is next week's, not the series
    if move is not None and set(move) <= _MOVE_TO:
        choose["move"] = move  # each option names the new time it would get
    chose = plan.add("choose_event", choose, id="choose", summary="Which one")
    chosen = chose["events"]
    scope_ref = chose["scope"]  # the user may pick "all of them" for a series
    plan_sets: list[Handle] = []
    if operation == "delete":
        plan_sets.append(
            plan.add(
                "plan_delete", {"events": chosen, "scope": scope_ref}, id="plan", summary="Plan the deletions"
            )
        )
        if create_clause:
            created = _create_like(create_clause, target, now, tz, world)
            if created is None:
                return _clarify("At what time should the new one be?")
            plan_sets.append(
                plan.add(
                    "plan_create", {**created, "like": chosen}, id="recreate", summary="Plan the new event"
                )
            )
        if why and not for_an_event:
            day = (target.start or now).astimezone(tz)
            block = {
                "summary": why[:1].upper() + why[1:],
                "start": datetime.combine(day.date(), time(), tz).isoformat(),
                "all_day": True,
            }
            plan_sets.append(plan.add("plan_create", block, id="block", summary=f"Block the day for {why}"))
    else:
        assert move is not None
        plan_sets.append(
            plan.add(
                "plan_move",
                {"events": chosen, "scope": scope_ref, **move},
                id="plan",
                summary="Plan the moves",
            )
        )
    changes = (
        plan.add(
            "combine_changes",
            {"sets": [p.output for p in plan_sets]},
            id="combine",
            summary="Put the changes together",
        )
        if len(plan_sets) > 1
        else plan_sets[0]
    )
    output = plan.add(
        "apply_changes",
        {
            "changes": changes.output,
            "approved": chose["chosen"],
            # servers that can (Google) tell them too, every attendee or none: not when some are named
            **({"notify": True} if notify and not told_only else {}),
            **({"ask_if_earlier": True} if earlier_asked else {}),
            # one event, never named, what a bulk change's exception left, or on a day not said: asked
            **(
                {"always_ask": True}
                if offered or leave_out or day_talked_about or _EXCEPTED & set(find)
                else {}
            ),
        },
        id="apply",
        summary="Apply after approval",
    )
    if notify:
        output = notify_step(plan, output, note=why, **({"only": told_only} if told_only else {}))
    summary = f"{action} events" + (
        f" ({format_day(start.astimezone(tz).date())})" if target.range_explicit else ""
    )
    decision = _workflow(
        plan.build(f"{operation}-events", summary=summary, output=output), max(frame.confidence, 0.6)
    )
    return decision.model_copy(update={"frame": {"open_ended": True}}) if open_ended else decision


def _create_like(
    clause: str, target: RequestFrame, now: datetime, tz: ZoneInfo, world: World
) -> dict[str, Any] | None:
    """ "... and schedule a new one at 2pm": the new event's start, on the target's day unless said (the
    day of the event cancelled, when the turn names none)."""
    timed = next(((m, at) for m, at in _times(clause, now) if m.has_time), None)
    if timed is None:
        return None
    match, at = timed
    if not match.has_date and target.start is None:
        return {"at_time": f"{at.astimezone(tz):%H:%M}"}  # on the cancelled one's day, found when run
    day = at.date() if match.has_date else (target.start or now).astimezone(tz).date()
    start = datetime.combine(day, at.astimezone(tz).time(), tz)
    return {"start": start.isoformat()}


def _ways_said(norm: str) -> list[int]:
    """The ways the turn's verbs move an event, in order: -1 earlier ("bring", "pull"), 1 later ("push",
    "postpone")."""
    return [_WAY_OF_VERB[t] for t in tokens(norm) if t in _WAY_OF_VERB]


def _weekday_alone(move: dict[str, Any] | None, destination: str, now: datetime) -> int | None:
    """The weekday (0 = Monday) a move goes to where the destination says it alone ("to Wednesday",
    "to Friday at 3"), which the resolver reads from today, whatever day the event is on; None where
    the day is said otherwise ("to next Wednesday", "to Wednesday the 18th") or not at all."""
    if move is None or "to_date" not in move:
        return None
    days = {n for w in tokens(destination) if (n := weekday_number(w)) is not None}
    if len(days) != 1:
        return None
    (day,) = days
    alone = _times(calendar.day_name[day], now)
    return day if alone and alone[0][1].date().isoformat() == move["to_date"] else None


def _move_params(
    destination: str, shift: int, target: RequestFrame, now: datetime, tz: ZoneInfo, frame: RequestFrame
) -> dict[str, Any] | None:
    if shift:
        return {"shift_minutes": shift}
    everyone = _EVERYONE.search(destination) if destination else None
    if everyone is not None:
        return _everyone_params(destination, everyone, now, tz)
    if destination:
        part = DAY_PART_WORD.search(destination)
        # "make it 12.30", "to 3": a bare number after "to" is a clock time; "to wed", "to sat": a
        # weekday name that is also a word is the day, as "on wed" would be
        readings = (destination, f"at {destination}", f"on {destination}")
        matches = next((found for said in readings if (found := _times(said, now))), [])
        dated = next((at for m, at in matches if m.has_date), None)
        window = next((m for m, _ in matches if m.has_date and _BEFORE_ON_A_DAY.search(m.text)), None)
        if window is not None and window.start is not None and window.end is not None:
            # "to Tuesday before 1 PM": a free time that day that ends by then, for the event's own length
            return {"search_start": max(window.start, now).isoformat(), "search_end": window.end.isoformat()}
        timed = next((at for m, at in matches if m.has_time), None)
        params: dict[str, Any] = {}
        week = next((m for m, _ in matches if m.has_date and re.search(r"\bweeks?\b", m.text)), None)
        whole_week = (
            week is not None
            and week.grain == "week"
            and week.text.casefold() == destination.strip(" .,").casefold()
        )
        if (
            week is not None
            and week.start is not None
            and (_SAME_TIME.search(destination) or whole_week)
            and timed is None
        ):
            # "the same time next week", "... in two weeks", "to next week" (no day said): weeks on from
            # the event's own day and time
            today = now.astimezone(tz).date()
            if week.grain == "week":
                weeks = round((week.start.date() - _monday(today)).days / 7)
            else:
                weeks = round((week.start.date() - today).days / 7)
            if weeks:
                return {"shift_minutes": weeks * 7 * 24 * 60}
        if dated is not None:
            params["to_date"] = dated.astimezone(tz).date().isoformat()
        if timed is not None and not _SAME_TIME.search(destination):
            params["at_time"] = format_hhmm(timed.astimezone(tz))
            bare = _BARE_HOUR.fullmatch(destination.strip())
            if bare and int(bare["hour"]) <= 12:
                params["either_half"] = True  # "make it 8": the planner reads it by the event's own time
        elif part and "to_date" in params:  # "to tomorrow morning": free time in that part of that day
            params.update(day_part=part.group(1), **_part_hours(matches, part.group(1), tz))
        length = _new_length(destination, matches) if timed is not None else None
        if length is not None:
            params["duration_minutes"] = length
        if params:
            return params
        if part:
            return {"day_part": part.group(1), **_part_hours(matches, part.group(1), tz)}
        return None
    if frame.at_time is not None and frame.operation == "move" and target.start is None:
        return {"at_time": format_hhmm(frame.at_time.astimezone(tz))}
    # No destination: somewhere lighter in the same working week, not on the event's own day.
    base = (target.start or now).astimezone(tz)
    monday = datetime.combine(base.date() - timedelta(days=base.weekday()), time(), tz)
    return {
        "search_start": max(monday, now).isoformat(),
        "search_end": (monday + timedelta(days=5)).isoformat(),
        "other_day": True,
    }


def _new_length(destination: str, matches: list[tuple[TimeMatch, datetime]]) -> int | None:
    """The length a move to a time gives the event where the destination says one: to the end said
    ("to 1:30-2:00", "to 3 to 4:30") or for how long ("to 1:30 for 30 minutes"); None keeps its own.
    A window ("between 2 and 4") is where to find a time, no length."""
    for m, _ in matches:
        if m.has_time and m.is_interval and not m.rest_of_day and m.start is not None and m.end is not None:
            if m.text.casefold().startswith("between"):
                return None
            minutes = round((m.end - m.start).total_seconds() / 60)
            return minutes if 5 <= minutes < 24 * 60 else None
    lengths = find_durations(destination)
    return lengths[0].minutes if len(lengths) == 1 and 5 <= lengths[0].minutes < 24 * 60 else None


def _part_hours(matches: list[tuple[TimeMatch, datetime]], part: str, tz: ZoneInfo) -> dict[str, str]:
    """The wall hours of a stretch of ``part`` said narrower than it ("to the late afternoon": 3 to 5
    PM), as plan_move's part_from and part_until; nothing for the whole part."""
    for m, _ in matches:
        hours = stretch_of_part(m, tz) if m.day_part == part else None
        if hours is not None:
            return {"part_from": f"{hours[0]:%H:%M}", "part_until": f"{hours[1]:%H:%M}"}
    return {}


def _everyone_params(destination: str, cue: re.Match[str], now: datetime, tz: ZoneInfo) -> dict[str, Any]:
    """ "a time when everyone is available next week", "a morning when we're both free tomorrow":
    a search of the named period (the next two weeks when none is named), within working hours, for
    the first time the user and every attendee are free; a part of the day said narrows each day."""
    rest = f"{destination[: cue.start()]} {destination[cue.end() :]}".strip()
    part = cue["noun"] if cue["noun"] in ("morning", "afternoon", "evening") else None
    period = next((m for m, _ in _times(rest, now) if m.has_date and m.start is not None), None)
    if period is not None and period.start is not None:
        part = part or period.day_part
        first = period.start.astimezone(tz).date()
        last = (period.end or period.start + timedelta(days=1)) - timedelta(microseconds=1)
        start = datetime.combine(first, time(), tz)
        end = datetime.combine(last.astimezone(tz).date() + timedelta(days=1), time(), tz)
    else:
        said = DAY_PART_WORD.search(rest)
        part = part or (said.group(1) if said and said.group(1) != "night" else None)
        start, end = now, now + timedelta(days=EVERYONE_DAYS)
    params: dict[str, Any] = {
        "search_start": max(start, now).isoformat(),
        "search_end": end.isoformat(),
        "everyone": True,
    }
    if part:
        params["day_part"] = part
    return params


def everyone_window(text: str, now: datetime, tz: ZoneInfo) -> dict[str, Any] | None:
    """ "... when we're both free tomorrow", "... at a time that suits everyone next week" anywhere in a
    request: the search a time that suits everyone needs (``search_start``, ``search_end`` and maybe
    ``day_part``, as ``plan_move`` and ``plan_create`` take them), or None when the text asks no such
    thing."""
    norm = normalise(text)
    cue = _EVERYONE.search(norm)
    if cue is None:
        return None
    clause, _, _ = _clause_split(norm[cue.start() :], now)
    found = _EVERYONE.search(clause)
    assert found is not None  # the clause starts with the cue
    window = _everyone_params(clause, found, now, tz)
    del window["everyone"]
    return window


def _clause_split(text: str, now: datetime) -> tuple[str, str, str]:
    """The first clause of ``text``, the separator, and the rest.  A period after a destination that
    is already complete ("mornings this month") starts the rest; in "a time next week" (or "a
    morning when everyone is free next week") it is the destination."""
    m = _CLAUSE_BREAK.search(text)
    period = _PERIOD_AFTER.search(text)
    if period is not None and _EVERYONE.search(text[: period.start()]):
        period = None
    if period is not None and any(
        m.span[0] < period.start() < m.span[1]
        and any(d.has_date for d, _ in _times(text[m.span[0] : period.start()], now))
        for m, _ in _times(text, now)
    ):
        # "to Tuesday next week", "to Friday of next week at 10": a day of that week, said whole (where
        # "to mornings this month" is a part of the day, and the month the events it moves)
        period = None
    if period is not None and (m is None or period.start() < m.start()):
        before = text[: period.start()]
        if DAY_PART_WORD.search(before) or _times(before, now):
            m = period
    if m is None:
        return text, "", ""
    first = text[: m.start()].strip()
    clock = _only_a_time(text[m.end() :], now)
    if clock and not any(t.has_time for t, _ in _times(first, now)):
        # "to Friday, at 10 please", "to Friday, but at 10": the clause after only gives the time
        return f"{first} {clock}", "", ""
    return first, m.group(0), text[m.start() :].strip()


def _only_a_time(clause: str, now: datetime) -> str:
    """The clock time ``clause`` says when it says nothing else but an afterthought ("at 10 please"),
    else ""."""
    words = _AFTERTHOUGHT.sub("", clause.lstrip(" ,").removeprefix("but ")).strip(" .!?")
    found = _times(words, now)
    whole = len(found) == 1 and found[0][0].has_time and found[0][0].span == (0, len(words))
    return words if whole else ""


def format_hhmm(moment: datetime) -> str:
    return f"{moment.hour:02d}:{moment.minute:02d}"


def undo_workflow(run_id: str) -> WorkflowDefinition:
    """Revert what run ``run_id`` changed, as one unit (from "undo that" or a reply's Undo button)."""
    plan = Plan()
    undo = plan.add("undo_changes", {"run_id": run_id}, id="undo", summary="Undo a change")
    return plan.build("undo", summary="Undo a change", output=undo)


def undo_decision(r: Reading) -> Decision | None:
    """ "Undo that": revert the last request that changed something, as one unit (None when the turn
    asks no undo, or nothing was changed to undo)."""
    run_id = r.context.get("last_applied_run")
    if r.frame.operation != "undo" or not run_id:
        return None
    return Decision(kind="workflow", workflow=undo_workflow(run_id), confidence=r.frame.confidence)
