"""SMCalFlow's moves as examples of where a move takes an event: the ``new_time`` span.

A move's program has two parts: the event it finds (``FindEventWrapperWithDefaults (... Thursday ...)``)
and the update it makes (``UpdatePreflightEventWrapper (Event.id ...) (Event.start_? (... Friday ...))``).
The turn's words name both ("move my lunch on Thursday to Friday"), and the tagger must learn which
words are the new time. Each word that names a day, a month, a day part or a number is compared with
the literals of the two parts: a word found only in the update's is the new time's, one found only in
the find's is the event's. The new time's span runs over the whole time expression the resolver reads
around those words (so "1:00PM to 2:00PM" stays one), without the word that leads it in ("to", "at"),
and the last such stretch is kept: people name the event first. A move whose words cannot be told
apart this way (a word in both parts, an event's word inside the new time, a new time the comparison
cannot find in the words) is left out rather than taught wrong; so is a move of the end alone ("make
it end at 5"), which changes the length rather than the time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from assistant.nlu.corpora import example, smcalflow_turns
from assistant.nlu.examples import Example
from assistant.nlu.labels import after_first_group, smcalflow_operation
from assistant.nlu.reading import Span
from assistant.nlu.tokens import Token, tokenize
from assistant.timeexpr import find_times

__all__ = ["load_moves", "new_time_span"]

# Any fixed reference does: only where the expressions stand is used, not what they resolve to.
_REFERENCE = datetime(2026, 3, 4, 9, 0, tzinfo=ZoneInfo("America/New_York"))
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october")
_MONTHS_AFTER = ("november", "december")
_NAMED = ("tomorrow", "today", "tonight", "morning", "afternoon", "evening", "night", "noon", "weekend")
_NAMES = (*_WEEKDAYS, *_MONTHS, *_MONTHS_AFTER, *_NAMED)
_LITERAL = re.compile(rf"\b({'|'.join(n.title() for n in _NAMES)})\b|\b(\d+)L\b")
_PIECE = re.compile(r"[a-z]+|\d+")
# Words that lead a new time in without being part of it.
_LEADS = frozenset({"to", "from", "for", "until", "till", "into", "onto", "on", "at", "by", "be", "start"})
# What may stand between two stretches of one new time ("Friday at 3", "Tuesday, 3 to 4").
_JOINS = frozenset({",", "at", "on", "from", "to", "-", "of"})
_PUNCTUATION = frozenset(".,;:!?")


def load_moves(path: Path) -> list[Example]:
    """Every move of SMCalFlow's dialogues whose new time can be told from its words, as an example
    with one ``new_time`` span (or none, for "make it later"), in file order."""
    return list(_moves(path))


def _moves(path: Path) -> Iterator[Example]:
    for dialogue, text, program in smcalflow_turns(path):
        if smcalflow_operation(program) != "move":
            continue
        found = new_time_span(text, program)
        if found is None:
            continue
        yield example(dialogue, text, [found] if found.end > found.start else [], "move")


def new_time_span(text: str, program: str) -> Span | None:
    """Where ``text`` says the new time of the move ``program`` makes; an empty span (start == end)
    when it says none ("push it back a week"), None when the words cannot be told apart."""
    at = program.find("UpdatePreflightEventWrapper")
    update = after_first_group(program[at + len("UpdatePreflightEventWrapper") :])
    if "Event.end_?" in update and "Event.start_?" not in update:
        return None
    new, old = _literals(update), _literals(program[: len(program) - len(update)])
    tokens = tokenize(text)
    expressions = [m.span for m in find_times(text, now=_REFERENCE)]
    within = [_expression(t, expressions) for t in tokens]
    sides = [_side(_said(t), new, old) for t in tokens]
    if "new" not in sides:
        # a time expression with none of the event's words: the new time is there, unrecognised
        theirs = {k for k, side in zip(within, sides, strict=True) if side == "old"}
        unread = any(k is not None and k not in theirs for k in within)
        return None if unread else Span("new_time", 0, 0, "")
    stretches: list[list[int]] = []
    for i, side in enumerate(sides):
        if side != "new":
            continue
        k = within[i]
        a, b = i, i
        if k is not None:
            inside = [j for j, w in enumerate(within) if w == k]
            if all(sides[j] != "old" for j in inside):
                a, b = inside[0], inside[-1]
            while b + 1 < len(tokens) and within[b + 1] == k and not sides[b + 1] and _ends(tokens[b + 1]):
                b += 1  # "12.00 pm", "9th": the words that finish a number
        while a < b and tokens[a].text.lower() in _LEADS:
            a += 1
        while b > a and tokens[b].text in _PUNCTUATION:
            b -= 1
        if stretches and all(tokens[j].text.lower() in _JOINS for j in range(stretches[-1][1] + 1, a)):
            stretches[-1][1] = max(stretches[-1][1], b)
        else:
            stretches.append([a, b])
    a, b = stretches[-1]
    if any(side in ("old", "both") for side in sides[a : b + 1]):
        return None
    return Span("new_time", tokens[a].start, tokens[b].end, text[tokens[a].start : tokens[b].end])


def _expression(token: Token, expressions: list[tuple[int, int]]) -> int | None:
    """The index of the time expression ``token`` lies in, or None."""
    return next((k for k, (a, b) in enumerate(expressions) if a <= token.start and token.end <= b), None)


def _ends(token: Token) -> bool:
    """Whether a word may finish a number of a time ("pm", "th"), not join two times or end a clause."""
    return token.text.lower() not in _JOINS and token.text not in _PUNCTUATION


def _literals(fragment: str) -> set[str]:
    """The day, month, day-part and number literals of a piece of a program, lower-case."""
    return {m[1].lower() if m[1] else str(int(m[2])) for m in _LITERAL.finditer(fragment)}


def _said(token: Token) -> set[str]:
    """What a word names of the same kinds: "Thu" a weekday, "1130" eleven and thirty, "3pm" three."""
    out: set[str] = set()
    for piece in _PIECE.findall(token.text.lower()):
        if piece.isdigit():
            out.add(str(int(piece)))
            if len(piece) == 4 and int(piece[:2]) <= 12:
                out |= {str(int(piece[:2])), str(int(piece[2:]))}
            continue
        out |= {n for n in _NAMES if piece == n or (len(piece) >= 3 and n.startswith(piece))}
        if piece == "tonight":
            out.add("evening")
    return out


def _side(said: set[str], new: set[str], old: set[str]) -> str | None:
    """Which part of the program a word's names are in: "new", "old", "both" or None (neither)."""
    if not said:
        return None
    in_new, in_old = bool(said & new), bool(said & old)
    if in_new and in_old:
        return "both"
    return "new" if in_new else "old" if in_old else None
