"""Finding time expressions and durations in free text: the two entry points of the package."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from datetime import UTC, datetime, timedelta, tzinfo

from assistant.timeexpr.grammar import Grammar
from assistant.timeexpr.lexer import Token, normalize, tokenize
from assistant.timeexpr.lexicon import LAST_AS_A_VERB_AFTER
from assistant.timeexpr.matches import DurationMatch, TimeMatch
from assistant.timeexpr.nodes import Node
from assistant.timeexpr.parser import Parser

__all__ = ["find_durations", "find_times", "one_reading"]

# Words before or after a duration that make it an offset or a window rather than how long something
# lasts: "in 3 days", "2 weeks ago", "the next 3 days", "every 2 weeks".
_OFFSET_BEFORE = frozenset(
    {"in", "within", "next", "last", "past", "previous", "after", "every", "each", "coming"}
)
_OFFSET_AFTER = frozenset({"ago", "hence", "from", "later", "before", "after", "earlier", "back"})
# Durations do not depend on the reference time, but the parser wants one.
_ANY_TIME = datetime(2000, 1, 1, tzinfo=UTC)
# With ``daytime``, a clock time said without am/pm whose earlier reading falls in these hours takes the
# later one: nobody books "Thursday at 3" at 3 am, or "Thursday at 12" (or 12:30) at midnight.
_SMALL_HOURS = range(7)


class _Reading:
    """What the texts of one reading were made into, by normalized text: their tokens, their parse at
    each reference time (the grammar with its memo of every rule at every token) and their durations.

    A turn is read several times by several readers, often the same words cased or cut differently
    ("It's at 5." and "it's at 5"): each text is cut into tokens once, and parsed once at each time.
    """

    __slots__ = ("durations", "grammars", "matches", "tokens")

    def __init__(self) -> None:
        self.tokens: dict[str, list[Token]] = {}
        self.grammars: dict[_At, Grammar] = {}
        self.durations: dict[str, list[tuple[tuple[int, int], int]]] = {}
        # What find_times made of a text at a time: the same text is asked about by several readers
        self.matches: dict[tuple[_At, bool], list[TimeMatch]] = {}

    def tokens_of(self, norm: str) -> list[Token]:
        tokens = self.tokens.get(norm)
        if tokens is None:
            tokens = self.tokens[norm] = tokenize(norm)
        return tokens

    def grammar(self, norm: str, now: datetime) -> Grammar:
        key = _at(norm, now)
        grammar = self.grammars.get(key)
        if grammar is None:
            grammar = self.grammars[key] = Grammar(self.tokens_of(norm), now)
        return grammar


# A normalized text at a reference time: the text, the wall time, its fold and its zone (two aware
# times in one zone compare equal by wall time alone, whatever their fold).
_At = tuple[str, datetime, int, tzinfo | None]


def _at(norm: str, now: datetime) -> _At:
    return norm, now.replace(tzinfo=None), now.fold, now.tzinfo


_READING: ContextVar[_Reading | None] = ContextVar("assistant.timeexpr.reading", default=None)


@contextmanager
def one_reading() -> Iterator[None]:
    """Within the block, texts read more than once are lexed once and parsed once per reference time.

    For the several readings of one chat turn (the decomposer's, the turn reader's, the drafts'):
    results are the same as without it. Nothing is kept after the block; inside another, it is that one.
    """
    if _READING.get() is not None:
        yield
        return
    token = _READING.set(_Reading())
    try:
        yield
    finally:
        _READING.reset(token)


def find_times(text: str, *, now: datetime, daytime: bool = False) -> list[TimeMatch]:
    """All non-overlapping time expressions in ``text``, resolved at ``now`` (aware), in order.

    Read left to right, taking the longest expression at each place: "Friday at noon" is one match,
    not "Friday" and "noon". Results are in ``now``'s zone, computed in wall time.  ``daytime`` is the
    calendar's reading of a clock time without am/pm ("at 3" is 3 pm, whatever day it is on); without
    it, such a time is the next one after ``now`` (Duckling's reading, which the evaluation expects).
    """
    if now.tzinfo is None:
        raise ValueError("find_times needs an aware reference time")
    norm = _sentence(normalize(text))
    reading = _READING.get()
    if reading is None:
        return _find_times(Grammar(tokenize(norm), now), text, now, daytime=daytime)
    key = _at(norm, now), daytime
    found = reading.matches.get(key)
    if found is None:
        found = reading.matches[key] = _find_times(reading.grammar(norm, now), text, now, daytime=daytime)
    # the same words, perhaps cased or ended differently: each match quotes this text
    return [_quoting(m, text[m.span[0] : m.span[1]]) for m in found]


def _quoting(match: TimeMatch, said: str) -> TimeMatch:
    return match if match.text == said else replace(match, text=said)


def _find_times(grammar: Grammar, text: str, now: datetime, *, daytime: bool) -> list[TimeMatch]:
    tokens = grammar.toks
    matches = []
    i = 0
    while i < len(tokens):
        if not grammar.can_start(i):  # as ``expression`` would find, without asking it
            i += 1
            continue
        try:
            parsed = grammar.expression(i)
            match = None
            if parsed is not None:
                j, node = parsed
                span = tokens[i].start, tokens[j - 1].end
                match = _to_match(grammar, node, text[span[0] : span[1]], span, now, daytime=daytime)
        except (ValueError, OverflowError):
            # "in 10000 years", "in 99999999999 minutes": past what a calendar (or datetime) can hold
            j = min(i + 3, len(tokens))
            span = tokens[i].start, tokens[j - 1].end
            match = _out_of_range(text[span[0] : span[1]], span)
        if match is None:
            i += 1
        else:
            matches.append(match)
            i = j
    return _whole_of_another_day(matches)


# "all day", "the whole day" said apart from the day they qualify ("friday all day", "clear friday for
# travel all day"); "all day tomorrow" and "all day on friday" are read as one expression already.
_WHOLE_DAY_WORDS = frozenset({"all", "the", "whole", "entire", "day"})


def _whole_of_another_day(matches: list[TimeMatch]) -> list[TimeMatch]:
    """``matches`` without a bare "all day" when another names the day: it is the whole of that day,
    not today's. Alone ("I'm busy all day") it is today."""
    bare = [m for m in matches if m.grain == "day" and set(m.text.casefold().split()) <= _WHOLE_DAY_WORDS]
    if not bare or len(bare) == len(matches):
        return matches
    if not any(m.has_date and m.grain == "day" for m in matches if m not in bare):
        return matches
    return [m for m in matches if m not in bare]


# The punctuation that ends a sentence, and what it follows when it is part of an abbreviation: "p.m."
_ENDING = re.compile(r"(?<!\.\w)[\s.!?]+$")


def _sentence(norm: str) -> str:
    """``norm`` without the punctuation that ends it ("at 5." and "at 5" read alike): no expression
    ends on a full stop, and the same sentence, typed with or without one, is parsed once in a reading
    ("p.m." keeps its dot)."""
    return _ENDING.sub("", norm)


def _to_match(
    grammar: Parser, node: Node, text: str, span: tuple[int, int], now: datetime, *, daytime: bool
) -> TimeMatch | None:
    start: datetime | None = None
    end: datetime | None = None
    loose = _loose(node)
    if node.error is None:
        resolved = grammar.resolve(node)
        if resolved is None:
            return None
        wall_start, wall_end = resolved
        if daytime and loose and wall_start.hour in _SMALL_HOURS:
            wall_start += timedelta(hours=12)
            if not node.rest_of_day:  # "after 5 today" is 5 PM to midnight, not to noon tomorrow
                wall_end += timedelta(hours=12)
        elif daytime and loose and node.is_interval and _overnight(wall_start, wall_end):
            # "from 8 to 4": the working day, 8 AM to 4 PM, not 8 PM to 4 AM
            wall_start, wall_end = wall_start - timedelta(hours=12), wall_end - timedelta(hours=12)
        start = wall_start.replace(tzinfo=now.tzinfo)
        end = None if node.open_end else wall_end.replace(tzinfo=now.tzinfo)
    return TimeMatch(
        text=text,
        span=span,
        start=start,
        end=end,
        grain=node.grain,
        is_interval=node.is_interval,
        has_date=node.has_date,
        has_time=node.has_time,
        day_part=node.day_part,
        weekdays=node.weekdays,
        error=node.error,
        loose=loose,
        rest_of_day=node.rest_of_day,
    )


def _overnight(start: datetime, end: datetime) -> bool:
    """Whether a stretch runs from an evening hour past midnight into the next morning, under 12 hours:
    its clock times said without am/pm, the same stretch 12 hours earlier is a day's."""
    short = end - start < timedelta(hours=12)
    return start.hour >= 12 and end.date() > start.date() and end.hour < 12 and short


def _loose(node: Node) -> bool:
    """A point in time, or the start of an interval ("from 2 to 3", "at 3 for 2 hours"), whose clock
    time was said without am/pm or a day part: with ``daytime``, one resolved to between midnight and
    6 am takes the later reading (a 12 said alone resolves to midnight first)."""
    if node.is_interval:
        return node.loose_start
    return node.tod is not None and node.tod.ambiguous and node.part is None


def find_durations(text: str) -> list[DurationMatch]:
    """Lengths of time in ``text`` ("for an hour", "90 minutes", "an hour and a half"), in order.

    A leading "for" is part of the match. Durations that only place a time ("in 3 days", "2 weeks
    ago", "the next 3 days") are left out: they are not how long anything lasts.
    """
    norm = normalize(text)
    reading = _READING.get()
    if reading is None:
        found = _durations(tokenize(norm))
    elif norm in reading.durations:  # the same whatever the reference time
        found = reading.durations[norm]
    else:
        found = reading.durations[norm] = _durations(reading.tokens_of(norm))
    return [DurationMatch(text=text[lo:hi], span=(lo, hi), minutes=minutes) for (lo, hi), minutes in found]


def _durations(tokens: list[Token]) -> list[tuple[tuple[int, int], int]]:
    """Span and length in minutes of each duration of :func:`find_durations`."""
    parser = Parser(tokens, _ANY_TIME)
    found: list[tuple[tuple[int, int], int]] = []
    i = 0
    while i < len(tokens):
        said_for = parser.w(i) == "for"  # "for 10 days from the 18th" is a stay, whatever follows
        duration = parser.duration(i + 1 if said_for else i)
        # "last" before a length places it ("the last 2 hours"), unless it is the verb ("it will last 2h")
        placed = parser.w(i - 1) in _OFFSET_BEFORE and not (
            parser.w(i - 1) == "last" and parser.w(i - 2) in LAST_AS_A_VERB_AFTER
        )
        if duration is None or (not said_for and (placed or parser.w(duration[0]) in _OFFSET_AFTER)):
            i += 1
            continue
        end, dur = duration
        minutes = round(dur.minutes)
        if minutes >= 1:
            found.append(((tokens[i].start, tokens[end - 1].end), minutes))
        i = end
    return found


def _out_of_range(text: str, span: tuple[int, int]) -> TimeMatch:
    return TimeMatch(
        text=text,
        span=span,
        start=None,
        end=None,
        grain="day",
        is_interval=False,
        has_date=True,
        has_time=False,
        day_part=None,
        weekdays=frozenset(),
        error=f'"{text.strip()}" is further away than a calendar goes (the years 1 to 9999).',
    )
