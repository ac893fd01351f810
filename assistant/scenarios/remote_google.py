"""Scenario calendars on the loopback Google Calendar server (``tests/providers/google_server.py``).

Each scenario user gets a Google account of their own on one server started for the run: the first
calendar of the scenario is the account's primary calendar, the others secondary ones; events are
inserted the way another device would (the server's ``seed_event``, no HTTP), in Google's own
shape, so the product meets them as it meets a real account's on connecting it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from types import TracebackType
from typing import Any
from zoneinfo import ZoneInfo

from django.core.mail import EmailMessage

from assistant.scenarios.judge import Occ
from assistant.scenarios.remote import RemoteCalendars
from assistant.scenarios.spec import CalendarSpec, EventSpec
from skills.models import CalendarAccount, Event
from skills.providers.google.sync import sync_account
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["GoogleCalendars"]


def _when(text: str, zone: ZoneInfo) -> dict[str, str]:
    if "T" not in text:
        return {"date": text}
    return {"dateTime": datetime.fromisoformat(text).replace(tzinfo=zone).isoformat(), "timeZone": str(zone)}


def event_body(spec: EventSpec, zone: ZoneInfo) -> dict[str, Any]:
    """A scenario event as a Google event resource (an all-day end naming its start day is one day,
    as the built-in world reads it)."""
    start = _when(spec.start, zone)
    if spec.end:
        end = _when(spec.end, zone)
    elif "date" in start:
        end = {"date": (date.fromisoformat(spec.start) + timedelta(days=1)).isoformat()}
    else:
        end = _when((datetime.fromisoformat(spec.start) + timedelta(hours=1)).isoformat(), zone)
    if "date" in start and end["date"] <= start["date"]:
        end = {"date": (date.fromisoformat(start["date"]) + timedelta(days=1)).isoformat()}
    body: dict[str, Any] = {
        "summary": spec.summary,
        "start": start,
        "end": end,
        "visibility": spec.visibility,
        "transparency": spec.transparency,
    }
    if spec.rrule:
        body["recurrence"] = [f"RRULE:{spec.rrule}"]
    if spec.attendees:
        body["attendees"] = [{"email": email} for email in spec.attendees]
    if spec.location:
        body["location"] = spec.location
    if spec.description:
        body["description"] = spec.description
    return body


class GoogleCalendars(RemoteCalendars):
    """A loopback Google server holding every scenario user's account for one run."""

    kind = "google"

    def __init__(self) -> None:
        super().__init__()
        self.server = GoogleCalendarServer(account="scenario-runner@gmail.example")

    def __enter__(self) -> GoogleCalendars:
        self.server.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.server.stop()

    def settings(self) -> dict[str, Any]:
        return {
            "GOOGLE_API_ENDPOINT": self.server.api_endpoint,
            "GOOGLE_TOKEN_URI": self.server.token_uri,
            "GOOGLE_CLIENT_ID": self.server.client_id,
            "GOOGLE_CLIENT_SECRET": self.server.client_secret,
        }

    def create(
        self, owner: Any, calendars: list[tuple[CalendarSpec, ZoneInfo]]
    ) -> tuple[CalendarAccount, dict[str, CalendarSpec], dict[str, str]]:
        email = f"{owner.username}@gmail.example"
        specs: dict[str, CalendarSpec] = {}
        uids: dict[str, str] = {}
        for number, (spec, zone) in enumerate(calendars):
            if number == 0:
                calendar_id = self.server.add_account(email, time_zone=str(zone), summary=spec.name)
            else:
                calendar_id = self.server.add_calendar(account=email, summary=spec.name, time_zone=str(zone))
            specs[calendar_id] = spec
            for event in spec.events:
                made = self.server.seed_event(event_body(event, zone), calendar_id)
                if event.id:
                    uids[event.id] = made["id"]
        if not calendars:
            self.server.add_account(email)
        account = CalendarAccount(owner=owner, kind=CalendarAccount.Kind.GOOGLE, display_name=email)
        account.credentials = {"refresh_token": self.server.issue_refresh_token(email)}
        account.save()
        return account, specs, uids

    def sync(self, account: CalendarAccount) -> None:
        sync_account(account)

    def delivered_mail(self) -> list[EmailMessage]:
        mails = [
            EmailMessage(subject, body, "calendar-notification@google.com", [to])
            for to, subject, body in self.server.emailed
        ]
        self.server.emailed.clear()
        return mails

    def move(self, master: Event, occurrence: Occ, start: datetime, end: datetime) -> None:
        zone = master.timezone
        self.server.edit_event(
            self._event_id(master, occurrence),
            {
                "start": {"dateTime": start.isoformat(), "timeZone": zone},
                "end": {"dateTime": end.isoformat(), "timeZone": zone},
            },
            master.calendar.remote_id,
        )

    def delete(self, master: Event, occurrence: Occ) -> None:
        self.server.remove_event(self._event_id(master, occurrence), master.calendar.remote_id)

    @staticmethod
    def _event_id(master: Event, occurrence: Occ) -> str:
        """Google's id of the event, or of the instance (``<id>_<original start>``)."""
        rid = occurrence.recurrence_id
        if rid is None:
            return master.uid
        if master.all_day:
            return f"{master.uid}_{rid.astimezone(ZoneInfo(master.timezone)).strftime('%Y%m%d')}"
        return f"{master.uid}_{rid.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}"
