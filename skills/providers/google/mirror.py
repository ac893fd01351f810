"""Google events ↔ the mirror's :class:`~skills.models.Event` rows.

The mirror keeps Google's shape in the built-in store's model:

- a master or single event is a row whose ``uid`` is the Google event id (base32hex, never with an
  ``@``; a row whose uid has one was made here and not sent yet);
- an exception (``recurringEventId`` + ``originalStartTime``) is an override row of its master keyed
  by ``recurrence_id`` = the original start (all-day: the local midnight of the original date);
- a cancelled instance is an EXDATE on the master (as the built-in store cancels one), and EXDATE
  lines of the master's ``recurrence`` too;
- all-day events keep their dates (``start_date``/``end_date``, end exclusive), never shifted.

Google's etags are not the rows' etags (those version the mirror's content, which readers cache
expansions by); they are kept per calendar in the account's ``sync_state`` (see
:mod:`skills.providers.google.sync`), by event or instance id, for ``If-Match``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from skills import services
from skills.models import Calendar, Event
from skills.recurrence import as_local_midnight

__all__ = [
    "apply_exception",
    "apply_master",
    "changed_fields",
    "instance_id",
    "is_remote_id",
    "parse_when",
    "row_body",
]

_VISIBILITY = {"default": "default", "public": "public", "private": "private", "confidential": "private"}


def is_remote_id(uid: str) -> bool:
    """Whether a row's uid is a Google event id (rows made here carry ``...@calendar-assistant``)."""
    return bool(uid) and "@" not in uid


def parse_when(when: dict[str, Any], zone: str) -> tuple[datetime | date, bool]:
    """A Google ``start``/``end``/``originalStartTime``: an aware datetime, or a date (all-day)."""
    if when.get("date"):
        return date.fromisoformat(when["date"]), True
    moment = datetime.fromisoformat(str(when["dateTime"]).replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(when.get("timeZone") or zone))
    return moment, False


def instance_id(master_id: str, recurrence_id: datetime, *, all_day: bool, zone: str) -> str:
    """Google's id of one instance of a series: ``<master>_<original start>``."""
    if all_day:
        return f"{master_id}_{recurrence_id.astimezone(ZoneInfo(zone)).strftime('%Y%m%d')}"
    return f"{master_id}_{recurrence_id.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}"


def _recurrence(lines: list[str], zone: str, all_day: bool) -> tuple[str, list[str]]:
    """The RRULE value and the EXDATEs (ISO UTC) of a Google ``recurrence`` list."""
    rule = ""
    exdates: list[str] = []
    for line in lines:
        name, _, value = line.partition(":")
        head = name.split(";")[0].upper()
        if head == "RRULE" and not rule:
            rule = value
        elif head == "EXDATE":
            params = dict(p.split("=", 1) for p in name.split(";")[1:] if "=" in p)
            tz = ZoneInfo(params.get("TZID", zone))
            for raw in value.split(","):
                if "T" not in raw:
                    moment = as_local_midnight(datetime.strptime(raw, "%Y%m%d").date(), tz)
                elif raw.endswith("Z"):
                    moment = datetime.strptime(raw, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
                else:
                    moment = datetime.strptime(raw, "%Y%m%dT%H%M%S").replace(tzinfo=tz)
                exdates.append(moment.astimezone(UTC).isoformat())
    return rule, exdates


def _fill(row: Event, item: dict[str, Any], zone: str) -> None:
    """The fields every kind of row takes from a Google event."""
    row.summary = (item.get("summary") or "(no title)")[:255]
    row.description = item.get("description") or ""
    row.location = (item.get("location") or "")[:255]
    row.attendees = [a["email"] for a in item.get("attendees") or () if a.get("email")]
    row.organizer = (item.get("organizer") or {}).get("email", "") or row.organizer
    row.visibility = _VISIBILITY.get(item.get("visibility", "default"), "default")
    row.transparency = "transparent" if item.get("transparency") == "transparent" else "opaque"
    row.status = Event.Status.CONFIRMED
    start, all_day = parse_when(item["start"], zone)
    end, _ = parse_when(item["end"], zone)
    row.timezone = item["start"].get("timeZone") or row.timezone or zone
    services.event_place(event=row, start=start, end=end, all_day=all_day)


def apply_master(calendar: Calendar, item: dict[str, Any], row: Event | None) -> Event:
    """Write a confirmed master or single event into the mirror (``row``: its current row, if any).

    EXDATEs coming from cancelled instances are kept while the rule and start stay the same.
    """
    zone = calendar.timezone
    if row is None:
        row = Event(calendar=calendar, uid=item["id"], timezone=zone)
    old_rule, old_start, old_exdates = row.rrule, row.start, list(row.exdates)
    _fill(row, item, zone)
    rule, exdates = _recurrence(list(item.get("recurrence") or ()), row.timezone, row.all_day)
    row.rrule = rule
    if row.pk is not None and rule == old_rule and row.start == old_start:
        exdates = sorted(set(exdates) | set(old_exdates))
    row.exdates = exdates
    row.sequence = int(item.get("sequence") or 0)
    services.event_ready(event=row, revise=False)
    row.save()
    return row


def apply_exception(master: Event, item: dict[str, Any], overrides: dict[float, Event]) -> None:
    """Write an exception of ``master`` into the mirror: an override row, or an EXDATE when cancelled.

    ``overrides`` maps the master's override rows by original start (epoch seconds); kept current.
    """
    original, _ = parse_when(item["originalStartTime"], master.timezone)
    if isinstance(original, datetime):
        rid = original.astimezone(UTC)
    else:
        rid = as_local_midnight(original, master.zone).astimezone(UTC)
    key = rid.timestamp()
    existing = overrides.get(key)
    stamp = rid.isoformat()
    cancelled = [x for x in master.exdates if datetime.fromisoformat(x).timestamp() == key]
    if item.get("status") == "cancelled":
        if existing is not None:
            existing.delete()
            overrides.pop(key, None)
        if not cancelled:
            master.exdates = [*master.exdates, stamp]
            services.event_save(event=master, revise=False)
        return
    if cancelled:
        master.exdates = [x for x in master.exdates if x not in cancelled]
        services.event_save(event=master, revise=False)
    row = existing or Event(calendar=master.calendar, series=master, uid=master.uid, recurrence_id=rid)
    row.timezone = master.timezone
    _fill(row, item, master.timezone)
    row.rrule = ""
    row.sequence = int(item.get("sequence") or 0)
    services.event_ready(event=row, revise=False)
    row.save()
    overrides[key] = row


def _when(row: Event, start: bool) -> dict[str, str]:
    if row.all_day:
        day = row.start_date if start else row.end_date
        assert day is not None
        return {"date": day.isoformat()}
    moment = row.start if start else row.end
    return {"dateTime": moment.astimezone(row.zone).isoformat(), "timeZone": row.timezone}


def row_body(row: Event) -> dict[str, Any]:
    """The Google event body of a mirror row (the fields this app models; others are never sent,
    so a patch leaves reminders, colours and conference data as they are)."""
    body: dict[str, Any] = {
        "summary": row.summary,
        "description": row.description,
        "location": row.location,
        "start": _when(row, True),
        "end": _when(row, False),
        "attendees": [{"email": email} for email in row.attendees],
        "visibility": row.visibility,
        "transparency": row.transparency,
        "status": "cancelled" if row.status == Event.Status.CANCELLED else "confirmed",
    }
    if row.rrule:
        body["recurrence"] = [f"RRULE:{row.rrule}"]
    return body


def changed_fields(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """What a patch must send: every field of ``after`` that ``before`` does not have as is."""
    if before is None:
        return dict(after)
    patch = {key: value for key, value in after.items() if before.get(key) != value}
    # Google wants both ends when one moves (an end before the new start would be refused).
    if "start" in patch or "end" in patch:
        patch["start"], patch["end"] = after["start"], after["end"]
    return patch
