"""How often a new event repeats, read from the words that say so: an RFC 5545 RRULE.

"every Tuesday and Thursday", "on weekdays", "every other Monday", "daily", "weekly" give the rule;
"until the end of May", "until June 12", "for 6 weeks" bound it.  The time resolver reads single dates
and times well but not repetition, so the repeating words are read here and masked before the time of
day is read from what is left ("at 7am", "6-7pm").
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from dateutil.relativedelta import relativedelta
from dateutil.rrule import rrulestr

from assistant.lexicon import EXCEPTING, ORDINALS, WEEKDAY, WEEKDAYS_EVERY, tokens, weekday_number
from assistant.timeexpr import DAY_PARTS, TimeMatch, find_times
from assistant.timeexpr.numbers import CARDINALS
from assistant.turnmemo import shared

__all__ = ["Repeat", "as_hours", "first_day", "read_repeat", "until_clause"]

# Days a repetition leaves out, said after it: "except Fridays", "but not on weekends".
_BUT_NOT = re.compile(
    rf"\b(?:{EXCEPTING}|not)\s+(?:on\s+)?(?:the\s+)?"
    rf"(?:(?P<weekend>weekends?)|(?P<days>{WEEKDAY}s?(?:\s*(?:,|and|or|&)\s*{WEEKDAY}s?)*))\b",
    re.IGNORECASE,
)
_DASH_PAIR = re.compile(r"(?P<a>\d{1,2})\s*-\s*(?P<b>\d{1,2})")

_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
# "weekday mornings", "weekend evenings": a kind of day before a day part said in the plural repeats
_PARTS_AFTER = rf"\s+(?:{'|'.join(DAY_PARTS)})s\b"
_DAY = WEEKDAY
_DAY_LIST = rf"{_DAY}(?:\s*(?:,|and|&|or|/)\s*{_DAY})*"
# "on Mondays", "tuesdays and thursdays", "mondays and weds", "tues and thurs": every such day; "tues"
# or "thurs" alone is one day.
_REPEAT = re.compile(
    rf"\b(?:(?:every|each)\s+(?:(?P<other>other|second)\s+)?(?P<unit>{_DAY_LIST}|(?:week|work)days?|weekend|day|week|month|morning|afternoon|evening|night)"
    rf"|(?:on\s+)?(?<!next )(?<!this )(?<!last )(?<!coming )"
    rf"(?P<plural>(?:{WEEKDAYS_EVERY})(?:\s*(?:,|and|&)\s*{_DAY})*|{_DAY}s(?:\s*(?:,|and|&)\s*{_DAY}s)+)\b"
    rf"|(?:on\s+)?(?P<weekdays>(?:week|work)days|(?:week|work)day(?={_PARTS_AFTER}))"
    rf"|(?:on\s+)?(?<!this )(?<!next )(?P<weekends>weekends|weekend(?={_PARTS_AFTER}))"
    rf"|(?P<daily>daily)|(?P<weekly>weekly|biweekly|fortnightly))\b",
    re.IGNORECASE,
)
_ORDINAL = f"(?:{'|'.join(ORDINALS)})"
_OF_EACH_MONTH = r"(?:\s+of)?\s+(?:(?:the|each|every)\s+)?month"
# "the first Monday of every month", "monthly on the last Friday", "the 15th of each month",
# "every year", "annually", "every 2 weeks", "every three days": repetitions _REPEAT leaves out.
_MONTH_WEEKDAY = re.compile(
    rf"\b(?:on\s+)?(?:the\s+)?(?P<nth>{_ORDINAL})\s+(?P<day>{_DAY})(?:{_OF_EACH_MONTH})?\b", re.IGNORECASE
)
_MONTH_DAY = re.compile(
    rf"\b(?:on\s+)?the\s+(?P<dom>[12]?\d|3[01])(?:st|nd|rd|th)(?:{_OF_EACH_MONTH})?\b", re.IGNORECASE
)
_MONTHLY = re.compile(r"\b(?:monthly|(?:of\s+)?(?:each|every)\s+month)\b", re.IGNORECASE)
_YEARLY = re.compile(r"\b(?:yearly|annually|(?:each|every)\s+year|once\s+a\s+year)\b", re.IGNORECASE)
# A count in digits or words ("every 3 weeks", "for the next six weeks"; "a week" is one).
_COUNT = rf"(?P<n>\d+|an?|{'|'.join(sorted(CARDINALS, key=len, reverse=True))})"
_EVERY_N = re.compile(rf"\bevery\s+{_COUNT}\s+(?P<unit>days|weeks|months)\b", re.IGNORECASE)
_REPEAT_DAYS = re.compile(rf"\b(?:on\s+)?{_DAY_LIST}\b", re.IGNORECASE)
_UNTIL = re.compile(r"\b(?:until|till|til|through|thru|up to)\s+(?P<end>.+?)(?=[,.;]|$)", re.IGNORECASE)
_END_OF = re.compile(r"^(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<rest>.+)$", re.IGNORECASE)
# "for 6 weeks", "for the next six weeks", "over the coming 3 months", "for 10 more days": its length.
_FOR = re.compile(
    rf"\b(?:for|over)\s+(?:the\s+)?(?:next\s+|coming\s+|following\s+)?{_COUNT}\s+(?:more\s+)?"
    r"(?P<unit>days?|weeks?|months?)\b",
    re.IGNORECASE,
)
# "every weekday in February", "daily during next week": the period bounds the series.
_WITHIN = re.compile(
    r"\b(?:in|during|throughout)\s+(?P<period>(?:this|next)\s+(?:week|month)|(?:the\s+month\s+of\s+)?[a-z]+)\b"
    r"|\b(?:this|next)\s+(?:week|month)\b",  # "every day this week": the week bounds it as "in" would
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Repeat:
    """A rule, the weekdays it falls on (empty: any day), the last day it may fall on, and the spans of
    the text that said all this (masked before the time of day is read)."""

    rule: str
    days: tuple[int, ...]
    until: date | None
    spans: tuple[tuple[int, int], ...]


def _count(said: str) -> int:
    """A count said in digits or words: "6", "six", "a"."""
    word = said.casefold()
    return int(word) if word.isdigit() else 1 if word in ("a", "an") else CARDINALS[word]


def _days(words: str) -> list[str]:
    found = []
    for word in tokens(words):
        number = weekday_number(word)
        code = _CODES[number] if number is not None else None
        if code and code not in found:
            found.append(code)
    return sorted(found, key=_CODES.index)


def _until(text: str, now: datetime) -> tuple[date | None, tuple[int, int] | None]:
    m = _UNTIL.search(text)
    if m is None:
        return None, None
    said = m["end"].strip()
    end_of = _END_OF.match(said)
    if end_of:
        # "the end of May": the month's last day ("May 1" makes "may" a month, not a modal verb)
        found = [t for t in find_times(f"{end_of['rest']} 1", now=now) if not t.error and t.start]
        if not found or found[0].start is None:
            return None, m.span()
        day = found[0].start.date()
        return day.replace(day=calendar.monthrange(day.year, day.month)[1]), m.span()
    found = [t for t in find_times(said, now=now) if not t.error and t.start]
    if not found or found[0].start is None:
        return None, m.span()
    last = found[0].start.date()
    if found[0].grain == "month":
        last -= timedelta(days=1)  # "until June": the series stops before June
    return last, m.span()


# Words that make the period after them the series' beginning ("starting next week", "from next month on").
_STARTING = re.compile(r"\b(?:starting|start|from|beginning|begin|as of|effective)\s+$", re.IGNORECASE)


def _within(text: str, now: datetime) -> date | None:
    """The last day of the week or month a repetition is said to happen in ("every weekday in
    February": February 28), or None when it names no such period."""
    for m in _WITHIN.finditer(text):
        if _STARTING.search(text, 0, m.start()):
            continue  # "every Tuesday starting next week": when it begins, not where it ends
        found = [t for t in find_times(m.group(0), now=now) if not t.error and t.start and t.end]
        if len(found) == 1 and found[0].grain in ("week", "month") and found[0].end is not None:
            return (found[0].end - timedelta(days=1)).date()
    return None


def _by_day(place: int) -> int:
    """RFC 5545 counts a month's weekdays from 1, and from the end as -1; an ORDINALS place counts from 0."""
    return place + 1 if place >= 0 else place


def _monthly_or_longer(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """A monthly or yearly rule ("the first Monday of every month", "monthly on the 15th", "every
    year"), or one every N days, weeks or months, with the spans that said it; None for none."""
    if every := _EVERY_N.search(text):
        n = _count(every["n"])
        freq = {"days": "DAILY", "weeks": "WEEKLY", "months": "MONTHLY"}[every["unit"].casefold()]
        rule = f"FREQ={freq}" + (f";INTERVAL={n}" if n > 1 else "")
        days = _REPEAT_DAYS.search(text) if freq == "WEEKLY" else None
        if days is not None:
            rule += f";BYDAY={','.join(_days(days.group(0)))}"
        return rule, [every.span(), *([days.span()] if days else [])]
    if yearly := _YEARLY.search(text):
        return "FREQ=YEARLY", [yearly.span()]
    monthly = _MONTHLY.search(text)
    if monthly is None:
        return None
    if nth := _MONTH_WEEKDAY.search(text):
        code = _days(nth["day"])[0]
        place = _by_day(ORDINALS[nth["nth"].casefold()])
        return f"FREQ=MONTHLY;BYDAY={place}{code}", [monthly.span(), nth.span()]
    if dom := _MONTH_DAY.search(text):
        return f"FREQ=MONTHLY;BYMONTHDAY={int(dom['dom'])}", [monthly.span(), dom.span()]
    return "FREQ=MONTHLY", [monthly.span()]


def read_repeat(text: str, now: datetime) -> Repeat | None:
    """The repetition a sentence asks for, or None when it asks for a single event; read once a turn
    (the frame, the intent check, the drafts and the create handlers all ask it of the same words)."""
    return shared(f"read_repeat {now.isoformat()} {text}", lambda: _read_repeat(text, now))


def _read_repeat(text: str, now: datetime) -> Repeat | None:
    longer = _monthly_or_longer(text)
    if longer is not None:
        rule, spans = longer
        until, said = _until(text, now)
        if said:
            spans.append(said)
            if until is None:
                return Repeat(rule="", days=(), until=None, spans=tuple(spans))
        return Repeat(rule=rule, days=(), until=until, spans=tuple(spans))
    # the days a repetition leaves out are no repetition of their own ("daily but not on weekends")
    left = [b.span() for b in _BUT_NOT.finditer(text)]
    found = [f for f in _REPEAT.finditer(text) if not any(lo <= f.start() < f.end() <= hi for lo, hi in left)]
    if not found:
        return None
    # "a weekly reading group every Thursday": the days say more than "weekly"
    m = next((f for f in found if f["unit"] or f["plural"] or f["weekdays"] or f["weekends"]), found[0])
    # "every morning at 7": "morning" stays for the time of day to read (7 AM), "every" is the repetition
    spans = [
        (f.start(), f.start("unit")) if (f["unit"] or "").casefold() in DAY_PARTS else f.span() for f in found
    ]
    every_other = any(
        f["other"] or (f["weekly"] or "").casefold() in ("biweekly", "fortnightly") for f in found
    )
    interval = 2 if every_other else 1
    unit = (m["unit"] or "").casefold()
    days: list[str] = []
    if m["daily"] or unit == "day" or unit in DAY_PARTS:  # "every morning": every day, then
        freq = "DAILY"
    elif m["weekdays"] or unit in ("weekday", "weekdays", "workday", "workdays"):
        freq, days = "WEEKLY", ["MO", "TU", "WE", "TH", "FR"]
    elif m["weekends"] or unit == "weekend":
        freq, days = "WEEKLY", ["SA", "SU"]
    elif unit == "month":
        freq = "MONTHLY"
    else:
        freq, days = "WEEKLY", _days(m["unit"] or m["plural"] or "")
    left_out = _BUT_NOT.search(text, m.end())
    if left_out is not None and freq in ("DAILY", "WEEKLY") and interval == 1:
        # "every weekday except Fridays", "daily but not on weekends": those days taken out
        out = ["SA", "SU"] if left_out["weekend"] else _days(left_out["days"])
        kept = [d for d in (days or (_CODES if freq == "DAILY" else [])) if d not in out]
        if out and kept:
            freq, days = "WEEKLY", kept
            spans.append(left_out.span())
    rule = f"FREQ={freq}" + (f";INTERVAL={interval}" if interval > 1 else "")
    rule += f";BYDAY={','.join(days)}" if days else ""
    until, said = _until(text, now)
    if said:
        spans.append(said)
        if until is None:
            return Repeat(rule="", days=(), until=None, spans=tuple(spans))  # "until whenever": asked
    elif (within := _within(text, now)) is not None:
        until = within  # its words stay the time's: the series begins when the period does
    elif count := _FOR.search(text):
        n, unit = _count(count["n"]), count["unit"].casefold().rstrip("s")
        length = (
            relativedelta(days=n)
            if unit == "day"
            else relativedelta(weeks=n)
            if unit == "week"
            else relativedelta(months=n)
        )
        spans.append(count.span())
        try:
            until = (now + length).date()
        except (
            OverflowError,
            ValueError,
        ):  # "for 99999999 weeks": past year 9999, so asked like "until whenever"
            return Repeat(rule="", days=(), until=None, spans=tuple(spans))
    return Repeat(rule=rule, days=tuple(_CODES.index(d) for d in days), until=until, spans=tuple(spans))


def first_day(
    rule: str, start: time, now: datetime, tz: ZoneInfo, *, from_day: date | None = None
) -> date | None:
    """The first day of ``rule`` (its UNTIL aside) on or after ``from_day`` (today when None) whose
    ``start`` is still ahead: a series starts on a day of its own rule ("every Saturday starting next
    week" on the Saturday, not the Monday that week begins on).  None when the rule has no such day
    within ten years."""
    today = now.astimezone(tz).date()
    first = max(from_day or today, today)
    # Its interval counts from the day found, so the first day is the rule's next day without it
    # ("every other Monday" said on a Tuesday starts next Monday).
    bare = ";".join(part for part in rule.split(";") if not part.startswith(("UNTIL=", "INTERVAL=")))
    dtstart = datetime.combine(first, start)
    limit = dtstart + timedelta(days=3660)
    for moment in rrulestr(bare, dtstart=dtstart, cache=False):
        if moment > limit:
            return None
        if moment.replace(tzinfo=tz) > now:
            return moment.date()
    return None


def until_clause(repeat: Repeat, tz: ZoneInfo) -> str:
    """The rule's UNTIL: the end of its last day, in UTC as RFC 5545 wants with a zoned start."""
    if repeat.until is None:
        return ""
    last = datetime.combine(repeat.until, time(23, 59, 59), tz).astimezone(UTC)
    return f";UNTIL={last:%Y%m%dT%H%M%SZ}"


def as_hours(match: TimeMatch, now: datetime) -> TimeMatch:
    """A bare "12-1" read as December 1 in a repeating event's or a habit's words is its hours ("block
    12-1 every day for lunch", "my writing block is Tuesdays 9-11"): the repetition, not a date, says
    which days."""
    pair = _DASH_PAIR.fullmatch(match.text.strip())
    if pair is None or match.has_time:
        return match
    hours = find_times(f"from {pair['a']} to {pair['b']}", now=now, daytime=True)
    if len(hours) != 1 or hours[0].error or not hours[0].has_time:
        return match
    return replace(hours[0], text=match.text, span=match.span)
