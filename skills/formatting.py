"""How dates and times are written to the user: days named in words, times in the user's zone."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

__all__ = ["format_day", "format_person", "format_range", "format_span", "format_time", "format_when"]


def format_day(day: date) -> str:
    """'Friday, March 13' (the year only when it is not the current one is the caller's business)."""
    return f"{day:%A}, {day:%B} {day.day}"


def format_time(moment: datetime, tz: ZoneInfo) -> str:
    local = moment.astimezone(tz)
    hour = local.hour % 12 or 12
    suffix = "AM" if local.hour < 12 else "PM"
    return f"{hour}:{local.minute:02d} {suffix}"


def format_when(moment: datetime, tz: ZoneInfo) -> str:
    """'Friday, March 13 2:00 PM': a moment's day and time where ``tz`` sees it."""
    return f"{format_day(moment.astimezone(tz).date())} {format_time(moment, tz)}"


def format_span(start: datetime, end: datetime, tz: ZoneInfo, *, all_day: bool = False) -> str:
    """'9:00 AM – 10:15 AM' or 'all day'."""
    if all_day:
        return "all day"
    return f"{format_time(start, tz)} – {format_time(end, tz)}"


def format_range(start: datetime, end: datetime, tz: ZoneInfo) -> str:
    """A date range in words: 'Monday, March 2' or 'Monday, March 2 – Sunday, March 8'."""
    first = start.astimezone(tz).date()
    last_moment = end.astimezone(tz)
    last = last_moment.date()
    if last_moment.time() == datetime.min.time() and last > first:
        last = date.fromordinal(last.toordinal() - 1)  # an exclusive midnight end belongs to the day before
    if first == last:
        return format_day(first)
    if last.year != first.year:  # "Wednesday, April 1 – Wednesday, March 31" would read backwards
        return f"{format_day(first)}, {first.year} – {format_day(last)}, {last.year}"
    return f"{format_day(first)} – {format_day(last)}"


def format_person(email: str) -> str:
    """A name to show for an address ("ana.lopez@example.com" -> "Ana Lopez"): attendees are stored
    as addresses, and a choice between events reads better with names."""
    local = email.split("@", 1)[0]
    words = [w for w in re.split(r"[._+\-]+", local) if w]
    return " ".join(w.capitalize() for w in words) or email


def format_length(length: timedelta) -> str:
    """ "45 minutes", "1 hour", "2 hours 30 minutes": how long an event lasts, in words."""
    hours, minutes = divmod(int(length.total_seconds() // 60), 60)
    parts = [f"{hours} hour{'' if hours == 1 else 's'}" if hours else ""]
    parts.append(f"{minutes} minute{'' if minutes == 1 else 's'}" if minutes else "")
    return " ".join(p for p in parts if p) or "no time at all"


def join_and(items: list[str]) -> str:
    """ "lunch", "Ann Lee and Raj Patel", "lunch, gym sessions and writing block"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 11th, 22nd."""
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
