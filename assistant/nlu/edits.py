"""SMCalFlow's edits as examples of what an edit gives an event: a new title, a new place, people
invited or taken off, a new length or a length added.

People say these in open words ("I need it to be called prototyping though", "Set the place to meet
dad as Johhny Rockets instead of subway", "For dinner tomorrow Adam is also going to join us, Darren
won't be there anymore", "replace woakes with julie"), and a list of verbs and frames would learn the
examples. An edit's program says it exactly: the update (``UpdatePreflightEventWrapper (<the event>)
(<the changes>)``) gives ``Event.subject_? (?= "prototyping")``, ``LocationKeyphrase.apply "Johhny
Rockets"``, and each person under ``AttendeeListHasRecipient`` (invited) or
``AttendeeListExcludesRecipient`` (taken off), and ``Event.duration_? (?= (toHours 2))`` a length, or
``(addDurations (Event.duration x0) (toMinutes 30))`` one added. Each such literal of the changes that
stands in the turn's words is a span there: ``new_title``, ``new_place``, ``invited``, ``uninvited``,
and the length the time reader finds with the same minutes ``new_length`` or ``added_length``
("make it *two hours* long", "*add an hour* to it"); the event's own words
(the find's literals: "Subway" before the change) stay outside every span, so the tagger learns which of
two names is the new one. An edit whose literal the words do not hold (misspelt, said otherwise) is left
out rather than taught as giving nothing; an edit of the length alone, and every move, teach what gives
none of these. Nothing here runs when the chat reads a turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from assistant.nlu.corpora import smcalflow_turns
from assistant.nlu.examples import Example
from assistant.nlu.labels import after_first_group, smcalflow_operation
from assistant.nlu.reading import Slot, Span
from assistant.timeexpr import find_durations

__all__ = ["edit_spans", "load_edits"]

_UPDATE = "UpdatePreflightEventWrapper"
_TITLE = re.compile(r'Event\.subject_\? \(\?~?= "((?:[^"\\]|\\.)+)"')
_PLACE = re.compile(r'LocationKeyphrase\.apply "((?:[^"\\]|\\.)+)"')
_LENGTH = re.compile(r"Event\.duration_\? \(\?= (\(addDurations )?")
_UNIT = re.compile(r"\(to(Minutes|Hours|Days) (\(\+ ([\d.]+)L? ([\d.]+)L?\)|([\d.]+)L?)\)")
_MINUTES = {"Minutes": 1, "Hours": 60, "Days": 24 * 60}
_PERSON = re.compile(
    r'(AttendeeListHasRecipient|AttendeeListExcludesRecipient)|PersonName\.apply "((?:[^"\\]|\\.)+)"'
)


def load_edits(path: Path) -> list[Example]:
    """Every edit and move of SMCalFlow's dialogues whose literals its words hold, with the spans of
    what the edit gives (none for a move or a new length), in file order."""
    return list(_edits(path))


def _edits(path: Path) -> Iterator[Example]:
    for dialogue, text, program in smcalflow_turns(path):
        operation = smcalflow_operation(program)
        if operation not in ("edit", "move"):
            continue
        spans = edit_spans(text, program)
        if spans is None:
            continue
        yield Example(
            dialogue=dialogue,
            text=text,
            asked=None,
            acts=frozenset(),
            intent=None,
            spans=spans,
            canonical=tuple(s.text for s in spans),
            operation=operation,
        )


def edit_spans(text: str, program: str) -> tuple[Span, ...] | None:
    """Where ``text`` says what the update of ``program`` gives the event, in text order; None when a
    literal of the update is not in the words, or two of them lie over the same words."""
    at = program.find(_UPDATE)
    if at < 0:
        return None
    changes = after_first_group(program[at + len(_UPDATE) :])
    said: list[tuple[Slot, str]] = [("new_title", _value(v)) for v in _TITLE.findall(changes)]
    said += [("new_place", _value(v)) for v in _PLACE.findall(changes)]
    way: Slot = "invited"
    for m in _PERSON.finditer(changes):
        if m[1]:
            way = "invited" if m[1] == "AttendeeListHasRecipient" else "uninvited"
        else:
            said.append((way, _value(m[2])))
    spans: list[Span] = []
    if (length := _length(text, changes)) is not None:
        if not length:
            return None  # a length the words do not say as the time reader reads them
        spans.append(length[0])
    for slot, value in said:
        found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE)
        if found is None or any(s.start < found.end() and found.start() < s.end for s in spans):
            return None
        spans.append(Span(slot, found.start(), found.end(), found.group(0)))
    return tuple(sorted(spans, key=lambda s: (s.start, s.end)))


def _length(text: str, changes: str) -> tuple[Span, ...] | None:
    """The span of the length the changes give, as the time reader finds it in ``text`` (one, or
    none when it finds no length of those minutes); None when the changes give no length."""
    m = _LENGTH.search(changes)
    if m is None:
        return None
    unit = _UNIT.search(changes, m.end()) if m[1] else _UNIT.match(changes, m.end())
    if unit is None or "subtractDurations" in changes:
        return ()
    amount = float(unit[5]) if unit[5] else float(unit[3]) + float(unit[4])
    minutes = round(amount * _MINUTES[unit[1]])
    slot: Slot = "added_length" if m[1] else "new_length"
    said = [d for d in find_durations(text) if d.minutes == minutes]
    if len(said) != 1:
        return ()
    lo, hi = said[0].span
    if text[lo:hi].lower().startswith("for "):
        lo += len("for ")  # the time reader's "for" leads the length in; it is no part of it
    return (Span(slot, lo, hi, text[lo:hi]),)


def _value(literal: str) -> str:
    return str(json.loads(f'"{literal}"'))
