"""Closed word lists of English time expressions: months, weekdays, units, day parts, time zones.

Kept apart from the grammar so that the product's conventions (the day-part bounds above all) live
in one place that other code can import, and so that the lexer can classify a word with one dict
lookup instead of trying regular expressions.
"""

from __future__ import annotations

from datetime import time, timedelta, timezone, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo

from skills.schemas import DAY_PARTS as SKILL_DAY_PARTS

__all__ = [
    "AMBIGUOUS_NAMES",
    "DAY_PARTS",
    "DAY_PART_OF",
    "EXTRA_PARTS",
    "GLUED_UNITS",
    "GRAINS",
    "MODIFIERS_BY_FIRST",
    "MONTHS",
    "MONTH_NAMES",
    "PART_WINDOWS",
    "PART_WORDS",
    "PERIOD_SHORTHANDS",
    "PLURAL_PARTS",
    "RELATIVE_DAYS",
    "ROUGHLY",
    "SEASONS",
    "TIMEZONES",
    "UNITS",
    "WEEKDAYS",
    "WEEKDAY_PLURALS",
    "WEEKEND_START",
    "Grain",
]

Grain = Literal["second", "minute", "hour", "day", "week", "month", "quarter", "year"]
GRAINS: tuple[Grain, ...] = ("second", "minute", "hour", "day", "week", "month", "quarter", "year")

# The product's day parts. "night" runs past midnight: its end is on the next day.
DAY_PARTS: dict[str, tuple[time, time]] = SKILL_DAY_PARTS  # one definition for parsing and filtering

# The weekend starts when Friday's evening does, and runs to Monday 00:00.
WEEKEND_START: time = DAY_PARTS["evening"][0]

# Spans named by phrases that are not one of the four day parts. "tonight" is the evening and the
# night together, so that "8 tonight" and "11 tonight" both land in it.
EXTRA_PARTS: dict[str, tuple[time, time]] = {
    "tonight": (time(17), time(5)),
    "lunch": (time(12), time(14)),
    "after lunch": (time(13), time(17)),
    "after work": (time(17), time(21)),
    "after school": (time(15), time(21)),
    "early morning": (time(5), time(9)),
    "late morning": (time(10), time(12)),
    "early afternoon": (time(12), time(14)),
    "late afternoon": (time(15), time(17)),
    "early evening": (time(17), time(19)),
    "late evening": (time(19), time(21)),
    "late night": (time(21), time(5)),
}

# Where an hour said without am/pm falls when a day part is named with it ("5 in the afternoon"):
# wider than the part itself, since "3 in the morning" is 3 am and "5 in the afternoon" is 5 pm
# although the product's morning starts at 5 and its afternoon ends at 5.
PART_WINDOWS: dict[str, tuple[time, time]] = {
    "morning": (time(0), time(12)),
    "early morning": (time(0), time(10)),
    "afternoon": (time(12), time(19)),
    "early afternoon": (time(12), time(19)),
    "late afternoon": (time(12), time(19)),
    "late morning": (time(0), time(12)),
    "early evening": (time(17), time(21)),
    "after lunch": (time(12), time(19)),
    "lunch": (time(11), time(15)),
    "evening": (time(16), time(0)),
    "late evening": (time(18), time(0)),
    "after work": (time(16), time(0)),
    "after school": (time(14), time(0)),
    "night": (time(18), time(6)),
    "late night": (time(20), time(6)),
    "tonight": (time(16), time(6)),
}

MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

MONTHS: dict[str, int] = {}
for _number, _name in enumerate(MONTH_NAMES, start=1):
    MONTHS[_name.lower()] = _number
    MONTHS[_name[:3].lower()] = _number
MONTHS.update({"sept": 9, "febr": 2})

WEEKDAYS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        ("monday", "mon"),
        ("tuesday", "tue", "tues"),
        ("wednesday", "wed", "weds", "wednes", "wensday"),
        ("thursday", "thu", "thur", "thurs"),
        ("friday", "fri"),
        ("saturday", "sat"),
        ("sunday", "sun"),
    )
):
    for _word in _names:
        WEEKDAYS[_word] = _number
# Plurals ("on Mondays") name a recurring day, not one date.
WEEKDAY_PLURALS: dict[str, int] = {
    name + "s": number for name, number in WEEKDAYS.items() if name.endswith("day") or name == "weds"
}

# Month and weekday names that are also ordinary English words ("may I", "I sat down", "mar the
# surface"): they only count as dates when something around them says so.
AMBIGUOUS_NAMES = frozenset({"may", "mar", "jan", "jun", "sat", "sun", "wed", "dec"})

# The words after which "last" is the verb ("it will last 2 hours", "and last 2 hours"): a length, never
# "the last 2 hours" before now.
LAST_AS_A_VERB_AFTER = frozenset(
    {"will", "it'll", "that'll", "should", "would", "could", "can", "may", "might", "must", "to", "and", "it"}
)
UNITS: dict[str, Grain] = {}
_UNIT_WORDS: tuple[tuple[Grain, tuple[str, ...]], ...] = (
    ("second", ("second", "seconds", "sec", "secs", "s")),
    ("minute", ("minute", "minutes", "min", "mins", "m", "mn")),
    ("hour", ("hour", "hours", "hr", "hrs", "h")),
    ("day", ("day", "days", "d")),
    ("week", ("week", "weeks", "wk", "wks", "w")),
    ("month", ("month", "months", "mo", "mos", "mth", "mths")),
    ("quarter", ("quarter", "quarters", "qtr", "qtrs")),
    ("year", ("year", "years", "yr", "yrs", "y")),
)
for _grain, _words in _UNIT_WORDS:
    for _word in _words:
        UNITS[_word] = _grain
# Letters that are units only right after a digit ("2h", "45m"); alone they are ordinary words.
GLUED_UNITS = frozenset({"s", "m", "mn", "h", "d", "w", "y", "mo"})

SEASONS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    # (month, day) the season starts on, (month, day) the next one starts on.
    "spring": ((3, 20), (6, 21)),
    "summer": ((6, 21), (9, 23)),
    "fall": ((9, 23), (12, 21)),
    "autumn": ((9, 23), (12, 21)),
    "winter": ((12, 21), (3, 20)),
}


def _fixed(hours: float) -> tzinfo:
    return timezone(timedelta(hours=hours))


# Abbreviations people write after a time. Words that are also English words ("eat", "get",
# "west", "art", "cat") are left out on purpose. The regional "ET/PT/CT/MT" follow daylight saving.
TIMEZONES: dict[str, tzinfo] = {
    "utc": _fixed(0),
    "gmt": _fixed(0),
    "z": _fixed(0),
    "wet": _fixed(0),
    "bst": _fixed(1),
    "cet": _fixed(1),
    "wat": _fixed(1),
    "ist": _fixed(5.5),
    "cest": _fixed(2),
    "eet": _fixed(2),
    "sast": _fixed(2),
    "eest": _fixed(3),
    "msk": _fixed(3),
    "gst": _fixed(4),
    "pkt": _fixed(5),
    "npt": _fixed(5.75),
    "ict": _fixed(7),
    "wib": _fixed(7),
    "hkt": _fixed(8),
    "sgt": _fixed(8),
    "awst": _fixed(8),
    "pht": _fixed(8),
    "jst": _fixed(9),
    "kst": _fixed(9),
    "acst": _fixed(9.5),
    "aest": _fixed(10),
    "acdt": _fixed(10.5),
    "aedt": _fixed(11),
    "nzst": _fixed(12),
    "nzdt": _fixed(13),
    "nst": _fixed(-3.5),
    "ndt": _fixed(-2.5),
    "brt": _fixed(-3),
    "adt": _fixed(-3),
    "ast": _fixed(-4),
    "edt": _fixed(-4),
    "est": _fixed(-5),
    "cdt": _fixed(-5),
    "cst": _fixed(-6),
    "mdt": _fixed(-6),
    "mst": _fixed(-7),
    "pdt": _fixed(-7),
    "pst": _fixed(-8),
    "akdt": _fixed(-8),
    "akst": _fixed(-9),
    "hst": _fixed(-10),
    "et": ZoneInfo("America/New_York"),
    "ct": ZoneInfo("America/Chicago"),
    "mt": ZoneInfo("America/Denver"),
    "pt": ZoneInfo("America/Los_Angeles"),
    # said after a clock time: "9am Pacific", "3 pm eastern"
    "eastern": ZoneInfo("America/New_York"),
    "central": ZoneInfo("America/Chicago"),
    "mountain": ZoneInfo("America/Denver"),
    "pacific": ZoneInfo("America/Los_Angeles"),
}

# Words that name a day part, and the part each names.
PART_WORDS: dict[str, str] = {
    "morning": "morning",
    "mornings": "morning",
    "afternoon": "afternoon",
    "afternoons": "afternoon",
    "afternoonish": "afternoon",
    "evening": "evening",
    "evenings": "evening",
    "night": "night",
    "nights": "night",
    "lunch": "lunch",
    "lunchtime": "lunch",
    "lunches": "lunch",
}
PLURAL_PARTS = frozenset({"mornings", "afternoons", "evenings", "nights", "lunches"})
# Which of the four product day parts (``TimeMatch.day_part``) each span belongs to.
DAY_PART_OF: dict[str, str | None] = {
    "morning": "morning",
    "early morning": "morning",
    "late morning": "morning",
    "afternoon": "afternoon",
    "early afternoon": "afternoon",
    "late afternoon": "afternoon",
    "early evening": "evening",
    "after lunch": "afternoon",
    "evening": "evening",
    "late evening": "evening",
    "after work": "evening",
    "after school": "afternoon",
    "night": "night",
    "late night": "night",
    "tonight": "night",
    "lunch": None,
}

# Days named from today, by their first word: (words, days from today).
RELATIVE_DAYS: dict[str, list[tuple[tuple[str, ...], int]]] = {}
_RELATIVE: tuple[tuple[tuple[str, ...], int], ...] = (
    (("day", "after", "tomorrow"), 2),
    (("day", "before", "yesterday"), -2),
    (("today",), 0),
    (("todays",), 0),
    (("tomorrow",), 1),
    (("tmrw",), 1),
    (("tmr",), 1),
    (("tomorow",), 1),
    (("tommorow",), 1),
    (("tommorrow",), 1),
    (("tomorrows",), 1),
    (("yesterday",), -1),
    (("yesterdays",), -1),
)
for _phrase, _offset in _RELATIVE:
    RELATIVE_DAYS.setdefault(_phrase[0], []).append((_phrase, _offset))

# Modifiers and what they mean, by their first word: "this past" is "last", "the following" "next".
MODIFIERS_BY_FIRST: dict[str, list[tuple[tuple[str, ...], str]]] = {}
_MODIFIERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("this", "past"), "last"),
    (("this", "coming"), "coming"),
    (("the", "following"), "next"),
    (("the", "next"), "next"),
    (("the", "last"), "last"),
    (("the", "previous"), "last"),
    (("the", "past"), "last"),
    (("the", "coming"), "coming"),
    (("the", "current"), "this"),
    (("this",), "this"),
    (("current",), "this"),
    (("next",), "next"),
    (("following",), "next"),
    (("last",), "last"),
    (("previous",), "last"),
    (("past",), "last"),
    (("coming",), "coming"),
    (("upcoming",), "coming"),
)
for _words, _meaning in _MODIFIERS:
    MODIFIERS_BY_FIRST.setdefault(_words[0], []).append((_words, _meaning))

# Words that make a time approximate without changing it: "around 4", "at about 3pm".
ROUGHLY = frozenset({"around", "about", "approximately", "approx", "roughly", "exactly", "circa", "~"})

# Abbreviated parts of periods: (which part, of what).
PERIOD_SHORTHANDS: dict[str, tuple[str, Grain]] = {
    "eom": ("end", "month"),
    "bom": ("beginning", "month"),
    "eoy": ("end", "year"),
    "boy": ("beginning", "year"),
    "eow": ("end", "week"),
}
