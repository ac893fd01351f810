"""Writes the rules would do only in part, asked about instead: a setting said like an event, a change
made to wait on a condition, two moves in one sentence that the splitter could not part, a swap."""

from __future__ import annotations

import re
from datetime import datetime

from assistant.decomposer.frame import RequestFrame
from assistant.decomposer.intent import normalise
from assistant.decomposer.reading import Reading
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from workflows.definition import Decision

__all__ = ["conditional_or_double", "setting_as_event", "unsupported_write"]

# Words about settings and the assistant itself, which a write request must never make into a title.
_SETTING = re.compile(
    r"\b(?P<what>time ?zone|working hours|work hours|office hours|notifications?|preferences?|settings?|"
    r"default (?:event )?(?:length|duration)|week start)\b"
    r"|\b(?:set|change|update)\s+my\s+(?P<habit>lunch(?: hours?| break)?|gym(?: schedule)?|writing block|"
    r"work ?day)\s+(?:to|from)\b"
)
# A change made to depend on something ("move the dentist to Friday if Ann is free", "unless it rains"):
# the assistant cannot hold a write until something is true, so it asks rather than do it anyway.
# Politeness is no condition ("if possible", "if that's OK", "if you can"), nor is the user's own time
# being free ("if I'm free"): a write that would clash with something is shown first whatever is said.
_CONDITION = re.compile(
    r"\b(?:only if|if|unless|provided(?: that)?|as long as|assuming|in case)\s+"
    r"(?!(?:possible|you can|you could|you don'?t mind|you would|you will|need(?:ed|s)?|necessary|ok|okay|"
    r"(?:that|it)(?:'?s| is)?\s*(?:ok|okay|fine|alright|possible|not too much|works)|"
    # the user's own time free there, which every write checks: what would clash is shown first
    r"(?:i'?m|i am|it'?s|it is|that'?s|that is|i'?ll be|i will be)\s+(?:free|available|open|not busy))\b)"
    r"[^,.;!?]+"
)
# Two events to trade times ("swap my 2pm and 3pm", "switch the standup with the review"), not a move of
# one to somewhere ("switch the standup to 3pm").
_SWAP = re.compile(
    r"^(?:(?:can|could|would) you\s+|please\s+)*(?:swap|switch|trade|exchange)\s+(?P<first>.+?)"
    r"\s+(?:and|with)\s+(?P<second>(?:(?!\bto\b).)+?)(?:\s+(?:around|over|please))*[\s.!?]*$"
)
# A second event and destination in one move ("move the dentist to Friday and the review to Monday").
_AND_ANOTHER = re.compile(r"\band\s+(?:also\s+)?(?:the|my)\s+(?P<what>[\w' :-]+?)\s+to\s+\w")


def setting_as_event(r: Reading) -> Decision | None:
    """ "Set my timezone to Europe/London": a setting, never an event called "Timezone to ..."."""
    if r.frame.operation not in ("create", "move") or r.frame.title_words:
        return None
    setting = _SETTING.search(r.norm)
    if setting is None:
        return None
    return Decision(
        kind="answer",
        reply_kind="error",
        text=f"That sounds like a setting (your {setting['what'] or setting['habit']}), not an "
        'event, so I left your calendar as it was. Say what it should be (e.g. "my working hours '
        'are 9 to 5 on weekdays", "no meetings before 10am"), or change it on your settings page '
        "(/settings/).",
    )


def conditional_or_double(r: Reading) -> Decision | None:
    """The turn's write asked about when the rules would do it only in part (see
    :func:`unsupported_write`)."""
    return unsupported_write(r.frame, r.text, r.now, r.world)


def unsupported_write(frame: RequestFrame, text: str, now: datetime, world: World) -> Decision | None:
    """A question instead of a write the rules would do only in part: one made to depend on a condition,
    or a move of two events to two places of which only the first would be read."""
    if frame.operation not in ("create", "move", "delete"):
        return None
    norm = normalise(text)
    swap = _SWAP.match(norm)
    if swap is not None:
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"I can't swap two events in one go yet, so I left your calendar as it is. Move them one "
            f'at a time, each to its new day and time: "move {swap["first"]} to ...", then "move '
            f'{swap["second"]} to ...".',
        )
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
