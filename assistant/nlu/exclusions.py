"""SMCalFlow's negated constraints as examples of what a turn leaves out: the ``excluded`` span.

People narrow a request by what it must not be as often as by what it must ("anything not in
Bellevue tomorrow", "what do I have next week that's not a party?", "a hair appointment but not on the
weekend"), and the words they use for it are open ("outside of", "that aren't at", "it can't be on",
"to not be on"): a list of them would learn the examples. SMCalFlow's programs say it exactly: a
constraint wrapped in ``negate`` (``Event.location_? (negate (?= (LocationKeyphrase.apply
"Bellevue")))``, ``Date.dayOfWeek_? (negate (Weekend))``). Each literal inside a negation that stands in
the turn's words (a place, a title, a person, or a weekday, a weekend or a day part by name) is an
``excluded`` span there; every other turn of the dialogues teaches what is not left out, "anything
else" included (it leaves out the event just talked about, which has no words of its own).

A turn whose program is fenced off (``FenceMultiAction``, ...) is not used: its constraints were never
written out, so an exception in it ("invite my team except Bob") would be taught as nothing. Nothing
here runs when the chat reads a turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from assistant.nlu.corpora import example, smcalflow_turns
from assistant.nlu.examples import Example
from assistant.nlu.labels import smcalflow_operation
from assistant.nlu.reading import Span

__all__ = ["excluded_spans", "load_exclusions"]

_NEGATE = "(negate "
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)+)"')
# The calendar's named constants a negation may hold, spelt in the turn as their own word (plural too).
_NAMED = re.compile(
    r"\((Weekend|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Morning|Afternoon|Evening)\)"
)


def load_exclusions(path: Path) -> list[Example]:
    """Every turn of SMCalFlow's dialogues whose program was written out, with its ``excluded`` spans
    (none for most), in file order; a turn with a negated literal its words do not hold is left out."""
    return list(_turns(path))


def _turns(path: Path) -> Iterator[Example]:
    for dialogue, text, program in smcalflow_turns(path):
        if not program or "Fence" in program:
            continue
        spans = excluded_spans(text, program)
        if spans is None:
            continue
        yield example(dialogue, text, spans, smcalflow_operation(program))


def excluded_spans(text: str, program: str) -> tuple[Span, ...] | None:
    """Where ``text`` says what the negations of ``program`` leave out, in text order; None when a
    negated literal is not in the words (misspelt: "Totonto" for "Toronto"), so that the turn is not
    taught as leaving nothing out."""
    spans: list[Span] = []
    at = program.find(_NEGATE)
    while at >= 0:
        group = _group(program, at)
        values = [json.loads(f'"{m}"') for m in _LITERAL.findall(group)]
        values += [m.lower() for m in _NAMED.findall(group)]
        for value in values:
            found = re.search(rf"(?<!\w){re.escape(value)}(?:s|es)?(?!\w)", text, re.IGNORECASE)
            if found is None:
                return None
            spans.append(Span("excluded", found.start(), found.end(), found.group(0)))
        at = program.find(_NEGATE, at + len(group))
    return tuple(sorted(set(spans), key=lambda s: (s.start, s.end)))


def _group(program: str, start: int) -> str:
    """The balanced parenthesised group of ``program`` that opens at ``start``."""
    depth = 0
    for i in range(start, len(program)):
        if program[i] == "(":
            depth += 1
        elif program[i] == ")":
            depth -= 1
            if depth == 0:
                return program[start : i + 1]
    return program[start:]
