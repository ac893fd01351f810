"""Finding time expressions and durations in free text: the two entry points of the package."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from assistant.timeexpr.grammar import Grammar
from assistant.timeexpr.lexer import normalize, tokenize
from assistant.timeexpr.matches import DurationMatch, TimeMatch
from assistant.timeexpr.nodes import Node
from assistant.timeexpr.parser import Parser

__all__ = ["find_durations", "find_times"]

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


def find_times(text: str, *, now: datetime, daytime: bool = False) -> list[TimeMatch]:
    """All non-overlapping time expressions in ``text``, resolved at ``now`` (aware), in order.

    Read left to right, taking the longest expression at each place: "Friday at noon" is one match,
    not "Friday" and "noon". Results are in ``now``'s zone, computed in wall time.  ``daytime`` is the
    calendar's reading of a clock time without am/pm ("at 3" is 3 pm, whatever day it is on); without
    it, such a time is the next one after ``now`` (Duckling's reading, which the evaluation expects).
    """
    if now.tzinfo is None:
        raise ValueError("find_times needs an aware reference time")
    norm = normalize(text)
    tokens = tokenize(norm)
    grammar = Grammar(tokens, now)
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
    return matches


def _to_match(
    grammar: Parser, node: Node, text: str, span: tuple[int, int], now: datetime, *, daytime: bool
) -> TimeMatch | None:
    start: datetime | None = None
    end: datetime | None = None
    if node.error is None:
        resolved = grammar.resolve(node)
        if resolved is None:
            return None
        wall_start, wall_end = resolved
        if daytime and _small_hours(node, wall_start):
            wall_start, wall_end = wall_start + timedelta(hours=12), wall_end + timedelta(hours=12)
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
    )


def _small_hours(node: Node, wall_start: datetime) -> bool:
    """A point in time whose clock time was said without am/pm or a day part and resolved to between
    midnight and 6 am (a 12 said alone resolves to midnight first)."""
    return (
        node.tod is not None
        and node.tod.ambiguous
        and node.part is None
        and not node.is_interval
        and wall_start.hour in _SMALL_HOURS
    )


def find_durations(text: str) -> list[DurationMatch]:
    """Lengths of time in ``text`` ("for an hour", "90 minutes", "an hour and a half"), in order.

    A leading "for" is part of the match. Durations that only place a time ("in 3 days", "2 weeks
    ago", "the next 3 days") are left out: they are not how long anything lasts.
    """
    norm = normalize(text)
    tokens = tokenize(norm)
    parser = Parser(tokens, _ANY_TIME)
    matches: list[DurationMatch] = []
    i = 0
    while i < len(tokens):
        said_for = parser.w(i) == "for"  # "for 10 days from the 18th" is a stay, whatever follows
        found = parser.duration(i + 1 if said_for else i)
        if found is None or (
            not said_for and (parser.w(i - 1) in _OFFSET_BEFORE or parser.w(found[0]) in _OFFSET_AFTER)
        ):
            i += 1
            continue
        end, dur = found
        minutes = round(dur.minutes)
        if minutes >= 1:
            span = tokens[i].start, tokens[end - 1].end
            matches.append(DurationMatch(text=text[span[0] : span[1]], span=span, minutes=minutes))
        i = end
    return matches


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
