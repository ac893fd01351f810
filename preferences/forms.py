"""One form per preference key, shared by the settings page and the admin: time inputs, day checkboxes,
a zone select, a select of the user's calendars, instead of a raw JSON box.

The fields only collect what was typed (they never refuse anything themselves); the value they make is
checked by the key's schema (``preferences.schema``), and each problem is shown at the field it names,
in the schema's words ("working_hours.start: '25:00' is not a time; use HH:MM, 00:00-23:59"), whichever
door it came through.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from django import forms
from django.conf import settings

from preferences.schema import (
    DAY_CODES,
    DAY_NAMES,
    DEFAULT_DAY_PARTS,
    KEYS,
    MINUTES_MAX,
    MINUTES_MIN,
    PreferenceError,
    Problem,
    known_zones,
    validate_preference,
)

__all__ = ["KEY_FORMS", "KeyForm", "calendar_problems", "check_value", "form_for", "suggested"]

DAY_CHOICES = list(zip(DAY_CODES, DAY_NAMES, strict=True))


class _Lenient:
    """A choice field that keeps whatever was sent: the schema says what is wrong, naming the field."""

    def validate(self, value: Any) -> None:
        return None


class LenientChoiceField(_Lenient, forms.ChoiceField):
    pass


class LenientMultipleChoiceField(_Lenient, forms.MultipleChoiceField):
    pass


def _time_field(label: str, help_text: str = "HH:MM, 00:00-23:59") -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        help_text=help_text,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )


def _days_field(label: str, help_text: str) -> LenientMultipleChoiceField:
    return LenientMultipleChoiceField(
        label=label,
        required=False,
        choices=DAY_CHOICES,
        help_text=help_text,
        widget=forms.CheckboxSelectMultiple,
    )


def _text(value: Any) -> str | None:
    """A typed value, or None when the field was left empty (the schema then says it is missing)."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class KeyForm(forms.Form):
    """The fields of one key; ``raw_value`` makes the JSON value the schema checks."""

    key: ClassVar[str]

    def __init__(self, *args: Any, calendars: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calendars = calendars

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:  # pragma: no cover - every key overrides it
        raise NotImplementedError

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        """Field values showing a stored value (best effort for one that no longer validates)."""
        return {}

    @classmethod
    def field_for(cls, path: tuple[str | int, ...], raw: Any) -> str | None:
        """The field a schema problem at ``path`` belongs to (None: the form as a whole)."""
        name = next((p for p in path if isinstance(p, str)), None)
        return name if name in cls.base_fields else None

    def value(self) -> Any:
        """The raw value of a bound, cleaned form."""
        return self.raw_value(self.cleaned_data)


def _span(data: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {name: text for name in names if (text := _text(data.get(name))) is not None}


class TimezoneForm(KeyForm):
    key = "timezone"
    zone = LenientChoiceField(
        label="Time zone", required=False, help_text="Your times are read and shown in this zone."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        zones = sorted(z for z in known_zones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))
        current = self.initial.get("zone") or (
            self.data.get(self.add_prefix("zone")) if self.is_bound else None
        )
        if current and current not in zones:
            zones.insert(0, str(current))
        field = self.fields["zone"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", "Choose a zone"), ("UTC", "UTC"), *((z, z.replace("_", " ")) for z in zones)]

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        return _text(data.get("zone")) or ""

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        return {"zone": value} if isinstance(value, str) else {}

    @classmethod
    def field_for(cls, path: tuple[str | int, ...], raw: Any) -> str | None:
        return "zone"


class _DaysAndHoursForm(KeyForm):
    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        value: dict[str, Any] = {"days": list(data.get("days") or [])}
        value.update(_span(data, "start", "end"))
        return value

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        value = _dict(value)
        days = value.get("days")
        return {
            "days": [d for d in days if isinstance(d, str)] if isinstance(days, list) else [],
            "start": value.get("start") if isinstance(value.get("start"), str) else "",
            "end": value.get("end") if isinstance(value.get("end"), str) else "",
        }


class WorkingHoursForm(_DaysAndHoursForm):
    key = "working_hours"
    days = _days_field("Working days", "Free time is searched and new events are placed on these days.")
    start = _time_field("Start", "When your working day starts (HH:MM).")
    end = _time_field("End", "When it ends; later than the start.")


class WritingBlockForm(_DaysAndHoursForm):
    key = "writing_block"
    days = _days_field("Days", "The days your writing block is on.")
    start = _time_field("Start", "When the block starts (HH:MM).")
    end = _time_field("End", "When it ends; later than the start.")
    allow_exceptions_with_approval = forms.BooleanField(
        label="Allow exceptions with my approval",
        required=False,
        help_text="Unticked, nothing is ever placed in the block; ticked, a request that needs it asks "
        "you first.",
    )

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        value = super().raw_value(data)
        value["allow_exceptions_with_approval"] = bool(data.get("allow_exceptions_with_approval"))
        return value

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        initial = super().initial_for(value)
        initial["allow_exceptions_with_approval"] = _dict(value).get("allow_exceptions_with_approval") is True
        return initial


class LunchHoursForm(KeyForm):
    key = "lunch_hours"
    start = _time_field("Start", "When lunch starts, every day (HH:MM).")
    end = _time_field("End", "When it ends; later than the start.")

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        return _span(data, "start", "end")

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        value = _dict(value)
        return {k: value[k] for k in ("start", "end") if isinstance(value.get(k), str)}


class GymScheduleForm(KeyForm):
    """A start and an end per weekday; a day left empty has no session."""

    key = "gym_schedule"

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        sessions = []
        for code in DAY_CODES:
            times = _span(data, f"{code.lower()}_start", f"{code.lower()}_end")
            if times:
                sessions.append({"day": code, **{k.rsplit("_", 1)[1]: v for k, v in times.items()}})
        return sessions

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        initial: dict[str, Any] = {}
        for session in value if isinstance(value, list) else []:
            day = _dict(session).get("day")
            if isinstance(day, str) and day in DAY_CODES:
                for part in ("start", "end"):
                    if isinstance(session.get(part), str):
                        initial[f"{day.lower()}_{part}"] = session[part]
        return initial

    @classmethod
    def field_for(cls, path: tuple[str | int, ...], raw: Any) -> str | None:
        if path and isinstance(path[0], int) and isinstance(raw, list) and path[0] < len(raw):
            day = str(raw[path[0]].get("day", "")).lower()
            part = "end" if "end" in path else "start"
            return f"{day}_{part}"
        return None


for _code, _name in DAY_CHOICES:
    GymScheduleForm.base_fields[f"{_code.lower()}_start"] = _time_field(f"{_name} from", "")
    GymScheduleForm.base_fields[f"{_code.lower()}_end"] = _time_field(f"{_name} to", "")


class MeetingHoursForm(KeyForm):
    key = "meeting_hours"
    earliest = _time_field("No meetings before", "Leave empty for no limit (HH:MM).")
    latest = _time_field("No meetings after", "Meetings end by this time; leave empty for no limit.")
    no_meeting_days = _days_field("Days without meetings", "No meetings are placed on these days.")

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        value = _span(data, "earliest", "latest")
        days = list(data.get("no_meeting_days") or [])
        if days:
            value["no_meeting_days"] = days
        return value

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        value = _dict(value)
        initial = {k: value[k] for k in ("earliest", "latest") if isinstance(value.get(k), str)}
        days = value.get("no_meeting_days")
        initial["no_meeting_days"] = [d for d in days if isinstance(d, str)] if isinstance(days, list) else []
        return initial


class _CalendarForm(KeyForm):
    calendar = LenientChoiceField(label="Calendar", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["calendar"]
        assert isinstance(field, forms.ChoiceField)
        field.help_text = KEYS[self.key].help
        if self.calendars is None:  # the user is not known yet (the admin's add page): type the key
            field.widget = forms.TextInput()
            field.help_text += " The key of one of the user's calendars, e.g. 'work'."
            return
        choices = [("", "Choose a calendar"), *((k, f"{name} ({k})") for k, name in self.calendars.items())]
        current = self.initial.get("calendar")
        if current and current not in self.calendars:
            choices.append((current, f"{current} (no calendar has this key)"))
        field.choices = choices

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        return _text(data.get("calendar")) or ""

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        return {"calendar": value} if isinstance(value, str) else {}

    @classmethod
    def field_for(cls, path: tuple[str | int, ...], raw: Any) -> str | None:
        return "calendar"


class WorkCalendarForm(_CalendarForm):
    key = "work_calendar"


class PersonalCalendarForm(_CalendarForm):
    key = "personal_calendar"


class DefaultEventMinutesForm(KeyForm):
    key = "default_event_minutes"
    minutes = forms.CharField(
        label="Minutes",
        required=False,
        help_text=f"How long a new event lasts when you do not say ({MINUTES_MIN} to {MINUTES_MAX}).",
        widget=forms.NumberInput(attrs={"min": MINUTES_MIN, "max": MINUTES_MAX, "step": 5}),
    )

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        text = _text(data.get("minutes")) or ""
        return int(text) if text.isdigit() else text

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        return {"minutes": value} if isinstance(value, int) and not isinstance(value, bool) else {}

    @classmethod
    def field_for(cls, path: tuple[str | int, ...], raw: Any) -> str | None:
        return "minutes"


class WeekStartForm(KeyForm):
    key = "week_start"
    day = LenientChoiceField(
        label="First day of the week", required=False, choices=[("", "Choose a day"), *DAY_CHOICES]
    )

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        return _text(data.get("day")) or ""

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        return {"day": value} if isinstance(value, str) else {}

    @classmethod
    def field_for(cls, path: tuple[str | int, ...], raw: Any) -> str | None:
        return "day"


class DayPartsForm(KeyForm):
    key = "day_parts"

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        value: dict[str, dict[str, str]] = {}
        for part in DEFAULT_DAY_PARTS:
            times = _span(data, f"{part}_start", f"{part}_end")
            value[part] = {name.rsplit("_", 1)[1]: text for name, text in times.items()}
        return value

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        initial = {}
        for part in DEFAULT_DAY_PARTS:
            span = _dict(_dict(value).get(part))
            for edge in ("start", "end"):
                text = span.get(edge)
                if isinstance(text, str):
                    initial[f"{part}_{edge}"] = text
        return initial

    @classmethod
    def field_for(cls, path: tuple[str | int, ...], raw: Any) -> str | None:
        if not path:
            return None
        edge = "end" if "end" in path else "start"
        return f"{path[0]}_{edge}" if path[0] in DEFAULT_DAY_PARTS else None


_USUAL = {"morning": ("5 AM", "noon"), "afternoon": ("noon", "5 PM"), "evening": ("5 PM", "9 PM")}
for _part, (_lo, _hi) in _USUAL.items():
    DayPartsForm.base_fields[f"{_part}_start"] = _time_field(f"{_part.capitalize()} from", f"Usually {_lo}.")
    DayPartsForm.base_fields[f"{_part}_end"] = _time_field(f"{_part.capitalize()} to", f"Usually {_hi}.")


class BusyVisibleToForm(KeyForm):
    """Everyone, the people named (their emails, one a line or separated by commas), or nobody."""

    key = "busy_visible_to"
    who = LenientChoiceField(
        label="Who may see when you're busy",
        required=False,
        choices=[
            ("everyone", "Everyone on this instance"),
            ("named", "Only the people I name below"),
            ("nobody", "Nobody"),
        ],
        widget=forms.RadioSelect,
        help_text="They see the times you are busy, never what your events are.",
    )
    people = forms.CharField(
        label="People",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Their email addresses, one a line or separated by commas; used with the middle choice.",
    )

    @classmethod
    def raw_value(cls, data: Mapping[str, Any]) -> Any:
        value: dict[str, Any] = {"who": _text(data.get("who")) or ""}
        people = [a for a in re.split(r"[\s,;]+", str(data.get("people") or "")) if a]
        if people or value["who"] == "named":
            value["people"] = people
        return value

    @classmethod
    def initial_for(cls, value: Any) -> dict[str, Any]:
        value = _dict(value)
        people = value.get("people")
        return {
            "who": value.get("who") if isinstance(value.get("who"), str) else "",
            "people": "\n".join(a for a in people if isinstance(a, str)) if isinstance(people, list) else "",
        }


KEY_FORMS: dict[str, type[KeyForm]] = {
    form.key: form
    for form in (
        TimezoneForm,
        WorkingHoursForm,
        LunchHoursForm,
        GymScheduleForm,
        WritingBlockForm,
        MeetingHoursForm,
        WorkCalendarForm,
        PersonalCalendarForm,
        DefaultEventMinutesForm,
        WeekStartForm,
        DayPartsForm,
        BusyVisibleToForm,
    )
}
assert set(KEY_FORMS) == set(KEYS), "every known key has a form"


# Keys whose form starts from the usual value when nothing is set (the others start empty: nobody has a
# gym session or a meeting-free day until they say so).
_SUGGESTED = ("working_hours", "lunch_hours", "default_event_minutes", "week_start", "day_parts")


def suggested(key: str) -> Any:
    """What an empty form for ``key`` shows: the usual value, the instance's zone, or nothing."""
    if key == "timezone":
        return settings.ASSISTANT_DEFAULT_TIMEZONE
    return KEYS[key].example if key in _SUGGESTED else None


def form_for(key: str) -> type[KeyForm]:
    return KEY_FORMS[key]


def calendar_problems(key: str, value: Any, calendars: Mapping[str, str] | None) -> list[Problem]:
    """A calendar preference must name one of the user's calendars (checked where the user is known:
    the admin and the settings page; the scenario loader sets it before it creates the calendars)."""
    if key not in ("work_calendar", "personal_calendar") or calendars is None or value in calendars:
        return []
    have = ", ".join(calendars) or "none yet"
    return [Problem(key, (), f"{key}: '{value}' is not one of your calendars; use one of: {have}")]


def check_value(key: str, raw: Any, calendars: Mapping[str, str] | None = None) -> tuple[Any, list[Problem]]:
    """The canonical value and no problems, or None and the problems, each naming its field."""
    try:
        value = validate_preference(key, raw)
    except PreferenceError as exc:
        return None, exc.problems
    problems = calendar_problems(key, value, calendars)
    return (None, problems) if problems else (value, [])
