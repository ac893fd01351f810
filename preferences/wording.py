"""Preferences in words, as the chat and the settings page restate them: "Monday to Friday, 8 AM to 6 PM".

Never day codes or raw JSON: a person reads their working hours, not ``{"days": ["MO", ...]}``.
Every function takes values in the canonical form (``preferences.schema``); :func:`describe_preference`
checks the value itself, so an unchecked one is described as unusable rather than crashing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from preferences.schema import DAY_CODES, DAY_NAMES, KEYS, PreferenceError, validate_preference

__all__ = [
    "describe_days",
    "describe_minutes",
    "describe_preference",
    "describe_preferences",
    "describe_span",
    "describe_time",
    "preference_label",
]


def preference_label(key: str) -> str:
    """How a key is named to people: 'working hours', 'time zone'."""
    spec = KEYS.get(key)
    return spec.label if spec else key.replace("_", " ")


def _join(items: Sequence[str], conjunction: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def describe_days(codes: Iterable[str], *, plural: bool = False) -> str:
    """'Monday to Friday', 'Monday, Wednesday and Friday', 'Monday to Wednesday and Friday', 'every day';
    ``plural`` for days that repeat ('Fridays', 'Tuesdays and Thursdays')."""
    indexes = sorted({DAY_CODES.index(c) for c in codes if c in DAY_CODES})
    if len(indexes) == len(DAY_CODES):
        return "every day"
    runs: list[list[int]] = []
    for i in indexes:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    suffix = "s" if plural else ""
    items: list[str] = []
    for run in runs:
        if len(run) >= 3:
            items.append(f"{DAY_NAMES[run[0]]} to {DAY_NAMES[run[-1]]}")
        else:
            items.extend(f"{DAY_NAMES[i]}{suffix}" for i in run)
    return _join(items)


def describe_time(hhmm: str) -> str:
    """'8 AM', '7:30 PM', 'noon', 'midnight'."""
    hours, minutes = (int(part) for part in hhmm.split(":"))
    if minutes == 0 and hours in (0, 12):
        return "midnight" if hours == 0 else "noon"
    clock = str(hours % 12 or 12) + (f":{minutes:02d}" if minutes else "")
    return f"{clock} {'AM' if hours < 12 else 'PM'}"


def describe_span(start: str, end: str) -> str:
    """'8 AM to 6 PM'."""
    return f"{describe_time(start)} to {describe_time(end)}"


def describe_minutes(minutes: int) -> str:
    """'45 minutes', '1 hour', '1 hour 30 minutes'."""
    hours, rest = divmod(int(minutes), 60)
    parts = []
    if hours:
        parts.append(f"{hours} hour{'' if hours == 1 else 's'}")
    if rest or not hours:
        parts.append(f"{rest} minute{'' if rest == 1 else 's'}")
    return " ".join(parts)


def _gym(sessions: list[dict[str, str]]) -> str:
    if not sessions:
        return "no sessions"
    groups: dict[tuple[str, str], list[str]] = {}
    for session in sessions:
        groups.setdefault((session["start"], session["end"]), []).append(session["day"])
    return "; ".join(f"{describe_days(days)}, {describe_span(*span)}" for span, days in groups.items())


def _meetings(value: Mapping[str, Any]) -> str:
    earliest, latest, days = value.get("earliest"), value.get("latest"), value.get("no_meeting_days") or []
    clauses = []
    if earliest and latest:
        clauses.append(f"no meetings before {describe_time(earliest)} or after {describe_time(latest)}")
    elif earliest:
        clauses.append(f"no meetings before {describe_time(earliest)}")
    elif latest:
        clauses.append(f"no meetings after {describe_time(latest)}")
    if days:
        on = describe_days(days, plural=True)
        clauses.append(f"none on {on}" if clauses else f"no meetings on {on}")
    text = " and ".join(clauses)
    return text[:1].upper() + text[1:]


def _calendar(key: str, calendars: Mapping[str, str] | None) -> str:
    if calendars is None:
        return f"the calendar '{key}'"
    name = calendars.get(key)
    return name if name else f"'{key}' (you have no calendar with that key)"


def describe_preference(key: str, value: Any, *, calendars: Mapping[str, str] | None = None) -> str:
    """The value in words, without its label: 'Monday to Friday, 8 AM to 6 PM'.

    ``calendars`` maps the user's calendar keys to their names, so a calendar preference reads 'Work'.
    """
    try:
        value = validate_preference(key, value)
    except PreferenceError as exc:
        return f"not usable ({exc})"
    if key in ("working_hours", "writing_block"):
        text = f"{describe_days(value['days'])}, {describe_span(value['start'], value['end'])}"
        if key == "writing_block":
            text += (
                "; exceptions only with your approval"
                if value.get("allow_exceptions_with_approval")
                else "; no exceptions"
            )
        return text
    if key == "lunch_hours":
        return f"every day, {describe_span(value['start'], value['end'])}"
    if key == "gym_schedule":
        return _gym(value)
    if key == "meeting_hours":
        return _meetings(value)
    if key in ("work_calendar", "personal_calendar"):
        return _calendar(value, calendars)
    if key == "default_event_minutes":
        return describe_minutes(value)
    if key == "week_start":
        return DAY_NAMES[DAY_CODES.index(value)]
    if key == "day_parts":
        parts = [f"{name} {describe_span(span['start'], span['end'])}" for name, span in value.items()]
        night = describe_span(value["evening"]["end"], value["morning"]["start"])
        return ", ".join([*parts, f"night {night}"])
    if key == "busy_visible_to":
        if value["who"] == "named":
            return f"on, only with {_join(value['people'])}"
        if value["who"] == "everyone":
            return "on, with everyone on this instance"
        return "off: nobody here sees when you're busy"
    return str(value)  # timezone: its IANA name is what people know it by


def describe_preferences(
    values: Mapping[str, Any], *, calendars: Mapping[str, str] | None = None
) -> list[str]:
    """One line per preference set, in the order of the known keys: 'Working hours: Monday to Friday, ...'."""
    lines = []
    for key in KEYS:
        if key in values:
            label = preference_label(key)
            words = describe_preference(key, values[key], calendars=calendars)
            lines.append(f"{label[:1].upper()}{label[1:]}: {words}")
    return lines
