"""The scenario file format of ``shared/scenarios/README.md`` as pydantic models.

Parsing is strict about structure (a misspelt key is an error naming it) so that a scenario file the
project has never seen either runs as written or fails loudly, never half-silently.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

__all__ = [
    "CHECK_KINDS",
    "CalendarSpec",
    "Check",
    "CountCheck",
    "CreatedCheck",
    "EventCheck",
    "EventProps",
    "EventSpec",
    "Expect",
    "FreeCheck",
    "OutboxCheck",
    "OutsideEdit",
    "PersonSpec",
    "PreferenceCheck",
    "Scenario",
    "ScenarioFormatError",
    "TurnSpec",
    "load_scenario",
]


class ScenarioFormatError(ValueError):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _iso_moment(value: Any) -> Any:
    """A local wall time "YYYY-MM-DDTHH:MM" or a date alone (an all-day event)."""
    value = value.isoformat() if isinstance(value, date) else value
    if not isinstance(value, str):
        raise ValueError(f'expected "YYYY-MM-DDTHH:MM" or "YYYY-MM-DD", got {value!r}')
    datetime.fromisoformat(value)  # raises ValueError naming the bad value
    return value


ISOMoment = Annotated[str, BeforeValidator(_iso_moment)]


class EventSpec(_Strict):
    id: str | None = None
    summary: str
    start: ISOMoment
    end: ISOMoment | None = None
    rrule: str = ""
    attendees: list[str] = Field(default_factory=list)
    visibility: Literal["default", "public", "private"] = "default"
    location: str = ""
    description: str = ""
    transparency: Literal["opaque", "transparent"] = "opaque"


class CalendarSpec(_Strict):
    key: str
    name: str
    default: bool = False
    timezone: str | None = None
    events: list[EventSpec] = Field(default_factory=list)


class PersonSpec(_Strict):
    name: str
    timezone: str | None = None
    events: list[EventSpec] = Field(default_factory=list)
    # This project's addition to the shared format: the person's own preferences, such as
    # busy_visible_to (whether the scenario's user may see when they are busy).
    preferences: dict[str, Any] = Field(default_factory=dict)


REPLY_KINDS = ("answer", "clarify", "choose", "confirm", "done", "error")


def _iso_text(value: Any) -> Any:
    """An unquoted YAML date or timestamp arrives as an object; the format means its ISO text."""
    return value.isoformat() if isinstance(value, date) else value


def _hhmm(value: Any) -> str:
    """A local wall time "HH:MM" (YAML 1.1 reads an unquoted 09:00 as the number 540: quote it)."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{2}:\d{2}", value):
        raise ValueError(f'expected a time as quoted "HH:MM" text, got {value!r}')
    hours, minutes = int(value[:2]), int(value[3:])
    if hours > 23 or minutes > 59:
        raise ValueError(f"{value!r} is not a time of day")
    return value


def _iso_date(value: Any) -> str:
    value = _iso_text(value)
    if not isinstance(value, str):
        raise ValueError(f'expected a date as "YYYY-MM-DD", got {value!r}')
    date.fromisoformat(value)  # raises ValueError naming the bad date
    return value


HHMM = Annotated[str, BeforeValidator(_hhmm)]
ISODate = Annotated[str, BeforeValidator(_iso_date)]


class Expect(_Strict):
    kind: str | list[str]
    mentions: list[str | list[str]] = Field(default_factory=list)
    not_mentions: list[str] = Field(default_factory=list)
    changed: int | None = Field(default=None, ge=0)

    @field_validator("kind")
    @classmethod
    def _known_kinds(cls, value: str | list[str]) -> str | list[str]:
        unknown = [k for k in ([value] if isinstance(value, str) else value) if k not in REPLY_KINDS]
        if unknown:
            raise ValueError(f"unknown reply kind {unknown}; the kinds are {', '.join(REPLY_KINDS)}")
        return value

    @property
    def kinds(self) -> list[str]:
        return [self.kind] if isinstance(self.kind, str) else list(self.kind)


class OutsideEdit(_Strict):
    """A change made behind the assistant's back: a move (``start``, maybe ``date``) or a deletion."""

    event: str
    occurrence: ISODate | None = None
    start: HHMM | None = None
    date: ISODate | None = None
    deleted: bool = False

    @model_validator(mode="after")
    def _move_or_delete(self) -> OutsideEdit:
        if self.deleted == (self.start is not None):
            raise ValueError(
                "an outside edit either moves an occurrence (start:) or deletes it (deleted: true)"
            )
        return self


class TurnSpec(_Strict):
    user: str
    at: ISOMoment | None = None
    restart: bool = False
    outside_edits: list[OutsideEdit] = Field(default_factory=list)
    expect: Expect


# -- final checks ---------------------------------------------------------------------------------------


class _Check(_Strict):
    def describe(self) -> dict[str, Any]:
        """The check as the file wrote it, for failure messages."""
        return self.model_dump(by_alias=True, exclude_unset=True)


class EventProps(_Check):
    """Properties any event check or ``created`` check may add."""

    start: HHMM | None = None
    start_within: tuple[HHMM, HHMM] | None = None
    date: ISODate | None = None
    date_in: list[ISODate] | None = None
    duration: int | None = Field(default=None, gt=0)
    conflicts: Literal["none"] | None = None
    attendees_include: list[str] | None = None
    location_contains: str | None = None


class EventCheck(EventProps):
    event: str
    occurrence: ISODate | None = None
    unchanged: bool = False
    deleted: bool = False


class CreatedMatch(_Strict):
    summary_contains: str = ""
    calendar: str | None = None


class CreatedCheck(EventProps):
    created: CreatedMatch
    count: int = Field(default=1, ge=0)


class CountMatch(_Strict):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    calendar: str | None = None
    summary_contains: str = ""
    from_: ISODate = Field(alias="from")
    to: ISODate


class CountCheck(_Check):
    count: CountMatch
    equals: int = Field(ge=0)


class FreeWindow(_Strict):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    date: ISODate
    from_: HHMM = Field(alias="from")
    to: HHMM


class FreeCheck(_Check):
    free: FreeWindow


class OutboxMatch(_Strict):
    to_include: list[str] = Field(default_factory=list)
    to_exclude: list[str] = Field(default_factory=list)
    mentions: list[str] = Field(default_factory=list)


class OutboxCheck(_Check):
    outbox: OutboxMatch


class PreferenceCheck(_Check):
    preference: str
    equals: Any


# The key that says which check an entry is; ``created`` first, since a created check has a ``count``.
CHECK_KINDS: dict[str, type[_Check]] = {
    "created": CreatedCheck,
    "event": EventCheck,
    "count": CountCheck,
    "free": FreeCheck,
    "outbox": OutboxCheck,
    "preference": PreferenceCheck,
}


def _check_kind(value: Any) -> str | None:
    if isinstance(value, _Check):
        return next(k for k, model in CHECK_KINDS.items() if isinstance(value, model))
    if isinstance(value, dict):
        return next((k for k in CHECK_KINDS if k in value), None)
    return None


Check = Annotated[
    Annotated[CreatedCheck, Tag("created")]
    | Annotated[EventCheck, Tag("event")]
    | Annotated[CountCheck, Tag("count")]
    | Annotated[FreeCheck, Tag("free")]
    | Annotated[OutboxCheck, Tag("outbox")]
    | Annotated[PreferenceCheck, Tag("preference")],
    Discriminator(
        _check_kind,
        custom_error_type="unknown_check",
        custom_error_message=f"a final check names one of: {', '.join(CHECK_KINDS)}",
    ),
]


class Scenario(_Strict):
    name: str
    description: str = ""
    now: ISOMoment
    timezone: str
    calendars: list[CalendarSpec] = Field(default_factory=list)
    people: dict[str, PersonSpec] = Field(default_factory=dict)
    preferences: dict[str, Any] = Field(default_factory=dict)
    turns: list[TurnSpec]
    final: list[Check] = Field(default_factory=list)
    path: str = ""

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"{value!r} is not an IANA time zone") from exc
        return value


def _line(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """The 1-based line of the YAML node a validation error's location points at (as deep as found)."""
    line = node.start_mark.line + 1 if node is not None else None
    for depth, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            match = next(((k, v) for k, v in node.value if k.value == part), None)
            # A union tag ("event") can share its name with a scalar key: only the last part may end
            # on a scalar; otherwise, as for a field the file left out, stay on the enclosing node.
            if match is None or (isinstance(match[1], yaml.ScalarNode) and depth < len(loc) - 1):
                continue
            key, node = match
            line = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
    return line


def load_scenario(path: Path) -> Scenario:
    """Read a scenario file strictly: every problem is reported with its file and line, none ignored."""
    text = path.read_text(encoding="utf-8")
    try:
        raw = yaml.safe_load(text)
        tree = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise ScenarioFormatError(f"{path}: not valid YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise ScenarioFormatError(f"{path}: a scenario file holds one mapping")
    try:
        return Scenario.model_validate({**raw, "path": str(path)})
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            loc = tuple(error["loc"])
            where = ".".join(str(p) for p in loc)
            problems.append(f"{path}:{_line(tree, loc)}: {where}: {error['msg']}")
        raise ScenarioFormatError("\n".join(problems)) from exc
