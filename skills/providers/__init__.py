"""Calendar backends, chosen per calendar; skills only ever see the :class:`CalendarProvider` API.

**Registry.**  ``settings.CALENDAR_PROVIDERS`` maps a kind of calendar account to the dotted path of
the provider class that serves it, the way ``SESSION_ENGINE`` names a session backend::

    CALENDAR_PROVIDERS = {"local": "skills.providers.local.LocalProvider"}

A calendar without an account (every calendar before accounts existed) is the built-in store's, kind
``"local"``; a calendar with one is of its account's kind (:class:`skills.models.CalendarAccount`).
:func:`provider_class` resolves a kind once per dotted path (imported with ``import_string`` and
cached); a kind nobody registered is an :class:`UnknownProviderError`, never a silent fallback.

**Routing.**  :func:`provider_for` gives callers one provider for all of a user's calendars, a
:class:`CalendarRouter`.  Reads go to the built-in store, which holds every calendar (see below);
writes go to the provider of the calendar they change.  The router reads which of the user's
calendars are not plain built-in ones (on an account of another kind, or not ``writable``) once, at
its first write; a user with none has every write handed to the built-in provider unchanged, and
otherwise routing a write is a dict lookup (plus one query per batch for the calendars of the events
it names).  So the built-in path costs what it did: no query per read or write.

**The intended shape of a remote kind** (Google, CalDAV; not registered yet):

- Its calendars are :class:`~skills.models.Calendar` rows with ``account`` set and ``remote_id``
  naming them remotely.  The provider's sync (a Celery task: on a schedule, after a write, and
  from ``syncToken``/``sync-collection`` where the server has them) mirrors their events into the
  local store as ordinary :class:`~skills.models.Event` rows, keeping the remote id and etag beside
  each row.
- Reads are served from that mirror by the built-in provider: a chat turn never waits on the
  network, free-time search, previews and undo read one data model whatever the backend, and a
  remote outage degrades to slightly stale reads, not errors.
- Writes go to the remote first, with its own idempotency (a client-chosen id from the operation
  id, ``If-None-Match``) and etag checks (``If-Match``), and what the server answers is then written
  to the mirror.  A refusal leaves the mirror as it was and becomes the contract's exceptions
  (412 → :class:`ConflictError`, a revoked grant → :class:`PermissionDeniedError` and the account
  marked ``needs_reconnect``, 429/5xx → :class:`TransientProviderError`).  The class implements at
  least :meth:`CalendarProvider.apply_writes` (the router hands it only writes to its own calendars,
  in order) and ``restore``; its reads may simply be the built-in provider's, since they read the
  mirror.
- A restore image it reports names its calendar at the top level (``"calendar_id"``), so the router
  can hand the restore back to it even after the event is gone.
- It passes the conformance suite (``tests/providers/conformance.py``) with a factory of its own.

A batch that changes calendars of several kinds is applied in order, kind by kind, as one unit of
work (:func:`skills.providers.compensation.all_or_nothing` around one transaction): if any part
fails, the built-in store's part and every mirror roll back, and the remote writes already made
(by an earlier part, or earlier in the failing part) are taken back from the images each remote
provider recorded before writing, so the built-in part never commits without its remote part.
What cannot be taken back (a 412: someone edited the event meanwhile) is named in a
:class:`~skills.providers.base.PartlyAppliedError`, never forced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils.module_loading import import_string

from skills.providers.base import (
    BusyInterval,
    CalendarInfo,
    CalendarProvider,
    EventData,
    NotPutBack,
    Occurrence,
    OccurrenceRef,
    PermissionDeniedError,
    ProviderError,
    Scope,
    Write,
    Written,
)
from skills.providers.compensation import all_or_nothing

__all__ = ["BUILT_IN", "CalendarRouter", "UnknownProviderError", "provider_class", "provider_for"]

# The kind of a calendar without an account: the built-in store.
BUILT_IN = "local"


class UnknownProviderError(ProviderError, ImproperlyConfigured):
    """No provider is registered for a kind of calendar account.

    A :class:`ProviderError`, so a workflow step that meets it reports it like any refused write,
    and an :class:`ImproperlyConfigured`, since the fix is in the settings.
    """


@cache
def _provider_class_at(path: str) -> type[CalendarProvider]:
    try:
        found = import_string(path)
    except ImportError as exc:
        raise ImproperlyConfigured(
            f"CALENDAR_PROVIDERS names {path!r}, which cannot be imported: {exc}"
        ) from exc
    if not (isinstance(found, type) and issubclass(found, CalendarProvider)):
        raise ImproperlyConfigured(f"CALENDAR_PROVIDERS names {path!r}, which is not a CalendarProvider.")
    return found


def provider_class(kind: str) -> type[CalendarProvider]:
    """The provider class registered for accounts of ``kind`` (``"local"`` for the built-in store).

    Raises:
        UnknownProviderError: ``CALENDAR_PROVIDERS`` has no entry for ``kind``.
        ImproperlyConfigured: the entry names nothing importable, or not a provider.
    """
    registered: dict[str, str] = settings.CALENDAR_PROVIDERS
    path = registered.get(kind)
    if path is None:
        raise UnknownProviderError(
            f"No calendar provider is registered for {kind!r} accounts: CALENDAR_PROVIDERS has "
            f"{', '.join(sorted(registered)) or 'none'}; add {kind!r} with the dotted path of its class."
        )
    return _provider_class_at(path)


def provider_for(user: Any) -> CalendarProvider:
    """The provider serving all of ``user``'s calendars: it routes each write to its calendar's
    provider and serves reads from the built-in store (see the module docstring)."""
    return CalendarRouter(user)


@dataclass(frozen=True, slots=True)
class _Route:
    """Why a calendar's writes do not simply go to the built-in provider."""

    kind: str
    writable: bool
    name: str


class CalendarRouter(CalendarProvider):
    """One user's calendars, whichever providers serve them.

    Every read is the built-in provider's (it holds the mirror of every remote calendar); a write
    goes to the provider of its calendar's account kind, and one to a calendar the assistant may not
    write is refused before anything is written.
    """

    name = "router"

    def __init__(self, user: Any) -> None:
        super().__init__(user)
        self.local = provider_class(BUILT_IN)(user)
        self._providers: dict[str, CalendarProvider] = {BUILT_IN: self.local}
        # Calendar id → route, for the user's calendars that are not plain built-in ones; read at
        # the first write (reads never need it) and kept for the life of the router (one run).
        self._routes: dict[str, _Route] | None = None

    # -- reads: from the built-in store, which mirrors every calendar ------------------------------------
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
        return self.local.free_busy(emails=emails, start=start, end=end)

    def default_calendar(self) -> CalendarInfo:
        return self.local.default_calendar()

    def calendar_by_key(self, key: str) -> CalendarInfo:
        return self.local.calendar_by_key(key)

    # -- writes: to the provider of the calendar changed ------------------------------------------------
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
        """Each write by its calendar's provider, in order; with no calendar other than writable
        built-in ones, the whole batch goes to the built-in provider as it is.  A batch for several
        providers is all or nothing, remote writes included (see the module docstring).

        Raises:
            PermissionDeniedError: a write changes a calendar the assistant may not write (nothing
                of the batch is written).
            UnknownProviderError: a write changes a calendar of a kind nobody registered.
            PartlyAppliedError: a part failed and a remote write already made could not be taken back.
        """
        routes = self._routes if self._routes is not None else self._load_routes()
        if not routes:
            return self.local.apply_writes(writes)
        batches: list[tuple[CalendarProvider, list[Write]]] = []
        for write, calendar_id in zip(writes, self._calendars_of(writes), strict=True):
            provider = self._route(routes.get(calendar_id))
            if batches and batches[-1][0] is provider:
                batches[-1][1].append(write)
            else:
                batches.append((provider, [write]))
        if len(batches) == 1:
            return batches[0][0].apply_writes(batches[0][1])
        # All or nothing across the parts; see the module docstring.
        with all_or_nothing(), transaction.atomic():
            return [written for provider, batch in batches for written in provider.apply_writes(batch)]

    def take_back(self, key: str, writes: list[dict[str, Any]]) -> list[NotPutBack]:
        """Each calendar's part by its provider (see :meth:`CalendarProvider.take_back`)."""
        routes = self._routes if self._routes is not None else self._load_routes()
        parts: dict[int, tuple[CalendarProvider, list[dict[str, Any]]]] = {}
        for write in writes:
            route = routes.get(str(write.get("calendar_id", "")))
            if route is None:
                continue
            provider = self._route(route)
            parts.setdefault(id(provider), (provider, []))[1].append(write)
        return [left for provider, part in parts.values() for left in provider.take_back(key, part)]

    def provider_of(self, calendar_id: str) -> CalendarProvider:
        """The provider that writes to calendar ``calendar_id`` (the built-in one for an id it does
        not know, which then answers NotFoundError as ever)."""
        routes = self._routes if self._routes is not None else self._load_routes()
        return self._route(routes.get(calendar_id))

    # -- helpers ----------------------------------------------------------------------------------------
    def _route(self, route: _Route | None) -> CalendarProvider:
        if route is None:
            return self.local
        if not route.writable:
            raise PermissionDeniedError(f"The calendar {route.name!r} is read-only for the assistant.")
        provider = self._providers.get(route.kind)
        if provider is None:
            provider = self._providers[route.kind] = provider_class(route.kind)(self.user)
        return provider

    def _load_routes(self) -> dict[str, _Route]:
        from django.db.models import Q

        from skills.models import Calendar

        special = Calendar.objects.filter(owner=self.user).filter(
            Q(writable=False) | (Q(account__isnull=False) & ~Q(account__kind=BUILT_IN))
        )
        self._routes = {
            str(pk): _Route(kind=kind or BUILT_IN, writable=writable, name=name)
            for pk, kind, writable, name in special.values_list("pk", "account__kind", "writable", "name")
        }
        return self._routes

    def _calendars_of(self, writes: Sequence[Write]) -> list[str]:
        """The calendar each write changes ("" where none is found: the built-in provider then says
        what is wrong), from one query for every event the batch names."""
        from skills.models import Event

        named = {pk for write in writes if write.action != "create" for pk in _event_pks(write)}
        found: dict[int, int] = {}
        if named:
            rows = Event.objects.filter(calendar__owner=self.user, pk__in=named).order_by()
            found = dict(rows.values_list("pk", "calendar_id"))
        calendars = []
        for write in writes:
            if write.action == "create":
                calendars.append(write.calendar_id)
                continue
            pk = next((pk for pk in _event_pks(write) if pk in found), None)
            calendars.append(str(found[pk]) if pk is not None else _image_calendar(write.image))
        return calendars


def _event_pks(write: Write) -> list[int]:
    """The event rows a write names: its target and, for a restore, the rows its image names (the
    built-in store's images name rows by id; a deleted series' rows are gone, hence the fallback
    to the image's calendar)."""
    ids = [write.event_id]
    image = write.image or {}
    ids.append(str(image.get("series", "")))
    ids.extend(str(row.get("id", "")) for part in ("left", "rows") for row in image.get(part) or ())
    return [int(i) for i in ids if i.isascii() and i.isdigit() and len(i) <= 18]


def _image_calendar(image: dict[str, Any] | None) -> str:
    """The calendar a restore image names: its own ``calendar_id`` (remote providers), else that of
    the first series row it puts back (the built-in store's)."""
    if not image:
        return ""
    if image.get("calendar_id"):
        return str(image["calendar_id"])
    rows = image.get("rows") or image.get("left") or ()
    return str(rows[0].get("calendar_id", "")) if rows else ""
