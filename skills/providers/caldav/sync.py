"""Connecting a CalDAV account and mirroring its calendars into the built-in store.

The mirror is ordinary :class:`~skills.models.Event` rows of the account's
:class:`~skills.models.Calendar` rows, so every read (and every skill) works on it unchanged.  What
the mirror needs to know of the server lives in ``CalendarAccount.sync_state`` (never a secret)::

    {"calendars": {"<calendar pk>": {"token": <sync-token>, "ctag": <getctag>,
                                     "resources": {"<resource path>": [<etag>, <uid>]}}}}

A sync asks for what changed since the last one with ``sync-collection`` (RFC 6578) where the
server has it (an expired token means a sync from none), else compares the collection's ctag and
then every resource's etag (one PROPFIND); changed resources are fetched in one
``calendar-multiget`` and each replaces the rows of its UID (master plus overrides), deleted ones
remove theirs.  A resource whose etag is the one the mirror already holds (the provider's own
writes) is not fetched again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from skills import inflight, services
from skills.models import Calendar, CalendarAccount, Event, default_timezone, validate_timezone
from skills.providers.base import PermissionDeniedError, ProviderError, TransientProviderError
from skills.providers.caldav.client import DavConnection, Resource, SyncTokenExpiredError
from skills.providers.caldav.ical import ParsedEvent, ParsedResource, parse_resource

__all__ = [
    "SyncReport",
    "calendar_state",
    "connect_account",
    "connection_for",
    "import_resource",
    "sync_account",
    "sync_calendar",
]

logger = logging.getLogger(__name__)

KIND = CalendarAccount.Kind.CALDAV
_MULTIGET_CHUNK = 200


@dataclass
class SyncReport:
    """What a sync did, per account."""

    fetched: int = 0
    deleted: int = 0
    skipped: list[str] = field(default_factory=list)  # resources the mirror could not hold
    full: bool = False  # a sync from no token (first, expired, or by etags)


def connection_for(account: CalendarAccount) -> DavConnection:
    secret = account.credentials
    return DavConnection(secret["url"], secret["username"], secret["password"])


def calendar_state(account: CalendarAccount, calendar: Calendar) -> dict[str, Any]:
    calendars = account.sync_state.setdefault("calendars", {})
    state: dict[str, Any] = calendars.setdefault(str(calendar.pk), {})
    state.setdefault("token", "")
    state.setdefault("ctag", "")
    state.setdefault("resources", {})
    return state


# -- connecting ------------------------------------------------------------------------------------------

def _zone(name: str) -> str:
    try:
        validate_timezone(name)
    except ValidationError:
        return default_timezone()
    return name


def connect_account(
    *,
    owner: Any,
    url: str,
    username: str,
    password: str,
    display_name: str = "",
    calendars: list[str] | None = None,
    writable: bool = True,
) -> CalendarAccount:
    """Discover the calendars at ``url`` as ``username`` with an app password and keep them.

    The principal's calendar home is found from the server URL (caldav's discovery), each calendar
    (or only those whose URL is in ``calendars``) becomes a :class:`Calendar` row of a new account
    with ``remote_id`` its collection URL, and the credentials are stored encrypted
    (:mod:`skills.crypto`).  Nothing is stored when the server refuses the password.  Events come
    with :func:`sync_account`.

    Raises:
        PermissionDeniedError: the server refused the user name or password.
        TransientProviderError: the server could not be reached.
        ProviderError: no CalDAV calendars there.
        ImproperlyConfigured: no CREDENTIAL_KEYS to encrypt the password with.
    """
    found = DavConnection(url, username, password).calendars()
    with transaction.atomic():
        account = CalendarAccount(
            owner=owner,
            kind=KIND,
            display_name=display_name or f"{username} on {urlsplit(url).hostname or url}",
        )
        account.credentials = {"url": url, "username": username, "password": password}
        account.save()
        for calendar in found:
            if calendars is not None and calendar.url not in calendars:
                continue
            Calendar.objects.create(
                owner=owner,
                key=services.calendar_free_key(owner, calendar.name),
                name=calendar.name,
                timezone=_zone(calendar.timezone) if calendar.timezone else default_timezone(),
                color=calendar.color,
                account=account,
                remote_id=calendar.url,
                writable=writable,
            )
    return account


# -- mirroring -------------------------------------------------------------------------------------------
def _fill(row: Event, parsed: ParsedEvent) -> None:
    row.summary = parsed.summary[:255]
    row.description = parsed.description
    row.location = parsed.location[:255]
    row.timezone = parsed.timezone
    row.rrule = parsed.rrule if row.series_id is None else ""
    row.exdates = parsed.exdates if row.series_id is None else []
    row.attendees = parsed.attendees
    try:
        validate_email(parsed.organizer)
        row.organizer = parsed.organizer
    except ValidationError:
        row.organizer = ""
    row.visibility = parsed.visibility
    row.transparency = parsed.transparency
    row.status = parsed.status
    row.sequence = parsed.sequence
    services.event_place(event=row, start=parsed.start, end=parsed.end, all_day=parsed.all_day)


def import_resource(calendar: Calendar, resource: ParsedResource) -> None:
    """Make the mirror's rows of ``resource.uid`` in ``calendar`` what the server holds, keeping the
    ids of rows that stay (a conversation may be pointing at them)."""
    master = Event.objects.filter(calendar=calendar, uid=resource.uid, series__isnull=True).first()
    if resource.master is None:
        if master is not None:
            master.delete()
        return
    if master is None:
        master = Event(calendar=calendar, uid=resource.uid)
    _fill(master, resource.master)
    services.event_save(event=master, revise=False)
    existing = {row.recurrence_id.timestamp(): row for row in master.overrides.all() if row.recurrence_id}
    kept = set()
    for parsed in resource.overrides:
        assert parsed.recurrence_id is not None
        moment = parsed.recurrence_id.timestamp()
        row = existing.get(moment) or Event(
            calendar=calendar, uid=resource.uid, series=master, recurrence_id=parsed.recurrence_id
        )
        _fill(row, parsed)
        services.event_save(event=row, revise=False)
        kept.add(moment)
    stale = [row.pk for moment, row in existing.items() if moment not in kept]
    if stale:
        Event.objects.filter(pk__in=stale).delete()


def _forget(calendar: Calendar, uid: str) -> None:
    Event.objects.filter(calendar=calendar, uid=uid, series__isnull=True).delete()


def sync_calendar(conn: DavConnection, account: CalendarAccount, calendar: Calendar) -> SyncReport:
    """Bring one calendar's mirror up to date (the caller saves ``account.sync_state``)."""
    report = SyncReport()
    state = calendar_state(account, calendar)
    resources: dict[str, list[str]] = state["resources"]
    url = calendar.remote_id
    changed: list[Resource]
    deleted: list[str]
    try:
        try:
            changed, deleted, token = conn.sync_collection(url, state["token"])
            report.full = not state["token"]
        except SyncTokenExpiredError:
            changed, deleted, token = conn.sync_collection(url, "")
            report.full = True
    except (PermissionDeniedError, TransientProviderError):
        raise
    except ProviderError:
        # No sync-collection here: the ctag says whether anything changed, the etags what.
        ctag = conn.properties(url).get("getctag", "")
        if ctag and ctag == state["ctag"]:
            return report
        changed, deleted, token = conn.etags(url), [], ""
        state["ctag"] = ctag
        report.full = True
    if report.full:
        present = {resource.path for resource in changed}
        deleted = [*deleted, *(path for path in resources if path not in present)]
    wanted = [r.path for r in changed if r.etag and resources.get(r.path, ["", ""])[0] != r.etag]
    wanted += [r.path for r in changed if not r.etag]
    held: set[str] = set()
    unsettled: set[str] = set()
    if wanted or deleted:
        held, unsettled = inflight.unsettled(account.owner_id, calendar.pk)
    if held:  # the targets of a change set not yet settled: see skills.inflight
        wanted = [path for path in wanted if resources.get(path, ["", ""])[1] not in held]
        deleted = [path for path in deleted if resources.get(path, ["", ""])[1] not in held]
    zone = calendar.timezone
    for first in range(0, len(wanted), _MULTIGET_CHUNK):
        for fetched in conn.multiget(url, wanted[first : first + _MULTIGET_CHUNK]):
            if any(inflight.carries_key(fetched.data, key) for key in unsettled):
                # A change set's write not committed here (yet, or ever: its worker died); the set's
                # next attempt settles it.  Fetched again by a later sync, as its etag is not kept.
                continue
            try:
                parsed = parse_resource(fetched.data, fallback_zone=zone)
            except ValueError:
                report.skipped.append(fetched.path)
                continue
            old = resources.get(fetched.path)
            with transaction.atomic():
                uids = []
                for resource in parsed:
                    try:
                        with transaction.atomic():
                            import_resource(calendar, resource)
                        uids.append(resource.uid)
                    except (ValidationError, ValueError) as exc:
                        logger.warning(
                            "CalDAV resource %s not mirrored: %s", fetched.path, type(exc).__name__
                        )
                        report.skipped.append(fetched.path)
                if old and old[1] not in uids:
                    _forget(calendar, old[1])
                resources[fetched.path] = [fetched.etag, uids[0] if uids else ""]
            report.fetched += 1
    for path in deleted:
        gone = resources.pop(path, None)
        if gone and gone[1]:
            _forget(calendar, gone[1])
            report.deleted += 1
    state["token"] = token
    return report


def sync_account(account: CalendarAccount, *, calendars: list[Calendar] | None = None) -> SyncReport:
    """Sync every calendar of ``account`` (or those given) into the mirror.

    A refused password marks the account ``needs_reconnect`` with the reason (never a 500 for the
    user); the sync state and the mirror change together, calendar by calendar.
    """
    conn = connection_for(account)
    total = SyncReport()
    targets = calendars if calendars is not None else list(account.calendars.all())
    try:
        for calendar in targets:
            with transaction.atomic():
                locked = CalendarAccount.objects.select_for_update().get(pk=account.pk)
                report = sync_calendar(conn, locked, calendar)
                locked.save(update_fields=["sync_state", "updated_at"])
                account.sync_state = locked.sync_state
            total.fetched += report.fetched
            total.deleted += report.deleted
            total.skipped += report.skipped
            total.full = total.full or report.full
    except PermissionDeniedError as exc:
        mark_needs_reconnect(account, str(exc))
        raise
    if account.status != CalendarAccount.Status.OK:
        CalendarAccount.objects.filter(pk=account.pk).update(status=CalendarAccount.Status.OK, last_error="")
        account.status, account.last_error = CalendarAccount.Status.OK, ""
    return total


def mark_needs_reconnect(account: CalendarAccount, reason: str) -> None:
    CalendarAccount.objects.filter(pk=account.pk).update(
        status=CalendarAccount.Status.NEEDS_RECONNECT, last_error=reason, updated_at=datetime.now(UTC)
    )
    account.status, account.last_error = CalendarAccount.Status.NEEDS_RECONNECT, reason
