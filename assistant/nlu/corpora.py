"""The shared corpora as examples of titles, places and people, for the names and people taggers.

Three sources say where people name an event, its place and who is in it, each in its own way:

- ``sgd``: the Schema-Guided Dialogue calendar turns, with character spans of ``event_name`` and
  ``event_location`` (see :mod:`assistant.nlu.sgd`);
- ``smcalflow``: every turn of SMCalFlow's dev dialogues, whose programs carry the literal subject
  (``Event.subject_?``), place (``LocationKeyphrase.apply``) and people (``PersonName.apply``) of what
  a turn creates, finds or changes; a literal found in the turn's own words is a span there;
- ``nlu``: NLU-Evaluation-Data's calendar requests, annotated inline ("[event_name : dentist]",
  "[place_name : ...]", "[person : al]").

The Schema-Guided Dialogue calendar names nobody, so its turns teach the people slot only what is not
a name.  Only the title, the place and the people are taken: dates and times are the time
resolver's, and the sources mark them differently or not at all.  Nothing here runs when the chat
reads a turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings

from assistant.nlu.examples import Example
from assistant.nlu.labels import nlu_operation, smcalflow_operation
from assistant.nlu.reading import NAME_SLOTS, PERSON_SLOTS, Slot, Span
from assistant.nlu.sgd import asked_from_prompt
from assistant.nlu.sgd import load as load_sgd

__all__ = ["CORPORA", "chosen_corpora", "load_corpus", "smcalflow_turns"]

EVAL = Path(settings.BASE_DIR).parent / "shared" / "eval"
CORPORA: dict[str, Path] = {
    "sgd": EVAL / "sgd_calendar_turns.dev.jsonl",
    "smcalflow": EVAL / "smcalflow" / "dialogues.dev.jsonl",
    "nlu": EVAL / "calendar_utterances.dev.jsonl",
}

_SUBJECT = re.compile(r'Event\.subject_\? \(\?~?= "((?:[^"\\]|\\.)+)"\)')
_PLACE = re.compile(r'LocationKeyphrase\.apply "((?:[^"\\]|\\.)+)"')
_PERSON = re.compile(r'PersonName\.apply "((?:[^"\\]|\\.)+)"')
_LITERALS: tuple[tuple[re.Pattern[str], Slot], ...] = (
    (_SUBJECT, "title"),
    (_PLACE, "location"),
    (_PERSON, "person"),
)
_ANNOTATED = re.compile(r"\[(?P<kind>[a-z_]+) : (?P<value>[^\]]+?)\s*\]")
_NLU_SLOTS: dict[str, Slot] = {"event_name": "title", "place_name": "location", "person": "person"}


def load_corpus(name: str, path: Path | None = None) -> list[Example]:
    """The examples of one corpus (its titles, places and people only), in file order."""
    path = path or CORPORA[name]
    if name == "sgd":
        return [_names_only(e) for e in load_sgd(path)]
    if name == "smcalflow":
        return list(_smcalflow(path))
    if name == "nlu":
        return list(_nlu(path))
    raise ValueError(f"Unknown corpus {name!r}; the corpora are {', '.join(CORPORA)}.")


def chosen_corpora(said: list[str]) -> dict[str, Path]:
    """The corpora named ``NAME=PATH`` in ``said`` (a command's options), or all of them from
    ../shared/eval when none is named. Raises ValueError, with what to type, for a wrong one."""
    if not said:
        return dict(CORPORA)
    chosen: dict[str, Path] = {}
    for item in said:
        name, _, where = item.partition("=")
        if name not in CORPORA or not where:
            raise ValueError(f"A corpus is NAME=PATH with NAME one of {', '.join(CORPORA)}: {item!r}")
        if not Path(where).is_file():
            raise ValueError(f"No such file: {where}")
        chosen[name] = Path(where)
    return chosen


def _names_only(example: Example) -> Example:
    kept = [
        (s, c)
        for s, c in zip(example.spans, example.canonical, strict=True)
        if s.slot in NAME_SLOTS or s.slot in PERSON_SLOTS
    ]
    return Example(
        dialogue=example.dialogue,
        text=example.text,
        asked=example.asked,
        acts=example.acts,
        intent=example.intent,
        spans=tuple(s for s, _ in kept),
        canonical=tuple(c for _, c in kept),
        operation=example.operation,
    )


def _found(text: str, value: str, slot: Slot) -> Span | None:
    """The first place ``value`` stands in ``text`` as whole words, any case."""
    m = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE)
    return Span(slot, m.start(), m.end(), text[m.start() : m.end()]) if m else None


def example(
    dialogue: str, text: str, spans: Sequence[Span], operation: str | None, *, asked_after: str = ""
) -> Example:
    """A turn of a corpus that labels no acts or intent, its spans in text order, each said as typed.

    Two literals in the same words are one span, unless one is a person and the other not."""
    spans = sorted(spans, key=lambda s: (s.start, s.end))
    kept: list[Span] = []
    for span in spans:  # two literals in the same words (a subject that is also the place) once
        group = [k for k in kept if (k.slot in PERSON_SLOTS) == (span.slot in PERSON_SLOTS)]
        if not any(k.start < span.end and span.start < k.end for k in group):
            kept.append(span)  # a person within a title is both: two taggers learn them
    return Example(
        dialogue=dialogue,
        text=text,
        asked=asked_from_prompt(asked_after),
        acts=frozenset(),
        intent=None,
        spans=tuple(kept),
        canonical=tuple(s.text for s in kept),
        operation=operation,
    )


def _literals(pattern: re.Pattern[str], program: str) -> list[str]:
    return [json.loads(f'"{m}"') for m in pattern.findall(program)]


def smcalflow_turns(path: Path) -> Iterator[tuple[str, str, str]]:
    """The dialogue id, the user's words and the Lispress program of each annotated turn of SMCalFlow's
    dialogues (a turn marked ``skip``, or with no words, is left out), in file order."""
    for dialogue in _records(path):
        for turn in dialogue["turns"]:
            if turn["user"].strip() and not turn.get("skip"):
                yield dialogue["dialogue_id"], turn["user"], turn.get("lispress") or ""


def _records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON object of each line of a JSON-lines file."""
    with path.open(encoding="utf-8") as lines:
        yield from (json.loads(line) for line in lines if line.strip())


def _smcalflow(path: Path) -> Iterator[Example]:
    for dialogue in _records(path):
        before = ""
        for turn in dialogue["turns"]:
            text, program = turn["user"], turn.get("lispress") or ""
            spans = [
                span
                for pattern, slot in _LITERALS
                for value in _literals(pattern, program)
                if (span := _found(text, value, slot)) is not None
            ]
            if text.strip() and not turn.get("skip"):
                yield example(
                    dialogue["dialogue_id"], text, spans, smcalflow_operation(program), asked_after=before
                )
            before = turn.get("agent") or ""


def _nlu(path: Path) -> Iterator[Example]:
    for record in _records(path):
        text, annotated = record["text"], record["annotated"]
        spans: list[Span] = []
        position = 0
        for m in _ANNOTATED.finditer(annotated):
            slot = _NLU_SLOTS.get(m["kind"])
            value = m["value"].strip()
            at = text.lower().find(value.lower(), position)
            if at < 0:
                continue
            position = at + len(value)
            if slot is not None:
                spans.append(Span(slot, at, at + len(value), text[at : at + len(value)]))
        yield example(str(record.get("id", text)), text, spans, nlu_operation(record["intent"]))
