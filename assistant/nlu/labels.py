"""The operation each corpus says a turn asks for, as one of :data:`assistant.nlu.operations.OPERATIONS`.

Each source says it its own way: SMCalFlow by the program the turn was annotated with, the
Schema-Guided Dialogue turns by their dialogue acts and announced intent, NLU-Evaluation-Data by its
intent. A turn whose label would be a guess (a program doing two things, a request fenced off only
because its attendee was unknown, a reminder, which the other corpora count as a request to add) is
left unlabelled and out of training. Nothing here runs when the chat reads a turn.
"""

from __future__ import annotations

import re

__all__ = ["after_first_group", "nlu_operation", "sgd_operation", "smcalflow_operation"]

# Programs that do several things, or whose annotation says more about SMCalFlow's world than about
# the request ("FenceAttendee": a create for someone not in the address book).
_UNCLEAR = re.compile(
    r"FenceMultiAction|FenceAttendee|FenceSpecify|FenceConditional|FenceReminder|PleasantryCalendar|"
    r"\bEventAttendance"
)
# Fenced off by the annotators, or about what is no calendar's: the weather, places, holidays.
_FENCE = re.compile(
    r"\bFence\w+|\bWeather\w*|\bWill(?:Rain|Snow|Sun)\w*|\bPlaceHasFeature|\bFindPlace|\(Here\)|"
    r"\bNextHoliday\w*|\bHolidayYear\b"
)
# Questions about people rather than events (phone numbers, managers, offices): out of scope unless the
# turn does something to an event with the person ("add Kim and her team to this").
_PEOPLE = re.compile(r"\bPerson\.\w+|\bFind(?:Manager|Reports|TeamOf)\b|\bCurrentUser\b")
_PLEASANTRY = re.compile(r"\bPleasantry\w*|\bGreeting\w*|\bUserPauseResponse")
_SELECT = re.compile(r"\bChoose\w+")
_ACTIONS: tuple[tuple[str, str], ...] = (
    ("CreateCommitEventWrapper", "create"),
    ("DeleteCommitEventWrapper", "delete"),
    ("UpdateCommitEventWrapper", "update"),
    ("ConfirmAndReturnAction", "approve"),
    ("DoNotConfirm", "decline"),
    ("ReviseConstraint", "detail"),
)
_FIND = re.compile(
    r"\bFind\w*Event\w*|\bEventAllDay\w*|\bEventOnDate\w*|\bEventDuring\w*|\bRecipientAvailability"
)
# What a read yields when it answers about one of an event's parts rather than listing events.
_ATTRIBUTE = re.compile(
    r"\(Yield \((?:Event\.(?:attendees|location|duration|organizer|end|responseStatus)\b|AttendeeFromEvent\b|"
    r"AttendeesWith\w*|allows\b)"
)
_WHEN_CHANGES = re.compile(r"Event\.(?:start|end)_\?")


def smcalflow_operation(program: str) -> str | None:
    """The operation of one SMCalFlow turn from its Lispress program, or None when unclear."""
    if not program or _UNCLEAR.search(program):
        return None
    if _FENCE.search(program):
        return "out_of_scope"
    if _PLEASANTRY.search(program):
        return "small_talk"
    found = {label for name, label in _ACTIONS if name in program}
    if _SELECT.search(program):
        found.add("approve")  # taking one of the options offered
    if len(found) > 1 or (found == {"approve"} and _FIND.search(program)):
        return None  # "yes, and what do I have on Monday?": two requests, no one label
    if found:
        label = found.pop()
        return _update_kind(program) if label == "update" else label
    if _PEOPLE.search(program):
        return "out_of_scope"
    if _ATTRIBUTE.search(program):
        return "attribute"  # also of an event referred to ("when does it end?")
    if _FIND.search(program):
        return "query"
    return None


def _update_kind(program: str) -> str:
    """A move when the update gives the event another start or end, an edit otherwise."""
    at = program.find("UpdatePreflightEventWrapper")
    changes = after_first_group(program[at + len("UpdatePreflightEventWrapper") :])
    return "move" if _WHEN_CHANGES.search(changes) else "edit"


def after_first_group(text: str) -> str:
    """What follows the first balanced parenthesised group of ``text`` (the event the update is of)."""
    depth = 0
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[i + 1 :]
    return ""


_SGD_INTENTS = {"AddEvent": "create", "GetEvents": "query", "GetAvailableTime": "query"}


def sgd_operation(acts: frozenset[str], intent: str | None) -> str | None:
    """The operation of one SGD turn from its acts and the intent it announces, or None when unclear."""
    if intent is not None:
        return _SGD_INTENTS.get(intent)
    if "REQUEST" in acts:
        return "attribute"  # "where is it?", "when does it end?" about the event found
    if acts & {"AFFIRM", "AFFIRM_INTENT"}:
        return "approve"
    if acts & {"NEGATE", "NEGATE_INTENT"}:
        return "detail" if "INFORM" in acts else "decline"
    if "SELECT" in acts:
        return "approve"  # "that one works": one of the options offered
    if "INFORM" in acts:
        return "detail"
    if acts and acts <= {"THANK_YOU", "GOODBYE"}:
        return "small_talk"
    return None


_NLU_INTENTS = {"calendar_set": "create", "calendar_query": "query", "calendar_remove": "delete"}


def nlu_operation(intent: str) -> str | None:
    """The operation of one NLU-Evaluation-Data request from its intent."""
    return _NLU_INTENTS.get(intent)
