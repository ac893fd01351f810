"""The deterministic, offline decomposer: understand the sentence, then compile the frame."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from assistant.decomposer.again import same_time_later
from assistant.decomposer.changes import compile_change, ending_as_cancel, undo_decision
from assistant.decomposer.compiler import compile_frame
from assistant.decomposer.dialogue import (
    asks_question,
    follow_up,
    heed_intent,
    last_question,
    reader_asked,
    says_what,
    small_talk,
    without_acknowledgements,
)
from assistant.decomposer.drafts import amend, draft_turn
from assistant.decomposer.edits import edit_decision
from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.guards import out_of_reach
from assistant.decomposer.intent import normalise
from assistant.decomposer.recurrence import read_repeat
from assistant.decomposer.retry import another_time
from assistant.decomposer.settings import setting_decision
from assistant.decomposer.several import several_requests
from assistant.decomposer.sharing import sharing_decision
from assistant.decomposer.state import DialogueState
from assistant.decomposer.sync import sync_decision
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from assistant.lexicon import NAMED_OUTRIGHT, POLITE_PREFIX, QUESTION_STARTERS
from assistant.nlu import TurnReading, read_turn
from assistant.timeexpr import find_times
from workflows.definition import Decision

__all__ = ["RuleDecomposer"]


# Words about settings and the assistant itself, which a write request must never make into a title.
_SETTING = re.compile(
    r"\b(?P<what>time ?zone|working hours|work hours|office hours|notifications?|preferences?|settings?|"
    r"default (?:event )?(?:length|duration)|week start)\b"
    r"|\b(?:set|change|update)\s+my\s+(?P<habit>lunch(?: hours?| break)?|gym(?: schedule)?|writing block|"
    r"work ?day)\s+(?:to|from)\b"
)
# A change made to depend on something ("move the dentist to Friday if Ann is free", "unless it rains"):
# the assistant cannot hold a write until something is true, so it asks rather than do it anyway.
# Politeness is no condition ("if possible", "if that's OK", "if you can").
_CONDITION = re.compile(
    r"\b(?:only if|if|unless|provided(?: that)?|as long as|assuming|in case)\s+"
    r"(?!(?:possible|you can|you could|you don'?t mind|you would|you will|need(?:ed|s)?|necessary|ok|okay|"
    r"(?:that|it)(?:'?s| is)?\s*(?:ok|okay|fine|alright|possible|not too much|works))\b)"
    r"[^,.;!?]+"
)
# A second event and destination in one move ("move the dentist to Friday and the review to Monday").
_AND_ANOTHER = re.compile(r"\band\s+(?:also\s+)?(?:the|my)\s+(?P<what>[\w' :-]+?)\s+to\s+\w")
# "it" in "make it for 12 pm" or "add it to my calendar" while an event is being described: that event.
_THE_DRAFT = re.compile(r"\b(?:it|that|this one)\b")
# Requests that read or change every event of a range, which must not be unbounded (a creation's range
# is the day it goes on, and a repeat's end is read apart).
_RANGED = ("query", "count", "free", "move", "delete")
# How sure the operation model must be for its reading of a new event to start one where the rules found
# no verb of their own ("I have a hike with Polly at 3:30", "tea w/ sam fri 4pm"); a write begun on its
# word alone is previewed, never made at once (see _MODEL_LED).
_MODEL_SURE = 0.75
_MODEL_LED = 0.75
# The operations that name an event without describing a new one, and how likely the model must find
# one of them to keep a statement from starting a new event (more likely than anything else).
_NOT_NEW = frozenset({"query", "attribute", "move", "edit", "delete"})
_MODEL_LEANS = 0.5
_CORRECTION = re.compile(
    r"\b(?:actually|instead|rather|better|can we do|could we do|let's do|let's say|how about|what about)\b"
)


def _bounded(frame: RequestFrame, now: datetime) -> RequestFrame:
    """The frame, asked about (its ``error``) when it would read or change too long or too far a range."""
    if frame.operation in _RANGED and not frame.error:
        frame.error = out_of_reach(frame.start, frame.end, now)
    return frame


def _inside(span: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= span[0] and span[1] <= outer[1]


def _corrects_last(frame: RequestFrame, text: str, context: dict[str, Any]) -> bool:
    """A new time for the one event just made or changed, said without a verb ("how about 3pm instead?")."""
    return (
        frame.operation in ("unknown", "query")
        and frame.at_time is not None
        and not frame.title_words
        and len(context.get("last_events") or []) == 1
        and bool(_CORRECTION.search(normalise(text)))
    )


def _unrepeated(frame: RequestFrame, text: str, now: datetime, world: World) -> RequestFrame:
    """The frame of a create request read without its repetition ("every Tuesday", "until May"), whose
    weekdays and dates would otherwise pass for the title or the start."""
    repeat = read_repeat(text, now)
    if repeat is None:
        return frame
    for lo, hi in repeat.spans:
        text = text[:lo] + " " * (hi - lo) + text[hi:]
    return replace(understand(text, now=now, world=world), operation=frame.operation)


def _model_reads_create(frame: RequestFrame, text: str, reading: TurnReading) -> bool:
    """A new event, by the operation model's reading, in a turn the rules read no write in.

    Not a turn that opens as a question ("do I have a 3 hour block on Tuesday?", "show me ..."), asks
    for the next of something ("next meeting with John") or names only a stretch of days: SMCalFlow,
    which the model learnt from, answers some of those by booking, and this assistant answers them.
    """
    return (
        frame.operation in ("unknown", "query")
        and reading.operation == "create"
        and reading.operation_confidence >= _MODEL_SURE
        and not frame.wants_next
        and not QUESTION_STARTERS.match(POLITE_PREFIX.sub("", normalise(text)))
        and not _only_a_range(frame)
    )


def _only_a_range(frame: RequestFrame) -> bool:
    """A turn whose only time is a stretch longer than a day and no time of day ("dentist calendar
    november"): a range to look through, not a time to book; the rules' reading of it stands."""
    return (
        frame.at_time is None
        and frame.range_explicit
        and frame.start is not None
        and frame.end is not None
        and frame.end - frame.start > timedelta(days=1)
    )


def _describes_event(frame: RequestFrame, text: str, reading: TurnReading) -> bool:
    """A statement that names an event by its title or place, asking nothing ("The event is located at
    801 Welch Road."): the start of a new event's description, even without "add"."""
    return (
        frame.operation in ("unknown", "query", "yes", "out_of_scope")
        and not asks_question(frame, text)
        and "?" not in text
        and not QUESTION_STARTERS.match(normalise(text))
        and "INFORM" in reading.acts
        and not reading.acts & {"REQUEST", "REQUEST_ALTS", "INFORM_INTENT"}
        and (any(s.slot in ("title", "location") for s in reading.spans) or bool(NAMED_OUTRIGHT.search(text)))
        and not _model_reads_another_request(reading)
    )


def _model_reads_another_request(reading: TurnReading) -> bool:
    """The operation model reads a look-up or a change of an existing event in the turn ("first week of
    march meetings", "I forgot where I'm having dinner tonight", "James can't go bowling tonight, so
    Tommy is going instead"), which names an event without describing a new one."""
    return reading.operation in _NOT_NEW and reading.operation_confidence >= _MODEL_LEANS


class RuleDecomposer:
    name = "rules"

    @staticmethod
    def _draft(
        frame: RequestFrame,
        text: str,
        state: DialogueState,
        reading: TurnReading,
        now: datetime,
        tz: ZoneInfo,
        world: World,
    ) -> Decision | None:
        """The turn as part of a new event being described, or as details of the one just made."""
        if frame.error and frame.operation == "create":
            return Decision(
                kind="clarify", reply_kind="clarify", text=f"{frame.error} Which date did you mean?"
            )
        other_request = frame.operation in ("move", "delete", "undo", "count", "free", "preference_get") or (
            frame.operation == "query"
            and (asks_question(frame, text) or (says_what(frame, text, reading) and not reading.spans))
        )
        if (
            state.draft is not None
            and frame.operation in ("move", "create")
            and _THE_DRAFT.search(normalise(text))
        ):
            # "make it for 12 pm", "add it to my calendar": "it" is the event being described
            return draft_turn(frame, text, state, reading, now, tz, continuing=True)
        made = state.made
        amending = made is not None and not other_request and frame.operation != "create"
        if made is not None and amending:
            amended = amend(made, frame, text, reading, now, tz, state.asked)
            if amended is not None:
                return amended
        starts = frame.operation == "create" or (
            reading.intent == "AddEvent" and frame.operation in ("unknown", "query")
        )
        if starts:
            return draft_turn(
                _unrepeated(frame, text, now, world), text, state, reading, now, tz, continuing=False
            )
        if not other_request and _describes_event(frame, text, reading):
            drafted = draft_turn(
                _unrepeated(frame, text, now, world), text, state, reading, now, tz, continuing=False
            )
            if drafted.kind == "clarify":
                # details with no request and not enough for an event ("the location is my office"):
                # begun as one, but only a guess (a model, where there is one, may read it better)
                drafted = drafted.model_copy(update={"confidence": min(drafted.confidence, 0.6)})
            return drafted
        if state.draft is None and _model_reads_create(frame, text, reading):
            guarded = _unsupported_write(replace(frame, operation="create"), text, now, world)
            if guarded is not None:  # "... if not, add one at 2": a condition, asked about as any write's
                return guarded
            # the operation is the model's reading now: the frame says so, for the gate and the record
            frame.operation = "create"
            drafted = draft_turn(
                _unrepeated(frame, text, now, world), text, state, reading, now, tz, continuing=False
            )
            return drafted.model_copy(update={"confidence": min(drafted.confidence, _MODEL_LED)})
        if state.draft is not None and not other_request:
            return draft_turn(frame, text, state, reading, now, tz, continuing=True)
        return None

    def decompose(
        self,
        *,
        text: str,
        user: object,
        timezone_name: str,
        context: dict[str, Any] | None = None,
        whole: bool = True,
    ) -> Decision:
        """The turn's decision; ``whole`` is False for a part of a turn that held several requests,
        which is read as it stands (see :mod:`assistant.decomposer.several`)."""
        tz = ZoneInfo(timezone_name)
        now = timezone.now().astimezone(tz)
        context = context or {}
        state = DialogueState.of(context)
        text = without_acknowledgements(text)
        reading = read_turn(text, asked=reader_asked(state.asked))
        world = World(user=user, now=now)
        read = understand(text, now=now, world=world, reading=reading)
        frame = _bounded(heed_intent(read, text, reading), now)
        synced = sync_decision(text, now=now, tz=tz, world=world)
        if synced is not None:  # "sync my work and personal calendars", "copy my work week to personal"
            return synced.model_copy(update={"frame": frame.as_json()})
        shared = sharing_decision(text, norm=normalise(text).strip(" .!"), now=now, world=world)
        if shared is not None:  # "don't let anyone see when I'm busy" (before small talk: "only Ann can")
            return shared.model_copy(update={"frame": frame.as_json()})
        chat = small_talk(frame, reading)
        if chat is not None:
            return Decision(
                kind="answer", reply_kind="answer", text=chat, confidence=0.9, frame=frame.as_json()
            )
        if _corrects_last(frame, text, context):
            # "Actually 12:30 works better" right after one event was made: move that one there.
            text = "move it to " + " ".join(m.text for m in find_times(text, now=now, daytime=True))
            frame = understand(text, now=now, world=world)
        elsewhere = another_time(text, now=now, tz=tz, context=context)
        if elsewhere is not None:
            return elsewhere.model_copy(update={"frame": frame.as_json()})
        preference = setting_decision(text, now=now, context=context, world=world)
        if preference is not None:
            return preference.model_copy(update={"frame": frame.as_json()})
        setting = _SETTING.search(normalise(text)) if frame.operation in ("create", "move") else None
        if setting is not None and not frame.title_words:
            # "set my timezone to Europe/London": a setting, never an event called "Timezone to ..."
            return Decision(
                kind="answer",
                reply_kind="error",
                text=f"That sounds like a setting (your {setting['what'] or setting['habit']}), not an "
                'event, so I left your calendar as it was. Say what it should be (e.g. "my working hours '
                'are 9 to 5 on weekdays", "no meetings before 10am"), or change it on your settings page '
                "(/settings/).",
                frame=frame.as_json(),
            )
        if whole and state.draft is None:

            def part(said: str) -> Decision:
                return self.decompose(
                    text=said, user=user, timezone_name=timezone_name, context=context, whole=False
                )

            joined = several_requests(text, decide=part)
            if joined is not None:  # "move the dentist to Friday and the review to Monday"
                return joined.model_copy(update={"frame": {**frame.as_json(), **joined.frame}})
        guarded = _unsupported_write(frame, text, now, world)
        if guarded is not None:
            return guarded.model_copy(update={"frame": frame.as_json()})
        ending = ending_as_cancel(text, now)
        if ending is not None:
            text = ending
            frame = understand(text, now=now, world=world)
        if frame.operation not in ("yes", "no", "greet", "undo"):
            copied = same_time_later(text, now=now, world=world, context=context)
            if copied is not None:  # "book the same time next week for the dentist"
                return copied.model_copy(update={"frame": frame.as_json()})
            edited = edit_decision(text, now=now, tz=tz, world=world, context=context)
            if edited is not None:
                return edited.model_copy(update={"frame": frame.as_json()})
        drafted = self._draft(frame, text, state, reading, now, tz, world)
        if drafted is not None:
            return drafted.model_copy(update={"frame": frame.as_json()})
        if frame.operation in ("move", "delete"):
            decision = compile_change(frame, text=text, now=now, tz=tz, world=world, context=context)
            return decision.model_copy(update={"frame": frame.as_json()})
        if frame.operation == "undo" and context.get("last_applied_run"):
            return undo_decision(context["last_applied_run"], frame)
        frame = _bounded(follow_up(frame, text, state, reading, now), now)
        decision = compile_frame(frame, now=now, tz=tz)
        asked = last_question(frame, now, tz)
        if asked is not None and decision.kind == "workflow":
            update = {**decision.context_update, "last_question": asked.model_dump(mode="json")}
            decision = decision.model_copy(update={"context_update": update})
        return decision


def _unsupported_write(frame: RequestFrame, text: str, now: datetime, world: World) -> Decision | None:
    """A question instead of a write the rules would do only in part: one made to depend on a condition,
    or a move of two events to two places of which only the first would be read."""
    if frame.operation not in ("create", "move", "delete"):
        return None
    norm = normalise(text)
    condition = _CONDITION.search(norm)
    if condition is not None:
        said = condition.group(0).strip()
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f'I can\'t make a change wait on "{said}", so I left your calendar as it is. Check '
            'first (e.g. "is Ann free on Friday?"), then tell me what to do.',
        )
    second = _AND_ANOTHER.search(norm) if frame.operation == "move" else None
    if second is not None and understand(second["what"], now=now, world=world).title_words:
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"One move at a time, please: tell me where the first event goes, then where "
            f"{second['what']} goes.",
        )
    return None
