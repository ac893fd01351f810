"""Cutting text into the tokens the grammar reads: words, numbers, clock times, dates, holidays.

One compiled regular expression does the pass; holiday names are then joined into single tokens.
Forms that are unambiguous on their own ("15:23:24", "2013-02-15", "2018q4", "boss's day") become
single tokens here, so the grammar only deals with sequences of words and numbers. Phone numbers
and the like become ``junk`` so that "at 650-650-6500" is not read as a time.
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from functools import lru_cache
from typing import NamedTuple

from assistant.timeexpr.holidays import HOLIDAY_STARTS, match_holiday
from assistant.timeexpr.lexicon import WEEKDAY_PLURALS, WEEKDAYS

__all__ = ["Token", "misspelt_weekdays", "normalize", "tokenize"]

# Same-length replacements only, so that offsets into the normalized text are offsets into the input.
_FOLD = str.maketrans(
    {
        "’": "'",
        "‘": "'",
        "´": "'",
        "`": "'",
        "“": '"',
        "”": '"',
        "–": "-",
        "—": "-",
        "\u00a0": " ",
        "\u202f": " ",
    }
)

# Each alternative starts with its own kind of character, looked ahead for first, so that a word is not
# tried against the nine ways a number can start (the order within a kind is the order of preference;
# a quarter is the one form that starts with a digit or a letter, and no other form can start where it
# does).  Whitespace matches nothing and is skipped.
_TOKEN = re.compile(
    r"""
    (?P<qtr>(?:\d{4}|\d{2})?q[1-4])(?![a-z\d])
    | (?=[a-z])(?:(?P<ampm>[ap])\.\s?m\b\.? | (?P<word>[a-z]+(?:'[a-z]+)*'?))
    | (?=\d)(?:
        (?P<junk>\d{3,}[-.]\d{3,}[-.\d]*|\d+(?:[.,]\d+){2,})
        | (?P<iso>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2})(?![\d-])
        | (?P<mdy>\d{1,2})(?P<sep>[/-])(?P<mdy_d>\d{1,2})(?P=sep)(?P<mdy_y>\d{4}|\d{2})(?![\d/-])
        | (?P<ym>\d{4})[/-](?P<ym_m>1[0-2]|0?[1-9])(?![\d/-])
        | (?P<slash>\d{1,2})\s*/\s*(?P<slash_b>\d{1,4})(?![\d/])
        | (?P<clock>\d{1,2}):(?P<clock_m>[0-5]\d)(?::(?P<clock_s>[0-5]\d))?(?!\d)
        | (?P<ord>\d{1,2})(?:st|nd|rd|th)(?![a-z])
        | (?P<num>\d+(?:\.\d+)?)
    )
    | (?P<punct>[^\sa-z\d])
    """,
    re.VERBOSE,
)


class Token(NamedTuple):
    """One token, with its place in the text so that matches can report their span.

    A named tuple rather than a frozen dataclass: as immutable, and several times cheaper to make, which
    counts when every word of every text read makes one.
    """

    kind: str  # hol, junk, date, slash, qtr, clock, ord, num, word, punct
    text: str  # the lower-cased source text ("a.m." is read as the word "am")
    start: int
    end: int
    # Numbers the token carries: num -> (value,), ord -> (n,), clock -> (h, m, s or -1),
    # date -> (y, m, d; d = 0 for a whole month), slash -> (a, b), qtr -> (year or -1, quarter).
    values: tuple[float, ...] = ()
    key: str = ""  # the holiday's key for "hol" tokens


# The first two letters of every weekday, for the cheap test before a word is compared with them.
_DAY_STARTS = frozenset(name[:2] for name in WEEKDAYS)
_FULL_DAYS = [name for name in WEEKDAYS if name.endswith("day")]


def _maybe_misspelt(word: str) -> bool:
    """Whether a word is worth comparing with the weekdays: begun like one, not one, nor their plural."""
    return (
        word[:2] in _DAY_STARTS
        and 5 <= len(word) <= 10
        and word not in WEEKDAYS
        and word not in WEEKDAY_PLURALS
    )


@lru_cache(maxsize=4096)
def _weekday_misspelt(word: str) -> str | None:
    """The weekday a word misspells ("fridy", "satruday", "thursdy"), or None: one as close as a typo
    makes it (not "sundae" for "sunday")."""
    close = get_close_matches(word, _FULL_DAYS, n=1, cutoff=0.85)
    return close[0] if close else None


def misspelt_weekdays(text: str) -> list[tuple[str, str]]:
    """The words of ``text`` read as a weekday they misspell, with that weekday: ("fridy", "friday")."""
    found = []
    for word in re.findall(r"[a-z]+", normalize(text)):
        if _maybe_misspelt(word):
            day = _weekday_misspelt(word)
            if day is not None:
                found.append((word, day))
    return found


def normalize(text: str) -> str:
    """Lower-case ``text`` without changing its length, folding typographic quotes and dashes."""
    folded = text.translate(_FOLD)
    lowered = folded.lower()
    if len(lowered) != len(folded):  # a few characters (İ) lower-case to two
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)
    return lowered


def tokenize(text: str) -> list[Token]:
    """Tokens of an already normalized text, whitespace dropped."""
    tokens: list[Token] = []
    append = tokens.append
    new = tuple.__new__  # a Token made without its constructor's keyword handling: every field given
    holidays: list[int] = []  # the words and ordinals a holiday's name can start with
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "word":
            word = m.group()
            if _maybe_misspelt(word):
                word = _weekday_misspelt(word) or word  # "fridy", "thrusday": the day meant
            if word in HOLIDAY_STARTS:
                holidays.append(len(tokens))
            append(new(Token, ("word", word, m.start(), m.end(), (), "")))
            continue
        start, end = m.span()
        if kind == "num":
            append(Token("num", m.group(), start, end, (float(m.group()),)))
        elif kind in ("iso_d", "mdy_y"):
            year, month, day = (
                (m["iso"], m["iso_m"], m["iso_d"]) if kind == "iso_d" else (m["mdy_y"], m["mdy"], m["mdy_d"])
            )
            y = int(year) + ((2000 if int(year) < 50 else 1900) if len(year) == 2 else 0)
            append(Token("date", m.group(), start, end, (y, int(month), int(day))))
        elif kind == "ym_m":  # "2014-10": a month, as a date token with day 0
            append(Token("date", m.group(), start, end, (int(m["ym"]), int(m["ym_m"]), 0)))
        elif kind == "slash_b":
            append(Token("slash", m.group(), start, end, (int(m["slash"]), int(m["slash_b"]))))
        elif kind == "qtr":
            digits = m.group()[:-2]
            year = -1 if not digits else int(digits) + (2000 if len(digits) == 2 else 0)
            append(Token("qtr", m.group(), start, end, (year, int(m.group()[-1]))))
        elif kind in ("clock", "clock_m", "clock_s"):
            second = int(m["clock_s"]) if m["clock_s"] else -1
            append(Token("clock", m.group(), start, end, (int(m["clock"]), int(m["clock_m"]), second)))
        elif kind == "ord":
            if m.group() in HOLIDAY_STARTS:
                holidays.append(len(tokens))
            append(Token("ord", m.group(), start, end, (int(m["ord"]),)))
        elif kind == "ampm":
            append(Token("word", m["ampm"] + "m", start, end))
        else:
            append(Token(kind or "", m.group(), start, end))
    return _join_holidays(text, tokens, holidays) if holidays else tokens


def _join_holidays(text: str, tokens: list[Token], starts: list[int]) -> list[Token]:
    """Replace the tokens of each holiday name ("boss's day", "eid al-fitr") with one ``hol`` token.

    ``starts`` are the tokens a name can start at, in order; names are read left to right, and a
    token inside a name already read starts none.
    """
    joined: list[Token] | None = None
    done = 0  # tokens before this one are in ``joined``, or inside a holiday it holds
    for i in starts:
        if i < done:
            continue
        token = tokens[i]
        found = match_holiday(text, token.start, token.text)
        if found is None:
            continue
        key, end = found
        if joined is None:
            joined = []
        joined.extend(tokens[done:i])
        joined.append(Token("hol", text[token.start : end], token.start, end, key=key))
        done = i
        while done < len(tokens) and tokens[done].start < end:
            done += 1
    if joined is None:
        return tokens
    joined.extend(tokens[done:])
    return joined
