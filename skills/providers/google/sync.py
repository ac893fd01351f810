"""Mirror a Google account's calendars and events into the built-in store.

``sync_account`` lists the account's calendars into :class:`~skills.models.Calendar` rows (by
``remote_id``) and brings each one's events up to date: the first time (or after a 410) a full
listing, which also removes what Google no longer has; then ``syncToken`` alone (Google refuses it
with time bounds), which lists only what changed.  Events are listed as masters and exceptions
(``singleEvents=false``) and expanded by the built-in store, as its own series are.

``sync_state`` of the account (no secret in it)::

    {"calendars": {"<remote id>": {"token": "<nextSyncToken>",
                                   "etags": {"<event or instance id>": "<etag>"}}}}

The etags are Google's, for ``If-Match``; an event whose etag is the one recorded is not rewritten,
so a sync after this app's own writes changes nothing in the mirror.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from skills import inflight, services
from skills.models import Calendar, CalendarAccount, Event
from skills.providers.base import NotFoundError
from skills.providers.google.client import GoogleClient, ReconnectNeededError, mark_needs_reconnect
from skills.providers.google.mirror import apply_exception, apply_master

__all__ = ["SyncResult", "calendar_state", "sync_account", "sync_calendar"]

WRITE_ROLES = frozenset({"owner", "writer"})


@dataclass
class SyncResult:
    calendars: int = 0
    changed: int = 0
    full: list[str] = field(default_factory=list)  # remote ids fully listed


def calendar_state(account: CalendarAccount, remote_id: str) -> dict[str, Any]:
    """The sync bookmark of one calendar (created empty), inside ``account.sync_state``."""
    calendars = account.sync_state.setdefault("calendars", {})
    state: dict[str, Any] = calendars.setdefault(remote_id, {})
    state.setdefault("etags", {})
    return state


def save_state(account: CalendarAccount) -> None:
    CalendarAccount.objects.filter(pk=account.pk).update(sync_state=account.sync_state)



def sync_calendars(client: GoogleClient) -> list[Calendar]:
    """The account's calendar list as Calendar rows (new ones made; names, zones and write access kept
    current)."""
    account = client.account
    entries: list[dict[str, Any]] = []
    page: str | None = None
    while True:
        answer = client.execute(client.service.calendarList().list(pageToken=page, maxResults=250))
        entries.extend(answer.get("items") or ())
        page = answer.get("nextPageToken")
        if not page:
            break
    rows = {c.remote_id: c for c in Calendar.objects.filter(account=account)}
    # Calendars the owner chose not to have read (skills.accounts.save_choices) stay out of the mirror.
    unread = account.sync_state.get("unread") or {}
    result = []
    for entry in entries:
        if entry["id"] in unread:
            continue
        name = entry.get("summaryOverride") or entry.get("summary") or entry["id"]
        writable = entry.get("accessRole") in WRITE_ROLES
        zone = entry.get("timeZone") or "UTC"
        row = rows.get(entry["id"])
        if row is None:
            row = Calendar.objects.create(
                owner=account.owner,
                account=account,
                remote_id=entry["id"],
                key=services.calendar_free_key(account.owner, f"google-{name}"),
                name=name,
                timezone=zone,
                writable=writable,
            )
        elif (row.name, row.timezone) != (name, zone) or (row.writable and not writable):
            row.name, row.timezone, row.writable = name, zone, row.writable and writable
            row.save(update_fields=["name", "timezone", "writable"])
        result.append(row)
    return result


def _list_all(
    client: GoogleClient, calendar: Calendar, token: str | None
) -> tuple[list[dict[str, Any]], str]:
    items: list[dict[str, Any]] = []
    page: str | None = None
    while True:
        params: dict[str, Any] = {"calendarId": calendar.remote_id, "maxResults": 2500, "pageToken": page}
        if token:
            params["syncToken"] = token  # alone: Google refuses it with time bounds or a query
        else:
            params["showDeleted"] = True
        answer = client.execute(client.service.events().list(**params), what="The calendar listing")
        items.extend(answer.get("items") or ())
        page = answer.get("nextPageToken")
        if not page:
            return items, str(answer.get("nextSyncToken") or "")


def sync_calendar(client: GoogleClient, calendar: Calendar, *, full: bool = False) -> tuple[int, bool]:
    """Bring one calendar's mirror up to date; returns how many events changed and whether it was a
    full listing (the first, one asked for, or the one a 410 on the sync token calls for)."""
    account = client.account
    state = calendar_state(account, calendar.remote_id)
    token = None if full else state.get("token")
    try:
        items, next_token = _list_all(client, calendar, token)
    except NotFoundError:
        if not token:
            raise
        token = None  # 410: the token expired; list everything again
        items, next_token = _list_all(client, calendar, None)
    held = _held(account, calendar, items)
    with transaction.atomic():
        changed = apply_items(calendar, items, state["etags"], full=token is None, held=held)
        state["token"] = next_token
        save_state(account)
    return changed, token is None


def _held(account: CalendarAccount, calendar: Calendar, items: list[dict[str, Any]]) -> frozenset[str]:
    """The ids of the listing a sync leaves alone: the events a change set not yet settled writes, and
    the ones carrying such a set's key (see skills.inflight)."""
    if not items:
        return frozenset()
    held, keys = inflight.unsettled(account.owner_id, calendar.pk)
    if keys:
        for item in items:
            private = (item.get("extendedProperties") or {}).get("private") or {}
            if private.get(inflight.GOOGLE_PROPERTY) in keys:
                held.add(item["id"])
    return frozenset(held)


def apply_items(
    calendar: Calendar,
    items: list[dict[str, Any]],
    etags: dict[str, str],
    *,
    full: bool,
    held: frozenset[str] = frozenset(),
) -> int:
    """Write a listing into the mirror: masters first, then their exceptions; with ``full``, rows
    of events Google no longer lists go.  Events ``held`` (and their instances) stay as they are."""
    items = [i for i in items if i["id"] not in held and i.get("recurringEventId") not in held]
    masters = {
        row.uid: row for row in Event.objects.filter(calendar=calendar, series__isnull=True).order_by()
    }
    changed = 0
    exceptions = [item for item in items if item.get("recurringEventId")]
    for item in items:
        if item.get("recurringEventId"):
            continue
        gid = item["id"]
        row = masters.get(gid)
        if item.get("status") == "cancelled":
            etags.pop(gid, None)
            if row is not None:
                row.delete()
                masters.pop(gid)
                changed += 1
            continue
        if row is not None and etags.get(gid) == item.get("etag"):
            continue
        masters[gid] = apply_master(calendar, item, row)
        etags[gid] = item.get("etag", "")
        changed += 1
    if full:
        listed = {item["id"] for item in items if not item.get("recurringEventId")}
        listed_live = {i for i in listed if i in masters}
        for gid, row in list(masters.items()):
            if gid not in listed_live and gid not in held and "@" not in gid:
                row.delete()
                masters.pop(gid)
                etags.pop(gid, None)
                changed += 1
    by_master: dict[str, dict[float, Event]] = {}
    for item in exceptions:
        master = masters.get(item["recurringEventId"])
        if master is None:
            continue
        if item.get("status") != "cancelled" and etags.get(item["id"]) == item.get("etag"):
            continue
        overrides = by_master.get(master.uid)
        if overrides is None:
            overrides = by_master[master.uid] = {
                o.recurrence_id.timestamp(): o for o in master.overrides.all() if o.recurrence_id
            }
        apply_exception(master, item, overrides)
        if item.get("status") == "cancelled":
            etags.pop(item["id"], None)
        else:
            etags[item["id"]] = item.get("etag", "")
        changed += 1
    return changed


def sync_account(account: CalendarAccount, *, full: bool = False) -> SyncResult:
    """Mirror the account: its calendar list, then each calendar's events (see the module docstring).

    Raises:
        PermissionDeniedError: the grant is gone (the account is marked ``needs_reconnect``).
        TransientProviderError: Google kept failing; the mirror is as it was, stale but whole.
    """
    result = SyncResult()
    try:
        client = GoogleClient(account)
        for calendar in sync_calendars(client):
            count, was_full = sync_calendar(client, calendar, full=full)
            result.calendars += 1
            result.changed += count
            if was_full:
                result.full.append(calendar.remote_id)
    except ReconnectNeededError as exc:
        mark_needs_reconnect(account, str(exc))
        raise
    if account.status != CalendarAccount.Status.OK:
        CalendarAccount.objects.filter(pk=account.pk).update(status=CalendarAccount.Status.OK, last_error="")
        account.status, account.last_error = CalendarAccount.Status.OK, ""
    return result
