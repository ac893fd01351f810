"""One CalDAV resource (an iCalendar object) to and from the mirror's rows.

A resource holds one event: a one-off VEVENT, or a master with its RRULE and EXDATEs plus one
VEVENT per changed occurrence carrying RECURRENCE-ID (RFC 4791 section 4.1), which is exactly how
the built-in store keeps a series (a master row and override rows sharing its UID).  All-day events
are DATE values, never midnights, so they are never a day early in another zone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import icalendar

from skills.models import Event
from skills.recurrence import as_local_midnight

__all__ = ["ParsedEvent", "ParsedResource", "build_resource", "parse_resource"]

PRODID = "-//Calendar Assistant//CalDAV//EN"

_CLASS_TO_VISIBILITY = {"PRIVATE": "private", "CONFIDENTIAL": "private", "PUBLIC": "public"}
_VISIBILITY_TO_CLASS = {"private": "PRIVATE", "public": "PUBLIC"}


@dataclass
class ParsedEvent:
    """The fields of one VEVENT as the mirror stores them (instants aware, ``end_date`` exclusive)."""

    summary: str
    start: datetime | date
    end: datetime | date
    timezone: str
    all_day: bool
    description: str = ""
    location: str = ""
    rrule: str = ""
    exdates: list[str] = field(default_factory=list)
    attendees: list[str] = field(default_factory=list)
    organizer: str = ""
    visibility: str = "default"
    transparency: str = "opaque"
    status: str = "confirmed"
    sequence: int = 0
    recurrence_id: datetime | None = None  # UTC, overrides only


@dataclass
class ParsedResource:
    uid: str
    master: ParsedEvent | None
    overrides: list[ParsedEvent]


# -- rows → iCalendar -----------------------------------------------------------------------------------
def _moment(row: Event, moment: datetime) -> datetime:
    return moment.astimezone(row.zone)


def _occurrence_id(master: Event, rid: datetime) -> date | datetime:
    """A RECURRENCE-ID or EXDATE value of the same type as the master's DTSTART."""
    local = rid.astimezone(master.zone)
    return local.date() if master.all_day else local


def _component(row: Event, master: Event) -> icalendar.Event:
    component = icalendar.Event()
    component.add("uid", master.uid)
    component.add("dtstamp", datetime.now(UTC).replace(microsecond=0))
    component.add("sequence", row.sequence)
    component.add("summary", row.summary)
    if row.all_day:
        assert row.start_date is not None
        assert row.end_date is not None
        component.add("dtstart", row.start_date)
        component.add("dtend", row.end_date)
    else:
        component.add("dtstart", _moment(row, row.start))
        component.add("dtend", _moment(row, row.end))
    if row.recurrence_id is not None:
        component.add("recurrence-id", _occurrence_id(master, row.recurrence_id))
    if row.rrule:
        component.add("rrule", icalendar.vRecur.from_ical(row.rrule))
        if row.exdates:
            component.add(
                "exdate", [_occurrence_id(master, datetime.fromisoformat(x)) for x in sorted(row.exdates)]
            )
    if row.description:
        component.add("description", row.description)
    if row.location:
        component.add("location", row.location)
    if row.organizer:
        component.add("organizer", f"mailto:{row.organizer}")
    for attendee in row.attendees:
        component.add("attendee", f"mailto:{attendee}")
    if row.visibility in _VISIBILITY_TO_CLASS:
        component.add("class", _VISIBILITY_TO_CLASS[row.visibility])
    component.add("transp", "TRANSPARENT" if row.transparency == "transparent" else "OPAQUE")
    component.add("status", "CANCELLED" if row.status == Event.Status.CANCELLED else "CONFIRMED")
    return component


def build_resource(master: Event, overrides: list[Event]) -> str:
    """The iCalendar text of a one-off event or a whole series (master first, overrides by their
    original start), with the VTIMEZONEs its TZIDs need."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add_component(_component(master, master))
    for override in sorted(overrides, key=lambda row: row.recurrence_id or master.start):
        calendar.add_component(_component(override, master))
    zones = {row.timezone for row in (master, *overrides) if not row.all_day and row.timezone != "UTC"}
    for name in sorted(zones):
        calendar.add_component(vtimezone(name, master.start.year))
    return calendar.to_ical().decode("utf-8")


def _offset(delta: timedelta | None) -> timedelta:
    return delta or timedelta(0)


def vtimezone(name: str, year: int) -> icalendar.Timezone:
    """A VTIMEZONE for ``name`` with yearly RRULEs (the zone's rules in ``year``), not the RDATE
    lists icalendar writes: vobject (Radicale, and clients built on it) reads only the first date of
    an RDATE list, and would put every later summer time an hour off."""
    zone = ZoneInfo(name)
    transitions = []
    moment = datetime(year, 1, 1, 12, tzinfo=UTC)
    previous = moment.astimezone(zone).utcoffset()
    while moment.year == year:
        step = moment + timedelta(hours=1)
        offset = step.astimezone(zone).utcoffset()
        if offset != previous:
            transitions.append((step, previous, offset))
            previous = offset
        moment = step
    timezone = icalendar.Timezone()
    timezone.add("tzid", name)
    if not transitions:
        standard = icalendar.TimezoneStandard()
        standard.add("dtstart", datetime(1970, 1, 1))
        standard.add("tzoffsetfrom", _offset(previous))
        standard.add("tzoffsetto", _offset(previous))
        standard.add("tzname", moment.astimezone(zone).tzname() or name)
        timezone.add_component(standard)
        return timezone
    for instant, before, after in transitions:
        wall = (instant + (before or timedelta(0))).replace(tzinfo=None, minute=0, second=0)
        dst = bool(instant.astimezone(zone).dst())
        part = icalendar.TimezoneDaylight() if dst else icalendar.TimezoneStandard()
        part.add("dtstart", wall.replace(year=1970) if wall.month != 2 or wall.day != 29 else wall)
        length = (date(wall.year + (wall.month == 12), wall.month % 12 + 1, 1) - timedelta(days=1)).day
        week = -1 if wall.day + 7 > length else (wall.day - 1) // 7 + 1
        day = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")[wall.weekday()]
        part.add("rrule", {"freq": "yearly", "bymonth": wall.month, "byday": f"{week}{day}"})
        part.add("tzoffsetfrom", _offset(before))
        part.add("tzoffsetto", _offset(after))
        part.add("tzname", instant.astimezone(zone).tzname() or name)
        timezone.add_component(part)
    return timezone


# -- iCalendar → fields ---------------------------------------------------------------------------------
def _zone_of(value: datetime, fallback: str) -> tuple[datetime, str]:
    """An aware instant and the IANA zone its wall time is kept in (TZIDs zoneinfo does not know, and
    floating times, are read in the calendar's zone)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=ZoneInfo(fallback)), fallback
    key = getattr(value.tzinfo, "key", None)
    if isinstance(key, str):
        try:
            ZoneInfo(key)
            return value, key
        except (ZoneInfoNotFoundError, ValueError):
            pass
    if value.utcoffset() == timedelta(0) and value.tzinfo in (UTC, ZoneInfo("UTC")):
        return value, "UTC"
    return value.astimezone(ZoneInfo(fallback)), fallback


def _instant(value: date | datetime, zone: ZoneInfo) -> datetime:
    """A RECURRENCE-ID or EXDATE as the UTC instant the mirror keys occurrences by."""
    if not isinstance(value, datetime):
        return as_local_midnight(value, zone).astimezone(UTC)
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return value.astimezone(UTC)


def _address(value: Any) -> str:
    text = str(value)
    return text[7:] if text.lower().startswith("mailto:") else text


def _parse_component(component: Any, fallback: str, master_zone: str | None) -> ParsedEvent:
    start = component.decoded("dtstart")
    all_day = not isinstance(start, datetime)
    if "dtend" in component:
        end = component.decoded("dtend")
    elif "duration" in component:
        end = start + component.decoded("duration")
    else:
        end = start + timedelta(days=1) if all_day else start
    if all_day:
        zone_name = master_zone or fallback
    else:
        start, zone_name = _zone_of(start, master_zone or fallback)
        end, _ = _zone_of(end if isinstance(end, datetime) else start, zone_name)
    zone = ZoneInfo(zone_name)
    rrule = component.get("rrule")
    exdates: list[str] = []
    for entry in _as_list(component.get("exdate")):
        exdates.extend(_instant(value.dt, zone).isoformat() for value in entry.dts)
    recurrence_id = component.get("recurrence-id")
    status = str(component.get("status", "CONFIRMED")).upper()
    return ParsedEvent(
        summary=str(component.get("summary", "")).strip() or "(no title)",
        start=start,
        end=end,
        timezone=zone_name,
        all_day=all_day,
        description=str(component.get("description", "")),
        location=str(component.get("location", "")),
        rrule=rrule.to_ical().decode("ascii") if rrule is not None else "",
        exdates=exdates,
        attendees=[_address(a) for a in _as_list(component.get("attendee"))],
        organizer=_address(component["organizer"]) if "organizer" in component else "",
        visibility=_CLASS_TO_VISIBILITY.get(str(component.get("class", "")).upper(), "default"),
        transparency="transparent" if str(component.get("transp", "")).upper() == "TRANSPARENT" else "opaque",
        status="cancelled" if status == "CANCELLED" else "confirmed",
        sequence=int(component.get("sequence", 0) or 0),
        recurrence_id=_instant(recurrence_id.dt, zone) if recurrence_id is not None else None,
    )


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def parse_resource(text: str | bytes, *, fallback_zone: str) -> list[ParsedResource]:
    """The events of a resource, by UID (normally one): master and overrides, in the mirror's terms.

    A resource holding only overrides (an invitation to some occurrences) has no master.
    """
    calendar = icalendar.Calendar.from_ical(text)
    by_uid: dict[str, list[Any]] = {}
    for component in calendar.walk("VEVENT"):
        by_uid.setdefault(str(component.get("uid", "")), []).append(component)
    resources = []
    for uid, components in by_uid.items():
        masters = [c for c in components if "recurrence-id" not in c]
        master = _parse_component(masters[0], fallback_zone, None) if masters else None
        zone = master.timezone if master is not None else None
        overrides = [_parse_component(c, fallback_zone, zone) for c in components if "recurrence-id" in c]
        resources.append(ParsedResource(uid=uid, master=master, overrides=overrides))
    return resources
