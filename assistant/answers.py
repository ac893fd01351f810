"""Reading a typed message as the answer to the question a paused workflow is waiting on.

"yes", "sure, do it", "no", "the 4pm one", "the second", an option's own label (what the buttons
send): each is mapped to the value of the option it names.  A message that names none of them is
not an answer, and the chat treats it as a new request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.blanks import blanked
from assistant.decomposer.intent import classify, normalise
from assistant.lexicon import (
    DAY_PART_WORD,
    HOLDING,
    JUST_POLITE,
    MOVE_VERBS,
    ORDINALS,
    STOPWORDS,
    YES_WORDS,
    tokens,
    words_pattern,
)
from assistant.nlu import TurnReading, read_turn
from assistant.timeexpr import TimeMatch, find_times
from assistant.timeexpr.numbers import CARDINALS
from skills.change_skills import ALL
from skills.filtering import in_day_part

__all__ = ["ASK_AGAIN", "DECLINE", "NOT_AN_ANSWER", "Amended", "after_no", "answer_for"]

NOT_AN_ANSWER: Any = object()
DECLINE: Any = object()
# A yes to a question that asks which one ("Which one do you mean?" -> "yes"): agreeing, but naming
# none; the question stays open and is asked again, rather than set aside as a new request would be.
ASK_AGAIN: Any = object()


@dataclass(frozen=True, slots=True)
class Amended:
    """A yes to a preview with a change asked in the same breath ("fine, but make it 9", "yes but keep
    the standup"): approving the preview as shown would do what the user just said not to, so it is
    not approved, and ``change`` is what they asked for instead."""

    change: str

    @property
    def request(self) -> str:
        """The change as a request of its own: without the word that took back the agreement ("but
        call it Book club" asks to call it Book club)."""
        lead = _CONTRAST.match(self.change)
        return self.change[lead.end() :].lstrip(" ,") if lead else self.change


# A word that takes back part of the agreement before it: "yes but ...", "ok, except ...".
_CONTRAST = re.compile(r"\b(?:but|except|instead|rather|(?:al)?though|however)\b", re.I)

# The places of ORDINALS, and the words for the first or the last of two: "the earlier one", "the latter".
# The options are in time order, so "the next one" is the first of them.
_ORDINALS = {
    **ORDINALS,
    **dict.fromkeys(("earlier", "earliest", "former", "next", "soonest", "upcoming"), 0),
    **dict.fromkeys(("later", "latest", "latter"), -1),
}
_ORDINAL = re.compile(r"\b(?:the )?(" + "|".join(_ORDINALS) + r")(?: one)?\b")
# "option 2", "number two", "#2", or the number alone: a position in the list, not "the one at 4".
_NUMBERED = re.compile(r"^(?:option |number |no\.? |#)?(1|2|3|4|one|two|three|four)$")
# The whole series, where the question offers it: "all of them", "every one of them", "from now on".
_ALL = re.compile(
    r"^(?:(?:yes|ok|okay)[,\s]+)?(?:(?:all|both|every ?one|everything|each)(?: of (?:them|those|these))?"
    r"(?: the \w+s)?|all (?:future|upcoming|coming) ones|the whole (?:series|thing)"
    r"|(?:all of them )?(?:from now on|going forward))(?: please)?[.!]*$"
)
_ONLY_THIS = re.compile(r"^(?:yes,? )?(?:only|just) (?:that|this|the) (?:one|once|time|\w+day)\b")
# "only the hike", "just the dentist please": some of what a preview shows.
_ONLY_SOME = re.compile(
    r"^(?:(?:no|wait|actually|hmm+)[\s,]+)*(?:only|just) (?:the |my )?(?P<what>.+?)(?: please)?$"
)
_THE_ONE = re.compile(r"\b(?:the|that|this) ones?\b")
# None of the options: "none of them", "neither", "I don't want any of them cancelled", and nothing else
# ("neither, just tomorrow's" and "the review, nothing else" name one).
_NONE = re.compile(
    r"^(?:(?:no|hmm+|um+|well)[\s,]+)*"
    r"(?:none|neither|nothing|not any|no one|i (?:don't|do not|dont) want any)"
    r"(?: of (?:them|those|these|the \w+))?(?: (?:cancelled|canceled|deleted|moved|changed))?"
    r"(?:[\s,.!]+(?:please|thanks|thank you))?[\s.!]*$"
)
# What follows these is what the user does not mean: "the team meeting, not the check-in".
_NEGATED = re.compile(r"\b(?:but not|not|except|keep|leave|without|rather than|instead of)\b.*$")


def answer_for(text: str, payload: dict[str, Any], *, tz: ZoneInfo, now: datetime) -> Any:
    """The answer ``text`` gives to the pending question, DECLINE, or NOT_AN_ANSWER."""
    norm = normalise(text)
    options = [o for o in payload.get("options") or [] if isinstance(o, dict)]
    operation, _ = classify(text)
    if payload.get("kind") == "confirm":
        if HOLDING.match(text):
            return DECLINE
        rows = [r for r in payload.get("preview") or [] if isinstance(r, dict)]
        if (left := _leaving_out(norm, rows, options)) is not None:
            return left  # "yes, but keep the standup", "no, not the review": the rest, shown again
        if (withheld := _agreement_withheld(text, norm)) is not None:
            return withheld
        declining = _NO_LEAD.match(text) is not None
        if _DONT.match(text):  # "don't do it" is no yes, and "don't let anyone see ..." a new request
            return DECLINE if declining else NOT_AN_ANSWER
        # "No, it's fine": agreeing words after a no agree to nothing (the no is what was asked)
        agreeing = None if declining else _AGREEING.search(norm)
        reading: TurnReading | None = None
        if agreeing is not None or (operation == "yes" and not declining):
            # a yes in words the agreement words lack ("absolutely, at 9") is checked from its start
            start, end = (agreeing.start(), agreeing.end()) if agreeing else (0, 0)
            if contrast := _CONTRAST.search(norm, start):
                return _taken_back(text, norm, contrast)
            reading = read_turn(text, asked="confirm")  # read once, for the change and for the yes
            if amended := _amended(text, norm[end:], reading, payload, tz=tz, now=now):
                return amended
        if operation == "yes" or (reading is not None and _affirms(norm, reading)):
            return options[0]["value"] if options else True
        if (only := _ONLY_SOME.match(norm)) is not None and (some := _rows_named(only["what"], rows)):
            # "only the hike" of a preview cancelling the dentist and the hike: the others left out
            return _approved_without([r for r in rows if r not in some], options)
        if _ONLY_THIS.match(norm):
            # "only that one please": approves a preview of one occurrence, never a series' change
            if len(rows) == 1 and not rows[0].get("series"):
                return options[0]["value"] if options else True
            return NOT_AN_ANSWER
        if operation == "no" or declining:
            return DECLINE  # "No, find another time that day" declines and asks something else
        return NOT_AN_ANSWER
    if payload.get("kind") == "choose" and options:
        more = [o for o in payload.get("more") or [] if isinstance(o, dict)]
        picked = _pick(norm, options, more, tz=tz, now=now, operation=operation)
        return ASK_AGAIN if picked is NOT_AN_ANSWER and operation == "yes" else picked
    # A free question (clarify): anything that is not a new command is the answer.
    if operation == "no":
        return DECLINE
    return text if operation in ("unknown", "yes") else NOT_AN_ANSWER


# Words that may open a turn agreeing without agreeing to anything yet: "definitely not", "alright, wait".
_SURELY = re.compile(r"^(?:definitely|certainly|surely|alright|all right)\b")
# After such an opening, a no or a pause takes the agreement back ("absolutely not", "ok wait no",
# "okay, hold on", "ok, let me check"); "no problem" and "why not" do not.
_NOT_A_NO = re.compile(r"\b(?:no (?:problem|worries|rush|doubt)|not a problem|why not|not bad)\b")
# Said right after the opening word (once _NOT_A_NO's are gone): "yes, no need to notify" and "sure, I
# don't mind" still agree.
_TAKEN_BACK = re.compile(
    r"^[\s,.!-]*(?:(?:actually|so|um+|hmm+|oh)[\s,]+)*"
    r"(?:not(?! (?:an issue|needed|a big deal)\b)"
    r"|no(?! (?:need|longer|big deal|further|more|one)\b)"
    r"|nope|nah|don't(?! (?:mind|worry|care|need|ask)\b)|do not|never ?mind|"
    r"changed my mind|wait|hold on|hang on|one sec(?:ond)?|a (?:sec|second|minute|moment)|"
    r"let me (?:check|think|see))\b"
)
# A question about the change is no answer to it ("right, and where is it?", "is that right?").
_ASKS_BACK = re.compile(r"\b(?:who|what|where|when|why|how|which|are you sure)\b")
_IS_THAT = re.compile(r"^(?:is|was) (?:that|it|this) (?:right|correct|ok|okay)\b")


def _agreement_withheld(text: str, norm: str) -> Any | None:
    """DECLINE for a turn that opens agreeing and then says no or asks to wait; NOT_AN_ANSWER for one
    that asks about the change; None for any other, which is read as before. Only the opening word was
    read: "absolutely not" and "ok wait no" applied the change."""
    lead = YES_WORDS.match(norm) or _SURELY.match(norm)
    rest = _NOT_A_NO.sub(" ", norm[lead.end() :] if lead else norm)
    if lead is not None and _TAKEN_BACK.match(rest):
        return DECLINE
    if text.rstrip().endswith("?") and (_ASKS_BACK.search(rest) or (lead is None and _IS_THAT.match(norm))):
        return NOT_AN_ANSWER  # asked about first; "yes?" and "yes, is that ok?" still agree
    return None


# What else a turn that agrees may do: ask for more, say no, name something.
_NOT_ONLY_AGREEING = frozenset({"NEGATE", "NEGATE_INTENT", "INFORM_INTENT", "REQUEST", "REQUEST_ALTS"})


# Words of agreement; a turn the reader takes for one must also say one ("I appreciate your help"
# agrees to nothing), and asks for nothing else ("sounds good but make it 4pm").
_AGREEING = re.compile(
    r"\b(?:yes|yeah|yep|sure|ok|okay|fine|perfect|good|great|right|correct|confirm(?:ed)?|works|go ahead|"
    r"do it|that's it|this is it|that is it)\b"
)
# Words after a yes that add to what it approves: "yes and also the standup", "ok, the review too",
# "sure, and add Ann".
_ADDING = re.compile(
    r"\b(?:also|too|as well|plus|additionally)\b"
    r"|\band (?:the|my|his|her|their|our|add|invite|include|bring)\b"
)


def _rows_named(said: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of a preview the words ``said`` name by their titles ("the standup", "the design
    review as it is"), when they name some of them and not all; else []."""
    if len(rows) < 2:
        return []
    words = set(tokens(said)) - STOPWORDS
    named = []
    for row in rows:
        title = set(tokens(str(row.get("summary", "")).casefold())) - STOPWORDS
        if title and (title <= words or (words and words <= title)):
            named.append(row)
    return named if 0 < len(named) < len(rows) else []


# A clause that keeps some of what a preview shows as it is: "but keep the standup", "not the review",
# "except the offsite", "leave the standup", "don't touch the design review".
_KEEPING = re.compile(
    r"\b(?:keep|leave|except|excluding|but not|not|without|skip|"
    r"(?:don'?t|do not) (?:touch|cancel|delete|move|change|include))\b(?P<what>.+)$"
)


def _leaving_out(norm: str, rows: list[dict[str, Any]], options: list[dict[str, Any]]) -> Any | None:
    """An approval of a preview less the rows a clause keeps out of it ("yes, but keep the standup",
    "no, leave the review", "except the offsite"), or None when the turn keeps none of them out."""
    said = _KEEPING.search(norm)
    named = _rows_named(said["what"], rows) if said is not None else []
    return _approved_without(named, options) if named else None


def _first_time(row: dict[str, Any]) -> str | None:
    """The time a preview row shows first: what an event had before the change, or a new one's."""
    return (row.get("before") or row.get("after") or {}).get("start")


def _approved_without(rows: list[dict[str, Any]], options: list[dict[str, Any]]) -> dict[str, Any]:
    """The approval of a preview with ``rows`` left out, and those it left out already: never applied
    as it is, the rest is shown again first (see :func:`skills.change_skills.apply_changes`)."""
    approval = options[0].get("value") if options else None
    before = approval.get("leave_out", []) if isinstance(approval, dict) else []
    shown = [{"summary": r.get("summary"), "start": _first_time(r)} for r in rows]
    return {"approve": True, "leave_out": [*before, *shown]}


def _taken_back(text: str, norm: str, contrast: re.Match[str]) -> Amended:
    """A yes with part of it taken back ("fine, but make it 9"): the change, from the word that takes
    it back, as typed."""
    said = _CONTRAST.search(text)
    return Amended((text[said.start() :] if said else norm[contrast.start() :]).strip(" .!"))


def _amended(
    text: str, rest: str, reading: TurnReading, payload: dict[str, Any], *, tz: ZoneInfo, now: datetime
) -> Amended | None:
    """The change a yes asks for in ``rest``, the words after its agreement: a time, day or person the
    preview does not have ("yes, at 9", "yes please and invite Ann"), or more of what it does ("yes and
    also the standup"); None when it names none ("yes,
    Thursday at 8 works" for a preview on Thursday at 8 changes nothing)."""
    found = find_times(rest, now=now, daytime=True)
    said_times = [m for m in found if not m.error and m.start is not None]
    # a number no time expression takes ("sure, move it to 9"): an hour or a count the preview lacks
    bare_number = any(c.isdigit() for c in blanked(rest, [m.span for m in found]))
    people = [s for s in reading.spans if s.slot == "person"]
    adding = _ADDING.search(rest) is not None
    if not people and not bare_number and not adding and all(_in_preview(m, payload, tz) for m in said_times):
        return None
    change = rest.lstrip(" ,.!").removeprefix("please").strip(" ,.!")
    typed = words_pattern(change).search(text) if change else None  # as the user typed it
    return Amended(typed.group(0) if typed else change or text.strip())


def _in_preview(said: TimeMatch, payload: dict[str, Any], tz: ZoneInfo) -> bool:
    """Whether a day or time said in a yes is one the preview already shows (its new times, or the
    times of what it removes)."""
    starts = []
    for row in payload.get("preview") or []:
        for side in ("after", "before"):
            value = (row.get(side) or {}).get("start") if isinstance(row, dict) else None
            if isinstance(value, str):
                starts.append(datetime.fromisoformat(value).astimezone(tz))
    if said.start is None:
        return False
    moment = said.start.astimezone(tz)
    return any(
        (not said.has_date or start.date() == moment.date())
        and (not said.has_time or (start.hour, start.minute) == (moment.hour, moment.minute))
        for start in starts
    )


def _affirms(norm: str, reading: TurnReading) -> bool:
    """Whether a turn that says a word of agreement agrees to a preview in words the yes-words do not
    cover ("That would be fine", "That is perfect"), as the turn reader learnt from people answering
    read-backs (``reading``, after a read-back): an AFFIRM, and nothing else asked, named or changed."""
    if _CONTRAST.search(norm) or MOVE_VERBS.search(norm) or any(c.isdigit() for c in norm):
        return False  # "that would be fine but make it 4": a change, not only a yes
    return "AFFIRM" in reading.acts and not reading.acts & _NOT_ONLY_AGREEING and not reading.spans


def _pick(
    norm: str,
    options: list[dict[str, Any]],
    more: list[dict[str, Any]],
    *,
    tz: ZoneInfo,
    now: datetime,
    operation: str,
) -> Any:
    """The value of the option ``norm`` names.  ``more`` are candidates not shown as buttons, which
    only a day (with or without a time) can name: "the one on April 20"."""
    labels = [normalise(str(o.get("label", ""))) for o in options]
    if norm in labels:
        return options[labels.index(norm)]["value"]
    if _ALL.match(norm):
        every = [o["value"] for o in options if o.get("value") == ALL]
        return every[0] if every else NOT_AN_ANSWER
    if _NONE.match(norm):
        return DECLINE  # "none of them" shares words with "all of them", which it picked
    norm = _NEGATED.sub("", norm).strip()
    found = find_times(_THE_ONE.sub(" ", norm), now=now, daytime=True)  # "one" is no hour here
    dated = next(
        (
            m
            for m in found
            if m.has_date and not m.error and m.start is not None and not _ORDINAL.fullmatch(m.text.strip())
        ),
        None,
    )  # "the second" is a position in the list, not the 2nd of the month
    if dated is not None:
        # A day names one candidate or none; it never falls through to the words of a label ("April").
        return _on_day(dated, options + more, tz)
    starts = [datetime.fromisoformat(o["start"]).astimezone(tz) if o.get("start") else None for o in options]
    timed = [m.start for m in found if m.has_time and not m.error and m.start is not None]
    if timed:
        wanted = timed[0].astimezone(tz)
        hits = [i for i, s in enumerate(starts) if s and (s.hour, s.minute) == (wanted.hour, wanted.minute)]
        if not hits:  # "the 4 one": an hour without am/pm matches either half of the day
            hits = [
                i
                for i, s in enumerate(starts)
                if s and s.hour % 12 == wanted.hour % 12 and s.minute == wanted.minute
            ]
        if len(hits) == 1:
            return options[hits[0]]["value"]
    said_part = DAY_PART_WORD.search(norm)  # "the morning one"
    if said_part is not None:
        part = said_part[1].lower()
        hits = [i for i, s in enumerate(starts) if s and in_day_part(s.time(), part)]
        if len(hits) == 1:
            return options[hits[0]]["value"]
    numbered = _NUMBERED.match(norm)
    ordinal = _ORDINAL.search(norm)
    index: int | None = None
    if numbered:
        number = numbered.group(1)
        index = (int(number) if number.isdigit() else CARDINALS[number]) - 1
    elif ordinal and len([w for w in norm.split() if w != "please"]) <= 4:
        index = _ORDINALS[ordinal.group(1)]
    # "the last one", "the later one", "option 2": a place among the events, never "all of them"
    listed = [o for o in options if o.get("value") != ALL]
    if index is not None and -len(listed) <= index < len(listed):
        return listed[index]["value"]
    if operation == "no":
        return DECLINE
    words = set(tokens(norm)) - STOPWORDS - {"one", "please", "cancel", "move"}
    if words:
        scores = [len(words & set(tokens(label))) for label in labels]
        best = max(scores)
        if best and scores.count(best) == 1:
            return options[scores.index(best)]["value"]
    return NOT_AN_ANSWER


def _on_day(when: Any, candidates: list[dict[str, Any]], tz: ZoneInfo) -> Any:
    """The one candidate on the day ``when`` names (and at its time, when it has one), else not an
    answer: a day nobody is on is not a pick of the nearest."""
    day = when.start.astimezone(tz)
    hits = []
    for option in candidates:
        if not option.get("start"):
            continue
        start = datetime.fromisoformat(option["start"]).astimezone(tz)
        if start.date() != day.date():
            continue
        if when.has_time and (start.hour, start.minute) != (day.hour, day.minute):
            continue
        hits.append(option["value"])
    return hits[0] if len(hits) == 1 else NOT_AN_ANSWER


# "Don't" declines alone or with what not to do to the preview ("don't do it, ..."); followed by a
# request of its own ("don't let anyone see when I'm busy") it is that request, negated.
_NO_LEAD = re.compile(
    r"^\s*(?:no|nope|nah|not that|(?:don't|do not)(?:\s+(?:do|book|make|change|move|apply|create|add|save)"
    r"\s+(?:it|that|this|them)|\s+bother)?(?=\s*(?:[,.!;:-]|$))"
    # "actually make it 11": the preview corrected, which declines it as it is
    r"|actually(?=[\s,]+(?:make|have) (?:it|that)\b))\b[\s,.!;:-]*"
    r"(?:(?:thanks|thank you|please)\b[\s,.!]*)?",
    re.I,
)
_DONT = re.compile(r"^\s*(?:don't|do not)\b", re.I)


def after_no(text: str) -> str:
    """What a declining turn asks instead ("No, find another time that day" -> "find another time
    that day"); empty when it only declines."""
    m = _NO_LEAD.match(text)
    rest = text[m.end() :].strip() if m else ""
    return "" if JUST_POLITE.match(rest) or HOLDING.match(rest) else rest
