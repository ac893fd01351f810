"""A dated part of the day ("tomorrow afternoon", "Friday night", "tonight") in the user's own bounds.

The time-expression resolver knows only the product's day parts (``assistant.timeexpr.DAY_PARTS``,
the defaults of ``preferences.schema.day_part_bounds``): "tomorrow afternoon" resolves to 12:00-17:00.
A user who set ``day_parts`` (afternoon 13:00-17:00, say) means their own afternoon, so a match that is
exactly one of the product's parts on one day is re-read in the user's bounds before it becomes a
range. Anything else is left as the resolver read it: a clock time ("tomorrow afternoon at 3"), a
span that is not one of the four parts ("after work", "early morning", "lunchtime"), a range across
days ("Monday morning through Tuesday afternoon").
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from assistant.decomposer.world import World
from assistant.lexicon import DAY_PART_WORD
from assistant.timeexpr import DAY_PARTS, TimeMatch
from preferences.schema import day_part_bounds

__all__ = ["in_users_day_parts", "stretch_of_part"]


def _spans(bounds: dict[str, tuple[time, time]]) -> dict[str, tuple[time, time]]:
    """Each part a dated match can be, by name: the four parts, and "tonight" (the evening and the
    night together: from the start of the evening to the start of the morning)."""
    return {**bounds, "tonight": (bounds["evening"][0], bounds["morning"][0])}


_PRODUCT = _spans(DAY_PARTS)


def _one_day(start: time, end: time) -> timedelta:
    """How far on from the start's day the end is: a part that wraps past midnight ends the next day."""
    return timedelta(days=1) if end <= start else timedelta(0)


def _product_part(match: TimeMatch) -> str | None:
    """Which of the product's parts ``match`` resolved to, exactly, on one day; None if it is not one."""
    if (
        match.day_part is None
        or not match.has_date
        or match.has_time
        or match.error
        or match.start is None
        or match.end is None
        # the word that names the part: "after work" resolves to the product's evening but does not say it
        or not (DAY_PART_WORD.search(match.text) or "tonight" in match.text.casefold())
    ):
        return None
    said = (match.start.time(), match.end.time(), match.end.date() - match.start.date())
    for name, (lo, hi) in _PRODUCT.items():
        part = "night" if name == "tonight" else name
        if part == match.day_part and said == (lo, hi, _one_day(lo, hi)):
            return name
    return None


def in_users_day_parts(matches: list[TimeMatch], world: World) -> list[TimeMatch]:
    """``matches`` with each dated part of the day in the user's bounds (``day_parts``); the user's
    preferences are read only when a match is such a part, and nothing changes without the preference."""
    if not any(_product_part(m) for m in matches):
        return matches
    spans = _users_spans(world.preferences)
    return matches if spans is None else [_in_spans(m, spans) for m in matches]


def _users_spans(preferences: dict[str, Any]) -> dict[str, tuple[time, time]] | None:
    """The user's bounds of each part, or None when they are the product's (nothing to change)."""
    if not preferences.get("day_parts"):
        return None
    spans = _spans(day_part_bounds(preferences))
    return None if spans == _PRODUCT else spans


def _in_spans(match: TimeMatch, spans: dict[str, tuple[time, time]]) -> TimeMatch:
    name = _product_part(match)
    if name is None or match.start is None:
        return match
    lo, hi = spans[name]
    day, zone = match.start.date(), match.start.tzinfo
    start = datetime.combine(day, lo, zone)
    end = datetime.combine(day + _one_day(lo, hi), hi, zone)
    return replace(match, start=start, end=end)


def stretch_of_part(match: TimeMatch, tz: ZoneInfo) -> tuple[time, time] | None:
    """The wall hours of a day part said narrower than the whole part, on one day ("the late
    afternoon" is 3 to 5 PM, "after lunch" 1 to 5 PM, "late morning" 10 to noon), or None (the whole
    part, a clock time, a span past midnight): a new event or a move looks for its time in them."""
    if match.day_part not in DAY_PARTS or match.has_time or match.start is None or match.end is None:
        return None
    first, last = DAY_PARTS[match.day_part]
    lo, hi = match.start.astimezone(tz), match.end.astimezone(tz)
    if (
        lo.date() != hi.date()
        or not first <= lo.time() < hi.time() <= last
        or (lo.time(), hi.time()) == (first, last)
    ):
        return None
    return lo.time(), hi.time()
