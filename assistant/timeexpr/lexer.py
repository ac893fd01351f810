"""Cutting text into the tokens the grammar reads: words, numbers, clock times, dates, holidays.

One compiled regular expression does the pass; holiday names are then joined into single tokens.
Forms that are unambiguous on their own ("15:23:24", "2013-02-15", "2018q4", "boss's day") become
single tokens here, so the grammar only deals with sequences of words and numbers. Phone numbers
and the like become ``junk`` so that "at 650-650-6500" is not read as a time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.timeexpr.holidays import match_holiday

__all__ = ["Token", "normalize", "tokenize"]

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

_TOKEN = re.compile(
    r"""
    (?P<junk>\d{3,}[-.]\d{3,}[-.\d]*|\d+(?:[.,]\d+){2,})
    | (?P<iso>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2})(?![\d-])
    | (?P<mdy>\d{1,2})(?P<sep>[/-])(?P<mdy_d>\d{1,2})(?P=sep)(?P<mdy_y>\d{4}|\d{2})(?![\d/-])
    | (?P<ym>\d{4})[/-](?P<ym_m>1[0-2]|0?[1-9])(?![\d/-])
    | (?P<slash>\d{1,2})\s*/\s*(?P<slash_b>\d{1,4})(?![\d/])
    | (?P<qtr>(?:\d{4}|\d{2})?q[1-4])(?![a-z\d])
    | (?P<clock>\d{1,2}):(?P<clock_m>[0-5]\d)(?::(?P<clock_s>[0-5]\d))?(?!\d)
    | (?P<ord>\d{1,2})(?:st|nd|rd|th)(?![a-z])
    | (?P<num>\d+(?:\.\d+)?)
    | (?P<ampm>[ap])\.\s?m\b\.?
    | (?P<word>[a-z]+(?:'[a-z]+)*'?)
    | (?P<punct>[^\sa-z\d])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Token:
    """One token, with its place in the text so that matches can report their span."""

    kind: str  # hol, junk, date, slash, qtr, clock, ord, num, word, punct
    text: str  # the lower-cased source text ("a.m." is read as the word "am")
    start: int
    end: int
    # Numbers the token carries: num -> (value,), ord -> (n,), clock -> (h, m, s or -1),
    # date -> (y, m, d; d = 0 for a whole month), slash -> (a, b), qtr -> (year or -1, quarter).
    values: tuple[float, ...] = ()
    key: str = ""  # the holiday's key for "hol" tokens


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
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or ""
        start, end = m.span()
        if kind == "num":
            tokens.append(Token("num", m.group(), start, end, (float(m.group()),)))
        elif kind == "word":
            tokens.append(Token("word", m.group(), start, end))
        elif kind in ("iso_d", "mdy_y"):
            year, month, day = (
                (m["iso"], m["iso_m"], m["iso_d"]) if kind == "iso_d" else (m["mdy_y"], m["mdy"], m["mdy_d"])
            )
            y = int(year) + ((2000 if int(year) < 50 else 1900) if len(year) == 2 else 0)
            tokens.append(Token("date", m.group(), start, end, (y, int(month), int(day))))
        elif kind == "ym_m":  # "2014-10": a month, as a date token with day 0
            tokens.append(Token("date", m.group(), start, end, (int(m["ym"]), int(m["ym_m"]), 0)))
        elif kind == "slash_b":
            tokens.append(Token("slash", m.group(), start, end, (int(m["slash"]), int(m["slash_b"]))))
        elif kind == "qtr":
            digits = m.group()[:-2]
            year = -1 if not digits else int(digits) + (2000 if len(digits) == 2 else 0)
            tokens.append(Token("qtr", m.group(), start, end, (year, int(m.group()[-1]))))
        elif kind in ("clock", "clock_m", "clock_s"):
            second = int(m["clock_s"]) if m["clock_s"] else -1
            tokens.append(Token("clock", m.group(), start, end, (int(m["clock"]), int(m["clock_m"]), second)))
        elif kind == "ord":
            tokens.append(Token("ord", m.group(), start, end, (int(m["ord"]),)))
        elif kind == "ampm":
            tokens.append(Token("word", m["ampm"] + "m", start, end))
        else:
            tokens.append(Token(kind, m.group(), start, end))
    return _join_holidays(text, tokens)


def _join_holidays(text: str, tokens: list[Token]) -> list[Token]:
    """Replace the tokens of each holiday name ("boss's day", "eid al-fitr") with one ``hol`` token."""
    joined: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        found = match_holiday(text, token.start, token.text) if token.kind in ("word", "ord") else None
        if found is None:
            joined.append(token)
            i += 1
            continue
        key, end = found
        joined.append(Token("hol", text[token.start : end], token.start, end, key=key))
        while i < len(tokens) and tokens[i].start < end:
            i += 1
    return joined
