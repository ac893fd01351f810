"""The built-in calendar: the user's calendars in this app's own database, the offline default.

This module is the contract's edge: it scopes every read and write to ``self.user``, checks etags,
honours idempotency keys and turns store errors into the provider exceptions.  The store's rules
(overrides, EXDATEs, splits) live in :mod:`skills.services`; reads in :mod:`skills.selectors`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q

from skills import services
from skills.freetime import merge
from skills.models import AppliedOperation, Calendar, Event
from skills.providers.base import (
    BusyInterval,
    CalendarInfo,
    CalendarProvider,
    ConflictError,
    EventData,
    NotFoundError,
    Occurrence,
    ProviderError,
    Scope,
)
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
    """Calendars stored in this app's database; ids are primary keys as strings."""

    name = "local"

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
            calendars=calendars, start=_utc(start, "window start"), end=_utc(end, "window end")
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
        rows = (
            Event.objects.filter(
                calendar__owner=self.user, status=Event.Status.CONFIRMED, start__lt=_utc(end, "end")
            )
            .filter(Q(series_end__isnull=True) | Q(series_end__gte=_utc(start, "start")))
            .values_list("summary", flat=True)
            .distinct()
        )
        return sorted({summary for summary in rows if summary})

    def get_occurrence(self, *, event_id: str, recurrence_id: datetime | None = None) -> Occurrence:
        master, rid = self._resolve(event_id, recurrence_id)
        return self._current(master, rid, expected_etag="")

    def free_busy(
        self, *, emails: list[str], start: datetime, end: datetime
    ) -> dict[str, list[BusyInterval]]:
        """Busy spans of other users of this instance, by email; never what the events are."""
        window = (_utc(start, "window start"), _utc(end, "window end"))
        users = get_user_model().objects.filter(is_active=True)
        busy: dict[str, list[BusyInterval]] = {}
        for email in emails:
            # A blank address would match every user who has none.
            owners = users.filter(email__iexact=email.strip()) if email.strip() else users.none()
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
        all_day = bool(data.all_day) or (
            data.all_day is None and data.start is None and bool(data.start_date)
        )
        start = (data.start_date or data.start) if all_day else data.start
        end = (data.end_date or data.end) if all_day else data.end
        if start is None:
            raise ProviderError("A new event needs a start.")

        def write() -> tuple[Event, None]:
            try:
                calendar = calendar_get(user=self.user, calendar_id=calendar_id)
            except Calendar.DoesNotExist:
                raise NotFoundError(f"You have no calendar with id {calendar_id!r}.") from None
            with _invalid_as_provider_error():
                event = services.event_create(
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
                    operation_id=operation_id,
                )
            return event, None

        return self._result(*self._once(operation_id, write))

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
        def write() -> tuple[Event, datetime | None]:
            master, rid = self._resolve(event_id, recurrence_id, for_update=True)
            original = self._current(master, rid, expected_etag).recurrence_id
            with _invalid_as_provider_error():
                if original is None:
                    return services.event_apply(event=master, data=data), None
                if scope is Scope.SERIES:
                    return master, services.series_update(master=master, recurrence_id=original, data=data)
                self._require_occurrence(rid, scope)
                if scope is Scope.OCCURRENCE:
                    services.occurrence_update(master=master, recurrence_id=original, data=data)
                    return master, original
                tail = services.series_split(master=master, recurrence_id=original)
                return tail, services.series_update(master=tail, recurrence_id=original, data=data)

        return self._result(*self._once(operation_id, write))

    def delete_event(
        self,
        *,
        event_id: str,
        recurrence_id: datetime | None = None,
        scope: Scope = Scope.OCCURRENCE,
        expected_etag: str = "",
        operation_id: str = "",
    ) -> None:
        def write() -> tuple[None, None]:
            master, rid = self._resolve(event_id, recurrence_id, for_update=True)
            original = self._current(master, rid, expected_etag).recurrence_id
            if original is None or scope is Scope.SERIES:
                services.event_delete(event=master)
            elif scope is Scope.OCCURRENCE:
                self._require_occurrence(rid, scope)
                services.occurrence_cancel(master=master, recurrence_id=original)
            else:
                self._require_occurrence(rid, scope)
                services.series_truncate(master=master, recurrence_id=original)
            return None, None

        self._once(operation_id, write)

    # -- helpers ----------------------------------------------------------------------------------------
    def _once(
        self, operation_id: str, write: Callable[[], tuple[Event | None, datetime | None]]
    ) -> tuple[Event | None, datetime | None]:
        """Apply a write at most once per operation id; a replay gets what the first write produced.

        The receipt is written in the same transaction as the change, so a crash leaves neither; a
        concurrent twin loses on the receipt's unique constraint and reads the winner's result.
        """
        if operation_id:
            receipt = self._receipt(operation_id)
            if receipt is not None:
                return receipt.event, receipt.recurrence_id
        try:
            with transaction.atomic():
                event, rid = write()
                if operation_id:
                    AppliedOperation.objects.create(
                        owner=self.user, operation_id=operation_id, event=event, recurrence_id=rid
                    )
        except IntegrityError:
            receipt = self._receipt(operation_id) if operation_id else None
            if receipt is None:
                raise
            return receipt.event, receipt.recurrence_id
        return event, rid

    def _receipt(self, operation_id: str) -> AppliedOperation | None:
        return (
            AppliedOperation.objects.select_related("event__calendar")
            .filter(owner=self.user, operation_id=operation_id)
            .first()
        )

    def _result(self, event: Event | None, rid: datetime | None) -> Occurrence:
        """The occurrence a write produced; a series whose rule changed answers with its first one."""
        if event is None:
            raise NotFoundError("The event this change was applied to has since been deleted.")
        if not event.rrule:
            rid = None
        try:
            return self._current(event, rid, expected_etag="")
        except NotFoundError:
            if rid is None:
                raise
            return self._current(event, None, expected_etag="")

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

    def _current(self, master: Event, rid: datetime | None, expected_etag: str) -> Occurrence:
        """The occurrence as it is now, refusing a write based on a stale read of it."""
        current = occurrence_get(event=master, calendar=calendar_info(master.calendar), recurrence_id=rid)
        if current is None:
            raise NotFoundError("That occurrence has been cancelled or is not part of the series.")
        if expected_etag and expected_etag != current.etag:
            raise ConflictError(f"{current.summary!r} changed since it was read; read it again.")
        return current

    @staticmethod
    def _require_occurrence(rid: datetime | None, scope: Scope) -> None:
        """A partial change of a series must say where it starts; guessing the first would surprise."""
        if rid is None:
            raise ProviderError(f"Say which occurrence the {scope.value} change applies to (recurrence_id).")
