"""What each preference may hold: one pydantic model per known key, and the one function that checks a value.

Every door that writes a preference (the chat's skills, the admin, the settings page, the shell, the
scenario loader) goes through :func:`validate_preference`, and every read checks the stored value again
(older rows, raw SQL writes), so a value the rest of the product cannot read never reaches it.

Values are stored in the canonical JSON form of ``../shared/scenarios/README.md``: days as ``MO``..``SU``
in week order, times as ``"HH:MM"``.  A refused value gets one message per problem, each naming the
field and what is allowed::

    working_hours.start: '25:00' is not a time; use HH:MM, 00:00-23:59
"""

from __future__ import annotations

import json
import re
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import time
from functools import cache
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    RootModel,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

__all__ = [
    "DAY_CODES",
    "DAY_NAMES",
    "DEFAULT_DAY_PARTS",
    "KEYS",
    "MINUTES_MAX",
    "MINUTES_MIN",
    "PreferenceError",
    "PreferenceSpec",
    "Problem",
    "day_part_bounds",
    "known_zones",
    "parse_time",
    "validate_preference",
]

DAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MINUTES_MIN, MINUTES_MAX = 5, 720

TIME_HINT = "use HH:MM, 00:00-23:59"
DAY_HINT = "use MO, TU, WE, TH, FR, SA or SU"
DAYS_HINT = "use a list of days from MO, TU, WE, TH, FR, SA, SU"
ZONE_HINT = "use an IANA time zone name such as Europe/London or America/New_York"
CALENDAR_HINT = "use the key of one of your calendars, e.g. 'work' or 'personal'"
MINUTES_HINT = f"use a whole number of minutes from {MINUTES_MIN} to {MINUTES_MAX}"
BOOL_HINT = "use true or false"
WHO_HINT = "use everyone, named or nobody"
EMAIL_HINT = "use an email address such as ann@example.com"
# What a missing field should hold, by the field's name.
FIELD_HINTS = {
    "start": TIME_HINT,
    "end": TIME_HINT,
    "earliest": TIME_HINT,
    "latest": TIME_HINT,
    "day": DAY_HINT,
    "days": DAYS_HINT,
    "no_meeting_days": DAYS_HINT,
    "morning": "use {start, end}",
    "afternoon": "use {start, end}",
    "evening": "use {start, end}",
    "who": WHO_HINT,
}

# The product's fixed day parts until a user sets their own (scenarios README; night wraps past midnight).
DEFAULT_DAY_PARTS: dict[str, dict[str, str]] = {
    "morning": {"start": "05:00", "end": "12:00"},
    "afternoon": {"start": "12:00", "end": "17:00"},
    "evening": {"start": "17:00", "end": "21:00"},
}

_TIME_RE = re.compile(r"(\d{1,2}):(\d{2})")
_CALENDAR_KEY_RE = re.compile(r"[-a-zA-Z0-9_]{1,64}")


def _show(value: Any) -> str:
    """A value as the message quotes it: 'text' for strings, JSON for the rest."""
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):  # pragma: no cover - json.dumps with default=str hardly fails
        return repr(value)


def _fail(kind: str, message: str) -> PydanticCustomError:
    # Braces in the shown value would be read as template fields: escape them by passing as context.
    return PydanticCustomError(kind, "{text}", {"text": message})


def parse_time(text: str) -> time:
    """A canonical ``"HH:MM"`` as a :class:`datetime.time`."""
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def _time(value: Any) -> str:
    if isinstance(value, time):
        if value.second or value.microsecond:
            raise _fail("time", f"{_show(value.isoformat())} is not a time in whole minutes; {TIME_HINT}")
        return f"{value.hour:02d}:{value.minute:02d}"
    match = _TIME_RE.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None or int(match[1]) > 23 or int(match[2]) > 59:
        raise _fail("time", f"{_show(value)} is not a time; {TIME_HINT}")
    return f"{int(match[1]):02d}:{match[2]}"


def _day(value: Any) -> str:
    code = value.strip().upper() if isinstance(value, str) else None
    if code not in DAY_CODES:
        raise _fail("day", f"{_show(value)} is not a day; {DAY_HINT}")
    return code


def _day_list(value: Any) -> Any:
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple | set | frozenset):
        raise _fail("days", f"{_show(value)} is not a list of days; {DAYS_HINT}")
    return list(value)


def _week_order(days: list[str]) -> list[str]:
    return sorted(set(days), key=DAY_CODES.index)


def _some_days(days: list[str]) -> list[str]:
    if not days:
        raise _fail("days", f"no days given; {DAYS_HINT}")
    return days


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail("bool", f"{_show(value)} is not true or false; {BOOL_HINT}")
    return value


Time = Annotated[str, BeforeValidator(_time)]
Day = Annotated[str, BeforeValidator(_day)]
# Days in week order, each once; possibly none (a field that may be empty).
AnyDays = Annotated[list[Day], BeforeValidator(_day_list), AfterValidator(_week_order)]
Days = Annotated[
    list[Day], BeforeValidator(_day_list), AfterValidator(_week_order), AfterValidator(_some_days)
]
Flag = Annotated[bool, BeforeValidator(_bool)]


class _Value(BaseModel):
    """An object-valued preference: unknown fields are refused by name, a non-object is refused whole."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    EXAMPLE: ClassVar[str] = "{}"

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise _fail("object", f"{_show(value)} is not an object; use {cls.EXAMPLE}")
        allowed = list(cls.model_fields)
        for name in value:
            if name not in allowed:
                raise PydanticCustomError(
                    "unknown_field",
                    "{text}",
                    {"text": f"not a field here; use {', '.join(allowed)}", "field": str(name)},
                )
        return value


def _end_after_start(
    end: str | None, info: ValidationInfo, start_field: str = "start", end_field: str = "end"
) -> str | None:
    start = info.data.get(start_field)
    if end is not None and start is not None and end <= start:
        raise _fail(
            "order",
            f"{_show(end)} is not after the {start_field} {_show(start)}; the {end_field} must be later "
            f"than the {start_field} on the same day",
        )
    return end


BUSY_WHO = ("everyone", "named", "nobody")
_EMAIL_RE = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")


def _who(value: Any) -> str:
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in BUSY_WHO:
        raise _fail("who", f"{_show(value)} is not a choice; {WHO_HINT}")
    return text


def _address(value: Any) -> str:
    if not isinstance(value, str) or not _EMAIL_RE.fullmatch(value.strip()):
        raise _fail("email", f"{_show(value)} is not an email address; {EMAIL_HINT}")
    return value.strip().lower()


def _address_list(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple | set | frozenset):
        raise _fail("emails", f"{_show(value)} is not a list of email addresses; {EMAIL_HINT}")
    return list(value)


def _sorted_once(addresses: list[str] | None) -> list[str] | None:
    return sorted(set(addresses)) if addresses else None


Address = Annotated[str, BeforeValidator(_address)]


class BusyVisibility(_Value):
    """Who of this instance's users may see when you are busy (the spans only, never what the events
    are), when they ask "is Ann free on Thursday?" or look for a time that suits everyone."""

    EXAMPLE = '{"who": "named", "people": ["ann@example.com"]}'
    who: Annotated[str, BeforeValidator(_who)]
    # Validated when left out too: "named" with nobody is refused at this field.  Only "named" keeps
    # a list; the others store none (an empty list is dropped).
    people: Annotated[
        list[Address] | None, BeforeValidator(_address_list), AfterValidator(_sorted_once)
    ] = Field(default=None, validate_default=True)

    @field_validator("people")
    @classmethod
    def _only_when_named(cls, people: list[str] | None, info: ValidationInfo) -> list[str] | None:
        who = info.data.get("who")
        if who == "named" and not people:
            raise _fail("people", f"nobody named; {EMAIL_HINT}, or choose nobody")
        if who in ("everyone", "nobody") and people:
            raise _fail("people", f"people are named only with who: named, not with who: {who}")
        return people


class _Timed(_Value):
    """A value with a ``start`` and an ``end`` on the same day (declared in that order by each subclass)."""

    @field_validator("end", check_fields=False)
    @classmethod
    def _ordered(cls, end: str, info: ValidationInfo) -> str:
        return _end_after_start(end, info) or end


class WorkingHours(_Timed):
    """The days and hours you work; free time and new events stay inside them."""

    EXAMPLE: ClassVar[str] = '{"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"}'
    days: Days = list(DAY_CODES[:5])
    start: Time
    end: Time


class LunchHours(_Timed):
    """Lunch, every day: kept free like an event."""

    EXAMPLE: ClassVar[str] = '{"start": "12:00", "end": "13:00"}'
    start: Time
    end: Time


class GymSession(_Timed):
    EXAMPLE: ClassVar[str] = '{"day": "MO", "start": "18:00", "end": "19:30"}'
    day: Day
    start: Time
    end: Time


def _session_list(value: Any) -> Any:
    if not isinstance(value, list | tuple):
        raise _fail(
            "list", f'{_show(value)} is not a list of sessions; use [{{"day": "MO", "start": "18:00", ...}}]'
        )
    return list(value)


def _one_session_a_day(sessions: list[GymSession]) -> list[GymSession]:
    seen: set[str] = set()
    for session in sessions:
        if session.day in seen:
            name = DAY_NAMES[DAY_CODES.index(session.day)]
            raise _fail("duplicate_day", f"{name} appears twice; keep one session a day")
        seen.add(session.day)
    return sorted(sessions, key=lambda s: DAY_CODES.index(s.day))


class GymSchedule(RootModel[list[GymSession]]):
    """Your gym sessions, at most one a day, in week order; kept free like events."""

    model_config = ConfigDict(frozen=True)
    root: Annotated[list[GymSession], BeforeValidator(_session_list), AfterValidator(_one_session_a_day)]


class WritingBlock(_Timed):
    """Time protected for focused writing on some days."""

    EXAMPLE: ClassVar[str] = (
        '{"days": ["TU", "TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": true}'
    )
    days: Days
    start: Time
    end: Time
    allow_exceptions_with_approval: Flag = False


class MeetingHours(_Value):
    """When meetings (events with other people) may happen: not before ``earliest``, ending by ``latest``,
    never on ``no_meeting_days``; any of the three."""

    EXAMPLE: ClassVar[str] = '{"earliest": "10:00", "latest": "17:00", "no_meeting_days": ["FR"]}'
    earliest: Time | None = None
    latest: Time | None = None
    no_meeting_days: AnyDays | None = None

    @field_validator("latest")
    @classmethod
    def _ordered(cls, latest: str | None, info: ValidationInfo) -> str | None:
        return _end_after_start(latest, info, "earliest", "latest")

    @field_validator("no_meeting_days")
    @classmethod
    def _some_day_left(cls, days: list[str] | None) -> list[str] | None:
        if days is not None and len(days) == len(DAY_CODES):
            raise _fail("no_days", "every day is a day without meetings; leave at least one day")
        return days or None

    @model_validator(mode="after")
    def _says_something(self) -> MeetingHours:
        if self.earliest is None and self.latest is None and not self.no_meeting_days:
            raise _fail("empty", f"nothing set; use {self.EXAMPLE} (any of the three)")
        return self


class DayPart(_Timed):
    EXAMPLE: ClassVar[str] = '{"start": "05:00", "end": "12:00"}'
    start: Time
    end: Time


class DayParts(_Value):
    """What "morning", "afternoon" and "evening" mean to you; night is from the end of the evening to the
    start of the morning."""

    EXAMPLE: ClassVar[str] = json.dumps(DEFAULT_DAY_PARTS)
    morning: DayPart
    afternoon: DayPart
    evening: DayPart

    @field_validator("afternoon", "evening")
    @classmethod
    def _after_the_one_before(cls, part: DayPart, info: ValidationInfo) -> DayPart:
        before = {"afternoon": "morning", "evening": "afternoon"}[str(info.field_name)]
        previous = info.data.get(before)
        if previous is not None and part.start < previous.end:
            raise _fail(
                "order",
                f"starts at {_show(part.start)}, before the {before} ends ({_show(previous.end)}); "
                "the parts must follow each other",
            )
        return part


@cache
def known_zones() -> frozenset[str]:
    """IANA zone names zoneinfo can load (without the pseudo-zones 'localtime' and 'Factory')."""
    return frozenset(zoneinfo.available_timezones() - {"localtime", "Factory", "posixrules"})


def _zone(value: Any) -> str:
    name = value.strip() if isinstance(value, str) else None
    if not name or name not in known_zones():
        raise _fail("timezone", f"{_show(value)} is not a known time zone; {ZONE_HINT}")
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:  # pragma: no cover - listed but unloadable
        raise _fail("timezone", f"{_show(value)} is not a known time zone; {ZONE_HINT}") from exc
    return name


def _calendar_key(value: Any) -> str:
    key = value.strip() if isinstance(value, str) else None
    if not key or not _CALENDAR_KEY_RE.fullmatch(key):
        raise _fail("calendar", f"{_show(value)} is not a calendar key; {CALENDAR_HINT}")
    return key


def _minutes(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise _fail("minutes", f"{_show(value)} is not a whole number of minutes; {MINUTES_HINT}")
    if not MINUTES_MIN <= value <= MINUTES_MAX:
        raise _fail("minutes", f"{_show(value)} minutes is out of range; {MINUTES_HINT}")
    return int(value)


class TimeZone(RootModel[str]):
    """The zone your times are read and shown in."""

    model_config = ConfigDict(frozen=True)
    root: Annotated[str, BeforeValidator(_zone)]


class CalendarKey(RootModel[str]):
    """A calendar, by its key."""

    model_config = ConfigDict(frozen=True)
    root: Annotated[str, BeforeValidator(_calendar_key)]


class EventMinutes(RootModel[int]):
    """How long a new event lasts when you do not say."""

    model_config = ConfigDict(frozen=True)
    root: Annotated[int, BeforeValidator(_minutes)]


class WeekStart(RootModel[str]):
    """The day your week starts on."""

    model_config = ConfigDict(frozen=True)
    root: Day


@dataclass(frozen=True)
class PreferenceSpec:
    """A known key: its model, how it is named to people, and what it is for."""

    key: str
    model: type[BaseModel]
    label: str
    help: str
    example: Any


KEYS: dict[str, PreferenceSpec] = {
    spec.key: spec
    for spec in (
        PreferenceSpec(
            "timezone",
            TimeZone,
            "time zone",
            "The zone your times are read and shown in (an IANA name such as Europe/London).",
            "America/New_York",
        ),
        PreferenceSpec(
            "working_hours",
            WorkingHours,
            "working hours",
            "The days and hours you work: free time is searched and new events are placed inside them.",
            {"days": list(DAY_CODES[:5]), "start": "09:00", "end": "17:00"},
        ),
        PreferenceSpec(
            "lunch_hours",
            LunchHours,
            "lunch",
            "Your lunch break, every day: kept free like an event.",
            {"start": "12:00", "end": "13:00"},
        ),
        PreferenceSpec(
            "gym_schedule",
            GymSchedule,
            "gym schedule",
            "Your gym sessions (at most one a day): kept free like events.",
            [{"day": "MO", "start": "18:00", "end": "19:30"}],
        ),
        PreferenceSpec(
            "writing_block",
            WritingBlock,
            "writing block",
            "Time protected for focused work on some days; with exceptions allowed, a request that needs "
            "it asks you first instead of being refused.",
            {"days": ["TU", "TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": True},
        ),
        PreferenceSpec(
            "meeting_hours",
            MeetingHours,
            "meeting hours",
            "When meetings may happen: not before the earliest time, ending by the latest, and never on "
            "the days without meetings (any of the three).",
            {"earliest": "10:00", "no_meeting_days": ["FR"]},
        ),
        PreferenceSpec(
            "work_calendar",
            CalendarKey,
            "work calendar",
            "The calendar your work events belong to.",
            "work",
        ),
        PreferenceSpec(
            "personal_calendar",
            CalendarKey,
            "personal calendar",
            "The calendar your personal events belong to.",
            "personal",
        ),
        PreferenceSpec(
            "default_event_minutes",
            EventMinutes,
            "default event length",
            f"How long a new event lasts when you do not say ({MINUTES_MIN} to {MINUTES_MAX} minutes).",
            60,
        ),
        PreferenceSpec(
            "week_start",
            WeekStart,
            "first day of the week",
            "The day your weeks start on.",
            "MO",
        ),
        PreferenceSpec(
            "day_parts",
            DayParts,
            "parts of the day",
            "What morning, afternoon and evening mean to you; night runs from the end of the evening to "
            "the start of the morning.",
            DEFAULT_DAY_PARTS,
        ),
        PreferenceSpec(
            "busy_visible_to",
            BusyVisibility,
            "free/busy sharing",
            "Other users of this instance may ask when you are busy (the times only, never what your "
            "events are): everyone, only the people you name (by email), or nobody. Not set: everyone.",
            {"who": "named", "people": ["ann@example.com"]},
        ),
    )
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a value: where (``path`` inside the value) and the message naming it."""

    key: str
    path: tuple[str | int, ...]
    message: str

    def __str__(self) -> str:
        return self.message

    @property
    def field(self) -> str:
        """Where, without the value: "working_hours.start" (a log line may name it, never the value)."""
        return _dotted(self.key, self.path)


class PreferenceError(ValueError):
    """A value refused for a key; ``problems`` has one message per problem, each naming its field."""

    def __init__(self, key: str, problems: list[Problem]) -> None:
        self.key = key
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))

    @property
    def messages(self) -> list[str]:
        return [p.message for p in self.problems]


def _dotted(key: str, path: tuple[str | int, ...]) -> str:
    text = key
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _problem(key: str, error: Any) -> Problem:
    path = tuple(p for p in error["loc"] if p != "root")
    ctx = error.get("ctx") or {}
    kind = error["type"]
    if kind == "unknown_field":
        path = (*path, ctx["field"])
        text = ctx["text"]
    elif "text" in ctx:
        text = ctx["text"]
    elif kind == "missing":
        name = next((p for p in reversed(path) if isinstance(p, str)), "")
        hint = FIELD_HINTS.get(name)
        text = "missing" + (f"; {hint}" if hint else "")
    else:  # pragma: no cover - every field has its own validator; a safety net for pydantic's own
        text = error["msg"]
    return Problem(key=key, path=path, message=f"{_dotted(key, path)}: {text}")


def validate_preference(key: str, value: Any) -> Any:
    """The canonical JSON form of ``value`` for ``key``, or :class:`PreferenceError` naming each problem."""
    spec = KEYS.get(key)
    if spec is None:
        raise PreferenceError(
            str(key),
            [Problem(str(key), (), f"{_show(key)} is not a preference; use one of {', '.join(KEYS)}")],
        )
    try:
        model = spec.model.model_validate(value)
    except ValidationError as exc:
        raise PreferenceError(key, [_problem(key, e) for e in exc.errors()]) from None
    return model.model_dump(mode="json", exclude_none=True)


def day_part_bounds(preferences: Mapping[str, Any]) -> dict[str, tuple[time, time]]:
    """Morning, afternoon, evening and night as (start, end) wall times: the user's ``day_parts`` if set
    (validated values, as :func:`preferences.selectors.preferences_for` returns), the defaults if not.
    Night runs from the end of the evening to the start of the morning (it wraps past midnight)."""
    parts = preferences.get("day_parts") or DEFAULT_DAY_PARTS
    bounds = {
        name: (parse_time(parts[name]["start"]), parse_time(parts[name]["end"])) for name in DEFAULT_DAY_PARTS
    }
    bounds["night"] = (bounds["evening"][1], bounds["morning"][0])
    return bounds
