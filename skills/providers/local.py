"""The built-in calendar: the user's calendars in this app's own database, the offline default.

This module is the contract's edge: it scopes every read and write to ``self.user``, checks etags,
honours idempotency keys and turns store errors into the provider exceptions.  Batches of reads and
writes read their targets once for all (:class:`_Targets`), so a change set of 500 occurrences costs
a few queries rather than several reads and a write each.  The store's rules
(overrides, EXDATEs, splits) live in :mod:`skills.services`; reads in :mod:`skills.selectors`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from preferences.selectors import busy_shared_with, user_timezone
from skills import services
from skills.freetime import merge
from skills.hotsql import event_summaries
from skills.models import AppliedOperation, Calendar, Event
from skills.providers.base import (
    BusyInterval,
    CalendarInfo,
    CalendarProvider,
    ConflictError,
    EventData,
    NotFoundError,
    Occurrence,
    OccurrenceRef,
    ProviderError,
    Scope,
    Write,
    Written,
)
from skills.recurrence import Expansion, expansion, occurrence_from_row, read_in
from skills.selectors import (
    BusyIndex,
    calendar_get,
    calendar_info,
    calendar_list,
    event_get,
    occurrence_get,
    occurrences_between,
)

__all__ = ["LocalProvider"]


def _utc(moment: datetime, what: str) -> datetime:
    if moment.tzinfo is None:
        raise ProviderError(f"The {what} needs a time zone (an aware datetime).")
    return moment.astimezone(UTC)


@contextmanager
def _invalid_as_provider_error() -> Iterator[None]:
    """Report a request the store refuses as the one exception family callers catch."""
    try:
        yield
    except ValidationError as exc:
        raise ProviderError("; ".join(exc.messages)) from exc
    except ValueError as exc:
        raise ProviderError(str(exc)) from exc


class LocalProvider(CalendarProvider):
    """Calendars stored in this app's database; ids are primary keys as strings.

    All-day occurrences it answers with lie on their dates in the user's zone, whatever their
    calendar's (:func:`skills.recurrence.read_in`), and a time given for an all-day event names a
    day there: the user is who reads and writes through this provider.
    """

    name = "local"

    def __init__(self, user: Any) -> None:
        super().__init__(user)
        self._zone: ZoneInfo | None = None

    def reader_zone(self) -> ZoneInfo:
        """The user's zone, read at the first all-day occurrence met (a read without one costs no
        query more) and kept for the life of the provider (one run)."""
        if self._zone is None:
            self._zone = ZoneInfo(user_timezone(user=self.user))
        return self._zone

    # -- reads ------------------------------------------------------------------------------------------
    def list_calendars(self) -> list[CalendarInfo]:
        return calendar_list(user=self.user)

    def list_occurrences(
        self, *, start: datetime, end: datetime, calendar_ids: list[str] | None = None
    ) -> list[Occurrence]:
        calendars = self._calendars(calendar_ids)
        if not calendars:
            return []
        return occurrences_between(
            calendars=calendars,
            start=_utc(start, "window start"),
            end=_utc(end, "window end"),
            reader=self.reader_zone,
        )

    def busy_reader(
        self,
        *,
        start: datetime,
        end: datetime,
        calendar_ids: list[str] | None = None,
        ignore: frozenset[str] = frozenset(),
    ) -> Callable[[datetime, datetime], list[tuple[float, float]]]:
        calendars = self._calendars(calendar_ids)
        if not calendars:
            return lambda lo, hi: []
        index = BusyIndex(
            calendars=calendars, start=_utc(start, "window start"), end=_utc(end, "window end"), ignore=ignore
        )
        return lambda lo, hi: index.spans(_utc(lo, "window start"), _utc(hi, "window end"))

    def _calendars(self, calendar_ids: list[str] | None) -> list[CalendarInfo]:
        calendars = self.list_calendars()
        if calendar_ids is not None:
            unknown = set(calendar_ids) - {info.id for info in calendars}
            if unknown:
                raise NotFoundError(f"You have no calendar with id {sorted(unknown)[0]!r}.")
            calendars = [info for info in calendars if info.id in calendar_ids]
        return calendars

    def event_titles(self, *, start: datetime, end: datetime) -> list[str]:
        # One query on masters and overrides whose span meets the window: no expansion needed to
        # know which titles exist.
        return sorted(event_summaries(self.user.pk, start=_utc(start, "start"), end=_utc(end, "end")))

    def get_occurrence(self, *, event_id: str, recurrence_id: datetime | None = None) -> Occurrence:
        master, rid = self._resolve(event_id, recurrence_id)
        return self._seen(self._current(master, rid))

    def get_occurrences(self, refs: Sequence[OccurrenceRef]) -> list[Occurrence | None]:
        """Many occurrences in a few queries, however many are asked for (see :class:`_Targets`)."""
        targets = _Targets.load(self, refs, for_update=False)
        found: list[Occurrence | None] = []
        for event_id, recurrence_id in refs:
            try:
                current = targets.current(*targets.resolve(event_id, recurrence_id))
            except NotFoundError:
                current = None
            found.append(self._seen(current) if current is not None else None)
        return found

    def free_busy(
        self, *, emails: list[str], start: datetime, end: datetime
    ) -> dict[str, list[BusyInterval]]:
        """Busy spans of other users of this instance, by email; never what the events are.  Someone who
        does not let this user see them (``busy_visible_to``) is left out, as an address of nobody here
        would be: an empty list would say they are free."""
        window = (_utc(start, "window start"), _utc(end, "window end"))
        users = get_user_model().objects.filter(is_active=True)
        busy: dict[str, list[BusyInterval]] = {}
        for email in emails:
            # A blank address would match every user who has none.
            owners = users.filter(email__iexact=email.strip()) if email.strip() else users.none()
            found = list(owners.values_list("pk", flat=True))
            shared = busy_shared_with(viewer=self.user, owner_ids=found) if found else set()
            if found and not shared:
                continue
            owners = owners.filter(pk__in=shared)
            calendars = [calendar_info(c) for c in Calendar.objects.filter(owner__in=owners)]
            index = BusyIndex(calendars=calendars, start=window[0], end=window[1])
            spans = merge(index.spans(*window))
            busy[email] = [
                BusyInterval(start=datetime.fromtimestamp(lo, UTC), end=datetime.fromtimestamp(hi, UTC))
                for lo, hi in spans
            ]
        return busy

    # -- writes -----------------------------------------------------------------------------------------
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
        """Apply writes in order as one unit (one transaction), each at most once per operation id.

        Every target is read and locked up front in a few queries for the whole batch, and that read
        serves as its etag check, its before-image and the state its write starts from, so a write
        costs its own INSERT or UPDATE and little else; the INSERTs of first changes to occurrences
        are made together (:meth:`_Targets.flush`).  Receipts are written in the same transaction
        as the changes, so a crash leaves neither; a concurrent twin loses on a receipt's unique
        constraint and answers with the winner's results.  A replayed write reports the state it
        left as both before and after (its before-image went with the first write); a replayed
        delete reports neither.
        """
        ops = [w.operation_id for w in writes if w.operation_id]
        receipts = self._receipts(ops)
        try:
            with transaction.atomic():
                pending = [w for w in writes if w.operation_id not in receipts]
                # A restore reads the rows its image names itself: some are gone, by design.
                refs = [(w.event_id, w.recurrence_id) for w in pending if w.action in ("update", "delete")]
                targets = _Targets.load(self, refs, for_update=True)
                results: list[Written] = []
                done: list[tuple[str, Event | None, datetime | None]] = []
                for write in writes:
                    receipt = receipts.get(write.operation_id)
                    if receipt is not None:
                        targets.flush()
                        results.append(self._replay(write, receipt))
                        continue
                    written, event, rid = self._write(write, targets)
                    results.append(written)
                    if write.operation_id:
                        done.append((write.operation_id, event, rid))
                targets.flush()
                # Written last, in one go; a row a later write of the batch deleted (its pk gone)
                # is named by none, as the foreign key's SET_NULL would have left an earlier receipt.
                AppliedOperation.objects.bulk_create(
                    AppliedOperation(
                        owner=self.user,
                        operation_id=op,
                        event=event if event is not None and event.pk is not None else None,
                        recurrence_id=rid,
                    )
                    for op, event, rid in done
                )
        except IntegrityError:
            receipts = self._receipts(ops)
            if len(ops) < len(writes) or len(receipts) < len(set(ops)):
                raise
            results = [self._replay(write, receipts[write.operation_id]) for write in writes]
        return [self._written_seen(written) for written in results]

    def _write(self, write: Write, targets: _Targets) -> tuple[Written, Event | None, datetime | None]:
        """One write against the batch's read; also what its receipt names (the row and occurrence)."""
        if write.action != "update" or write.scope is not Scope.OCCURRENCE:
            targets.flush()  # these read and write whole rows and series: the database must be whole
        if write.action == "create":
            event = self._create(write)
            return Written(before=None, after=self._result(event, None)), event, None
        if write.action == "restore":
            return self._restore(write, targets)
        master, rid = targets.resolve(write.event_id, write.recurrence_id)
        before = targets.current(master, rid)
        if before is None:
            raise NotFoundError("That occurrence has been cancelled or is not part of the series.")
        if write.expected_etag and write.expected_etag != before.etag:
            raise ConflictError(f"{before.summary!r} changed since it was read; read it again.")
        original, scope, data = before.recurrence_id, write.scope, write.data
        # A row about to change as a whole is forgotten first: a deleted one loses its pk.
        if write.action == "delete":
            if original is None or scope is Scope.SERIES:
                image = _series_restore_image([services.series_image(master)], [])
                targets.forget(master)
                services.event_delete(event=master)
            elif scope is Scope.OCCURRENCE:
                self._require_occurrence(rid, scope)
                override = targets.override(master, original)
                image = {
                    "kind": "occurrence",
                    "series": str(master.pk),
                    "recurrence_id": original.astimezone(UTC).isoformat(),
                    "override": services.row_image(override) if override is not None else None,
                }
                services.occurrence_cancel(master=master, recurrence_id=original)
                targets.replace(master, original, None)
            else:
                self._require_occurrence(rid, scope)
                whole = services.series_image(master)
                targets.forget(master)
                services.series_truncate(master=master, recurrence_id=original)
                # Cut at its first occurrence, the series is deleted (and the row has lost its pk).
                left = [services.series_image(master)] if master.pk is not None else []
                image = _series_restore_image([whole], left)
            return Written(before=before, after=None, restore_image=image), None, None
        data = self._dated(data, all_day=master.all_day)
        with _invalid_as_provider_error():
            if original is None:
                event = services.event_apply(event=master, data=data)
                return Written(before=before, after=targets.current(event, None)), event, None
            if scope is Scope.SERIES:
                whole = services.series_image(master)
                targets.forget(master)
                moved = services.series_update(master=master, recurrence_id=original, data=data)
                image = _series_restore_image([whole], [services.series_image(master)])
                after = self._result(master, moved)
                return Written(before=before, after=after, restore_image=image), master, moved
            self._require_occurrence(rid, scope)
            if scope is Scope.OCCURRENCE:
                targets.update_occurrence(master, original, data)
                return Written(before=before, after=targets.current(master, original)), master, original
            whole = services.series_image(master)
            targets.forget(master)
            tail = services.series_split(master=master, recurrence_id=original)
            moved = services.series_update(master=tail, recurrence_id=original, data=data)
            # Split at its first occurrence, the series is changed whole and there is no tail.
            left = [services.series_image(row) for row in dict.fromkeys((master, tail))]
            image = _series_restore_image([whole], left)
            return Written(before=before, after=self._result(tail, moved), restore_image=image), tail, moved

    def _restore(self, write: Write, targets: _Targets) -> tuple[Written, Event | None, datetime | None]:
        """Put back what an earlier write replaced (see :meth:`CalendarProvider.restore`), refusing
        when what it left is no longer so: an edit made since is never overwritten."""
        image = write.image
        if image is None:
            raise ProviderError("A restore needs the restore image of the write it reverts.")
        if image.get("kind") == "occurrence":
            return self._restore_occurrence(image, targets)
        if image.get("kind") == "series":
            return self._restore_series(write, image, targets)
        raise ProviderError("That restore image is not one this calendar wrote.")

    def _restore_occurrence(
        self, image: dict[str, Any], targets: _Targets
    ) -> tuple[Written, Event | None, datetime | None]:
        """A cancelled occurrence back in its series; only while it is still cancelled as it was (a
        series moved or redefined since has shifted or dropped that exception)."""
        master, _ = self._resolve(image["series"], None, for_update=True)
        rid = datetime.fromisoformat(image["recurrence_id"])
        cancelled = {datetime.fromisoformat(x).timestamp() for x in master.exdates}
        if rid.timestamp() not in cancelled or master.overrides.filter(recurrence_id=rid).exists():
            raise ConflictError(f"{master.summary!r} changed since that occurrence was cancelled.")
        targets.forget(master)
        with _invalid_as_provider_error():
            services.occurrence_restore(master=master, recurrence_id=rid, override=image["override"])
        return Written(before=None, after=self._current(master, rid)), master, rid

    def _restore_series(
        self, write: Write, image: dict[str, Any], targets: _Targets
    ) -> tuple[Written, Event | None, datetime | None]:
        """The series of ``image["rows"]`` back in place of those of ``image["left"]``.

        A row in both is rewritten in place; one only left (a split-off tail) is deleted; one only
        to put back (a deleted series) comes back as a new row with its UID.  Every row left must
        still be exactly as left, and no other series may have taken a UID meanwhile.
        """
        rows: list[dict[str, Any]] = image["rows"]
        current: dict[str, Event] = {}
        for left in image["left"]:
            row, _ = self._resolve(left["id"], None, for_update=True)
            if services.series_image(row) != left:
                raise ConflictError(f"{row.summary!r} changed since; read it again.")
            current[left["id"]] = row
        calendars: dict[str, Calendar] = {}
        for row_image in rows:
            if row_image["id"] in current:
                continue
            try:
                calendar = calendar_get(user=self.user, calendar_id=row_image["calendar_id"])
            except Calendar.DoesNotExist:
                raise NotFoundError("The calendar that event was in has since been deleted.") from None
            taken = Event.objects.filter(calendar=calendar, uid=row_image["uid"], series__isnull=True)
            if taken.exists():
                raise ConflictError(f"{row_image['summary']!r} is in your calendar again already.")
            calendars[row_image["id"]] = calendar
        reported = current.get(write.event_id)
        before = None
        if reported is not None:
            before = occurrence_get(
                event=reported, calendar=calendar_info(reported.calendar), recurrence_id=write.recurrence_id
            )
        for row in current.values():
            targets.forget(row)
        kept = {row_image["id"] for row_image in rows}
        with _invalid_as_provider_error():
            for event_id, row in current.items():
                if event_id not in kept:
                    services.event_delete(event=row)
            restored = [
                services.series_restore(
                    event=current.get(row_image["id"]) or Event(calendar=calendars[row_image["id"]]),
                    image=row_image,
                )
                for row_image in rows
            ]
        back = _series_restore_image(image["left"], [services.series_image(row) for row in restored])
        event = next(
            (row for row_image, row in zip(rows, restored, strict=True) if row_image["id"] == write.event_id),
            restored[0] if restored else None,
        )
        if event is None:
            return Written(before=before, after=None, restore_image=back), None, None
        after = self._result(event, write.recurrence_id)
        return Written(before=before, after=after, restore_image=back), event, after.recurrence_id

    def _create(self, write: Write) -> Event:
        all_day = bool(write.data.all_day) or (
            write.data.all_day is None and write.data.start is None and bool(write.data.start_date)
        )
        data = self._dated(write.data, all_day=all_day)
        start = (data.start_date or data.start) if all_day else data.start
        end = (data.end_date or data.end) if all_day else data.end
        if start is None:
            raise ProviderError("A new event needs a start.")
        try:
            calendar = calendar_get(user=self.user, calendar_id=write.calendar_id)
        except Calendar.DoesNotExist:
            raise NotFoundError(f"You have no calendar with id {write.calendar_id!r}.") from None
        with _invalid_as_provider_error():
            return services.event_create(
                calendar=calendar,
                summary=data.summary or "",
                start=start,
                end=end,
                timezone=data.timezone or "",
                all_day=all_day,
                rrule=data.rrule or "",
                attendees=data.attendees or (),
                visibility=data.visibility or Event.Visibility.DEFAULT,
                location=data.location or "",
                description=data.description or "",
                transparency=data.transparency or Event.Transparency.OPAQUE,
                operation_id=write.operation_id,
            )

    # -- helpers ----------------------------------------------------------------------------------------
    def _seen(self, occurrence: Occurrence) -> Occurrence:
        """An occurrence of the store as the user sees it (see the class docstring)."""
        return read_in(occurrence, self.reader_zone()) if occurrence.all_day else occurrence

    def _written_seen(self, written: Written) -> Written:
        """A write's before and after as the user sees them: the change log keeps them for undo."""
        before, after = written.before, written.after
        if not ((before is not None and before.all_day) or (after is not None and after.all_day)):
            return written
        return dataclasses.replace(
            written,
            before=self._seen(before) if before is not None else None,
            after=self._seen(after) if after is not None else None,
        )

    def _dated(self, data: EventData, *, all_day: bool) -> EventData:
        """``data`` with the days of an event that is (or stays) all-day given as dates: a time given
        for one names the day it falls on in the user's zone, where its occurrences are read.

        Read in the event's own zone, as the store would, an all-day event moved to Friday as a New
        York user sees it (Friday 00:00 there) is Thursday 9 PM on a Los Angeles calendar: it would
        land a day early.
        """
        if not (data.all_day or (data.all_day is None and all_day)):
            return data
        if (data.start is None or data.start_date) and (data.end is None or data.end_date):
            return data
        zone = self.reader_zone()
        return dataclasses.replace(
            data,
            start_date=data.start_date or _day(data.start, zone),
            end_date=data.end_date or _day(data.end, zone),
        )

    def _receipts(self, operation_ids: list[str]) -> dict[str, AppliedOperation]:
        if not operation_ids:
            return {}
        found = AppliedOperation.objects.select_related("event__calendar").filter(
            owner=self.user, operation_id__in=operation_ids
        )
        return {receipt.operation_id: receipt for receipt in found}

    def _replay(self, write: Write, receipt: AppliedOperation) -> Written:
        """What a write already applied reports: the state it left (its before-image went with it)."""
        if write.action == "delete" or (write.action == "restore" and receipt.event is None):
            return Written(before=None, after=None)
        after = self._result(receipt.event, receipt.recurrence_id)
        return Written(before=after, after=after)

    def _result(self, event: Event | None, rid: datetime | None) -> Occurrence:
        """The occurrence a write produced; a series whose rule changed answers with its first one."""
        if event is None:
            raise NotFoundError("The event this change was applied to has since been deleted.")
        if not event.rrule:
            rid = None
        try:
            return self._current(event, rid)
        except NotFoundError:
            if rid is None:
                raise
            return self._current(event, None)

    def _resolve(
        self, event_id: str, recurrence_id: datetime | None, *, for_update: bool = False
    ) -> tuple[Event, datetime | None]:
        """The master (or one-off) row behind an id, and the occurrence meant.

        An override's own id stands for its occurrence, so both ways of naming it work.
        """
        try:
            event = event_get(user=self.user, event_id=event_id, for_update=for_update)
        except Event.DoesNotExist:
            raise NotFoundError(f"There is no event {event_id!r} in your calendars.") from None
        rid = _utc(recurrence_id, "occurrence") if recurrence_id is not None else None
        if event.series_id is None:
            return event, rid
        assert event.recurrence_id is not None
        master = event_get(user=self.user, event_id=str(event.series_id), for_update=for_update)
        return master, rid or event.recurrence_id.astimezone(UTC)

    def _current(self, master: Event, rid: datetime | None) -> Occurrence:
        """The occurrence as it is now, read on its own."""
        current = occurrence_get(event=master, calendar=calendar_info(master.calendar), recurrence_id=rid)
        if current is None:
            raise NotFoundError("That occurrence has been cancelled or is not part of the series.")
        return current

    @staticmethod
    def _require_occurrence(rid: datetime | None, scope: Scope) -> None:
        """A partial change of a series must say where it starts; guessing the first would surprise."""
        if rid is None:
            raise ProviderError(f"Say which occurrence the {scope.value} change applies to (recurrence_id).")


def _day(moment: datetime | None, zone: ZoneInfo) -> date | None:
    """The date ``moment`` falls on in ``zone`` (a naive one: its own, as the store reads it)."""
    if moment is None:
        return None
    return moment.astimezone(zone).date() if moment.tzinfo is not None else moment.date()


def _series_restore_image(rows: list[dict[str, Any]], left: list[dict[str, Any]]) -> dict[str, Any]:
    """The restore image of a write that replaced the series ``rows`` (images of
    :func:`skills.services.series_image`) by ``left``: what a restore puts back, and what it expects."""
    return {"kind": "series", "rows": rows, "left": left}


def _pk(event_id: str) -> int | None:
    """An event's primary key from a contract id; a malformed id names nothing, like an unknown one."""
    try:
        return int(event_id)
    except (TypeError, ValueError):
        return None


class _Targets:
    """The rows a batch of reads or writes addresses, read once for the whole batch.

    Three queries at most, however many targets: the rows named, the series masters of overrides
    named by their own id, and the overrides of the targeted occurrences; occurrences of a series
    come from its (cached) expansion.  Writes report back what they changed, so a later target of
    the same batch is checked against the state the batch left, never a stale read: an occurrence
    written is replaced, and a row changed as a whole (a series moved, split or deleted) is
    forgotten, which sends later targets on it to the database one by one, as single writes go.
    The new override rows of first changes wait here and are inserted together, before any write
    that reads the database for more than its one occurrence and at the end of the batch.
    """

    def __init__(self, provider: LocalProvider, for_update: bool) -> None:
        self._provider = provider
        self._for_update = for_update
        self._rows: dict[int, Event] = {}
        self._absent: set[int] = set()
        self._overrides: dict[tuple[int, float], Event | None] = {}
        self._until: dict[int, datetime] = {}
        self._expansions: dict[int, Expansion] = {}
        self._forgotten: set[int] = set()
        self._waiting: list[Event] = []  # new override rows, ready, not inserted yet

    @classmethod
    def load(cls, provider: LocalProvider, refs: Sequence[OccurrenceRef], *, for_update: bool) -> _Targets:
        """Read every row ``refs`` name, locked when about to be written (``for_update``)."""
        targets = cls(provider, for_update)
        pks = {pk for pk in (_pk(event_id) for event_id, _ in refs) if pk is not None}
        targets._fetch(pks)
        targets._absent = pks - targets._rows.keys()
        targets._fetch({row.series_id for row in targets._rows.values() if row.series_id is not None})
        wanted: dict[int, list[datetime]] = {}
        for event_id, recurrence_id in refs:
            found = targets._lookup(event_id, recurrence_id)
            if found is not None and found[0].rrule and found[1] is not None:
                wanted.setdefault(found[0].pk, []).append(found[1])
        if wanted:
            moments = [rid for rids in wanted.values() for rid in rids]
            overrides = Event.objects.filter(
                series_id__in=wanted, recurrence_id__gte=min(moments), recurrence_id__lte=max(moments)
            ).order_by()
            for override in overrides:
                assert override.series_id is not None
                assert override.recurrence_id is not None
                targets._overrides[(override.series_id, override.recurrence_id.timestamp())] = override
        targets._until = {pk: max(rids) + timedelta(seconds=1) for pk, rids in wanted.items()}
        return targets

    def _fetch(self, pks: set[int]) -> None:
        pks -= self._rows.keys()
        if not pks:
            return
        rows = Event.objects.select_related("calendar").filter(
            calendar__owner=self._provider.user, pk__in=pks
        )
        if self._for_update:
            rows = rows.select_for_update(of=("self",))
        self._rows.update((row.pk, row) for row in rows.order_by())

    def _lookup(self, event_id: str, recurrence_id: datetime | None) -> tuple[Event, datetime | None] | None:
        """As :meth:`LocalProvider._resolve`, from the batch's read; None where that read does not hold
        (a row not read, or forgotten: keyed by the id read, since a deleted row has lost its pk)."""
        pk = _pk(event_id)
        row = self._rows.get(pk) if pk is not None else None
        if row is None or {pk, row.series_id} & self._forgotten:
            return None
        master = self._rows.get(row.series_id) if row.series_id is not None else row
        if master is None:
            return None
        rid = _utc(recurrence_id, "occurrence") if recurrence_id is not None else None
        if row.series_id is None:
            return row, rid
        assert row.recurrence_id is not None
        return master, rid or row.recurrence_id.astimezone(UTC)

    def resolve(self, event_id: str, recurrence_id: datetime | None) -> tuple[Event, datetime | None]:
        """The master (or one-off) row behind an id and the occurrence meant, as the provider's own
        ``_resolve``; rows the batch found missing are not asked for again."""
        pk = _pk(event_id)
        if pk is None or pk in self._absent:
            raise NotFoundError(f"There is no event {event_id!r} in your calendars.")
        found = self._lookup(event_id, recurrence_id)
        if found is None:
            return self._provider._resolve(event_id, recurrence_id, for_update=self._for_update)
        return found

    def current(self, master: Event, rid: datetime | None) -> Occurrence | None:
        """The occurrence as it is now (None when cancelled or never generated), as
        :func:`skills.selectors.occurrence_get` reads it, from the batch's read where it holds."""
        info = calendar_info(master.calendar)
        held = master.pk not in self._forgotten and self._rows.get(master.pk) is master
        if not held or (master.rrule and (rid is None or master.pk not in self._until)):
            return occurrence_get(event=master, calendar=info, recurrence_id=rid)
        if master.status == Event.Status.CANCELLED:
            return None
        if not master.rrule:
            return occurrence_from_row(master, info)
        assert rid is not None
        key = (master.pk, rid.timestamp())
        if key in self._overrides:
            override = self._overrides[key]
            if override is None or override.status == Event.Status.CANCELLED:
                return None
            return occurrence_from_row(override, info)
        expanded = self._expansions.get(master.pk)
        if expanded is None:
            expanded = self._expansions[master.pk] = expansion(master, info, until=self._until[master.pk])
        found = expanded.at(rid)
        if found is not None and found.sequence != master.sequence:
            # A cancellation earlier in the batch saved the master, which revised the series.
            found = dataclasses.replace(found, sequence=master.sequence)
        return found

    def replace(self, master: Event, recurrence_id: datetime, override: Event | None) -> None:
        """One occurrence was written: ``override`` is what it is now, None if it was cancelled.

        The rest of the series is as read but for its sequence: an occurrence's etag does not
        change when another one is cancelled or changed, so the expansion read before still answers
        for them rather than expanding the series again after every cancellation.
        """
        self._overrides[(master.pk, recurrence_id.timestamp())] = override

    def override(self, master: Event, recurrence_id: datetime) -> Event | None:
        """The override row of a targeted occurrence (None if it has none), from the batch's read
        where it holds: that read fetched every override of the occurrences it was asked for."""
        if self._holds(master):
            return self._overrides.get((master.pk, recurrence_id.timestamp()))
        return master.overrides.filter(recurrence_id=recurrence_id).first()

    def _holds(self, master: Event) -> bool:
        """Whether the batch's read answers for the overrides of ``master``'s targeted occurrences."""
        held = master.pk not in self._forgotten and self._rows.get(master.pk) is master
        return held and master.pk in self._until

    def update_occurrence(self, master: Event, recurrence_id: datetime, data: EventData) -> Event:
        """Change one occurrence of a series and note what it is now (see :meth:`replace`).

        Its first change makes a new override row, which waits to be inserted with the others of
        the batch (:meth:`flush`): 500 rows in a few statements rather than one each.  It can wait
        only where the batch's read answers for the series, so that the batch itself sees it.
        """
        override = self.override(master, recurrence_id)
        if override is None and self._holds(master):
            row = services.occurrence_new(master=master, recurrence_id=recurrence_id, data=data)
            self._waiting.append(row)
        else:
            if override is not None and override.pk is None:
                self.flush()  # changed again in the batch: inserted first, then updated as ever
            row = services.occurrence_update(
                master=master, recurrence_id=recurrence_id, data=data, override=override
            )
        self.replace(master, recurrence_id, row)
        return row

    def flush(self) -> None:
        """Insert the new override rows waiting; called before any write that reads or writes more
        than one occurrence's row, and at the end of the batch."""
        if self._waiting:
            Event.objects.bulk_create(self._waiting)
            self._waiting = []

    def forget(self, master: Event) -> None:
        """``master`` is about to change as a whole; later targets on it are read again from the
        database.  Called before the write, while a row to be deleted still has its pk."""
        self._forgotten.add(master.pk)
