"""Scenario calendars on a real Radicale CalDAV server (``tests/providers/radicale_server.py``).

One Radicale runs for the run, in a temporary folder; each scenario user is a Radicale user with one
collection per scenario calendar, and each event is PUT as its own iCalendar resource the way another
client would write it (plain HTTP, a TZID with its VTIMEZONE, RRULE as written in the scenario).
Outside edits are made the same way: the resource is fetched, changed (an override with
RECURRENCE-ID, an EXDATE, new times) and PUT back with ``If-Match``, or DELETEd.
"""

from __future__ import annotations

import tempfile
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any
from xml.sax.saxutils import escape
from zoneinfo import ZoneInfo

import icalendar
import niquests

from assistant.scenarios.judge import Occ
from assistant.scenarios.remote import RemoteCalendars
from assistant.scenarios.spec import CalendarSpec, EventSpec
from skills.models import CalendarAccount, Event
from skills.providers.caldav import connect_account, sync_account
from skills.providers.caldav.ical import vtimezone
from tests.providers.radicale_server import RadicaleServer

__all__ = ["CaldavCalendars"]

_PROPPATCH_ZONE = """<?xml version="1.0" encoding="utf-8"?>
<D:propertyupdate xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop><C:calendar-timezone>{zone}</C:calendar-timezone></D:prop></D:set>
</D:propertyupdate>"""


def _times(spec: EventSpec, zone: ZoneInfo) -> tuple[date | datetime, date | datetime]:
    """DTSTART and DTEND as the built-in world reads a scenario event."""
    if "T" not in spec.start:
        first = date.fromisoformat(spec.start)
        last = date.fromisoformat(spec.end) if spec.end else first + timedelta(days=1)
        return first, last if last > first else first + timedelta(days=1)
    start = datetime.fromisoformat(spec.start).replace(tzinfo=zone)
    end = datetime.fromisoformat(spec.end).replace(tzinfo=zone) if spec.end else start + timedelta(hours=1)
    return start, end


def event_resource(spec: EventSpec, zone: ZoneInfo, uid: str) -> str:
    """A scenario event as the iCalendar text of its own resource."""
    start, end = _times(spec, zone)
    event = icalendar.Event()
    event.add("uid", uid)
    event.add("dtstamp", datetime.now(UTC).replace(microsecond=0))
    event.add("summary", spec.summary)
    event.add("dtstart", start)
    event.add("dtend", end)
    if spec.rrule:
        event.add("rrule", icalendar.vRecur.from_ical(spec.rrule))
    for attendee in spec.attendees:
        event.add("attendee", f"mailto:{attendee}")
    if spec.location:
        event.add("location", spec.location)
    if spec.description:
        event.add("description", spec.description)
    if spec.visibility != "default":
        event.add("class", spec.visibility.upper())
    event.add("transp", spec.transparency.upper())
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Scenario runner//EN")
    calendar.add("version", "2.0")
    calendar.add_component(event)
    if isinstance(start, datetime):
        calendar.add_component(vtimezone(str(zone), start.year))
    return calendar.to_ical().decode("utf-8")


class CaldavCalendars(RemoteCalendars):
    """An in-process Radicale holding every scenario user's calendars for one run."""

    kind = "caldav"

    def __init__(self) -> None:
        super().__init__()
        self._folder = tempfile.TemporaryDirectory(prefix="scenario-radicale-")
        self.server = RadicaleServer(Path(self._folder.name))
        self._logins: dict[str, tuple[str, str]] = {}  # collection URL -> (user, password)
        self._resources: dict[tuple[str, str], str] = {}  # (collection URL, uid) -> resource URL

    def __enter__(self) -> CaldavCalendars:
        self.server.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.server.stop()
        self._folder.cleanup()

    def settings(self) -> dict[str, Any]:
        return {}

    def create(
        self, owner: Any, calendars: list[tuple[CalendarSpec, ZoneInfo]]
    ) -> tuple[CalendarAccount, dict[str, CalendarSpec], dict[str, str]]:
        name, password = self.server.add_user(owner.username)
        specs: dict[str, CalendarSpec] = {}
        uids: dict[str, str] = {}
        for spec, zone in calendars:
            url = self.server.make_calendar(name, password, spec.key, spec.name)
            self._logins[url] = (name, password)
            self._set_zone(url, zone)
            specs[url] = spec
            for event in spec.events:
                uid = f"{uuid.uuid4()}@scenario.invalid"
                resource = f"{url}{uuid.uuid4().hex}.ics"
                self._request("PUT", resource, event_resource(event, zone, uid), {"If-None-Match": "*"}, url)
                self._resources[(url, uid)] = resource
                if event.id:
                    uids[event.id] = uid
        account = connect_account(
            owner=owner, url=self.server.url, username=name, password=password, display_name="Radicale"
        )
        return account, specs, uids

    def sync(self, account: CalendarAccount) -> None:
        sync_account(account)

    def move(self, master: Event, occurrence: Occ, start: datetime, end: datetime) -> None:
        def change(calendar: icalendar.Calendar) -> None:
            target = self._component(calendar, master, occurrence.recurrence_id, make=True)
            for name, value in (("dtstart", start), ("dtend", end)):
                del target[name]
                target.add(name, value.astimezone(ZoneInfo(master.timezone)))
            target["sequence"] = int(target.get("sequence", 0)) + 1

        self._edit(master, change)

    def delete(self, master: Event, occurrence: Occ) -> None:
        rid = occurrence.recurrence_id
        if rid is None:
            url = self._resources[(master.calendar.remote_id, master.uid)]
            etag = self._request("GET", url, collection=master.calendar.remote_id).headers["ETag"]
            self._request("DELETE", url, headers={"If-Match": etag}, collection=master.calendar.remote_id)
            return

        def change(calendar: icalendar.Calendar) -> None:
            override = self._component(calendar, master, rid, make=False)
            if override is not None:
                calendar.subcomponents.remove(override)
            series = self._component(calendar, master, None, make=False)
            assert series is not None
            series.add("exdate", self._original(master, rid))

        self._edit(master, change)

    # -- helpers ---------------------------------------------------------------------------------------
    def _request(
        self,
        method: str,
        url: str,
        body: str = "",
        headers: dict[str, str] | None = None,
        collection: str = "",
    ) -> Any:
        response = niquests.request(
            method,
            url,
            data=body.encode("utf-8") if body else None,
            auth=self._logins[collection],
            headers={"Content-Type": "text/calendar; charset=utf-8", **(headers or {})},
        )
        if (response.status_code or 500) >= 300:
            raise RuntimeError(f"{method} {url} answered {response.status_code}: {response.text}")
        return response

    def _set_zone(self, url: str, zone: ZoneInfo) -> None:
        """The collection's calendar-timezone (RFC 4791 5.2.2), as a client creating it sets it: what
        the product reads the calendar's zone (and its all-day dates) from."""
        holder = icalendar.Calendar()
        holder.add("prodid", "-//Scenario runner//EN")
        holder.add("version", "2.0")
        holder.add_component(vtimezone(str(zone), datetime.now(UTC).year))
        body = _PROPPATCH_ZONE.format(zone=escape(holder.to_ical().decode("utf-8")))
        headers = {"Content-Type": "application/xml; charset=utf-8"}
        self._request("PROPPATCH", url, body, headers, url)

    def _edit(self, master: Event, change: Any) -> None:
        collection = master.calendar.remote_id
        url = self._resources[(collection, master.uid)]
        current = self._request("GET", url, collection=collection)
        calendar = icalendar.Calendar.from_ical(current.text)
        change(calendar)
        self._request(
            "PUT", url, calendar.to_ical().decode("utf-8"), {"If-Match": current.headers["ETag"]}, collection
        )

    @staticmethod
    def _original(master: Event, rid: datetime) -> date | datetime:
        local = rid.astimezone(ZoneInfo(master.timezone))
        return local.date() if master.all_day else local

    def _component(
        self, calendar: icalendar.Calendar, master: Event, rid: datetime | None, *, make: bool
    ) -> Any:
        """The VEVENT of the series (``rid`` None) or of one occurrence; with ``make``, an override
        copied from the series when the occurrence has none yet."""
        series = None
        for component in calendar.walk("VEVENT"):
            if "recurrence-id" not in component:
                series = component
                if rid is None:
                    return component
            elif rid is not None and component.decoded("recurrence-id") == self._original(master, rid):
                return component
        if not make or series is None:
            return None
        override = icalendar.Event()
        for name, value in series.property_items(recursive=False):
            if name not in ("BEGIN", "END", "RRULE", "EXDATE", "RDATE"):
                override.add(name, value)
        assert rid is not None
        override.add("recurrence-id", self._original(master, rid))
        calendar.add_component(override)
        return override
