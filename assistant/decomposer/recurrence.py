"""How often a new event repeats, read from the words that say so: an RFC 5545 RRULE.

"every Tuesday and Thursday", "on weekdays", "every other Monday", "daily", "weekly" give the rule;
"until the end of May", "until June 12", "for 6 weeks" bound it.  The time resolver reads single dates
and times well but not repetition, so the repeating words are read here and masked before the time of
day is read from what is left ("at 7am", "6-7pm").
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from assistant.timeexpr import find_times

__all__ = ["Repeat", "next_on", "read_repeat", "until_clause"]

_DAYS = {
    "mon": "MO",
    "tue": "TU",
    "tues": "TU",
    "wed": "WE",
    "wednes": "WE",
    "thu": "TH",
    "thur": "TH",
    "thurs": "TH",
    "fri": "FR",
    "sat": "SA",
    "satur": "SA",
    "sun": "SU",
}
_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
_DAY_LIST = rf"{_DAY}(?:\s*(?:,|and|&|or|/)\s*{_DAY})*"
_REPEAT = re.compile(
    rf"\b(?:(?:every|each)\s+(?:(?P<other>other|second)\s+)?(?P<unit>{_DAY_LIST}|weekdays?|weekend|day|week|month)"
    rf"|(?:on\s+)?(?P<plural>(?:{_DAY}s)(?:\s*(?:,|and|&)\s*{_DAY}s)*)\b"
    rf"|(?:on\s+)(?P<weekdays>weekdays)|(?P<daily>daily)|(?P<weekly>weekly|biweekly|fortnightly))\b",
    re.IGNORECASE,
)
_UNTIL = re.compile(r"\b(?:until|till|til|through|thru|up to)\s+(?P<end>.+?)(?=[,.;]|$)", re.IGNORECASE)
_END_OF = re.compile(r"^(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<rest>.+)$", re.IGNORECASE)
_FOR = re.compile(r"\bfor\s+(?P<n>\d+|two|three|four|five|six|eight|ten|twelve)\s+(?P<unit>weeks|months)\b")
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10, "twelve": 12}


@dataclass(frozen=True, slots=True)
class Repeat:
    """A rule, the weekdays it falls on (empty: any day), the last day it may fall on, and the spans of
    the text that said all this (masked before the time of day is read)."""

    rule: str
    days: tuple[int, ...]
    until: date | None
    spans: tuple[tuple[int, int], ...]


def _days(words: str) -> list[str]:
    found = []
    for word in re.findall(r"[a-z]+", words.casefold()):
        stem = re.sub(r"(?:day)?s?$", "", word)
        code = _DAYS.get(stem) or _DAYS.get(stem[:3])
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


def read_repeat(text: str, now: datetime) -> Repeat | None:
    """The repetition a sentence asks for, or None when it asks for a single event."""
    found = list(_REPEAT.finditer(text))
    if not found:
        return None
    # "a weekly reading group every Thursday": the days say more than "weekly"
    m = next((f for f in found if f["unit"] or f["plural"] or f["weekdays"]), found[0])
    spans = [f.span() for f in found]
    every_other = any(
        f["other"] or (f["weekly"] or "").casefold() in ("biweekly", "fortnightly") for f in found
    )
    interval = 2 if every_other else 1
    unit = (m["unit"] or "").casefold()
    days: list[str] = []
    if m["daily"] or unit == "day":
        freq = "DAILY"
    elif m["weekdays"] or unit in ("weekday", "weekdays"):
        freq, days = "WEEKLY", ["MO", "TU", "WE", "TH", "FR"]
    elif unit == "weekend":
        freq, days = "WEEKLY", ["SA", "SU"]
    elif unit == "month":
        freq = "MONTHLY"
    else:
        freq, days = "WEEKLY", _days(m["unit"] or m["plural"] or "")
    rule = f"FREQ={freq}" + (f";INTERVAL={interval}" if interval > 1 else "")
    rule += f";BYDAY={','.join(days)}" if days else ""
    until, said = _until(text, now)
    if said:
        spans.append(said)
        if until is None:
            return Repeat(rule="", days=(), until=None, spans=tuple(spans))  # "until whenever": asked
    elif count := _FOR.search(text):
        n = int(count["n"]) if count["n"].isdigit() else _NUMBERS[count["n"]]
        weeks = n if count["unit"] == "weeks" else n * 4
        spans.append(count.span())
        try:
            until = (now + timedelta(weeks=weeks)).date()
        except OverflowError:  # "for 99999999 weeks": past year 9999, so asked like "until whenever"
            return Repeat(rule="", days=(), until=None, spans=tuple(spans))
    return Repeat(rule=rule, days=tuple(_CODES.index(d) for d in days), until=until, spans=tuple(spans))


def next_on(days: list[int], start: time, now: datetime, tz: ZoneInfo) -> date:
    """The first day from today on whose ``start`` is still ahead and that falls on ``days`` (any day
    when empty)."""
    day = now.astimezone(tz).date()
    for _ in range(14):
        if datetime.combine(day, start, tz) > now and (not days or day.weekday() in days):
            return day
        day += timedelta(days=1)
    return day


def until_clause(repeat: Repeat, tz: ZoneInfo) -> str:
    """The rule's UNTIL: the end of its last day, in UTC as RFC 5545 wants with a zoned start."""
    if repeat.until is None:
        return ""
    last = datetime.combine(repeat.until, time(23, 59, 59), tz).astimezone(UTC)
    return f";UNTIL={last:%Y%m%dT%H%M%SZ}"
