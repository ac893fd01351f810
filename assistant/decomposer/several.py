"""Several requests in one turn: "move the dentist to Friday and the design review to Monday".

A turn whose clauses each ask for a change of their own is read clause by clause, each by the same
rules as a turn of its own, and the parts become one plan: each part finds and plans its change side
by side, one ``combine_changes`` joins them, and one ``apply_changes`` previews them together (always
asked first: several changes at once are a bulk change) and applies them as one change set, which one
"undo" takes back. More than :data:`MAX_PARTS` requests are asked about rather than guessed at, and a
turn any of whose parts the rules cannot plan as a change is left to be read whole.

A clause is a part of its own when it starts with a verb of change ("cancel ...", "add ...",
"reschedule ...") or names another event for the first clause's verb: after a move, with where it goes
("... and the review to Monday"), after a cancel, alone ("cancel the standup and the design review"),
in a list (after "and" or a comma, not a new sentence); such a part is read in its own words with the
verb's operation (a :class:`Part` carries it), not with the verb written in. A clause that points back
at the first ("and put it on Friday instead", "and schedule a new one at 2") depends on it: that is one
request, which the change compiler reads whole (a replacement); "cancel the gym and add yoga on Sunday"
is two.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from assistant.decomposer.frame import READS, Operation
from assistant.decomposer.intent import classify, normalise
from assistant.lexicon import CREATE_VERBS, DELETE_VERBS, EXCEPTING, MOVE_VERBS, POLITE_PREFIX
from skills.registry import REGISTRY
from workflows.builder import Handle, Plan, Ref
from workflows.definition import Decision

__all__ = ["MAX_PARTS", "Part", "several_requests"]

MAX_PARTS = 4


@dataclass(frozen=True, slots=True)
class Part:
    """One request of a turn, in the user's words, and the change it asks for where its words leave
    the verb to the part before ("move the dentist to Friday and the review to Monday": the review's
    part is a move)."""

    words: str
    carried: Operation | None = None


# Reads one part as a turn of its own, in the conversation as it would be after the update given (a
# change after a question in the same turn follows that question).
Decide: TypeAlias = Callable[[Part, dict[str, Any]], Decision]

# Where a clause may end and the next begin: ". ", "? ", "! ", "; ", ", then ", " and then ", " and also ",
# " and ", ", " (not the dots of "a.m." or "Dr.").
_BREAK = re.compile(
    r"(?<![ap]\.m)(?<!\bdr)(?<!\bst)\.\s+|[?!]\s+|\s*;\s*|,?\s+and\s+(?:then\s+|also\s+)?|,\s*then\s+|,\s+"
)
# A list that an exception began ("cancel everything except the hike and the yoga"): its next item is
# kept too, no event of its own for the first verb.
_IN_EXCEPTION = re.compile(rf"\b{EXCEPTING}\b[^.;?!]*$")
# "the review to Monday", "my 3pm call to Thursday at 10": another event and where it goes.
_ANOTHER_MOVE = re.compile(r"^(?:the|my)\s+[\w'’ :.-]+?\s+(?:to|until|till)\s+\w")
# How sure the rules are that a clause asks about the calendar, at least, for it to be a question: a
# question word or verb of its own gives 0.85; a day alone, or a "no" with a time, read as a look-up
# only because nothing else fits, gives 0.75 or less.
_ASKED = 0.8
# A clause that points back at another: it is that one's second half, not a request of its own.
_POINTS_BACK = re.compile(
    r"\b(?:it|them|instead|a new one|another one|a replacement"
    r"|another(?=\s+(?:at|on|for|in|from|tomorrow|today|next|this)\b|\s*$))\b"
)
# What a part's plan must end in to be joined: a preview of changes.
_APPLY = "apply_changes"
_LEFT_OUT = frozenset({"apply", "notify"})


def several_requests(text: str, *, decide: Decide) -> Decision | None:
    """The turn as one plan of its requests, a question when it holds too many, or None when it is one
    request (or one the rules cannot cut into requests they each plan). ``decide`` reads one part as a
    turn of its own."""
    norm = normalise(text)
    asked = _question_first(norm)
    if asked is not None:
        return _answered_and_changed(*asked, decide=decide)
    parts = _parts(norm)
    if len(parts) < 2:
        return None
    if len(parts) > MAX_PARTS:
        return Decision(
            kind="clarify",
            reply_kind="clarify",
            text=f"That is {len(parts)} changes in one message; I take up to {MAX_PARTS} at once, so nothing "
            "has changed yet. Send them in two messages, e.g. the first "
            f"{MAX_PARTS} now and the rest after.",
        )
    parts = [replace(part, words=_as_typed(part.words, text)) for part in parts]
    decisions = [decide(part, {}) for part in parts]
    if not all(_plans_a_change(d) for d in decisions):
        return None
    return _joined(parts, decisions)


def _as_typed(words: str, text: str) -> str:
    """A part's words as the user typed them, where the turn holds them (cased: "rename the offsite to
    Planning Day" names 'Planning Day', not 'planning day'); the words themselves where normalising
    changed more than case and spacing. Its first letter is lower case: it begins a sentence, and says
    nothing of a name."""
    said = re.search(r"\s+".join(re.escape(w) for w in words.split()), text, re.IGNORECASE)
    return words[:1] + said.group(0)[1:] if said is not None else words


def _joined(parts: list[Part], decisions: list[Decision], *, answered: Decision | None = None) -> Decision:
    """One plan of the parts' changes, previewed together, with the answer to a question the turn
    asked besides (``answered``: the look-up's plan, whose reply is said above them)."""
    plan = Plan()
    answer: Ref | None = None
    if answered is not None and answered.workflow is not None:  # the question's plan goes first
        handles = plan.include(answered.workflow)
        answer = handles[str(answered.workflow.output)]["text"]
    sets: list[Handle] = []
    for decision in decisions:
        changes = _changes_of(decision)
        assert decision.workflow is not None
        assert changes is not None
        handles = plan.include(decision.workflow, without=_LEFT_OUT)
        sets.append(handles[changes.task])
    combined = plan.add(
        "combine_changes",
        {"sets": [s.output for s in sets]},
        id="combine",
        summary="Put the changes together",
    )
    apply = plan.add(
        _APPLY,
        {"changes": combined.output, "always_ask": True, **({"answered": answer} if answer else {})},
        id="apply",
        summary="Preview them together, apply after approval",
    )
    summary = "; ".join(d.workflow.summary for d in decisions if d.workflow is not None)
    return Decision(
        kind="workflow",
        workflow=plan.build("several-changes", summary=summary[:200], output=apply),
        confidence=min(min(d.confidence for d in decisions), 0.75),
        notes=tuple(f"part {i + 1}: {part.words}" for i, part in enumerate(parts)),
        # a part that names no day ("... and delete lunch with Omar") is held to none another names
        frame={"parts": [_operation(d) for d in decisions], "undated": not all(_dated(d) for d in decisions)},
    )


def _question_first(norm: str) -> tuple[str, list[Part]] | None:
    """A question and then requests of change ("what's on friday and can you add a haircut at 4"):
    the question and the change parts, or None when the turn does not open with something else than
    a change and go on with one."""
    head = POLITE_PREFIX.sub("", norm).strip()
    if _verb(head) is not None:
        return None
    for cut in _BREAK.finditer(head):
        rest = _opening(head[cut.end() :])
        if _verb(rest) is not None:
            question = head[: cut.start()].strip(" ,.;!")
            changes = _parts(rest) or [Part(rest.strip(" ,.;!"))]
            if not question or any(len(c.words.split()) < 2 for c in changes):
                return None
            return question, changes
    return None


def _answered_and_changed(question: str, parts: list[Part], *, decide: Decide) -> Decision | None:
    """The question answered above the preview of the changes, in one plan; None unless the rules
    read the question as a look-up of the calendar and every other part as a change. The changes are
    read as following the question: "add a haircut at 4" after "what's on friday" is on Friday."""
    if len(parts) > MAX_PARTS - 1 or not _may_ask(question):
        return None
    asked = decide(Part(question), {})
    if not _looks_up(asked):
        return None
    if any(_POINTS_BACK.search(part.words) for part in parts):
        named = _named_again(parts, asked)
        if named is None:
            return None  # "find dinner with mom and delete it": one request, read whole
        parts = named
    decisions = [_after(part, asked.context_update, decide) for part in parts]
    if not all(_plans_a_change(d) for d in decisions):
        return None
    joined = _joined(parts, decisions, answered=asked)
    # the turn's operation is its change's: the whole turn reads as a question, which the gate refuses
    # to write on
    frame = {**joined.frame, "operation": joined.frame["parts"][0]}
    return joined.model_copy(update={"notes": (f"question: {question}", *joined.notes), "frame": frame})


def _may_ask(question: str) -> bool:
    """Whether the rules' operation of ``question`` leaves it a chance to be a look-up: the frame
    :func:`_looks_up` reads starts from it, and only a question or an unread turn said surely enough
    can end as one. A cheap test before the question is planned, which costs as much as a turn:
    "The event is at 2290 California Street. Put it as Hairdresser" is no question and its first
    sentence is not planned."""
    operation, confidence = classify(question)
    return (operation in READS or operation == "unknown") and confidence >= _ASKED


def _named_again(parts: list[Part], asked: Decision) -> list[Part] | None:
    """The change parts with "it" written as the one event a question about that event names ("how
    long is the design review and can you move it to 4": move the design review), or None when a part
    points back other than by "it" or the question asks nothing of one event ("find dinner with mom and
    delete it" is one request, read whole): the plan of a change cannot yet take an event from the
    look-up it follows."""
    titles = asked.frame.get("titles") or []
    if len(titles) != 1 or not asked.frame.get("detail"):
        return None
    named: list[Part] = []
    for part in parts:
        pointed = list(_POINTS_BACK.finditer(part.words))
        if not pointed:
            named.append(part)
            continue
        if [m.group(0) for m in pointed] != ["it"]:
            return None
        at = pointed[0]
        words = part.words
        named.append(Part(f"{words[: at.start()]}the {titles[0]}{words[at.end() :]}", part.carried))
    return named


def _after(part: Part, update: dict[str, Any], decide: Decide) -> Decision:
    """A change part read as following the question, or as a turn of its own where that finds nothing
    to change ("what do I have tomorrow? also delete the dentist": the dentist is on Friday)."""
    decision = decide(part, update)
    return decision if _plans_a_change(decision) else decide(part, {})


def _looks_up(decision: Decision) -> bool:
    """A question about the calendar in its own words ("what's on friday", not "thursday of next
    week" nor "thanks"): a plan that only reads the calendar and ends in a reply."""
    workflow = decision.workflow
    asks = decision.frame.get("operation") in READS and decision.frame.get("confidence", 0.0) >= _ASKED
    if not asks or workflow is None or workflow.output is None:
        return False
    output = next((t for t in workflow.tasks if t.id == workflow.output), None)
    return (
        output is not None
        and output.skill == "compose_reply"
        and all(t.skill in REGISTRY and REGISTRY.get(t.skill).kind == "read" for t in workflow.tasks)
    )


def _dated(decision: Decision) -> bool:
    """Whether a part's reading names a day or time of its own."""
    return bool(decision.frame.get("range_explicit") or decision.frame.get("at_time"))


def _operation(decision: Decision) -> str:
    """A part's operation as its frame read it, or as its plan's change makes it (a create begun from a
    statement reads as no request)."""
    said = str(decision.frame.get("operation", ""))
    if said in ("create", "move", "delete"):
        return said
    skills = {t.skill for t in decision.workflow.tasks} if decision.workflow is not None else set()
    return next((op for skill, op in _BY_SKILL if skill in skills), said)


_BY_SKILL = (("plan_create", "create"), ("plan_move", "move"), ("plan_delete", "delete"))


def _parts(norm: str) -> list[Part]:
    """The requests of a turn, each in its own words ([] or one part: a single request); a part without
    a verb of its own carries the first part's."""
    head = POLITE_PREFIX.sub("", norm).strip()
    first_verb = _verb(head)
    if first_verb is None:
        return []
    parts: list[str] = []
    start = 0
    for cut in _BREAK.finditer(head):
        clause = _opening(head[cut.end() :])
        listed = not any(mark in cut.group(0) for mark in ".;?!")  # "the other guy never replied." is no item
        excepting = bool(_IN_EXCEPTION.search(head, start, cut.start()))
        if _verb(clause) is not None or (listed and not excepting and _another_event(clause, first_verb)):
            parts.append(head[start : cut.start()])
            start = cut.end()
    parts.append(head[start:])
    parts = [_opening(p).strip(" ,.;!") for p in parts]
    if len(parts) < 2 or any(not p for p in parts) or any(_points_back(p) for p in parts[1:]):
        return []
    return [Part(p, None if _verb(p) is not None else first_verb) for p in parts]


def _points_back(part: str) -> bool:
    """Whether a later part depends on the one before: "and put it on Friday instead", "and schedule a
    new one at 2"; not a new event of its own said "instead" ("and add a 1:1 with Ann at 9 instead")."""
    said = {m.group(0) for m in _POINTS_BACK.finditer(part)}
    if said == {"instead"} and CREATE_VERBS.match(_opening(part)):
        return False
    return bool(said)


def _another_event(clause: str, first_verb: str) -> bool:
    """Whether ``clause`` names another event for the first clause's verb: after a move, with where it
    goes ("the review to Monday"); after a cancel, alone ("the design review")."""
    if first_verb == "move":
        return bool(_ANOTHER_MOVE.match(clause))
    return first_verb == "delete" and clause.startswith(("the ", "my "))


def _opening(clause: str) -> str:
    """A clause without what leads up to its request ("then", "also", "please", "I need to")."""
    return POLITE_PREFIX.sub("", clause)


def _verb(clause: str) -> Operation | None:
    """Which change a clause asks for by its first word, if it starts with a verb of change."""
    if MOVE_VERBS.match(clause):
        return "move"
    if DELETE_VERBS.match(clause):
        return "delete"
    return "create" if CREATE_VERBS.match(clause) else None


def _plans_a_change(decision: Decision) -> bool:
    """A part the rules planned as a change to preview: a workflow that ends in applying changes."""
    if decision.kind != "workflow" or decision.workflow is None:
        return False
    if any(task.id == "notify" for task in decision.workflow.tasks):
        return False  # "... and tell them": mail that a joined plan would not send; read whole instead
    return _changes_of(decision) is not None


def _changes_of(decision: Decision) -> Ref | None:
    """The reference to the change set a part's plan applies (its apply step's ``changes``), if any."""
    tasks = decision.workflow.tasks if decision.workflow is not None else ()
    apply = next((t for t in tasks if t.id == "apply"), None)
    changes = apply.params.get("changes") if apply is not None and apply.skill == _APPLY else None
    return Ref.parse(changes) if isinstance(changes, str) else None
