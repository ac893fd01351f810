"""The scenario file format of ``shared/scenarios/README.md`` as pydantic models.

Parsing is strict about structure (a misspelt key is an error naming it) so that a scenario file the
project has never seen either runs as written or fails loudly, never half-silently.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "CalendarSpec",
    "EventSpec",
    "Expect",
    "PersonSpec",
    "Scenario",
    "ScenarioFormatError",
    "TurnSpec",
    "load_scenario",
]


class ScenarioFormatError(ValueError):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EventSpec(_Strict):
    id: str | None = None
    summary: str
    start: str
    end: str | None = None
    rrule: str = ""
    attendees: list[str] = Field(default_factory=list)
    visibility: str = "default"
    location: str = ""
    description: str = ""
    transparency: str = "opaque"

    @field_validator("start", "end", mode="before")
    @classmethod
    def _iso(cls, value: Any) -> Any:
        # An unquoted YAML date or timestamp arrives as an object; the format means its ISO text.
        return value.isoformat() if isinstance(value, date) else value


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


class Expect(_Strict):
    kind: str | list[str]
    mentions: list[str | list[str]] = Field(default_factory=list)
    not_mentions: list[str] = Field(default_factory=list)
    changed: int | None = None

    @property
    def kinds(self) -> list[str]:
        return [self.kind] if isinstance(self.kind, str) else list(self.kind)


class TurnSpec(_Strict):
    user: str
    at: str | None = None
    restart: bool = False
    outside_edits: list[dict[str, Any]] = Field(default_factory=list)
    expect: Expect

    @field_validator("at", mode="before")
    @classmethod
    def _at_iso(cls, value: Any) -> Any:
        return value.isoformat() if isinstance(value, date) else value


class Scenario(_Strict):
    name: str
    description: str = ""
    now: str
    timezone: str
    calendars: list[CalendarSpec] = Field(default_factory=list)
    people: dict[str, PersonSpec] = Field(default_factory=dict)
    preferences: dict[str, Any] = Field(default_factory=dict)
    turns: list[TurnSpec]
    final: list[dict[str, Any]] = Field(default_factory=list)
    path: str = ""

    @field_validator("now", mode="before")
    @classmethod
    def _now_iso(cls, value: Any) -> Any:
        return value.isoformat() if isinstance(value, date) else value


def load_scenario(path: Path) -> Scenario:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ScenarioFormatError(f"{path}: not valid YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise ScenarioFormatError(f"{path}: a scenario file holds one mapping")
    try:
        return Scenario.model_validate({**raw, "path": str(path)})
    except ValidationError as exc:
        raise ScenarioFormatError(f"{path}: {exc}") from exc
