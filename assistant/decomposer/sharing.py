"""Free/busy sharing said in chat: who of this instance may see when the user is busy.

"Don't let anyone see when I'm busy", "share my availability only with Ann and raj@example.com",
"let everyone see my free/busy again", "also let Kai see when I'm busy", "who can see when I'm busy?".
A sentence is about sharing only when it names the user's busy times ("when I'm busy", "my free/busy",
"my availability", "my busy times") together with someone else seeing them (see, share, hide, visible,
private); "show me when I'm busy on Friday" and "let me see my availability" are questions about the
calendar and are left to the other readers, as is anything that names a day or a time.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.decomposer.reading import Reading
from assistant.decomposer.world import World
from assistant.lexicon import EMAIL, NAME_LIST_BREAK
from assistant.timeexpr import find_times
from preferences.wording import describe_preference
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["sharing_decision"]

_KEY = "busy_visible_to"
_TOPIC = re.compile(
    r"\bwhen i(?:'m| am|m) busy\b|\bmy (?:free ?/ ?busy|free-busy|freebusy|busy (?:times?|slots?|blocks?)"
    r"|availability|calendar availability)\b"
)
_SEEING = re.compile(
    r"\b(?:see|seeing|sees|view|share|sharing|shared|hide|hidden|visible|private|public|access)\b"
)
# The user as the one looking: a question about their own calendar, not about sharing it ("can I see
# my availability?", "show me when I'm busy"; "help me share my free/busy with Raj" shares it).
_MINE = re.compile(
    r"\b(?:let me|can i|could i|may i|i (?:want|need|would like|'d like) to|help me)"
    r"\s+(?:see|view|check|look)\b|\bshow me\b"
)
# A request said as a question: "can you hide my availability?", "could you stop sharing ...?"
_ASKED_FOR = re.compile(r"^(?:please\s+)?(?:can|could|would|will)\s+you\b")
# A question about how it is now: "is my availability private?", "are my busy times hidden?"
_STATE_ASKED = re.compile(r"^(?:is|are|does|do)\b")
_MY_CALENDAR = re.compile(r"\bmy (?:calendar|schedule|diary|agenda)\b")
_ASKED = re.compile(r"^(?:who|which (?:people|users|colleagues))\b|^(?:can|does|do|is)\b.*\?$|\?$")
_OFF = re.compile(
    r"\b(?:don'?t|do not|never|stop|hide|hidden|unshare|private|nobody|no one|noone|no-one|not share|"
    r"not let|not be (?:visible|shared))\b"
)
# On a self-hosted instance the other users are the colleagues.
_ALL = re.compile(
    r"\b(?:everyone|everybody|anyone|anybody|all (?:users|people)|public|(?:all )?(?:my )?"
    r"(?:colleagues|coworkers|co-workers))\b"
)
_ONLY = re.compile(r"\bonly\b|\bjust\b")
_ALSO = re.compile(r"\b(?:also|too|as well|add)\b")
# Where names stand: "with Ann and Raj", "let Ann and Raj see", "to Ann", "only Ann can see".
_NAMES = re.compile(
    r"\b(?:with|to|for)\s+(?P<with>.+?)(?:\s+(?:only|too|as well|again))?\s*$"
    r"|\blet\s+(?:only\s+|just\s+|also\s+)?(?P<let>.+?)\s+(?:also\s+)?(?:see|view|know|access)\b"
    r"|^(?:only|just)\s+(?P<only>.+?)\s+(?:can|may|should|is allowed to|are allowed to)\s+(?:see|view|know)\b"
)
_NOT_NAMES = re.compile(r"\b(?:me|them|him|her|it|people|others)\b")
_FILLER = re.compile(r"^(?:only|just|also|my colleagues?|colleagues?)\s+")


def sharing_decision(r: Reading) -> Decision | None:
    """Set or describe ``busy_visible_to``, a question for names not known here, or None when the
    turn is not about sharing the user's busy times."""
    text, norm, now, world = r.text, r.norm.strip(" .!"), r.now, r.world
    # "who can see my calendar?", "is my schedule private?": asked, the calendar is what is shared (its
    # busy times); not "can you see my calendar?", asked of the assistant
    question = bool(_ASKED.search(text.strip()))
    asked_of_it = question and bool(_MY_CALENDAR.search(norm)) and "you" not in norm.split()
    if not (_TOPIC.search(norm) or asked_of_it) or not _SEEING.search(norm) or _MINE.search(norm):
        return None
    if any(m.has_date or m.has_time for m in find_times(norm, now=now, daytime=True) if not m.error):
        return None  # "hide my availability on Friday" is about a day, not about sharing
    current = world.preferences.get(_KEY) or {"who": "everyone", "people": []}
    # asked, not asked for: "is my availability private?" (it turned sharing off); "can you hide my
    # availability?" asks for it
    asked = question and not _ASKED_FOR.match(norm)
    if norm.startswith("who ") or (asked and (not _OFF.search(norm) or _STATE_ASKED.match(norm))):
        said = describe_preference(_KEY, current)
        return Decision(
            kind="answer",
            text=f"Free/busy sharing is {said}. They see when you're busy, never what your events are. "
            'Change it by saying, e.g., "share my availability only with Ann" or "don\'t let anyone see '
            "when I'm busy\".",
            confidence=0.9,
        )
    named = _named(text, norm)
    if _OFF.search(norm) and not named:
        return _set({"who": "nobody"})
    if _ALL.search(norm) and not named and not _OFF.search(norm):
        return _set({"who": "everyone"})
    if not named:
        return None
    found, unknown = _addresses(named, world)
    if unknown:
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"I don't know {_or(unknown)} here. Say their email address, e.g. \"share my availability "
            'only with ann@example.com".',
            confidence=0.9,
        )
    if _ALSO.search(norm) and not _ONLY.search(norm):
        if current["who"] == "everyone":
            return Decision(
                kind="answer",
                text="Everyone on this instance can already see when you're busy (the times only).",
                confidence=0.9,
            )
        if current["who"] == "named":
            found = sorted(set(found) | set(current["people"]))
    return _set({"who": "named", "people": found})


def _named(text: str, norm: str) -> list[str]:
    """The people said as the ones who may see, as written ("Ann", "raj@example.com")."""
    emails = EMAIL.findall(text)
    m = _NAMES.search(norm)
    if m is None:
        return emails
    words = m["with"] or m["let"] or m["only"] or ""
    if _TOPIC.search(words) or _ALL.search(words) or _NOT_NAMES.search(words):
        return emails
    names = [_FILLER.sub("", part).strip(" .!?") for part in NAME_LIST_BREAK.split(words)]
    names = [n for n in names if n and not EMAIL.fullmatch(n)]
    return [*names, *emails]


def _addresses(named: list[str], world: World) -> tuple[list[str], list[str]]:
    """The addresses of the people named (emails as said; names through the directory) and the names
    that are nobody here or more than one person."""
    emails = [n.lower() for n in named if EMAIL.fullmatch(n)]
    names = [n for n in named if not EMAIL.fullmatch(n)]
    directory = world.people_named(names) if names else {}
    unknown = []
    for name in names:
        people = directory.get(" ".join(name.split()).casefold(), [])
        if len(people) == 1:
            emails.append(people[0].email.lower())
        else:
            unknown.append(name.title() if name.islower() else name)
    return sorted(set(emails)), unknown


def _or(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _set(value: dict[str, Any]) -> Decision:
    summary = "Set who may see when you're busy"
    plan = Plan()
    pref = plan.add("set_preference", {"key": _KEY, "value": value}, id="pref", summary=summary)
    return Decision(
        kind="workflow", workflow=plan.build(f"set-{_KEY}", summary=summary, output=pref), confidence=0.9
    )
