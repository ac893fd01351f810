"""The one implementation of event criteria, shared by the find and filter skills."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import time
from zoneinfo import ZoneInfo

from skills.schemas import DAY_PARTS, EventCriteria, EventItem

__all__ = ["filter_items", "in_day_part"]


def in_day_part(moment: time, part: str, parts: Mapping[str, tuple[time, time]] | None = None) -> bool:
    """Whether a wall time lies in a part of the day: the user's bounds (``parts``, from
    ``preferences.schema.day_part_bounds``) or the product's."""
    lo, hi = (parts or DAY_PARTS)[part]
    if lo < hi:
        return lo <= moment < hi
    return moment >= lo or moment < hi  # night wraps past midnight


def _with(item: EventItem, attendee: str) -> bool:
    """Whether the event is with ``attendee`` (case-folded): an address or a name in one of its
    attendees, or a name in its title ("my meeting with Corporate" is 'Meeting with Corporate', whoever
    was invited)."""
    if any(attendee in a.casefold() for a in item.attendees):
        return True
    return "@" not in attendee and all(word in item.summary.casefold().split() for word in attendee.split())


def filter_items(
    items: Iterable[EventItem],
    criteria: EventCriteria,
    tz: ZoneInfo,
    *,
    parts: Mapping[str, tuple[time, time]] | None = None,
) -> list[EventItem]:
    text = (criteria.text or "").casefold().strip()
    calendars = {c.casefold() for c in criteria.calendars}
    attendee = (criteria.attendee or "").casefold().strip()
    also_with = [a.casefold().strip() for a in criteria.also_with if a.strip()]
    excluded_words = [w.casefold() for w in criteria.exclude_text if w.strip()]
    excluded_people = {a.casefold() for a in criteria.exclude_attendees}
    excluded_places = [w.casefold() for w in criteria.exclude_places if w.strip()]
    places = [w.casefold() for w in criteria.places if w.strip()]
    starts = set(criteria.starts)
    kept = []
    for item in items:
        local = item.start.astimezone(tz)
        haystack = f"{item.summary} {item.location}".casefold()
        if text and not all(word in haystack for word in text.split()):
            continue
        if places and not any(place in item.location.casefold() for place in places):
            continue
        if criteria.starts_at and (item.all_day or f"{local:%H:%M}" != criteria.starts_at):
            continue
        if starts and item.start not in starts:
            continue
        if (
            calendars
            and item.calendar.casefold() not in calendars
            and item.calendar_name.casefold() not in calendars
        ):
            continue
        if criteria.category == "class" and not item.is_class:
            continue
        if criteria.category == "meeting" and not item.is_meeting:
            continue
        if criteria.exclude_category == "class" and item.is_class:
            continue
        if criteria.exclude_category == "meeting" and item.is_meeting:
            continue
        if criteria.category == "all_day" and not item.all_day:
            continue
        if criteria.category == "timed" and item.all_day:
            continue
        if attendee and not _with(item, attendee):
            continue
        if not all(_with(item, other) for other in also_with):  # "with both Ann and Bo"
            continue
        if criteria.day_part and (item.all_day or not in_day_part(local.time(), criteria.day_part, parts)):
            continue
        if criteria.weekdays and local.weekday() not in criteria.weekdays:
            continue
        if local.weekday() in criteria.exclude_weekdays or local.date() in criteria.exclude_dates:
            continue
        if any(w in item.summary.casefold() for w in excluded_words):  # "besides the standups"
            continue
        if any(w in item.location.casefold() for w in excluded_places):  # "not in Bellevue"
            continue
        if excluded_people and any(x in a.casefold() for x in excluded_people for a in item.attendees):
            continue  # a name or an address, as for ``attendee``: "except the ones with Ann"
        kept.append(item)
    return kept
