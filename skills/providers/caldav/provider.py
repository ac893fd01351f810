"""The CalDAV provider: calendars on a CalDAV server, mirrored into the built-in store.

**Reads** are the built-in provider's: they read the mirror (see :mod:`skills.providers.caldav.sync`).

**Writes** are worked out on the mirror and then sent to the server, in one database transaction:

1. the batch is applied to the mirror by the built-in provider, inside the transaction, which checks
   ``expected_etag`` against what the user saw, honours operation ids, and produces the before and
   after images and restore images undo needs (the same semantics on every backend);
2. the series the batch changed are found by comparing each UID's rows (ids and etags) before and
   after, and each changed UID's resource is sent once: a new one with ``If-None-Match: *`` under a
   name derived from its UID (a create's UID derived from its operation id, so a retried create
   finds its own resource and never makes a second one), a changed one with ``If-Match`` its last
   known etag, a deleted one by ``DELETE`` with ``If-Match``.  A change to one occurrence becomes a
   RECURRENCE-ID component inside the series' resource, a cancelled occurrence an EXDATE, a change
   to this and following occurrences an UNTIL on the master plus a new resource;
3. only when every request has succeeded is the transaction committed, so the mirror is updated
   after remote success.  A refusal rolls the mirror back; the requests that had already succeeded
   (in this batch, or in an earlier batch of the same unit of work, see
   :mod:`skills.providers.compensation`) are compensated: their resources put back as they were,
   from images taken before the batch, with ``If-Match`` the etag each request left, and a
   compensation that fails is named in the error.  The account is then synced (a 412 is a
   :class:`ConflictError`, so the next read, a fresh preview, sees the server's version).

So a bulk change of 50 occurrences of one series costs one PUT, whatever the number of occurrences.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import icalendar
from django.db import transaction

from skills import inflight
from skills.models import AppliedOperation, Calendar, CalendarAccount, Event
from skills.providers.base import (
    BusyInterval,
    CalendarInfo,
    CalendarProvider,
    ConflictError,
    EventData,
    NotFoundError,
    NotPutBack,
    Occurrence,
    OccurrenceRef,
    PermissionDeniedError,
    ProviderError,
    Scope,
    Write,
    Written,
)
from skills.providers.caldav.client import DavConnection
from skills.providers.caldav.ical import build_resource, parse_resource
from skills.providers.caldav.sync import (
    KIND,
    calendar_state,
    connection_for,
    mark_needs_reconnect,
    sync_account,
)
from skills.providers.compensation import all_or_nothing
from skills.providers.local import LocalProvider

__all__ = ["CaldavProvider", "resource_name", "uid_for_operation"]

_Key = tuple[int, str]  # (calendar pk, UID): one resource


def uid_for_operation(operation_id: str) -> str:
    """The UID a create with ``operation_id`` gets: the same on every retry."""
    return f"{hashlib.sha256(operation_id.encode('utf-8')).hexdigest()[:32]}@calendar-assistant"


def resource_name(uid: str) -> str:
    """The resource name of a new event, derived from its UID (so from its operation id)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", uid)
    if len(safe) > 120 or safe != uid.replace("@", "-"):
        safe = hashlib.sha256(uid.encode("utf-8")).hexdigest()[:40]
    return f"{safe}.ics"


@dataclasses.dataclass
class _Done:
    """A request that succeeded, and how to take it back."""

    key: _Key
    path: str
    etag: str  # the resource's etag after the request ("" when deleted)
    before: str | None  # the resource's text before (None: it did not exist)
    name: str

    @property
    def verb(self) -> Any:
        """What the request did, as a reply names it."""
        return "created" if self.before is None else "deleted" if not self.etag else "changed"


class _Pushed:
    """The requests of one batch the server accepted, and how to take them back (a
    :class:`~skills.providers.compensation.Compensation`, registered before anything is sent)."""

    def __init__(self, provider: CaldavProvider, calendars: dict[int, Calendar]) -> None:
        self.provider = provider
        self.calendars = calendars
        self.done: list[_Done] = []
        self.sending = False
        self.etags: dict[tuple[int, str], tuple[str, str] | None] = {}  # (calendar, path) → etag, uid

    def made(self) -> list[NotPutBack]:
        return [NotPutBack(summary=step.name, verb=step.verb) for step in self.done if step.path]

    def undo(self) -> list[NotPutBack]:
        """Put each resource back as it was, newest first; an update or delete carries ``If-Match``
        with the etag the request left, so one edited since is not overwritten but reported."""
        left = []
        for step in reversed(self.done):
            if not step.path:
                continue
            conn = self.provider._connection(self.calendars[step.key[0]].account)
            now: tuple[str, str] | None = None
            try:
                if step.before is None:
                    conn.delete(step.path, step.etag)
                elif step.etag:
                    now = (conn.update(step.path, step.before, step.etag), step.key[1])
                else:
                    made, etag = conn.create(step.path, step.before)
                    if not made:
                        raise ConflictError(f"{step.path} was made again on the server meanwhile.")
                    now = (etag, step.key[1])
            except ProviderError:
                left.append(NotPutBack(summary=step.name, verb=step.verb))
                now = None
            self.etags[(step.key[0], step.path)] = now if now is not None and now[0] else None
        self.done.clear()
        return left

    def refresh(self) -> None:
        """The etags compensation left go into the stored sync state (a resource put back is then
        not fetched again; one not put back, or of an unknown etag, is), and the accounts are synced
        so that the mirror shows the server's version."""
        if not self.sending:
            return
        accounts = {c.account_id for c in self.calendars.values() if c.account_id is not None}
        with transaction.atomic():
            for account in CalendarAccount.objects.select_for_update().filter(pk__in=accounts):
                for (calendar_pk, path), now in self.etags.items():
                    calendar = self.calendars[calendar_pk]
                    if calendar.account_id != account.pk:
                        continue
                    resources = calendar_state(account, calendar)["resources"]
                    resources.pop(path, None)
                    if now is not None:
                        resources[path] = list(now)
                account.save(update_fields=["sync_state", "updated_at"])
        for account in CalendarAccount.objects.filter(pk__in=accounts):
            with contextlib.suppress(ProviderError):
                sync_account(account)


class CaldavProvider(CalendarProvider):
    """A user's CalDAV calendars; reads from the mirror, writes to the server then the mirror."""

    name = "caldav"

    def __init__(self, user: Any) -> None:
        super().__init__(user)
        self.local = LocalProvider(user)
        self._connections: dict[int, DavConnection] = {}

    # -- reads: the mirror -------------------------------------------------------------------------------
    def list_calendars(self) -> list[CalendarInfo]:
        return self.local.list_calendars()

    def list_occurrences(
        self, *, start: datetime, end: datetime, calendar_ids: list[str] | None = None
    ) -> list[Occurrence]:
        return self.local.list_occurrences(start=start, end=end, calendar_ids=calendar_ids)

    def get_occurrence(self, *, event_id: str, recurrence_id: datetime | None = None) -> Occurrence:
        return self.local.get_occurrence(event_id=event_id, recurrence_id=recurrence_id)

    def get_occurrences(self, refs: Sequence[OccurrenceRef]) -> list[Occurrence | None]:
        return self.local.get_occurrences(refs)

    def busy_reader(
        self,
        *,
        start: datetime,
        end: datetime,
        calendar_ids: list[str] | None = None,
        ignore: frozenset[str] = frozenset(),
    ) -> Callable[[datetime, datetime], list[tuple[float, float]]]:
        return self.local.busy_reader(start=start, end=end, calendar_ids=calendar_ids, ignore=ignore)

    def event_titles(self, *, start: datetime, end: datetime) -> list[str]:
        return self.local.event_titles(start=start, end=end)

    def free_busy(
        self, *, emails: list[str], start: datetime, end: datetime
    ) -> dict[str, list[BusyInterval]]:
        """Other people's busy time: those of this instance, as the built-in store knows them.
        (CalDAV scheduling outboxes, RFC 6638, are not asked: many servers, Radicale among them,
        have none.)"""
        return self.local.free_busy(emails=emails, start=start, end=end)

    def calendar_free_busy(
        self, *, calendar_id: str, start: datetime, end: datetime, from_server: bool = False
    ) -> list[BusyInterval]:
        """Busy spans of one of the user's CalDAV calendars in [start, end), merged: the mirror's
        (no request), or with ``from_server`` a ``free-busy-query`` REPORT (the server's own view,
        which may be newer than the mirror; the mirror's is used if the server has no such report).
        Not the default: Radicale 3.9 expands a series in UTC there, so after a clock change its
        answer is an hour off, where the mirror expands in the event's zone."""
        calendar = self._calendar(calendar_id)
        if from_server:
            try:
                text = self._connection(calendar.account).free_busy(calendar.remote_id, start, end)
                return _busy_from_vfreebusy(text, start, end)
            except PermissionDeniedError:
                raise
            except (ProviderError, ValueError):
                pass
        spans = self.local.busy_reader(start=start, end=end, calendar_ids=[calendar_id])(start, end)
        merged: list[list[float]] = []
        for lo, hi in sorted(spans):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return [
            BusyInterval(start=datetime.fromtimestamp(lo, UTC), end=datetime.fromtimestamp(hi, UTC))
            for lo, hi in merged
        ]

    def sync(self) -> None:
        """Sync every CalDAV account of the user into the mirror."""
        for account in CalendarAccount.objects.filter(owner=self.user, kind=KIND):
            sync_account(account)

    # -- writes ------------------------------------------------------------------------------------------
    def create_event(self, *, calendar_id: str, data: EventData, operation_id: str = "") -> Occurrence:
        write = Write(action="create", calendar_id=calendar_id, data=data, operation_id=operation_id)
        created = self.apply_writes([write])[0].after
        assert created is not None
        return created

    def update_event(
        self,
        *,
        event_id: str,
        data: EventData,
        recurrence_id: datetime | None = None,
        scope: Scope = Scope.OCCURRENCE,
        expected_etag: str = "",
        operation_id: str = "",
    ) -> Occurrence:
        write = Write(
            action="update",
            data=data,
            event_id=event_id,
            recurrence_id=recurrence_id,
            scope=scope,
            expected_etag=expected_etag,
            operation_id=operation_id,
        )
        updated = self.apply_writes([write])[0].after
        assert updated is not None
        return updated

    def delete_event(
        self,
        *,
        event_id: str,
        recurrence_id: datetime | None = None,
        scope: Scope = Scope.OCCURRENCE,
        expected_etag: str = "",
        operation_id: str = "",
    ) -> None:
        write = Write(
            action="delete",
            event_id=event_id,
            recurrence_id=recurrence_id,
            scope=scope,
            expected_etag=expected_etag,
            operation_id=operation_id,
        )
        self.apply_writes([write])

    def restore(
        self,
        *,
        image: dict[str, Any],
        event_id: str = "",
        recurrence_id: datetime | None = None,
        operation_id: str = "",
    ) -> Written:
        write = Write(
            action="restore",
            image=image,
            event_id=event_id,
            recurrence_id=recurrence_id,
            operation_id=operation_id,
        )
        return self.apply_writes([write])[0]

    def apply_writes(self, writes: Sequence[Write]) -> list[Written]:
        """Apply the batch to the mirror, send each changed resource once, commit only if all were
        accepted (see the module docstring).

        Raises:
            ConflictError: a target changed since it was read, here or on the server (412).
            NotFoundError: a target no longer exists.
            PermissionDeniedError: the server refused the credentials (the account is marked
                ``needs_reconnect``) or the change.
            TransientProviderError: the server could not be reached or failed; nothing is changed.
        """
        if not writes:
            return []
        calendars = self._calendars()
        pushed = _Pushed(self, calendars)
        try:
            with all_or_nothing() as unit, transaction.atomic():
                unit.add(pushed)
                accounts = {
                    account.pk: account
                    for account in CalendarAccount.objects.select_for_update().filter(
                        pk__in={c.account_id for c in calendars.values()}
                    )
                }
                before_rows = self._fingerprint(calendars)
                pre_images = self._pre_images(writes, calendars, accounts)
                results = self.local.apply_writes(writes)
                results = self._stable_uids(writes, results, calendars)
                after_rows = self._fingerprint(calendars)
                dirty = sorted(
                    key
                    for key in before_rows.keys() | after_rows.keys()
                    if before_rows.get(key) != after_rows.get(key)
                )
                # New resources first, deletions last: a failure midway leaves the least to put back.
                dirty.sort(key=lambda key: (key in before_rows, key not in after_rows))
                pushed.sending = True
                for key in dirty:
                    calendar = calendars[key[0]]
                    assert calendar.account_id is not None
                    account = accounts[calendar.account_id]
                    pushed.done.append(self._push(account, calendar, key, pre_images.get(key)))
                for account in accounts.values():
                    account.save(update_fields=["sync_state", "updated_at"])
        except ProviderError as exc:
            cause = getattr(exc, "cause", exc)
            if pushed.sending and isinstance(cause, PermissionDeniedError) and "password" in str(cause):
                for account in {c.account_id: c.account for c in calendars.values() if c.account}.values():
                    mark_needs_reconnect(account, str(cause))
            raise
        return [self._with_calendar(written) for written in results]

    def take_back(self, key: str, writes: list[dict[str, Any]]) -> list[NotPutBack]:
        """See :meth:`CalendarProvider.take_back`: each resource the set wrote gets the mirror's
        version again where the server's shows the set's writes (carrying ``key``, each target as
        the set made it, or gone after a delete of the set's); one the set created goes.  A version
        that shows anything else was edited since, and is left as it is and named.  One request
        per resource, with ``If-Match``."""
        calendars = self._calendars()
        groups: dict[tuple[int, str], list[dict[str, Any]]] = {}
        for write in writes:
            named = str(write.get("calendar_id", ""))
            calendar = calendars.get(int(named)) if named.isdigit() else None
            uid = self._uid_of(write) if calendar is not None else ""
            if calendar is not None and uid:
                groups.setdefault((calendar.pk, uid), []).append(write)
        left: list[NotPutBack] = []
        with transaction.atomic():
            accounts = {
                a.pk: a
                for a in CalendarAccount.objects.select_for_update().filter(
                    pk__in={c.account_id for c in calendars.values()}
                )
            }
            for (calendar_pk, uid), group in groups.items():
                calendar = calendars[calendar_pk]
                account = accounts.get(calendar.account_id or 0)
                if account is None:
                    continue
                try:
                    put_back = self._put_back(account, calendar, uid, key, group)
                except ProviderError:
                    put_back = False
                if not put_back:
                    left.append(NotPutBack.of(self._name_of(calendar, uid), group[0]["action"]))
            for account in accounts.values():
                account.save(update_fields=["sync_state", "updated_at"])
        return left

    @staticmethod
    def _uid_of(write: dict[str, Any]) -> str:
        if write["action"] == "create":
            return uid_for_operation(str(write["operation_id"]))
        event_id = str(write.get("event_id", ""))
        if not event_id.isdigit():
            return ""
        row = Event.objects.filter(pk=int(event_id)).select_related("series").first()
        return "" if row is None else (row.series.uid if row.series is not None else row.uid)

    def _name_of(self, calendar: Calendar, uid: str) -> str:
        master, _ = self._rows(calendar, uid)
        return master.summary if master is not None else "an event"

    def _put_back(
        self, account: CalendarAccount, calendar: Calendar, uid: str, key: str, writes: list[dict[str, Any]]
    ) -> bool:
        """One resource back as the mirror holds it; False when the server's version is not the
        set's (left alone).  Nothing to do (the set's write never arrived) is True."""
        conn = self._connection(account)
        resources: dict[str, list[str]] = calendar_state(account, calendar)["resources"]
        path = next((p for p, (_, u) in resources.items() if u == uid), None)
        if path is None:
            path = conn.path_of(conn.absolute(calendar.remote_id + resource_name(uid)))
        found = conn.get(path)
        master, overrides = self._rows(calendar, uid)
        if found is None:
            if master is not None and all(w["action"] == "delete" for w in writes):
                made, etag = conn.create(path, build_resource(master, overrides))  # the set deleted it
                if made:
                    resources[path] = [etag, uid]
            return True
        if not inflight.carries_key(found.data, key):
            return True  # the set's write never arrived, or was replaced whole: nothing of it there
        if not all(_shows(found.data, uid, write) for write in writes):
            return False
        if master is None:  # the set made it: it goes
            conn.delete(path, found.etag)
            resources.pop(path, None)
        else:
            resources[path] = [conn.update(path, build_resource(master, overrides), found.etag), uid]
        return True

    # -- helpers -----------------------------------------------------------------------------------------
    def _calendars(self) -> dict[int, Calendar]:
        found = Calendar.objects.filter(owner=self.user, account__kind=KIND).select_related("account")
        return {calendar.pk: calendar for calendar in found}

    def _calendar(self, calendar_id: str) -> Calendar:
        calendar = self._calendars().get(int(calendar_id)) if calendar_id.isdigit() else None
        if calendar is None:
            raise NotFoundError(f"You have no CalDAV calendar with id {calendar_id!r}.")
        return calendar

    def _connection(self, account: CalendarAccount | None) -> DavConnection:
        assert account is not None
        conn = self._connections.get(account.pk)
        if conn is None:
            conn = self._connections[account.pk] = connection_for(account)
        return conn

    @staticmethod
    def _fingerprint(calendars: dict[int, Calendar]) -> dict[_Key, frozenset[tuple[int, str]]]:
        """Every mirrored row of these calendars by resource: (row id, etag) per UID."""
        rows = Event.objects.filter(calendar_id__in=calendars).order_by()
        found: dict[_Key, set[tuple[int, str]]] = {}
        for calendar_id, uid, pk, etag in rows.values_list("calendar_id", "uid", "pk", "etag"):
            found.setdefault((calendar_id, uid), set()).add((pk, etag))
        return {key: frozenset(value) for key, value in found.items()}

    def _rows(self, calendar: Calendar, uid: str) -> tuple[Event | None, list[Event]]:
        rows = list(Event.objects.filter(calendar=calendar, uid=uid).select_related("calendar"))
        master = next((row for row in rows if row.series_id is None), None)
        return master, [row for row in rows if row.series_id is not None]

    def _pre_images(
        self, writes: Sequence[Write], calendars: dict[int, Calendar], accounts: dict[int, CalendarAccount]
    ) -> dict[_Key, str]:
        """The server's resources the batch may change, as they are now: what a failure puts back."""
        ids = {int(w.event_id) for w in writes if w.action in ("update", "delete") and w.event_id.isdigit()}
        keys: set[_Key] = set()
        if ids:
            rows = Event.objects.filter(pk__in=ids, calendar_id__in=calendars).values_list(
                "calendar_id", "uid"
            )
            keys.update(rows)
        for write in writes:
            image = write.image or {}
            for part in ("rows", "left"):
                for row in image.get(part) or ():
                    if str(row.get("calendar_id", "")).isdigit() and row.get("uid"):
                        keys.add((int(row["calendar_id"]), str(row["uid"])))
        images: dict[_Key, str] = {}
        for key in keys:
            calendar = calendars.get(key[0])
            if calendar is None:
                continue
            master, overrides = self._rows(calendar, key[1])
            if master is not None:
                images[key] = build_resource(master, overrides)
        return images

    def _stable_uids(
        self, writes: Sequence[Write], results: list[Written], calendars: dict[int, Calendar]
    ) -> list[Written]:
        """Give each event a create made with an operation id the UID derived from it, so a retry
        after a lost answer names the same resource (and finds it) rather than a second one."""
        fixed = []
        for write, written in zip(writes, results, strict=True):
            after = written.after
            if (
                write.action == "create"
                and write.operation_id
                and written.before is None
                and after is not None
                and after.calendar_id.isdigit()
                and int(after.calendar_id) in calendars
            ):
                uid = uid_for_operation(write.operation_id)
                calendar_id = int(after.calendar_id)
                held = (
                    Event.objects.filter(calendar_id=calendar_id, uid=uid, series=None)
                    .exclude(pk=int(after.event_id))
                    .first()
                )
                if held is not None:
                    # An earlier try reached the server and a sync brought it here: that is the event.
                    AppliedOperation.objects.filter(owner=self.user, operation_id=write.operation_id).update(
                        event_id=held.pk
                    )
                    Event.objects.filter(pk=int(after.event_id)).delete()
                    Event.objects.filter(pk=held.pk).update(operation_id=write.operation_id)
                    written = Written(before=None, after=self.local.get_occurrence(event_id=str(held.pk)))
                elif after.uid != uid:
                    Event.objects.filter(calendar_id=calendar_id, uid=after.uid).update(uid=uid)
                    written = dataclasses.replace(written, after=dataclasses.replace(after, uid=uid))
            fixed.append(written)
        return fixed

    def _push(self, account: CalendarAccount, calendar: Calendar, key: _Key, before: str | None) -> _Done:
        """Send one changed resource; record its new etag in the account's sync state."""
        conn = self._connection(account)
        resources: dict[str, list[str]] = calendar_state(account, calendar)["resources"]
        uid = key[1]
        path = next((p for p, (_, u) in resources.items() if u == uid), None)
        master, overrides = self._rows(calendar, uid)
        name = master.summary if master is not None else uid
        if master is None:
            if path is None:  # never on the server
                return _Done(key, "", "", None, name)
            conn.delete(path, resources[path][0])
            del resources[path]
            return _Done(key, path, "", before, name)
        text = _marked(build_resource(master, overrides), inflight.current_key())
        if path is not None:
            try:
                etag = conn.update(path, text, resources[path][0])
            except ConflictError as exc:
                etag = self._over_own_write(conn, path, text, exc)
            resources[path] = [etag, uid]
            return _Done(key, path, etag, before, name)
        path = conn.path_of(conn.absolute(calendar.remote_id + resource_name(uid)))
        made, etag = conn.create(path, text)
        if not made:
            # Already there: ours from an earlier try whose answer was lost, or someone else's.
            existing = conn.get(path)
            if existing is None or f"UID:{uid}" not in existing.data.replace("\r\n ", "").replace("\n ", ""):
                raise ConflictError(f"Another event already has the name {path!r} on the CalDAV server.")
            etag = conn.update(path, text, existing.etag)
            resources[path] = [etag, uid]
            return _Done(key, path, etag, existing.data, name)
        resources[path] = [etag, uid]
        return _Done(key, path, etag, None, name)

    @staticmethod
    def _over_own_write(conn: DavConnection, path: str, text: str, refused: ConflictError) -> str:
        """A 412 while resuming a set whose earlier attempt died: if the server's version carries the
        set's own key and holds just what this attempt sends, it is that attempt's write (sent, never
        committed here), and this one goes over it.  Anything else is someone else's edit (a client
        that keeps unknown properties keeps the key too), refused as ever."""
        key = inflight.current_key()
        if inflight.resuming() and key:
            found = conn.get(path)
            if found is not None and inflight.carries_key(found.data, key) and _same_events(found.data, text):
                return conn.update(path, text, found.etag)
        raise refused

    @staticmethod
    def _with_calendar(written: Written) -> Written:
        """Restore images name their calendar at the top level, as the router expects."""
        image = written.restore_image
        if image is None or "calendar_id" in image:
            return written
        shown = written.before or written.after
        calendar_id = shown.calendar_id if shown is not None else ""
        if not calendar_id:
            rows = image.get("rows") or image.get("left") or ()
            calendar_id = str(rows[0].get("calendar_id", "")) if rows else ""
        return dataclasses.replace(written, restore_image={**image, "calendar_id": calendar_id})


def _same_events(held: str, sent: str) -> bool:
    """Whether two versions of a resource hold the same events, as the mirror reads them."""
    try:
        return parse_resource(held, fallback_zone="UTC") == parse_resource(sent, fallback_zone="UTC")
    except ValueError:
        return False


def _shows(text: str, uid: str, write: dict[str, Any]) -> bool:
    """Whether a resource shows one write of a set as the set made it (see skills.inflight)."""
    try:
        resource = next((r for r in parse_resource(text, fallback_zone="UTC") if r.uid == uid), None)
    except ValueError:
        return False
    stamp = str(write.get("recurrence_id") or "")
    rid = datetime.fromisoformat(stamp) if stamp else None
    master = resource.master if resource is not None else None
    one = rid is not None and master is not None and bool(master.rrule)
    if write["action"] == "delete":
        return one and master is not None and any(_instant(x) == rid for x in master.exdates)
    after = write.get("after")
    if resource is None or not after:
        return False
    event = next((o for o in resource.overrides if o.recurrence_id == rid), None) if one else master
    if event is None:
        return False
    start, end = _instant(after["start"]), _instant(after["end"])
    if after.get("all_day"):  # the days, as the event's wall-clock midnights name them
        start = datetime.fromisoformat(after["start"]).date()
        end = datetime.fromisoformat(after["end"]).date()
    return (
        event.summary == after["summary"]
        and (event.location or "") == (after["location"] or "")
        and _instant(event.start) == start
        and _instant(event.end) == end
    )


def _instant(value: Any) -> Any:
    """A datetime (aware) or a date, from either or from ISO text, for comparing."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo else value
    return value


def _marked(text: str, key: str) -> str:
    """The resource with the sending set's key on each of its components (see skills.inflight)."""
    if not key:
        return text
    marked = []
    for line in text.splitlines(keepends=True):
        if line.rstrip("\r\n") == "END:VEVENT":
            marked.append(f"{inflight.CALDAV_PROPERTY}:{key}{line[len('END:VEVENT'):]}")
        marked.append(line)
    return "".join(marked)


def _busy_from_vfreebusy(text: str, start: datetime, end: datetime) -> list[BusyInterval]:
    calendar = icalendar.Calendar.from_ical(text)
    spans: list[tuple[datetime, datetime]] = []
    for component in calendar.walk("VFREEBUSY"):
        entries = component.get("freebusy")
        for entry in entries if isinstance(entries, list) else [entries] if entries is not None else []:
            if str(entry.params.get("FBTYPE", "BUSY")).upper() == "FREE":
                continue
            for period in entry.dt if isinstance(entry.dt, list) else [entry.dt]:
                lo, hi = period
                if not isinstance(hi, datetime):
                    hi = lo + hi
                spans.append((max(lo, start).astimezone(UTC), min(hi, end).astimezone(UTC)))
    merged: list[list[datetime]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [BusyInterval(start=lo, end=hi) for lo, hi in merged if hi > lo]
