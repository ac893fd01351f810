"""The typed request frame: what the user wants done, to what, with which constraints and exceptions.

The rule-based decomposer fills it from recognised entities; the compiler turns it into a workflow.
Kept as plain data so an LLM decomposer can fill the same frame and reuse the compiler.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal

__all__ = ["READS", "Operation", "RequestFrame"]

Operation = Literal[
    "query",
    "count",
    "free",
    "create",
    "move",
    "delete",
    "preference_get",
    "preference_set",
    "undo",
    "yes",
    "no",
    "greet",
    "out_of_scope",
    "unknown",
]

# The operations that read the calendar and change nothing.
READS: tuple[Operation, ...] = ("query", "free", "count")


@dataclass
class RequestFrame:
    operation: Operation
    confidence: float
    start: datetime | None = None
    end: datetime | None = None
    range_explicit: bool = False
    at_time: datetime | None = None
    time_only: bool = False  # a clock time said with no day: "my 9am coffee" (today's, or the next)
    duration_minutes: int | None = None
    titles: list[str] = field(default_factory=list)
    title_words: list[str] = field(default_factory=list)
    category: str | None = None
    people: list[str] = field(default_factory=list)
    person_names: list[str] = field(default_factory=list)
    # of those, the names the people tagger read as someone's, whom the directory does not know and no
    # title holds ("my meeting with Bob"): who the events are with
    strangers: list[str] = field(default_factory=list)
    # of ``people``, those named only as an owner ("Ann's birthday"): whose events are asked about,
    # never invited to a new one
    owners: list[str] = field(default_factory=list)
    named_in_title: bool = False  # the people said are part of the title ("dinner with Ann")
    # the first person said and those listed right after them ("with Ann, Bo and Cy"), each as an
    # address where the directory knows them or else the name: who are together at the events
    together: list[str] = field(default_factory=list)
    calendars: list[str] = field(default_factory=list)
    day_part: str | None = None
    weekdays: list[int] = field(default_factory=list)
    exclude_weekdays: list[int] = field(default_factory=list)
    exclude_dates: list[str] = field(default_factory=list)  # days left out, ISO: "except the 12th"
    # what an exception names that the calendar has: titles ("besides the standups") and people's
    # emails, or names the directory does not know ("except the ones with Ann"); words it names that
    # nothing has are not taken
    exclude_titles: list[str] = field(default_factory=list)
    exclude_people: list[str] = field(default_factory=list)
    # places a question asks about ("what meetings do I have in Bellevue"), as said, and with the word
    # that led each in ("in Bellevue", "at Nopa"), for the answer to name them so
    places: list[str] = field(default_factory=list)
    places_said: list[str] = field(default_factory=list)
    # places a question leaves out ("anything not in Bellevue"), as said: the exclusion tagger's words
    # that name no title and nobody
    exclude_places: list[str] = field(default_factory=list)
    exclude_category: str | None = None  # "besides meetings", "that's not a class"
    # calendars an exception names ("outside of school"), as the answer names them: the others are kept
    exclude_calendars: list[str] = field(default_factory=list)
    change_day_part: str | None = None
    change_start: datetime | None = None
    preference_key: str | None = None
    wants_next: bool = False
    next_one: bool = False  # "my next yoga": the one next, not the next few
    # a question about the events beside one it names, and which side: ("after", "Design review") of
    # "what's after the design review tomorrow?" (the rest of that day, not the review)
    beside: tuple[str, str] | None = None
    # a new event placed beside one the calendar has ("a call right after the dentist"): when the next
    # of that one starts and ends
    beside_at: tuple[datetime, datetime] | None = None
    # which one of a period's events a question asks for, by its place in their order: 0 for "my first
    # meeting next week", 1 for "the second event on Friday", -1 for "the last thing on Friday"
    pick: int | None = None
    by_length: bool = False  # the pick is by length, not start: "my longest meeting" (0), "the shortest" (-1)
    # the words that picked a shown event by its start ("cancel the 11" after a list): no day of the month
    clock_pick: str = ""
    conflicts: bool = False  # asks which events overlap ("any conflicts next week?")
    # the events a question about overlaps names, by words of their titles: "does the design review
    # clash with calculus" is about "design review" and "calculus", not about someone called Calculus
    involving: list[str] = field(default_factory=list)
    asked_busy: bool = False  # "am I busy at 3?", "do I have anything at 10?": yes means something is on
    past: bool = False  # said in the past tense ("when was my last haircut?", "what was on Monday?")
    detail: str | None = None  # what a question asks of an event: "location", "attendees" or "duration"
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        # Shallow on purpose: every field is a scalar, a datetime or a list of strings or ints, and
        # ``dataclasses.asdict`` deep-copies each list (a tenth of a decomposition's time).
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        return {
            k: v.isoformat() if isinstance(v, datetime) else list(v) if isinstance(v, list) else v
            for k, v in data.items()
        }
