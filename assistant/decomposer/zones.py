"""A time said in someone else's zone: "10am his time (he's in London)", "3pm Tokyo time".

The time reader reads "10am" as ten in the user's zone; said with another place's or person's time it
is ten there.  :func:`said_zone` finds the words that say so and the zone they name: a city of the
IANA database ("London" is Europe/London), or "his/her/their time" meaning the one attendee's own zone
(their ``timezone`` preference here) or the city the sentence puts them in.  When the words name a
zone that cannot be told, the request must be asked about, never written at the user's own ten.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from assistant.decomposer.blanks import blanked
from assistant.decomposer.reading import Reading
from assistant.timeexpr import TimeMatch, find_times
from skills.formatting import format_day, format_time
from workflows.definition import Decision

__all__ = ["SaidZone", "said_zone", "zone_question"]

_PLACE = r"[a-z][a-z.'-]*(?:\s+[a-z][a-z.'-]*){0,2}"
_THEIR_TIME = re.compile(rf"\b(?:(?P<who>his|her|their)|(?P<city>{_PLACE}?))\s+time\b")
_IS_IN = re.compile(
    r"\b(?:he's|she's|they're|he is|she is|they are|who's|who is)\s+(?:in|based in|over in)\s+"
    rf"(?P<city>{_PLACE})"
)
_NOT_A_PLACE = frozenset(
    {"the", "a", "my", "same", "what", "that", "this", "any", "some", "free", "lunch", "start", "end"}
)


@dataclass(frozen=True, slots=True)
class SaidZone:
    """The words that put a time in another zone (their spans in the text), and that zone when told."""

    spans: tuple[tuple[int, int], ...]
    zone: ZoneInfo | None


@cache
def _cities() -> dict[str, str]:
    """IANA zone names by their city, lower case with spaces ("new york" -> "America/New_York")."""
    found: dict[str, str] = {}
    for name in sorted(available_timezones()):
        if "/" in name and not name.startswith(("Etc/", "SystemV/", "US/")):
            found.setdefault(name.rsplit("/", 1)[1].replace("_", " ").casefold(), name)
    return found


def _city_zone(words: str) -> ZoneInfo | None:
    """The zone of the city the words end with ("... Tokyo time") or else start with ("he's in London
    on Wednesday"), the longest name first ("new york", "los angeles", "london")."""
    found = _city(words)
    return found[0] if found else None


def _city(words: str) -> tuple[ZoneInfo, str] | None:
    """:func:`_city_zone`'s zone and the city's words as said."""
    said = words.strip().casefold().split()
    for size in (3, 2, 1):
        for part in (said[-size:], said[:size]):
            if (city := " ".join(part)) in _cities():
                return ZoneInfo(_cities()[city]), city
    return None


def said_zone(norm: str, attendee_zones: Callable[[], list[str]]) -> SaidZone | None:
    """The other zone a request's time is said in, from its normalised text; ``attendee_zones`` gives
    the zones of the people the event is with who are users here (asked only for "his time").  None
    when no other zone is said."""
    for m in _THEIR_TIME.finditer(norm):
        if m["who"]:
            where = _IS_IN.search(norm)
            found = _city(where["city"]) if where else None
            zone = found[0] if found else None
            if zone is None and len(zones := set(attendee_zones())) == 1:
                zone = ZoneInfo(zones.pop())
            spans = [m.span()]
            if where is not None:  # "he's in New York", not the words after the city ("for work")
                ends = (
                    where.start("city") + where["city"].find(found[1]) + len(found[1])
                    if found
                    else where.end()
                )
                spans.append((where.start(), ends))
            return SaidZone(tuple(spans), zone)
        city = (m["city"] or "").strip()
        if city and city.split()[0] not in _NOT_A_PLACE:
            zone = _city_zone(city)
            if zone is not None:
                return SaidZone((m.span(),), zone)
    return None


# A question that asks for a time somewhere else in the user's own ("what's 3pm London time in my
# time?", "when is 9am Tokyo time for me?") or for the time there now ("what time is it in Tokyo?").
_IN_MINE = re.compile(r"\b(?:in|for|to)\s+(?:my\s+(?:own\s+)?(?:time(?:\s*zone)?|zone)|me|here|local time)\b")
_NOW_IN = re.compile(
    rf"\bwhat(?:'s| is) the time (?:in|over in) (?P<city>{_PLACE})"
    rf"|\bwhat time (?:is it|will it be|would it be) (?:in|over in) (?P<city2>{_PLACE})"
)


def zone_question(r: Reading) -> Decision | None:
    """The answer to a question about the clock in another zone, or None when the turn asks none: a
    time there said "in my time" is given in the user's zone, and "what time is it in Tokyo?" the time
    there now (with the user's own beside it)."""
    if r.frame.operation not in ("query", "unknown") or r.frame.asked_busy:
        return None  # "am I free at 3pm London time, for me?" asks about the calendar
    here = r.tz
    if (now_in := _NOW_IN.search(r.norm)) is not None:
        zone = _city_zone(now_in["city"] or now_in["city2"])
        if zone is None:
            return None
        said = _clock_times(blanked(r.norm, [now_in.span()]), r.now)
        if len(said) == 1 and said[0].start is not None:
            # "what time is it in Tokyo when it's 3pm here?": that time of the user's, there
            moment = said[0].start.astimezone(here)
            if not said[0].has_date and moment < r.now:
                moment += timedelta(days=1)  # the next 3pm here
            city, at = _city_of(zone), format_time(moment, here)
            at += f" on {format_day(moment.date())}" if said[0].has_date else ""  # "at 6pm tomorrow"
            return _answer(f"When it is {at} here, it is {_when(moment, zone, here)} in {city}.")
        return _answer(
            f"It is {_when(r.now, zone, here)} in {_city_of(zone)} now ({format_time(r.now, here)} here)."
        )
    if _IN_MINE.search(r.norm) is None:
        return None
    other = said_zone(r.norm, list)
    if other is None or other.zone is None:
        return None
    said = _clock_times(r.norm, r.now)
    if len(said) != 1 or said[0].start is None:
        return None
    wall = said[0].start.astimezone(here)
    there = datetime.combine(wall.date(), wall.time(), other.zone)
    if not said[0].has_date and there < r.now:
        there = datetime.combine(wall.date() + timedelta(days=1), wall.time(), other.zone)  # the next one
    city = _city_of(other.zone)
    return _answer(
        f"{_when(there, other.zone, here)} {city} time is {_when(there, here, other.zone)} your time."
    )


def _clock_times(norm: str, now: datetime) -> list[TimeMatch]:
    """The clock times ``norm`` says ("3pm", "at 8am tomorrow"), read as the calendar reads them."""
    return [t for t in find_times(norm, now=now, daytime=True) if t.has_time and t.start and not t.error]


def _when(moment: datetime, tz: ZoneInfo, beside: ZoneInfo) -> str:
    """A time in ``tz``, with its day when that day is not the day it is in ``beside``."""
    local, other = moment.astimezone(tz), moment.astimezone(beside)
    said = format_time(moment, tz)
    return said if local.date() == other.date() else f"{said} on {format_day(local.date())}"


def _city_of(zone: ZoneInfo) -> str:
    return zone.key.rsplit("/", 1)[-1].replace("_", " ")


def _answer(text: str) -> Decision:
    return Decision(kind="answer", reply_kind="answer", text=text)
