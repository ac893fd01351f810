"""Writing the assistant's reply from the results of earlier tasks."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from itertools import groupby
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from skills.context import SkillContext
from skills.data_skills import PersonBusy
from skills.formatting import (
    format_day,
    format_length,
    format_person,
    format_range,
    format_span,
    format_time,
    join_and,
)
from skills.registry import REGISTRY, skill
from skills.schemas import DayPart, EventItem, SkillInput, Slot

__all__ = ["compose_reply"]

REGISTRY.service("reply", "Write the final reply to the user.")


ReplyStyle = Literal["agenda", "count", "slots", "free_at", "conflicts", "preference", "calendars", "text"]


class ReplyInput(SkillInput):
    style: ReplyStyle = Field(
        description="agenda: events by day; count: how many and which; slots: free times; "
        "free_at: whether the range is free, and what is in it; conflicts: the pairs of events that "
        "overlap; text: as given."
    )
    kind: Literal["answer", "clarify", "error", "done"] = "answer"
    events: list[EventItem] = Field(default_factory=list)
    count: int | None = None
    slots: list[Slot] = Field(default_factory=list)
    start: datetime | None = Field(default=None, description="Start of the range the reply is about.")
    end: datetime | None = Field(default=None, description="End of the range (exclusive).")
    subject: str = Field(default="", description="What was asked about, e.g. 'classes' or 'events with Ann'.")
    text: str = Field(default="", description="Text for style 'text', or a first line for the others.")
    none_text: str = Field(default="", description="For an agenda of no events: what to say instead.")
    left_out: list[str] = Field(
        default_factory=list,
        description="Agenda, count: what the question left out ('Standup', 'Bellevue', 'Saturdays'), named "
        "after the answer so that a misread exception shows.",
    )
    window_start: str | None = Field(default=None, description="Daily window the slots were searched in.")
    window_end: str | None = None
    day_part: DayPart | None = Field(
        default=None,
        description="Slots: the part of each day searched ('evening'), whose whole window free is 'free all "
        "evening', not 'free all day'.",
    )
    people: list[str] = Field(
        default_factory=list,
        description="Slots: the others who must be free too, by name ('Ann Lee'); free_at: those of them "
        "free then.",
    )
    unseen: list[str] = Field(
        default_factory=list,
        description="Slots, free_at: the people asked for whose calendar cannot be seen.",
    )
    busy: list[PersonBusy] = Field(
        default_factory=list,
        description="free_at: the others asked about who are busy then, with their busy times (never what "
        "their events are).",
    )
    asked_busy: bool = Field(
        default=False,
        description="free_at: the question asked whether something is on ('am I busy at 3?', 'do I have "
        "anything at 10?'), so yes means busy.",
    )
    with_you: bool = Field(
        default=True,
        description="free_at with others: whether the user must be free too ('are Ann, Raj and I free?') or "
        "the question is about them alone ('are Ann and Raj free?': the user's events are only mentioned).",
    )
    nearest: list[Slot] = Field(
        default_factory=list, description="Slots: when none fits, the nearest times after the range."
    )
    nearest_days: int = Field(default=0, description="How many days past the range those were looked for.")
    key: str = ""
    value: Any = None
    calendars: list[dict[str, Any]] = Field(default_factory=list)
    guests_asked: list[str] = Field(
        default_factory=list,
        description="agenda: the people a question about the events' guests named ('is Bill invited to "
        "the review?'), said first to be invited or not.",
    )
    involving: list[str] = Field(
        default_factory=list,
        description="conflicts: the events the question named, by words of their titles ('does the design "
        "review clash with calculus': 'design review', 'calculus'); only pairs with one of them are "
        "named, with two or more a pair of two of them.",
    )
    detail: Literal["", "location", "attendees", "duration", "start", "end", "all", "first"] = Field(
        default="",
        description="agenda: the part of each event the question asked about ('where is ...?', 'who is "
        "coming to ...?', 'how long is ...?', 'when does ... start?', 'what time does ... end?'), said "
        "on its line, or that the event does not give it; "
        "all: each of them, for a question about the event as a whole ('tell me about the second one'). "
        "slots: duration adds how long the free time is in all; first names only the earliest free time "
        "('what's the earliest I can meet Ann?').",
    )


class Reply(BaseModel):
    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


_OF_WHAT = re.compile(r" (?:with|about|at|in|for|on) ")


def _n_events(n: int, subject: str = "events") -> str:
    """ "1 spa day event", "2 meetings with bob": the number agrees with the noun the subject ends with,
    or the one before what it says of it ("with bob")."""
    said = None if subject.endswith("events") else _OF_WHAT.search(subject)  # "Lunch with Omar events"
    cut = said.start() if said else len(subject)
    head, rest = subject[:cut], subject[cut:]
    one = _singular(head)
    return f"{n} {one if n == 1 else head if head != one else head + 's'}{rest}"


def _when(e: EventItem, tz: ZoneInfo, *, with_day: bool) -> str:
    """An event's times ("9:00 AM – 9:15 AM", "all day"), after its day when ``with_day``."""
    span = format_span(e.start, e.end, tz, all_day=e.all_day)
    if not with_day:
        return span
    day = format_day(e.start.astimezone(tz).date())
    return f"{day}, {span}" if e.all_day else f"{day} {span}"


def _agenda_lines(events: list[EventItem], tz: ZoneInfo, detail: str = "") -> list[str]:
    lines: list[str] = []
    for day, group in groupby(events, key=lambda e: e.start.astimezone(tz).date()):
        lines.append(format_day(day))
        for e in group:
            where = f" ({e.calendar_name})" if e.calendar_name else ""
            span = format_span(e.start, e.end, tz, all_day=e.all_day)
            lines.append(f"  • {span}  {e.summary}{where}{_detail(e, detail)}")
    return lines


def _invited(name: str, events: list[EventItem]) -> str:
    """Whether someone asked about (by address, or by a name the directory does not have) is among the
    events' guests: "Yes, Ann Lee is invited.", "No, Bill is not invited.", or to how many of them."""
    words = name.casefold().split()
    asked = format_person(name) if "@" in name else " ".join(w.capitalize() for w in words)

    def guest(address: str) -> bool:
        if "@" in name:
            return address.casefold() == name.casefold()
        return all(w in f"{address} {format_person(address)}".casefold() for w in words)

    invited = [e for e in events if any(guest(a) for a in e.attendees)]
    if len(invited) == len(events):
        return f"Yes, {asked} is invited."
    if not invited:
        return f"No, {asked} is not invited."
    return f"{asked} is invited to {len(invited)} of these {len(events)}."


def _detail(event: EventItem, detail: str) -> str:
    """What a question asked of an event, for its agenda line: its place, its people or its length."""
    if detail == "location":
        return f": at {event.location}" if event.location else ": no place is given"
    if detail == "attendees":
        people = [format_person(a) for a in event.attendees]
        return f": with {join_and(people)}" if people else ": nobody else is invited"
    if detail == "duration":
        return f": {format_length(event.end - event.start)}" if not event.all_day else ": all day"
    if detail == "all":
        parts = (_detail(event, part)[2:] for part in ("duration", "location", "attendees"))
        return ": " + "; ".join(parts)
    return ""


# Headings that only say the events follow, which a sentence naming the event's day says as well.
_PLAIN_HEADINGS = frozenset({"Coming up:", "Next:"})
# The parts of one event a question may ask that a sentence answers (see _detail_sentence).
_SENTENCE_DETAILS = frozenset({"location", "attendees", "duration", "start", "end"})


def _detail_sentence(event: EventItem, detail: str, tz: ZoneInfo, now: datetime) -> str:
    """The answer to a question about one part of one event, in a sentence that names the event and its
    day: "Design review is on Friday, March 6 3:00 PM – 4:00 PM, with Ann Lee." (a list of one event
    with the part at the end of its line answered it, but made the person look for it)."""
    past = event.end <= now
    when = _when(event, tz, with_day=True)
    if detail in ("start", "end") and not event.all_day:
        # "Offsite ends at 12:00 PM on Friday, March 6 (9:00 AM – 12:00 PM)."; "... started at ..."
        moment = event.start if detail == "start" else event.end
        verb = {"start": "started", "end": "ended"}[detail] if moment <= now else f"{detail}s"
        on = format_day(moment.astimezone(tz).date())
        span = _when(event, tz, with_day=False)
        return f"{event.summary} {verb} at {format_time(moment, tz)} on {on} ({span})."
    said = f"{event.summary} {'was' if past else 'is'} on {when}"
    if not detail:  # when it is: "Dentist is on Thursday, March 5 2:00 PM – 3:00 PM, at Main St Clinic."
        return f"{said}, at {event.location}." if event.location else f"{said}."
    part = _detail(event, detail)[2:]  # the agenda line's words for it: "at Grand Hotel", "nobody else ..."
    if detail == "duration" and not event.all_day:
        return f"{event.summary} {'lasted' if past else 'lasts'} {part}, on {when}."
    if detail in ("duration", "start", "end"):
        return f"{said}."  # "Offsite is on Friday, March 6, all day."
    given = event.location if detail == "location" else event.attendees
    return f"{said}, {part}." if given else f"{said}; {part}."


@skill(service="reply", kind="read")
def compose_reply(ctx: SkillContext, params: ReplyInput) -> Reply:
    """Write the reply: an agenda, a count, free slots or a plain text, with dates named in words and
    times in the user's zone."""
    tz = ctx.tz
    period = _period(params.start, params.end, tz)
    subject = params.subject or "events"
    events = sorted(params.events, key=lambda e: (e.start, e.summary))
    data: dict[str, Any] = {}
    if params.style == "agenda":
        data["events"] = [e.model_dump(mode="json") for e in events]
        if not events:
            had = _had(params.end, ctx.now)
            text = params.none_text or f"You {had} no {subject} {_none_then(params.start, params.end, tz)}."
        else:
            head = params.text or f"Here is your schedule {period}:"
            summary = f"{_n_events(len(events), subject)} in all."
            # one line a person, though asked by name and by address ("is Ann coming": ann, ann@...)
            said = list(dict.fromkeys(_invited(name, events) for name in params.guests_asked))
            # "when is the dentist?", "my next yoga": one event found for a question about it, in a sentence
            plain = not params.detail and params.text in _PLAIN_HEADINGS and not said
            if len(events) == 1 and (plain or params.detail in _SENTENCE_DETAILS):
                # a heading that says more than "here it is" stays: "Nothing is coming up; the most recent:"
                kept = [head] if params.text and params.text not in _PLAIN_HEADINGS else []
                text = "\n".join([*said, *kept, _detail_sentence(events[0], params.detail, tz, ctx.now)])
            else:
                text = "\n".join([*said, head, *_agenda_lines(events, tz, params.detail), summary])
    elif params.style == "count":
        n = params.count if params.count is not None else len(events)
        data["count"] = n
        if n == 0:
            text = f"You {_had(params.end, ctx.now)} no {subject} {period}."
        else:
            # "5 Standup events next week" names each one's day; one day's name only their times (one
            # event of a longer period is named with its day: "1 Office party event ...: Friday, ...")
            days = len({e.start.astimezone(tz).date() for e in events}) > 1 or not _one_day(params, tz)
            listing = ", ".join(f"{e.summary} ({_when(e, tz, with_day=days)})" for e in events)
            text = f"You have {_n_events(n, subject)} {period}" + (f": {listing}." if listing else ".")
            if params.detail == "duration":
                total = sum((e.end - e.start for e in events if not e.all_day), timedelta())
                text += f" That is {format_length(total)} in all."
    elif params.style == "slots":
        data["slots"] = [s.model_dump(mode="json") for s in params.slots]
        if params.people or params.unseen:
            data["people"], data["unseen"] = params.people, params.unseen
            data["nearest"] = [s.model_dump(mode="json") for s in params.nearest]
        data["events"] = [e.model_dump(mode="json") for e in events]
        text = _slots_text(params, events, tz, period)
    elif params.style == "free_at":
        data["events"] = [e.model_dump(mode="json") for e in events]
        timed = [e for e in events if not e.all_day]
        if params.people or params.busy or params.unseen:
            data["people"], data["unseen"] = params.people, params.unseen
            data["busy"] = [b.model_dump(mode="json") for b in params.busy]
            text = _others_free_at_text(params, timed, tz)
        else:
            text = _free_at_text(params, timed, tz)
            if not timed and params.start is not None and params.end is not None:
                # the time asked is free: offered, for "book it" to take
                data["slots"] = [
                    {"start": params.start.isoformat(), "end": params.end.isoformat(), "asked": True}
                ]
    elif params.style == "conflicts":
        pairs = _involving(_overlapping(events), params.involving)
        data["pairs"] = [[a.key, b.key] for a, b in pairs]
        missing = [name for name in params.involving if not any(_is_named(e, name) for e in events)]
        text = _conflicts_text(pairs, period, tz, params.involving, missing)
    elif params.style == "preference":
        data = {"key": params.key, "value": params.value}
        from preferences.wording import describe_preference, preference_label

        label = preference_label(params.key)
        text = (
            f"Your {label} {'are' if label.endswith('s') else 'is'} not set."
            if params.value is None
            else f"Your {label}: {describe_preference(params.key, params.value)}."
        )
    elif params.style == "calendars":
        data["calendars"] = params.calendars
        names = [f"{c['name']}{' (default)' if c.get('is_default') else ''}" for c in params.calendars]
        text = "Your calendars: " + ", ".join(names) + "." if names else "You have no calendars yet."
    else:
        text = params.text
    if params.left_out and params.style in ("agenda", "count"):
        text += f"\nLeft out, as you asked: {join_and(params.left_out)}."
    return Reply(kind=params.kind, text=text.replace(" :", ":").replace(" .", ".").strip(), data=data)


def _free_at_text(params: ReplyInput, busy: list[EventItem], tz: ZoneInfo) -> str:
    """Yes or no first (to "am I free?", or to "am I busy?" with ``asked_busy``), then what is in the way."""
    assert params.start is not None
    when = f"{format_day(params.start.astimezone(tz).date())} at {format_time(params.start, tz)}"
    if not busy:
        free = f"you are free on {when}."
        return f"No, nothing is on then: {free}" if params.asked_busy else f"Yes, {free}"
    what = ", ".join(f"{e.summary} ({format_span(e.start, e.end, tz)})" for e in busy)
    return f"{'Yes' if params.asked_busy else 'No'}, on {when} you have {what}."


def _others_free_at_text(params: ReplyInput, mine: list[EventItem], tz: ZoneInfo) -> str:
    """ "Are Ann and Raj free on Thursday at 10?": yes only if every one asked about is free (the user
    too when ``with_you``), else who is busy and when; others are named with their busy times only.

    "No: Ann Lee is busy then (9:00 AM – 12:00 PM). Raj Patel is free." / "Yes, Ann Lee and Raj Patel
    are both free on Thursday, March 5 at 10:00 AM." / "No: you have Dentist (4:00 PM – 5:00 PM)."
    Someone whose calendar cannot be seen leaves no plain yes.
    """
    assert params.start is not None
    day = params.start.astimezone(tz).date()
    when = f"{format_day(day)} at {format_time(params.start, tz)}"
    yours = ", ".join(f"{e.summary} ({format_span(e.start, e.end, tz)})" for e in mine)
    unseen = f"I cannot see the calendar of {join_and(params.unseen)}" if params.unseen else ""
    if (params.with_you and mine) or params.busy:
        said = [f"you have {yours}"] if params.with_you and mine else []
        if len(params.busy) == 1:
            said.append(f"{params.busy[0].name} is busy then ({_busy_times(params.busy[0], day, tz)})")
        elif params.busy:
            said.append(
                f"{join_and([f'{b.name} ({_busy_times(b, day, tz)})' for b in params.busy])} are busy then"
            )
        parts = [f"No: {', and '.join(said)}."]
        free = ["you", *params.people] if params.with_you and not mine else params.people
        if free:
            parts.append(f"{join_and(free)[:1].upper()}{join_and(free)[1:]} {_are(free)} free.")
        if unseen:
            parts.append(f"{unseen}.")
    else:
        who = ["you", *params.people] if params.with_you else params.people
        if not unseen:
            answer = f"Yes, {join_and(who)} {_are(who)} free on {when}"
        elif who:
            answer = f"{join_and(who)} {_are(who)} free on {when}, but {unseen}"
        else:
            whom = f"{join_and(params.unseen)} {_are(params.unseen)}"
            answer = f"{unseen}, so I cannot tell whether {whom} free on {when}"
        parts = [answer[:1].upper() + answer[1:] + "."]
    if mine and not params.with_you:  # the question was about them; the user's own events are still said
        parts.append(f"You have {yours} then.")
    return " ".join(parts)


def _are(names: list[str]) -> str:
    """ "is", "are both", "are all": said of the names listed ("you" alone is "are")."""
    if len(names) == 1:
        return "are" if names[0] == "you" else "is"
    return "are both" if len(names) == 2 else "are all"


def _busy_times(person: PersonBusy, day: date, tz: ZoneInfo) -> str:
    """ "9:00 AM – 12:00 PM", a day named where a busy block starts or ends on another day."""

    def at(moment: datetime) -> str:
        local = moment.astimezone(tz)
        said = format_time(local, tz)
        return said if local.date() == day else f"{format_day(local.date())} {said}"

    return ", ".join(f"{at(s.start)} – {at(s.end)}" for s in person.busy)


def _overlapping(events: list[EventItem]) -> list[tuple[EventItem, EventItem]]:
    """The pairs of timed events that overlap, in order of the first's start (events sorted by start)."""
    timed = [e for e in events if not e.all_day]
    pairs = []
    for i, a in enumerate(timed):
        for b in timed[i + 1 :]:
            if b.start >= a.end:
                break
            pairs.append((a, b))
    return pairs


def _is_named(event: EventItem, name: str) -> bool:
    """Whether an event is one a question named by these words: in its title or place, as ``find_events``
    matches a title, or among its people ("Bob's meeting")."""
    haystack = " ".join([event.summary, event.location, *event.attendees]).casefold()
    return all(word in haystack or word.removesuffix("s") in haystack for word in name.casefold().split())


def _involving(
    pairs: list[tuple[EventItem, EventItem]], names: list[str]
) -> list[tuple[EventItem, EventItem]]:
    """The overlapping pairs a question is about: with one event named, those it is in; with two or
    more ("does the review clash with calculus?"), those of two different ones of them."""
    if not names:
        return pairs
    if len(names) == 1:
        return [(a, b) for a, b in pairs if _is_named(a, names[0]) or _is_named(b, names[0])]
    return [
        (a, b)
        for a, b in pairs
        if any(_is_named(a, x) and _is_named(b, y) for x in names for y in names if x != y)
    ]


def _conflicts_text(
    pairs: list[tuple[EventItem, EventItem]],
    period: str,
    tz: ZoneInfo,
    names: list[str],
    missing: list[str],
) -> str:
    quoted = [f"'{name}'" for name in names]
    if missing:  # no "nothing overlaps" said of an event that is not there at all
        return f"I found no event called {' or '.join(repr(name) for name in missing)} {period}."
    if not pairs:
        if len(names) == 1:
            return f"Nothing overlaps {quoted[0]} {period}."
        if names:
            return f"{join_and(quoted)} do not overlap {period}."
        return f"Nothing overlaps {period}."
    lines = [f"These overlap {period}:"]
    for a, b in pairs:
        day = format_day(a.start.astimezone(tz).date())
        lines.append(
            f"  • {day}: {a.summary} ({format_span(a.start, a.end, tz)}) and "
            f"{b.summary} ({format_span(b.start, b.end, tz)})"
        )
    return "\n".join(lines)


def _whole_day(slot: Slot, params: ReplyInput, tz: ZoneInfo) -> bool:
    """Whether a free slot is all the day there is to have: its whole daily window, or midnight to
    midnight when no window was searched."""
    start, end = slot.start.astimezone(tz), slot.end.astimezone(tz)
    if params.window_start and params.window_end:
        return f"{start:%H:%M}" == params.window_start and f"{end:%H:%M}" == params.window_end
    return start.time() == time(0) and end - start >= timedelta(hours=24)


def _one_day(params: ReplyInput, tz: ZoneInfo) -> bool:
    """Whether the range the reply is about is one day (or less)."""
    return (
        params.start is not None
        and params.end is not None
        and params.start.astimezone(tz).date()
        == (params.end - timedelta(microseconds=1)).astimezone(tz).date()
    )


def _slots_text(params: ReplyInput, events: list[EventItem], tz: ZoneInfo, period: str) -> str:
    """Free time, one line a day ("Monday, March 4: free all day"), with a single day's events first:
    what is in the way is what a person asking "when am I free on the 4th?" wants to see too."""
    lines: list[str] = []
    single_day = _one_day(params, tz)
    if single_day and events:
        lines.append(f"{period[:1].upper()}{period[1:]} you have:")
        lines += [f"  • {format_span(e.start, e.end, tz, all_day=e.all_day)}  {e.summary}" for e in events]
    who = _who_is_free(params.people)
    unseen = f"I cannot see the calendar of {join_and(params.unseen)}." if params.unseen else ""
    if not params.slots:
        if not params.people:
            lines.append(f"I found no free time {period} that fits.")
        else:
            # as the planners of a time that suits everyone say it: none, then the nearest after
            said = f"No time {period} suits {join_and(['you', *params.people])}"
            if params.nearest:
                lines.append(f"{said}; the nearest after that:")
                lines += _day_lines(params.nearest, params, tz)
            else:
                later = f", nor in the {params.nearest_days} days after" if params.nearest_days else ""
                lines.append(f"{said}{later}.")
        return _with_unseen(lines, unseen)
    if params.detail == "first":  # "what's the earliest I can meet Ann?": that time, not every one
        first = params.slots[0]
        day = format_day(first.start.astimezone(tz).date())
        who = _who_is_free(params.people)
        lines.append(
            f"The earliest: {day} at {format_time(first.start, tz)} ({who[:1].lower()}{who[1:]} free until "
            f"{format_time(first.end, tz)})."
        )
        return _with_unseen(lines, unseen)
    days = [
        (day, list(group))
        for day, group in groupby(params.slots, key=lambda s: s.start.astimezone(tz).date())
    ]
    if single_day:
        day, slots = days[0]
        if len(slots) == 1 and _whole_day(slots[0], params, tz):
            lines.append(f"{who} free all {params.day_part or 'day'} on {format_day(day)}.")
        else:
            spans = ", ".join(format_span(s.start, s.end, tz) for s in slots)
            lines.append(f"{who} free on {format_day(day)}: {spans}.")
    else:
        lines.append(params.text or f"{who} free {period}:")
        lines += _day_lines(params.slots, params, tz)
    if params.detail == "duration":  # "how much free time ...?"
        lines.append(
            f"That is {format_length(sum((s.end - s.start for s in params.slots), timedelta()))} in all."
        )
    return _with_unseen(lines, unseen)


def _with_unseen(lines: list[str], unseen: str) -> str:
    """The answer's lines, and last the calendars it could not see, when there are any."""
    return "\n".join([*lines, unseen] if unseen else lines)


def _day_lines(slots: list[Slot], params: ReplyInput, tz: ZoneInfo) -> list[str]:
    """One line a day: "  • Monday, March 4: 9:00 AM – 12:00 PM, 2:00 PM – 5:00 PM" or "free all day"."""
    lines = []
    for day, group in groupby(slots, key=lambda s: s.start.astimezone(tz).date()):
        spans = list(group)
        if len(spans) == 1 and _whole_day(spans[0], params, tz):
            lines.append(f"  • {format_day(day)}: free all {params.day_part or 'day'}")
        else:
            said = ", ".join(format_span(s.start, s.end, tz) for s in spans)
            lines.append(f"  • {format_day(day)}: {said}")
    return lines


def _who_is_free(people: list[str]) -> str:
    """Who the free time is for, the user first: "You are", "You and Ann Lee are both", "You, Ann Lee
    and Raj Patel are all" (the people whose free/busy the search read)."""
    if not people:
        return "You are"
    return f"{join_and(['You', *people])} are {'both' if len(people) == 1 else 'all'}"


def _had(end: datetime | None, now: datetime) -> str:
    """ "had" of a period wholly gone by ("You had no events on Sunday, March 1."), else "have"."""
    return "had" if end is not None and end <= now else "have"


def _none_then(start: datetime | None, end: datetime | None, tz: ZoneInfo) -> str:
    """The period of an answer that finds nothing: part of one day is said with its hours ("after 3 on
    Thursday", "tomorrow afternoon"), since "nothing on Thursday" would be false of the rest of it."""
    if start is None or end is None:
        return ""
    first, last = start.astimezone(tz), end.astimezone(tz)
    day, midnight = first.date(), time(0, 0)
    partial = timedelta(hours=1) < end - start < timedelta(days=1) and first.time() != midnight
    if partial and last.date() == day:
        return f"on {format_day(day)} from {format_time(start, tz)} to {format_time(end, tz)}"
    if partial and last.time() == midnight and last.date() == day + timedelta(days=1):
        return f"on {format_day(day)} after {format_time(start, tz)}"
    return _period(start, end, tz)


def _period(start: datetime | None, end: datetime | None, tz: ZoneInfo) -> str:
    """'on Friday, March 6' or 'from Monday, March 2 to Sunday, March 8' (empty without a range)."""
    if start is None or end is None:
        return ""
    if timedelta(0) < end - start <= timedelta(hours=1):
        # a clock time asked about ("the standup thursday at 10"): that time, not the whole day
        return f"on {format_day(start.astimezone(tz).date())} at {format_time(start, tz)}"
    words = format_range(start, end, tz)
    if " – " in words:
        first, last = words.split(" – ")
        return f"from {first} to {last}"
    return f"on {words}"


def _singular(subject: str) -> str:
    """ "meetings" -> "meeting", "classes" -> "class" (was "classe"), "class" stays."""
    if subject.endswith(("sses", "shes", "xes")) or (
        subject.endswith("ches") and not subject.endswith("aches")
    ):
        return subject[:-2]
    return subject[:-1] if subject.endswith("s") and not subject.endswith("ss") else subject
