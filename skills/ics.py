"""iCalendar (RFC 5545) import and export of a local calendar.

A recurring series travels as one VEVENT with RRULE/EXDATE plus one VEVENT per changed occurrence
(same UID, RECURRENCE-ID), exactly as the store keeps it, so a round trip yields the same occurrences.
Import matches events by UID: importing a file again updates what it imported instead of doubling it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from django.db import transaction

from skills.models import Calendar, Event, new_uid
from skills.recurrence import as_local_midnight
from skills.services import event_place, event_save

__all__ = ["calendar_export_ics", "calendar_import_ics"]

PRODID = "-//Calendar Assistant//Local calendar//EN"
_CLASS_TO_VISIBILITY = {"PUBLIC": "public", "PRIVATE": "private", "CONFIDENTIAL": "private"}


# -- import ---------------------------------------------------------------------------------------------
def _text(component: icalendar.Event, name: str) -> str:
    value = component.get(name)
    return str(value).strip() if value is not None else ""


def _email(address: Any) -> str:
    text = str(address).strip()
    return (text[len("mailto:") :] if text.lower().startswith("mailto:") else text).lower()


def _zone_of(moment: date, fallback: str, recurring: bool) -> str:
    """The IANA zone to anchor an imported event's wall time in.

    A UTC start says nothing about where the event happens, so a one-off is shown in the calendar's
    zone; a series defined in UTC really does repeat at a fixed UTC time.
    """
    tzinfo = moment.tzinfo if isinstance(moment, datetime) else None
    if isinstance(tzinfo, ZoneInfo) and (tzinfo.key != "UTC" or recurring):
        return tzinfo.key
    return fallback


def _instant(moment: date, zone: ZoneInfo) -> datetime:
    """An original start as the store keys it: aware UTC; dates are local midnights."""
    if not isinstance(moment, datetime):
        return as_local_midnight(moment, zone).astimezone(UTC)
    return (moment if moment.tzinfo else moment.replace(tzinfo=zone)).astimezone(UTC)


def _fill(event: Event, component: icalendar.Event, fallback_zone: str) -> None:
    """Copy a VEVENT's properties onto a row (unsaved)."""
    start, end = component.start, component.end
    rules = component.get("RRULE")
    rule = rules[0] if isinstance(rules, list) else rules
    event.timezone = _zone_of(start, fallback_zone, recurring=rule is not None)
    event.summary = _text(component, "SUMMARY") or "(no title)"
    event.description = _text(component, "DESCRIPTION")
    event.location = _text(component, "LOCATION")
    event.rrule = rule.to_ical().decode() if rule is not None and event.series_id is None else ""
    event.exdates = [_instant(moment, event.zone).isoformat() for moment in component.exdates]
    event.attendees = [_email(a) for a in component.attendees]
    event.organizer = _email(component.organizer) if component.organizer else ""
    event.visibility = _CLASS_TO_VISIBILITY.get(_text(component, "CLASS").upper(), "default")
    event.transparency = "transparent" if _text(component, "TRANSP").upper() == "TRANSPARENT" else "opaque"
    event.status = "cancelled" if _text(component, "STATUS").upper() == "CANCELLED" else "confirmed"
    event.sequence = component.sequence
    event_place(event=event, start=start, end=end, all_day=not isinstance(start, datetime))


def calendar_import_ics(*, calendar: Calendar, data: bytes | str) -> int:
    """Import every VEVENT of an iCalendar file into ``calendar``; returns how many were imported.

    Overrides whose series is in neither the file nor the calendar have nothing to attach to and are
    skipped.

    Raises:
        ValueError: the data is not iCalendar.
    """
    parsed = icalendar.Calendar.from_ical(data)
    components = [c for c in parsed.walk("VEVENT") if isinstance(c, icalendar.Event)]
    masters = [c for c in components if c.get("RECURRENCE-ID") is None]
    overrides = [c for c in components if c.get("RECURRENCE-ID") is not None]
    imported = 0
    with transaction.atomic():
        for component in masters:
            uid = _text(component, "UID")
            event = Event.objects.filter(calendar=calendar, uid=uid, series__isnull=True).first()
            event = event or Event(calendar=calendar, uid=uid or new_uid())
            _fill(event, component, calendar.timezone)
            event_save(event=event, revise=False)
            imported += 1
        for component in overrides:
            master = Event.objects.filter(
                calendar=calendar, uid=_text(component, "UID"), series__isnull=True
            ).first()
            if master is None:
                continue
            rid = _instant(component.get("RECURRENCE-ID").dt, master.zone)
            event = master.overrides.filter(recurrence_id=rid).first() or Event(
                calendar=calendar, uid=master.uid, series=master, recurrence_id=rid
            )
            _fill(event, component, master.timezone)
            event_save(event=event, revise=False)
            imported += 1
    return imported


# -- export ---------------------------------------------------------------------------------------------
def _local(moment: datetime, event: Event) -> date:
    """A stored instant as the event writes it: its zone's wall time, or its date if all-day."""
    local = moment.astimezone(event.zone)
    return local.date() if event.all_day else local


def _component(event: Event) -> icalendar.Event:
    component = icalendar.Event()
    component.add("uid", event.uid)
    component.add("dtstamp", event.updated_at.astimezone(UTC))
    component.add("created", event.created_at.astimezone(UTC))
    component.add("summary", event.summary)
    if event.description:
        component.add("description", event.description)
    if event.location:
        component.add("location", event.location)
    component.add("dtstart", event.start_date if event.all_day else _local(event.start, event))
    component.add("dtend", event.end_date if event.all_day else _local(event.end, event))
    if event.rrule:
        component.add("rrule", icalendar.vRecur.from_ical(event.rrule))
    if event.exdates:
        component.add("exdate", [_local(datetime.fromisoformat(x), event) for x in event.exdates])
    if event.recurrence_id is not None:
        component.add("recurrence-id", _local(event.recurrence_id, event))
    if event.organizer:
        component.add("organizer", f"mailto:{event.organizer}")
    for email in event.attendees:
        component.add("attendee", f"mailto:{email}")
    if event.visibility != Event.Visibility.DEFAULT:
        component.add("class", event.visibility.upper())
    component.add("transp", event.transparency.upper())
    component.add("status", event.status.upper())
    component.add("sequence", event.sequence)
    return component


def calendar_export_ics(*, calendar: Calendar) -> bytes:
    """The calendar as an iCalendar file, with the VTIMEZONEs its events use."""
    export = icalendar.Calendar()
    export.add("prodid", PRODID)
    export.add("version", "2.0")
    export.add("x-wr-calname", calendar.name)
    export.add("x-wr-timezone", calendar.timezone)
    # Masters before their overrides, for importers that attach overrides as they read.
    for event in calendar.events.filter(series__isnull=True).order_by("start", "pk"):
        export.add_component(_component(event))
    for event in calendar.events.filter(series__isnull=False).order_by("start", "pk"):
        export.add_component(_component(event))
    export.add_missing_timezones()
    return export.to_ical()
