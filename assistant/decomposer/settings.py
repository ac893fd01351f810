"""Preferences said in chat: set, change, remove and show them.

"My gym is Monday, Wednesday and Friday from 6 to 7:30pm", "change my lunch to 12:30-1:30", "set my
timezone to Europe/London", "no meetings before 10am", "no meetings on Fridays", "I no longer go to
the gym", "what are my preferences?".  A sentence about a preference is read here before anything
else, so it never becomes an event called "Don't" or "Timezone to europe london".  The value is built
in the canonical shape of ``preferences.schema`` and written by the ``set_preference`` skill, which
validates it; what is missing (the days of a gym schedule, the hours of a writing block) is asked for,
and the answer completes the same preference on the next turn.
"""

from __future__ import annotations

import re
from datetime import datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.blanks import blanked
from assistant.decomposer.intent import normalise
from assistant.decomposer.reading import Reading
from assistant.decomposer.recurrence import as_hours, read_repeat
from assistant.lexicon import PREFERENCE_WORDS, WEEKDAY, WEEKDAY_STEM, WEEKDAY_WORD, weekday_of
from assistant.timeexpr import TimeMatch, find_times
from assistant.timeexpr.lexicon import PLURAL_PARTS, TIMEZONES
from preferences.schema import DAY_CODES, DAY_NAMES, day_part_bounds, known_zones
from preferences.wording import describe_preference, preference_label
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["PENDING", "setting_decision"]

PENDING = "pending_setting"
"""Context key of a preference whose value the last reply asked for (one turn long)."""

_EXAMPLES = {
    "gym_schedule": 'Say the days and hours, e.g. "Mondays and Thursdays from 6 to 7:30pm".',
    "lunch_hours": 'Say the hours, e.g. "12:30 to 1:30".',
    "working_hours": 'Say the days and hours, e.g. "Monday to Friday, 9 to 5".',
    "writing_block": 'Say the days and hours, e.g. "Tuesdays and Thursdays from 9 to 11am".',
}
# The preferences said with days and hours (those with an example above), by the words the lexicon
# has for them.
_HABITS = {key: PREFERENCE_WORDS[key] for key in _EXAMPLES}
_HABIT = "|".join(f"(?P<{key}>{words.pattern})" for key, words in _HABITS.items())
# What may lead up to a habit said or set: "fyi my work hours are 9-5", "ok so I usually eat at 1".
_LEADS = (
    r"^(?:(?:ok|okay|so|and|also|oh|please|can you|could you|btw|by the way|fyi|just so you know"
    r"|for the record|heads up|note that)[\s,:]+)*"
)
_ANY_HABIT = "|".join(words.pattern for words in _HABITS.values())
# How a habit is said to be one without "my": "lunch is usually 12 to 1", "work is normally 9-5".
_AS_A_RULE = r"(?:usually|normally|always|generally|typically)"
# "my gym is ...", "set my lunch to ...", "change my working hours to ...", "my writing block: ...",
# "lunch is usually 12 to 1"
_SET_HABIT = re.compile(
    _LEADS
    # (not "my lunch with Omar": an event)
    + rf"(?P<verb>(?:set|change|update|move|make)\s+)?"
    rf"(?:my\s+|(?=(?:{_ANY_HABIT})\s+(?:is|are)\s+{_AS_A_RULE}\b))(?:{_HABIT})(?!\s+with\b)\s*"
    rf"(?:is|are|will be|should be|to|:|=|from)?\s*(?:{_AS_A_RULE}\s+)?"
    r"(?P<rest>.*)$"
)
# "I go to the gym Mondays and Thursdays 7-8am", "I work 9 to 5 Monday to Friday", "I have lunch 12:30-1:30"
# "btw I usually eat at 1", "fyi I always work out 6-7am", "I'm usually at the gym 6-7am on weekdays":
# said as a fact, in passing.
_I_DO = re.compile(
    # ("I'm" only of being at the gym: "I'm working from home on Fridays" says no hours)
    _LEADS + r"i(?P<am>'m|\s+am)?\s+(?:usually\s+|normally\s+|always\s+|generally\s+|tend to\s+)?"
    r"(?:(?P<gym_schedule>(?(am)at the gym|(?:(?:go to|hit) the gym|work out|train)))|(?(am)(?!)|(?:"
    r"(?P<working_hours>(?:start |begin )?work(?:ing)?)"
    r"|(?P<lunch_hours>have lunch|eat lunch|lunch|eat(?!\s+(?:dinner|breakfast|supper))))))"
    r"\s+(?P<rest>.+)$"
)
# Time kept for a habit: "keep Tuesday and Thursday mornings 9-11 free for writing", "protect weekday
# mornings 7-8 for the gym" (a habit only where the days repeat with no end; time blocked is an event,
# or a series of them: "block 12-1 every day for lunch").
_KEPT_FOR = re.compile(
    _LEADS + r"(?:keep|protect|guard)\s+(?P<rest>.+?)\s+"
    # "writing" alone, which names no habit elsewhere ("writing a report"), is the writing block here
    rf"(?:free\s+|open\s+|clear\s+)?for\s+(?:my\s+|the\s+)?(?:{_HABIT}|writing)\s*$"
)
# What makes "I have lunch ..." one occasion rather than a habit: company, or one day ("on Friday",
# "tomorrow", "the 3rd"), where a habit names days that repeat ("on Fridays", "weekdays") or none.
_ONE_OCCASION = re.compile(
    rf"\bwith\b|\b(?:today|tonight|tomorrow|next|this)\b|\bon\s+(?:the\s+)?(?:{WEEKDAY_STEM}(?:day)?\b(?!s)|\d)"
)
# A request that leans on a habit ("during my writing block", "after my gym", "outside my working hours").
_RELIES = re.compile(
    rf"\b(?:during|in|within|over|at|after|before|around|outside(?: of)?)\s+my\s+(?P<what>{_ANY_HABIT})\b"
)
_REMOVE = re.compile(
    r"\b(?:i\s+)?(?:no longer|don'?t|do not)\s+(?:go to|have|do)\s+(?:the\s+|a\s+|my\s+)?"
    rf"(?P<what>{_ANY_HABIT})(?:\s+any\s*more)?\s*$"
    rf"|\b(?:remove|delete|clear|forget|drop)\s+my\s+(?P<what2>{_ANY_HABIT})(?:\s+(?:preference|setting))?\s*$"
)
_ZONE = re.compile(
    r"\b(?:(?:set|change|switch|update)\s+)?my\s+time\s*zone\s+(?:to|is|as)\s+(?P<zone>[a-z_/+\-0-9 ]+?)\s*$"
    r"|\b(?:set|change|switch)\s+(?:the\s+)?time\s*zone\s+to\s+(?P<zone2>[a-z_/+\-0-9 ]+?)\s*$",
    re.IGNORECASE,
)
# Meetings disliked at one end of the day, no time said: "I hate early meetings", "no late calls".
_EARLY_OR_LATE = re.compile(
    r"\b(?:hate|dislike|don'?t like|do not like|no|avoid|prefer not to have)\s+(?:any\s+)?"
    r"(?P<when>early|late)(?:[- ]morning|[- ]evening|[- ]night)?\s+(?:meetings?|calls?)\b"
)
# Meetings wanted in one part of the day: "I prefer meetings in the afternoon", "I'd like my calls to be in
# the morning", "I prefer afternoon meetings": the meeting hours are that part's (the user's own parts).
_PREFERRED_PART = re.compile(
    _LEADS + r"i(?:'d|\s+would)?\s+(?:prefer|like|want)\s+(?:to\s+have\s+|having\s+)?(?:my\s+)?"
    r"(?:(?:meetings?|calls?)\s+(?:to\s+be\s+)?(?:only\s+)?in\s+the\s+(?P<part>morning|afternoon|evening)s?"
    r"|(?P<part2>morning|afternoon|evening)\s+(?:meetings|calls))[\s.!]*$"
)
# Days off said as a fact: "I don't work on Fridays", "I never work weekends": working days without them.
_NO_WORK_ON = re.compile(_LEADS + r"i\s+(?:don'?t|do\s+not|never)\s+work\s+(?:on\s+)?(?P<days>.+?)[\s.!]*$")
_NO_MEETINGS = re.compile(
    r"\b(?:no|not any|don'?t (?:want|schedule|book|take|have|like|do)(?: any| having)?"
    r"|never (?:take|have|book|schedule)|(?:hate|dislike)(?: having)?"
    r"|(?:i'd|i|i would) (?:prefer|like|want) "
    r"(?:not to have|no)(?: any)?|(?:prefer|would prefer) (?:not to have|no)(?: any)?)\s+"
    r"(?:meetings?|anything|calls?|events?)\s+"
    r"(?P<how>before|earlier than|after|later than|on)\s+"
    r"(?P<what>.+?)\s*(?:please)?[.!]*$"
)
# The same said of the days: "keep my Fridays meeting-free", "keep fridays free of meetings".
_MEETING_FREE = re.compile(
    r"\b(?:keep|make|leave)\s+(?:my\s+)?(?P<what>.+?)\s+"
    r"(?:meeting[- ]?free|(?:free|clear)\s+(?:of|from)\s+(?:any\s+)?(?:meetings|calls))\s*(?:please)?[.!]*$"
)
_SHOW_ALL = re.compile(
    r"\bwhat (?:are|'re) my (?:preferences|settings)\b|\b(?:show|list) my (?:preferences|settings)\b"
)
_WRITING_RULE = re.compile(
    r"\b(?:don'?t|do not|never)\s+(?:schedule|book|put)\s+(?:anything|any meetings?|meetings?|events?)\s+"
    r"(?:during|in|over)\s+my\s+writing (?:block|time)"
    r"|\b(?:protect|keep|guard|hold)\s+my\s+writing (?:block|time)\b"
    r"|\bno\s+(?:meetings?|events?)\s+(?:during|in)\s+my\s+writing (?:block|time)"
)
_EXCEPTIONS_OK = re.compile(r"\b(?:approve|approval|ask me|let me (?:decide|approve)|exceptions?)\b")
_NO_EXCEPTIONS = re.compile(r"\b(?:no exceptions|never|under no circumstances)\b")
# The writing block's rule said alone, as a fact: "I can approve exceptions when something is urgent".
_APPROVING_EXCEPTIONS = re.compile(
    r"\b(?:approve|allow|ok|okay|fine with)\s+(?:an?\s+|the\s+|some\s+)?exceptions?\b"
)
_AN_HOUR = {"start": "12:00", "end": "13:00"}
# Which end of the working day one time said is: "my workday ends at 5", "I start work at 10".
_ENDING = re.compile(r"\b(?:ends?|ending|finish(?:es|ed)?|stops?|until|till|done by|leave at)\b")
_STARTING = re.compile(r"\b(?:starts?|starting|begins?|beginning|start work|get in)\b")
_DAY_RANGE = re.compile(rf"\b({WEEKDAY})\s*(?:-|–|to|through|thru|until)\s*({WEEKDAY})\b")


def setting_decision(r: Reading) -> Decision | None:
    """A workflow that sets, removes or shows a preference, a question for what it still needs, or None
    when the turn is about no preference."""
    text, now, context, world = r.text, r.now, r.context, r.world
    norm = normalise(text).strip(" .!")
    pending = context.get(PENDING)
    if isinstance(pending, dict) and pending.get("key"):
        answered = _habit_value(pending["key"], norm, now, pending.get("extra") or {})
        if isinstance(answered, dict | list):
            return _set(pending["key"], answered)
    if _SHOW_ALL.search(norm):
        return _workflow("read-preferences", "Show the preferences", "describe_preferences", {})
    if m := _ZONE.search(text.strip(" .!")):  # as said: the zone's name is quoted back
        return _zone(m["zone"] or m["zone2"])
    if m := _NO_MEETINGS.search(norm):
        return _meeting_hours(m["how"], m["what"], now, world.preferences.get("meeting_hours") or {})
    if (m := _MEETING_FREE.search(norm)) and read_repeat(m["what"], now) is not None:
        # days that repeat ("Fridays"): a habit; "keep this Friday free of meetings" is one day's
        return _meeting_hours("on", m["what"], now, world.preferences.get("meeting_hours") or {})
    if (m := _NO_WORK_ON.search(norm)) and (days := _days(m["days"], now)):
        return _days_off(days, world.preferences.get("working_hours"))
    if m := _PREFERRED_PART.search(norm):
        return _meetings_in(m["part"] or m["part2"], world.preferences)
    if m := _EARLY_OR_LATE.search(norm):
        # "I hate early meetings": a bound of the meeting hours, whose time is not said
        asked, edge = (
            ("From what time may meetings start?", "before 10am")
            if m["when"] == "early"
            else ("By what time should meetings end?", "after 5pm")
        )
        return _clarify(f'{asked} Say it like "no meetings {edge}" and I\'ll keep it.')
    if m := _REMOVE.search(norm):
        said = m["what"] or m["what2"]
        key = next(k for k, words in _HABITS.items() if words.fullmatch(said))
        return _workflow(
            f"remove-{key}", f"Remove the {preference_label(key)}", "set_preference", {"key": key}
        )
    if _WRITING_RULE.search(norm) or (_APPROVING_EXCEPTIONS.search(norm) and not _NO_EXCEPTIONS.search(norm)):
        allow = bool(_EXCEPTIONS_OK.search(norm)) and not _NO_EXCEPTIONS.search(norm)
        block = world.preferences.get("writing_block")
        if block:
            return _set("writing_block", {**block, "allow_exceptions_with_approval": allow})
        return _ask(
            "writing_block",
            "When is your writing block? Tell me the days and hours, "
            'e.g. "Tuesdays and Thursdays from 9 to 11am".',
            {"allow_exceptions_with_approval": allow},
        )
    if (
        (m := _RELIES.search(norm))
        and not _SET_HABIT.search(norm)
        and not any(t.has_time for t in find_times(norm, now=now, daytime=True))
    ):  # "at my lunch break, so make it 12 pm" says the time: the habit is only why
        key = next(k for k, words in _HABITS.items() if words.fullmatch(m["what"]))
        if key not in world.preferences:
            # "book a call during my lunch" with no lunch stored: ask for it, and keep the answer
            return _ask(
                key,
                f"I don't know your {preference_label(key)} yet. When is it? "
                + _EXAMPLES[key]
                + " I'll keep it, and then you can ask again.",
                {},
            )
    m = _SET_HABIT.search(norm) or _I_DO.search(norm) or _kept_for(norm, now)
    if m is None or not (m["rest"].strip() or m.groupdict().get("verb")):
        return None  # "my gym" alone says nothing to store
    if m.re is _I_DO and _ONE_OCCASION.search(m["rest"]):
        return None  # "I have lunch with Sam on Friday at 1": one event, said as a fact, not a habit
    key = next((k for k in _HABITS if m.groupdict().get(k)), "writing_block")  # (or "for writing")
    extra = {}
    if key == "writing_block" and world.preferences.get("writing_block"):
        extra = {
            "allow_exceptions_with_approval": world.preferences["writing_block"].get(
                "allow_exceptions_with_approval", False
            )
        }
    value = _habit_value(key, m["rest"], now, extra)
    if isinstance(value, str):
        value = _one_end(key, m["rest"], norm, now, world.preferences.get(key)) or value
    if isinstance(value, str):
        return _ask(key, value, extra)
    current = world.preferences.get(key)
    if key == "working_hours" and isinstance(value, dict) and _narrows(value, current):
        # "I work from 8 to 4 on Fridays" with Monday to Friday kept: one set of hours is kept, and
        # the other days are not dropped on a word about one of them
        hours = f"from {_hour_said(value['start'])} to {_hour_said(value['end'])}"
        return _ask(
            key,
            f"Your working hours are {describe_preference(key, current)}, and I keep one set of hours "
            f'for all your working days. Say the days and hours they should be, e.g. "Monday to Friday '
            f'{hours}" or "{_days_said(value["days"])} only {hours}".',
            extra,
        )
    return _set(key, value)


def _narrows(value: Any, current: Any) -> bool:
    """Whether working hours said for some days only would drop other days the hours kept now have."""
    if not (isinstance(value, dict) and isinstance(current, dict)):
        return False
    said, kept = set(value.get("days") or ()), set(current.get("days") or ())
    return bool(said) and said < kept


def _hour_said(at: str) -> str:
    """ "08:00" as said: "8", "8:30"."""
    hour, minute = (int(part) for part in at.split(":"))
    return f"{hour % 12 or 12}" + (f":{minute:02d}" if minute else "")


def _days_said(days: list[str]) -> str:
    """Day codes as said in a request: "Fridays", "Mondays and Fridays"."""
    names = [DAY_NAMES[DAY_CODES.index(day)] + "s" for day in days]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _one_end(
    key: str, said: str, norm: str, now: datetime, current: Any
) -> dict[str, Any] | list[dict[str, str]] | None:
    """Lunch, gym or working hours from one time said ("I usually eat at 1", "I go to the gym at 7am on
    Tuesdays", "my workday ends at 5"): lunch and the gym start then and last as long as they do now
    (an hour if none is kept); the working day starts or ends then (as the words say) and keeps its
    other end. None when that is not what was said, or the working day's other end is not known."""
    times = [m for m in find_times(said, now=now, daytime=True) if m.has_time and m.start and not m.error]
    if len(times) != 1 or times[0].is_interval or times[0].start is None:
        return None
    at = times[0].start.astimezone(now.tzinfo)
    if key == "gym_schedule":
        days = _days(said, now)
        kept = current[0] if isinstance(current, list) and current else _AN_HOUR
        length = datetime.combine(at.date(), time.fromisoformat(kept["end"])) - datetime.combine(
            at.date(), time.fromisoformat(kept["start"])
        )
        end = at + length
        if not days or end.date() != at.date():
            return None
        return [{"day": day, "start": f"{at:%H:%M}", "end": f"{end:%H:%M}"} for day in days]
    if key == "lunch_hours" and not isinstance(current, dict):
        current = _AN_HOUR  # a first lunch said by when it starts: an hour, shown in the reply
    if key not in ("lunch_hours", "working_hours") or not isinstance(current, dict):
        return None
    first, last = (
        datetime.combine(at.date(), time.fromisoformat(current[k]), at.tzinfo) for k in ("start", "end")
    )
    if key == "lunch_hours":
        start, end = at, at + (last - first)
    elif _ENDING.search(norm):
        start, end = first, at
    elif _STARTING.search(norm):
        start, end = at, last
    else:
        return None
    if end <= start or end.date() != start.date():
        return None
    return {**current, "start": f"{start:%H:%M}", "end": f"{end:%H:%M}"}


def _kept_for(norm: str, now: datetime) -> re.Match[str] | None:
    """Time kept for a habit on days that repeat with no end ("Tuesday and Thursday mornings", "weekdays
    7-8"), or None: kept once ("block Friday afternoon for writing") or for a while ("9-11 every
    weekday in February") is an event, or a series of them."""
    m = _KEPT_FOR.search(norm)
    if m is None:
        return None
    repeat = read_repeat(m["rest"], now)
    if repeat is not None:
        return m if repeat.until is None else None
    return m if not PLURAL_PARTS.isdisjoint(m["rest"].split()) else None


def _habit_value(
    key: str, said: str, now: datetime, extra: dict[str, Any]
) -> dict[str, Any] | list[Any] | str:
    """The canonical value of a habit preference from the words after its name, or the question for
    what is missing."""
    days = _days(said, now)
    span = _span(said, now)
    label = preference_label(key)
    if span is None:
        verb = "are" if label.endswith("s") else "is"
        return f'From when to when {verb} your {label}? Say the hours, e.g. "from 6 to 7:30pm".'
    start, end = span
    if key == "lunch_hours":
        return {"start": start, "end": end}
    if key == "working_hours":
        return {"days": days or ["MO", "TU", "WE", "TH", "FR"], "start": start, "end": end}
    if not days:
        return f'On which days is your {label}? Say them, e.g. "Mondays and Thursdays".'
    if key == "gym_schedule":
        return [{"day": day, "start": start, "end": end} for day in days]
    return {"days": days, "start": start, "end": end, **extra}


def _days(said: str, now: datetime) -> list[str]:
    """Day codes said: "Monday, Wednesday and Friday", "Mon/Thu", "weekdays", "Monday to Friday"."""
    repeat = read_repeat(said, now)  # "weekdays", "every day", "mondays and thursdays"
    if repeat is not None and (repeat.days or repeat.rule == "FREQ=DAILY"):
        return [DAY_CODES[day] for day in sorted(repeat.days)] if repeat.days else list(DAY_CODES)
    found: list[str] = []
    for m in _DAY_RANGE.finditer(said):
        first, last = weekday_of(m[1]), weekday_of(m[2])
        found += [DAY_CODES[i % 7] for i in range(first, last + (1 if last >= first else 8))]
    for m in WEEKDAY_WORD.finditer(said):
        found.append(DAY_CODES[weekday_of(m[1])])
    return [code for code in DAY_CODES if code in found]


def _span(said: str, now: datetime) -> tuple[str, str] | None:
    """The hours said ("from 6 to 7:30pm", "12:30-1:30", "9 to 11am"), as HH:MM, or None."""
    repeat = read_repeat(said, now)
    said = blanked(said, repeat.spans if repeat else ())  # "every Monday" is no date
    ranged = _hours_in(said, now)
    if ranged is None and (number := re.search(r"\b\d", said)):
        # "8 to 4" alone is two numbers; "from 8 to 4" the hours of a day (8 AM to 4 PM)
        ranged = _hours_in(f"{said[: number.start()]}from {said[number.start() :]}", now)
    if ranged is None or ranged.start is None or ranged.end is None:
        return None
    start, end = ranged.start.astimezone(now.tzinfo), ranged.end.astimezone(now.tzinfo)
    if end.date() != start.date() or end <= start:
        return None
    return f"{start:%H:%M}", f"{end:%H:%M}"


def _hours_in(said: str, now: datetime) -> TimeMatch | None:
    """The first stretch of hours ``said`` reads as, or None."""
    found = [as_hours(m, now) for m in find_times(said, now=now, daytime=True) if not m.error and m.start]
    return next((m for m in found if m.is_interval and m.has_time and m.end is not None), None)


def _meeting_hours(how: str, what: str, now: datetime, current: dict[str, Any]) -> Decision:
    value = {k: v for k, v in current.items() if v}
    if how == "on":
        days = _days(what, now)
        if not days:
            return _clarify(
                f'I couldn\'t tell which days you meant in "{what}". Say them, e.g. "no meetings on Fridays".'
            )
        value["no_meeting_days"] = sorted(
            set(value.get("no_meeting_days") or []) | set(days), key=DAY_CODES.index
        )
    else:
        found = [m for m in find_times(f"at {what}", now=now, daytime=True) if m.has_time and m.start]
        if not found or found[0].start is None:
            return _clarify(
                f'I couldn\'t read "{what}" as a time of day. Say it like "no meetings before 10am".'
            )
        at = f"{found[0].start.astimezone(now.tzinfo):%H:%M}"
        value["earliest" if how in ("before", "earlier than") else "latest"] = at
    return _set("meeting_hours", value)


def _days_off(days: list[str], current: Any) -> Decision:
    """Working hours without the days said ("I don't work on Fridays"); asked for whole where none are
    kept (the hours of the other days are not known)."""
    if not isinstance(current, dict) or not current.get("days"):
        weekdays = [day for day in DAY_CODES[:5] if day not in days] or DAY_CODES[:5]
        example = describe_preference("working_hours", {"days": weekdays, "start": "09:00", "end": "17:00"})
        return _ask(
            "working_hours", f'What are your working hours? Say the days and hours, e.g. "{example}".', {}
        )
    kept = [day for day in current["days"] if day not in days]
    if not kept:
        return _clarify(
            'That leaves no working day. Say the days you do work, e.g. "Monday to Thursday, 9 to 5".'
        )
    return _set("working_hours", {**current, "days": kept})


def _meetings_in(part: str, preferences: dict[str, Any]) -> Decision:
    """Meeting hours within one part of the day (its bounds as the user keeps them): the morning only
    ends them ("no meetings after 12"), the afternoon and the evening bound both ends."""
    value = {k: v for k, v in (preferences.get("meeting_hours") or {}).items() if v}
    start, end = day_part_bounds(preferences)[part]
    if part != "morning":
        value["earliest"] = f"{start:%H:%M}"
    value["latest"] = f"{end:%H:%M}"
    return _set("meeting_hours", value)


def _zone(said: str) -> Decision:
    """An IANA zone from its name ("Europe/London", any case), its city ("london", "new york") or the
    name of a region's time the time reader knows as one zone ("pacific", "eastern time", "ET"); an
    abbreviation of a fixed offset ("PST") names no zone that keeps summer time, and is asked about."""
    wanted = said.strip().replace(" ", "_").casefold()
    region = TIMEZONES.get(wanted.removesuffix("_time"))
    zones = known_zones()
    exact = [z for z in zones if z.casefold() == wanted]
    cities = [z for z in zones if z.casefold().endswith("/" + wanted)]
    # "pacific" before the cities: US/Pacific and Canada/Pacific are two
    found = exact or ([region.key] if isinstance(region, ZoneInfo) else []) or cities
    if len(found) != 1:
        return _clarify(
            f'I don\'t know a time zone called "{said.strip()}". Give its name as in "Europe/London" or '
            '"America/New_York".'
        )
    return _set("timezone", found[0])


def _set(key: str, value: Any) -> Decision:
    return _workflow(
        f"set-{key}", f"Set the {preference_label(key)}", "set_preference", {"key": key, "value": value}
    )


def _workflow(name: str, summary: str, skill: str, params: dict[str, Any]) -> Decision:
    plan = Plan()
    pref = plan.add(skill, params, id="pref", summary=summary)
    return Decision(kind="workflow", workflow=plan.build(name, summary=summary, output=pref), confidence=0.9)


def _ask(key: str, question: str, extra: dict[str, Any]) -> Decision:
    return Decision(
        kind="clarify",
        reply_kind="clarify",
        text=question,
        context_update={PENDING: {"key": key, "extra": extra}},
    )


def _clarify(text: str) -> Decision:
    return Decision(kind="clarify", reply_kind="clarify", text=text)
