"""Copying and syncing calendars by chat: "Sync my work and personal calendars for the next month",
"copy my work week to personal", "keep work and personal in sync", "copy tomorrow's meetings to my
personal calendar".

The turn is read by cues, not sentence patterns: a verb of copying or syncing, the user's calendars
named in it (by key or name, "work" and "personal" as the ``work_calendar``/``personal_calendar``
preferences say), which of them follow "to"/"into"/"onto" (where copies go), whether it is both ways
("sync X and Y", "keep X and Y in sync", "between", "both ways"), the range (the next month when none
is said) and what to copy when not everything ("meetings", "classes", a title).  It compiles to
``plan_sync`` -> ``apply_changes``: a preview with the counts, approval, all or nothing, undo.  Private
events are never copied, whatever the turn says of them.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.blanks import blanked
from assistant.decomposer.dayparts import in_users_day_parts
from assistant.decomposer.reading import Reading
from assistant.decomposer.understand import understand
from assistant.decomposer.world import World
from assistant.lexicon import CATEGORY_WORDS, COPY_VERBS, EXCEPTING, POLITE_PREFIX, WEEKDAY_STEM, tokens
from assistant.timeexpr import find_times
from skills.providers.base import CalendarInfo
from skills.sync_skills import ROLES, calendar_named
from workflows.builder import Plan
from workflows.definition import Decision

__all__ = ["led_in", "sync_decision", "to_another_calendar"]

# "sync ..." said as a request, "synchronise", "keep ... in sync", "sync up my ...": never the noun of
# "move the team sync to 11".
_SYNC = re.compile(
    r"^(?:re-?)?sync(?:hroni[sz]e)?\b|\bsynchroni[sz]e\b"
    r"|\b(?:re-?)?sync(?: up)? (?:my|the|our|both|all|each)\b"
    r"|\b(?:keep|get|have|make|put|bring)\b.{0,80}?\bin (?:sync|step)\b"
)
# A calendar said as such ("my work calendar", "the team cal"): without one, no calendar is looked up.
_CALENDAR_WORD = re.compile(r"\bcal(?:endar)?s?\b")
_BOTH_WAYS = re.compile(
    r"\b(?:both ways|two[- ]ways?|each way|either way|each other|one another|vice versa|back and forth"
    r"|between|in both directions|both directions)\b"
)
# The word right before a calendar named (or, to copies, a time), which says its part in a copy: "to"
# the destination, "from" or "with" a source, "in" or "on" either.
_LED_IN = re.compile(
    r"\b(?:(?P<to>(?:over |across |back )?(?:to|into|onto))|(?P<loose>in|on)|(?P<source>from|with))"
    r"\s+(?:(?:my|the|our)\s+)?$"
)
# "sync my calendar with Mark": with whom, when that is not one of the user's calendars.
_WITH_WHO = re.compile(r"\bwith\s+(?:(?:my|the|our)\s+)?(?P<who>[a-z][\w.-]*)(?:'s)?")
# Someone else's calendar: "Ann's work calendar", "my wife's calendar" (not "tomorrow's", "Friday's").
_NOT_SOMEONE = (
    r"(?!(?:my|our|your|today|tonight|tomorrow|yesterday|week|weekend|month|year|day|morning|afternoon"
    rf"|evening|night|{WEEKDAY_STEM}|\w+day|next|this|last|that|it)'s)"
)
# Said before "calendar", or right before one of the user's calendars ("Ann's work"): searched in the
# words before each calendar named as well as in the whole turn.
_SOMEONE_ELSES = re.compile(rf"\b{_NOT_SOMEONE}(?P<who>[a-z][\w.-]*)'s\s+(?:own\s+)?(?=calendars?\b|$)")
# What the turn says of private events: left out (always) or, asked for, still left out.
_PRIVATE_CLAUSE = re.compile(
    r"(?:[,;]\s*|\s+)(?:(?:but|and)\s+)?(?:please\s+)?"
    r"(?:(?:don'?t|do not|never|not)\s+(?:copy|sync|include|bring|move|put)\w*(?:\s+over)?\s+"
    r"(?:any\s+|the\s+)?"
    rf"|(?:{EXCEPTING}|skip(?:ping)?|without|leave out|leaving out|ignor(?:e|ing)|minus|no)\s+"
    r"(?:any\s+|the\s+|my\s+)?)"
    r"[^,.;]*?\bprivate\b[^,.;]*"
)
_CATEGORY = (
    (re.compile(r"\bmeetings?\b"), "meeting"),
    (CATEGORY_WORDS["class"], "class"),
    (re.compile(r"\ball[- ]day\b"), "all_day"),
)
# Words that say how much to copy, not what: what is left of the object names an event.
_GENERIC = re.compile(
    r"\b(?:my|the|our|a|an|all|any|of|everything|anything|whatever|every|each|both|events?|appointments?|"
    r"items?|entries|entry|things?|stuff|schedule|plans?|bookings?|calendars?|cal|over|across|back|up|out|"
    r"to|into|onto|and|too|also|as|well|please|just|only|ones?|from|upcoming|coming|future|new|rest|remaining|"
    r"whole|entire|full|next|this|these|those|that|week|weeks|month|months|day|days|meetings?|"
    r"class(?:es)?|lectures?|seminars?|labs?|tutorials?|courses?|mornings?|afternoons?|evenings?|all-day|s|for|in|on|"
    r"at|with|what|whatever's|i|i've|have|has|is|are|there|here|copies|copy|them|it|me|us|you|can|could|"
    r"would|will|want|need|like|get|put|stuff's|work|personal|one|two|three|four)\b"
)


def led_in(before: str) -> str | None:
    """What the words ending ``before`` make of what follows them: "to" (a destination), "source" or
    "loose" (in or on: a destination only if no other is named), or None."""
    m = _LED_IN.search(before)
    return next((part for part, said in m.groupdict().items() if said), None) if m else None


def _clarify(text: str) -> Decision:
    return Decision(kind="clarify", reply_kind="clarify", text=text)


def _error(text: str) -> Decision:
    return Decision(kind="answer", reply_kind="error", text=text)


def _labels(world: World) -> list[tuple[str, CalendarInfo]]:
    """Every way the turn may name one of the user's calendars, longest first."""
    calendars = world.calendars
    labels: dict[str, CalendarInfo] = {}
    for cal in calendars:
        for label in (cal.key, cal.key.replace("-", " ").replace("_", " "), cal.name):
            if label.strip():
                labels.setdefault(label.casefold().strip(), cal)
    for word in ROLES:
        named = calendar_named(calendars, world.preferences, word)
        if named is not None:
            labels[word] = named  # the preference says which calendar "work" is
    return sorted(labels.items(), key=lambda item: -len(item[0]))


def _mentions(norm: str, world: World) -> list[tuple[int, int, CalendarInfo]]:
    """The calendars the turn names, with where: "my work calendar", "personal", "Work's"."""
    taken = [False] * len(norm)
    found: list[tuple[int, int, CalendarInfo]] = []
    for label, cal in _labels(world):
        for m in re.finditer(rf"\b{re.escape(label)}(?:'s)?\b(?:\s+(?:calendars?|cal)\b)?", norm):
            if any(taken[m.start() : m.end()]):
                continue
            taken[m.start() : m.end()] = [True] * (m.end() - m.start())
            found.append((m.start(), m.end(), cal))
    return sorted(found, key=lambda f: f[0])


def _without_private(norm: str) -> str:
    m = _PRIVATE_CLAUSE.search(norm)
    while m is not None:
        norm = f"{norm[: m.start()]} {norm[m.end() :]}".strip(" ,;")
        m = _PRIVATE_CLAUSE.search(norm)
    return norm


# "over the next month", "during the coming two weeks", "for two weeks": from now on, as "for the next
# month" says ("next month" alone is the calendar month).
_COMING = re.compile(
    r"\b(?:(?:for|over|during|within|across|throughout|through|in)\s+)?the\s+(?:next|coming|following)\s+"
    r"(?:(?P<n>(?:a\s+)?couple of|(?:a\s+)?few|\w+)\s+)?(?P<unit>days?|weeks?|months?)\b"
    r"|\b(?:for|over|during|within|across|throughout)\s+"
    r"(?:(?P<n2>a|an|one|a couple of|\d+|two|three|four|five|six|seven|eight|nine|ten)\s+)"
    r"(?P<unit2>days?|weeks?|months?)\b"
)


def _coming(m: re.Match[str]) -> str:
    n, unit = (m["n"] or m["n2"] or "").strip(), m["unit"] or m["unit2"]
    n = {"couple of": "2", "few": "3"}.get(n.removeprefix("a ").strip(), n)
    n = "" if n in ("a", "an", "one") else n
    return f"for the next {n} {unit}".replace("  ", " ")


def _range(norm: str, now: datetime, tz: ZoneInfo, world: World) -> tuple[datetime, datetime] | str:
    """The range the turn names (the next month when it names none), or what is wrong with its date.
    A clock time ("my 3pm meeting", "tomorrow at 3pm") is the events under way then, that day."""
    norm = _COMING.sub(_coming, norm)
    span: tuple[datetime, datetime] | None = None
    clock: tuple[datetime, bool] | None = None
    # "copy tomorrow afternoon": the user's afternoon (their ``day_parts``), not the product's
    for match in in_users_day_parts(find_times(norm, now=now), world):
        if match.error:
            return match.error
        if match.start is None or match.end is None:
            continue
        if match.day_part and not match.has_date:
            continue  # "my afternoons", "the morning events": which events, read by ``_only``, not when
        if match.is_interval or (match.has_date and not match.has_time):
            span = span or (match.start, match.end)
        elif match.has_time and clock is None:
            clock = (match.start, match.has_date)
    if clock is not None:
        at, dated = clock
        if span is not None and not dated:
            at = datetime.combine(span[0].astimezone(tz).date(), at.astimezone(tz).time(), tz)
        return at, at + timedelta(minutes=1)
    if span is not None:
        return span
    # "copy my work week": this week; nothing said: the next month.
    words = set(tokens(norm))
    said = "this week" if "week" in words else "this month" if "month" in words else ""
    for match in find_times(f"{said} for the next month".strip(), now=now):
        if match.start is not None and match.end is not None:
            return match.start, match.end
    raise AssertionError("'for the next month' always resolves")


def _only(what: str, norm: str, now: datetime, world: World) -> dict[str, Any]:
    """What to copy when not everything: "meetings", "classes", "mornings", an event's title."""
    only: dict[str, Any] = {}
    for pattern, category in _CATEGORY:
        if pattern.search(norm):
            only["category"] = category
            break
    # "copy my mornings", "sync the afternoon events": the day part the resolver reads
    part = next((m.day_part for m in find_times(norm, now=now) if m.day_part), None)
    if part:
        only["day_part"] = part
    what = blanked(what, [match.span for match in find_times(what, now=now)])
    words = _GENERIC.sub(" ", what)
    if any(len(word) >= 3 and word.isalpha() for word in tokens(words)):
        frame = understand(what, now=now, world=world)
        if frame.titles and frame.title_words:
            only["text"] = frame.titles[0]
        else:
            only["text"] = " ".join(words.split())
    return only


def to_another_calendar(r: Reading) -> Decision | None:
    """What to say to "move the design review to my School calendar": no change of place or time, which
    the edit and move rules would make of it ('the school calendar' as its place), but a change of
    calendar, which no skill makes. The user is told so and how to do it: copy it there, then cancel it.
    None for any turn that does not move an event to one of the user's calendars."""
    if r.frame.operation not in ("move", "edit"):
        return None
    core = POLITE_PREFIX.sub("", r.norm).strip() or r.norm
    if COPY_VERBS.search(core) or _SYNC.search(core) or not _CALENDAR_WORD.search(core):
        return None  # "move the dentist to Friday": no calendar said, none looked up
    into = [
        (lo, cal)
        for lo, hi, cal in _mentions(core, r.world)
        if core[lo:hi].endswith(("calendar", "calendars", "cal")) and led_in(core[:lo]) in ("to", "loose")
    ]
    if not into:
        return None  # "move my work meetings to the afternoon"
    lo, cal = into[0]
    said = _LED_IN.sub("", core[:lo]).split(maxsplit=1)  # the verb, and what it moves
    what = said[1].strip() if len(said) == 2 else "it"
    return _clarify(
        f"I can't move an event from one calendar to another yet. I can copy it there, and then you can "
        f'cancel the original: say "copy {what} to {cal.name}".'
    )


def sync_decision(r: Reading) -> Decision | None:
    """A Decision for a turn that asks to copy or sync calendars; None for any other turn."""
    now, tz, world = r.now, r.tz, r.world
    norm = r.norm
    core = POLITE_PREFIX.sub("", norm).strip() or norm
    core = _without_private(core)
    syncing = bool(_SYNC.search(core))
    copying = bool(COPY_VERBS.search(core))
    if not (syncing or copying):
        return None
    other = _SOMEONE_ELSES.search(core)
    mentions = _mentions(core, world)
    if not mentions and other is None and not _CALENDAR_WORD.search(core):
        return None  # "copy the dentist to Friday", "sync up with Ann at 3": not about calendars
    if other is not None or any(_SOMEONE_ELSES.search(core[:lo]) for lo, _, _ in mentions):
        names = ", ".join(c.name for c in world.calendars)
        return _error(
            f"I can only copy between your own calendars ({names}), never into or out of another person's."
        )
    starts = {lo for lo, _, _ in mentions}
    whom = [m["who"] for m in _WITH_WHO.finditer(core) if m.start("who") not in starts]
    if whom and not copying:
        names = ", ".join(c.name for c in world.calendars)
        return _error(
            f"I can only keep your own calendars in step ({names}); {whom[0].capitalize()}'s calendar is not "
            "one of them."
        )
    targets: list[CalendarInfo] = []
    sources: list[CalendarInfo] = []
    loose: list[CalendarInfo] = []  # named "in"/"on" a calendar: a destination only if none follows "to"
    for lo, _, cal in mentions:
        before = core[:lo]
        {"to": targets, "loose": loose}.get(led_in(before) or "", sources).append(cal)
    if not targets and loose and copying:
        targets = loose
    else:
        sources += loose
    both = bool(_BOTH_WAYS.search(core)) or (syncing and not targets)
    calendars = list({c.id: c for c in [*sources, *targets]}.values())
    if both:
        if len(calendars) < 2:
            calendars = _partners(calendars, world)
            if len(calendars) < 2:
                names = ", ".join(c.name for c in world.calendars) or "none yet"
                return _clarify(
                    "Which calendars should I keep in step? Name two of yours "
                    f'({names}), e.g. "sync my work and personal calendars".'
                )
        sources = targets = calendars
    else:
        if not targets:
            names = ", ".join(c.name for c in world.calendars) or "none yet"
            return _clarify(
                f'Copy to which calendar? Name one of yours ({names}), e.g. "copy my work week to personal".'
            )
        target_ids = {c.id for c in targets}
        sources = [c for c in {c.id: c for c in sources}.values() if c.id not in target_ids]
    when = _range(core, now, tz, world)
    if isinstance(when, str):
        return _clarify(f"{when} Which dates should I copy?")
    start, end = when
    # What to copy, said between the verb and the destination: "tomorrow's meetings", "the quarterly review".
    verb = COPY_VERBS.search(core) or _SYNC.search(core)
    assert verb is not None
    first_target = min((lo for lo, _, cal in mentions if cal in targets), default=len(core))
    unnamed = blanked(core, [(lo, hi) for lo, hi, _ in mentions])  # the calendars' names taken out
    what = unnamed[verb.end() : first_target] if not both else ""
    only = _only(_WITH_WHO.sub(" ", what), unnamed, now, world)
    if whom:  # "copy my meetings with Ann to personal": the events Ann attends
        found = world.people_named(whom[:1]).get(whom[0]) or []
        only["attendee"] = found[0].email if len(found) == 1 else whom[0]
    params: dict[str, Any] = {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "to": [c.key for c in targets],
        "sources": [c.key for c in sources],
    }
    if only:
        params["only"] = only
    name = "sync-calendars" if both else "copy-events"
    said = (
        f"Sync {' and '.join(c.name for c in targets)}"
        if both
        else f"Copy to {' and '.join(c.name for c in targets)}"
    )
    plan = Plan()
    copies = plan.add("plan_sync", params, id="plan", summary="Plan the copies")
    apply = plan.add("apply_changes", {"changes": copies.output}, id="apply", summary="Copy after approval")
    return Decision(kind="workflow", workflow=plan.build(name, summary=said, output=apply), confidence=0.9)


def _partners(named: list[CalendarInfo], world: World) -> list[CalendarInfo]:
    """The calendars a sync naming fewer than two means: the work and personal ones (by preference,
    key or name), or the user's only two."""
    roles = [calendar_named(world.calendars, world.preferences, word) for word in ROLES]
    pair = [c for c in roles if c is not None]
    if len({c.id for c in pair}) == 2 and all(c.id in {p.id for p in pair} for c in named):
        return pair
    if len(world.calendars) == 2:
        return list(world.calendars)
    return named
