"""The calendar provider contract every backend (local, Google, CalDAV) fulfils.

Skills talk to calendars only through this interface, so a user's calendars can live in the built-in
store, in Google Calendar or on a CalDAV server without a skill changing.  Like Django's session
backends, the base class holds the shared behaviour and a grouped block of methods each backend must
implement; backend failures are translated into the exceptions below so callers catch one family.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any, Literal

__all__ = [
    "BusyInterval",
    "CalendarInfo",
    "CalendarProvider",
    "ConflictError",
    "EventData",
    "NotFoundError",
    "NotPutBack",
    "Occurrence",
    "OccurrenceRef",
    "PartlyAppliedError",
    "PermissionDeniedError",
    "ProviderError",
    "Scope",
    "TransientProviderError",
    "Write",
    "Written",
]


class ProviderError(Exception):
    """Base of every error a calendar backend raises."""


class NotFoundError(ProviderError):
    """The calendar, event or occurrence does not exist (or is not the user's)."""


class PermissionDeniedError(ProviderError):
    """The user may not read or change this calendar."""


class ConflictError(ProviderError):
    """The event changed since it was read (its sequence/etag no longer matches)."""


class TransientProviderError(ProviderError):
    """A failure worth retrying: a timeout, a 5xx, a rate limit."""


@dataclass(frozen=True, slots=True)
class NotPutBack:
    """A remote write a failed change had made and that could not be taken back: the event's title
    and what the write did to it (``created``, ``moved``, ``changed`` or ``deleted``)."""

    summary: str
    verb: Literal["created", "moved", "changed", "deleted"]

    @classmethod
    def of(cls, summary: str, action: str) -> NotPutBack:
        """The report for a write of ``action`` (create, update, delete) on the event ``summary``."""
        verb: Literal["created", "changed", "deleted"] = (
            "created" if action == "create" else "deleted" if action == "delete" else "changed"
        )
        return cls(summary=summary, verb=verb)


class PartlyAppliedError(ProviderError):
    """A change failed midway (``cause``) and some remote writes it had made could not be taken back
    (``left``): the user must be told which, since their calendar now holds part of the change.

    Not a :class:`ConflictError` even when the cause was one: a caller that skips conflicts and goes
    on must not go on past a half-made change.
    """

    def __init__(self, *, left: list[NotPutBack], cause: Exception) -> None:
        self.left = left
        self.cause = cause
        super().__init__(f"{cause} Not everything could be put back: {self.describe()}.")

    def describe(self, total: int = 0) -> str:
        """What was left, as a sentence: "3 of 5 events were moved and could not be moved back:
        'Class', 'Lab'" (``total``: how many events the change set changed, if known)."""
        parts = []
        for verb, phrase in _UNDO_PHRASES.items():
            names = [item.summary for item in self.left if item.verb == verb]
            if not names:
                continue
            count = len(names)
            of = f"{count} of {total}" if total > count else str(count)
            noun = "events" if count > 1 or total > 1 else "event"
            was = "was" if count == 1 else "were"
            listed = ", ".join(repr(name) for name in dict.fromkeys(names))
            parts.append(f"{of} {noun} {was} {verb} and {phrase}: {listed}")
        return "; ".join(parts)


# What could not be done to take back a write that created, moved, changed or deleted an event.
_UNDO_PHRASES = {
    "created": "could not be removed again",
    "moved": "could not be moved back",
    "changed": "could not be changed back",
    "deleted": "could not be put back",
}


class Scope(StrEnum):
    """Which part of a recurring series a change applies to."""

    OCCURRENCE = "occurrence"
    FOLLOWING = "following"
    SERIES = "series"


@dataclass(frozen=True, slots=True)
class CalendarInfo:
    """A calendar as skills see it; ``key`` is stable and what preferences name."""

    id: str
    key: str
    name: str
    timezone: str
    is_default: bool = False
    color: str = ""
    provider: str = "local"


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One concrete instance of an event: a one-off event or one expansion of a series.

    ``recurrence_id`` is the occurrence's original start (RFC 5545 RECURRENCE-ID), None for one-off
    events; with ``event_id`` it addresses the occurrence even after it has been moved.
    ``start``/``end`` are aware datetimes.  An all-day occurrence (``all_day`` set) is on its dates
    in every zone (RFC 5545 VALUE=DATE), so its ``start``/``end`` are the midnights beginning its
    first day and the day after its last in the zone of the user reading, whatever its calendar's;
    its ``recurrence_id`` stays the midnight in the event's own zone that names it in the store.
    """

    event_id: str
    calendar_id: str
    calendar_key: str
    calendar_name: str
    uid: str
    summary: str
    start: datetime
    end: datetime
    timezone: str
    all_day: bool = False
    recurrence_id: datetime | None = None
    is_recurring: bool = False
    description: str = ""
    location: str = ""
    attendees: tuple[str, ...] = ()
    organizer: str = ""
    visibility: str = "default"
    transparency: str = "opaque"
    sequence: int = 0
    etag: str = ""
    rrule: str = ""  # the series' RFC 5545 rule, for an occurrence read from its series

    @property
    def occurrence_key(self) -> str:
        """A string that names this occurrence across reads: event id plus original start."""
        rid = self.recurrence_id.isoformat() if self.recurrence_id else ""
        return f"{self.event_id}@{rid}" if rid else self.event_id

    @property
    def busy(self) -> bool:
        """Whether this occurrence blocks time (all-day and transparent ones do not)."""
        return not self.all_day and self.transparency != "transparent"


@dataclass(frozen=True, slots=True)
class BusyInterval:
    """A busy span of someone's time, without any detail of what it is."""

    start: datetime
    end: datetime


@dataclass(slots=True)
class EventData:
    """The fields of an event to create, or the fields to change (None: leave as is)."""

    summary: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    timezone: str | None = None
    all_day: bool | None = None
    start_date: date | None = None
    end_date: date | None = None
    description: str | None = None
    location: str | None = None
    attendees: list[str] | None = None
    visibility: str | None = None
    transparency: str | None = None
    rrule: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# An occurrence as callers address it: the event id and, for one occurrence of a series, its original start.
OccurrenceRef = tuple[str, datetime | None]


@dataclass(frozen=True, slots=True)
class Write:
    """One write of a batch (see :meth:`CalendarProvider.apply_writes`).

    A create names ``calendar_id``; an update or delete names its target by ``event_id`` and
    ``recurrence_id`` and, with ``expected_etag``, the version it was planned against.  A restore
    carries in ``image`` the :attr:`Written.restore_image` of the write it reverts (see
    :meth:`CalendarProvider.restore`); its ``event_id`` and ``recurrence_id`` name the occurrence
    to report back, as it was before that write.
    """

    action: Literal["create", "update", "delete", "restore"]
    data: EventData = field(default_factory=EventData)
    calendar_id: str = ""
    event_id: str = ""
    recurrence_id: datetime | None = None
    scope: Scope = Scope.OCCURRENCE
    expected_etag: str = ""
    operation_id: str = ""
    image: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """What one write found and left: the occurrence before it (None for a create) and after it
    (None for a delete).  ``before`` is the version the etag was checked against, which is what undo
    puts back.

    One occurrence's before-image cannot put back a write that changed more than that occurrence
    (a series moved, split, cut short or deleted, or an occurrence cancelled, whose override
    would otherwise be lost), so such a write also reports ``restore_image``: the backend's own
    JSON form of what it replaced and of what it left, which a restore write hands back.
    """

    before: Occurrence | None
    after: Occurrence | None
    restore_image: dict[str, Any] | None = None


class CalendarProvider:
    """Base class of calendar backends; one instance serves one user.

    Subclasses implement the block below; the helpers here are built on it.
    """

    name = "base"
    # How the backend is named to the user, and whether its server tells attendees of a change itself
    # when asked (Google's sendUpdates): then the assistant does not mail them a second time.
    label = "the calendar"
    sends_updates = False

    def __init__(self, user: Any) -> None:
        self.user = user

    # -- must implement ---------------------------------------------------------------------------
    def list_calendars(self) -> list[CalendarInfo]:
        raise NotImplementedError("subclasses of CalendarProvider must provide a list_calendars() method")

    def list_occurrences(
        self, *, start: datetime, end: datetime, calendar_ids: list[str] | None = None
    ) -> list[Occurrence]:
        """Occurrences overlapping [start, end), sorted by start."""
        raise NotImplementedError("subclasses of CalendarProvider must provide a list_occurrences() method")

    def get_occurrence(self, *, event_id: str, recurrence_id: datetime | None = None) -> Occurrence:
        raise NotImplementedError("subclasses of CalendarProvider must provide a get_occurrence() method")

    def create_event(self, *, calendar_id: str, data: EventData, operation_id: str = "") -> Occurrence:
        raise NotImplementedError("subclasses of CalendarProvider must provide a create_event() method")

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
        raise NotImplementedError("subclasses of CalendarProvider must provide an update_event() method")

    def delete_event(
        self,
        *,
        event_id: str,
        recurrence_id: datetime | None = None,
        scope: Scope = Scope.OCCURRENCE,
        expected_etag: str = "",
        operation_id: str = "",
    ) -> None:
        raise NotImplementedError("subclasses of CalendarProvider must provide a delete_event() method")

    def free_busy(
        self, *, emails: list[str], start: datetime, end: datetime
    ) -> dict[str, list[BusyInterval]]:
        """Busy intervals of other people, by email; unknown people map to an empty list."""
        raise NotImplementedError("subclasses of CalendarProvider must provide a free_busy() method")

    def restore(
        self,
        *,
        image: dict[str, Any],
        event_id: str = "",
        recurrence_id: datetime | None = None,
        operation_id: str = "",
    ) -> Written:
        """Put back what an earlier write replaced, from the ``restore_image`` that write reported.

        A cancelled occurrence comes back inside its series (with its own time and title if it had
        them); a series comes back whole (rule, exceptions, overrides, a split-off tail removed), in
        a new row with its old UID if it was deleted.  Undo of a restore must redo, so the result
        reports a ``restore_image`` of its own.  ``event_id``/``recurrence_id`` name the occurrence
        whose restored state is reported as ``after``.

        Raises:
            ConflictError: what the earlier write left has been changed since (it is left alone).
            NotFoundError: what the earlier write left has since been deleted.
        """
        raise NotImplementedError("subclasses of CalendarProvider must provide a restore() method")

    # -- shared behaviour -------------------------------------------------------------------------
    def get_occurrences(self, refs: Sequence[OccurrenceRef]) -> list[Occurrence | None]:
        """Many occurrences at once, in the order asked; None for one that does not exist (any more).

        Re-checking every target of a large change set one request at a time is what made it slow;
        backends that can read them all in a few requests override this.
        """
        found: list[Occurrence | None] = []
        for event_id, recurrence_id in refs:
            try:
                found.append(self.get_occurrence(event_id=event_id, recurrence_id=recurrence_id))
            except NotFoundError:
                found.append(None)
        return found

    def take_back(self, key: str, writes: list[dict[str, Any]]) -> list[NotPutBack]:
        """Put back, from the mirror, what a change set whose worker died left on the server, when
        its next attempt does not finish it (see :mod:`skills.inflight`): each target the set wrote,
        where the server's version carries the set's ``key`` (or is gone, for a delete), gets the
        mirror's version again, and a resource the set created goes.  Returns what could not be put
        back.  The built-in store has nothing on any server."""
        return []

    def apply_writes(self, writes: Sequence[Write]) -> list[Written]:
        """Apply writes in order, each refused if its target changed since ``expected_etag`` was read
        and done at most once per ``operation_id``.

        Here each target is read, then written, one by one, and a failure stops the batch where it
        is: callers that want all or nothing apply it inside a transaction, which the local backend
        honours.  Backends that can read every target up front override this.

        Raises:
            NotFoundError: a target no longer exists.
            ConflictError: a target changed since it was read.
            ProviderError: a write was refused.
        """
        return [self._write_one(write) for write in writes]

    def _write_one(self, write: Write) -> Written:
        if write.action == "restore":
            if write.image is None:
                raise ProviderError("A restore needs the restore image of the write it reverts.")
            return self.restore(
                image=write.image,
                event_id=write.event_id,
                recurrence_id=write.recurrence_id,
                operation_id=write.operation_id,
            )
        if write.action == "create":
            created = self.create_event(
                calendar_id=write.calendar_id, data=write.data, operation_id=write.operation_id
            )
            return Written(before=None, after=created)
        before = self.get_occurrence(event_id=write.event_id, recurrence_id=write.recurrence_id)
        target: dict[str, Any] = {
            "event_id": write.event_id,
            "recurrence_id": write.recurrence_id,
            "scope": write.scope,
            "expected_etag": write.expected_etag,
            "operation_id": write.operation_id,
        }
        if write.action == "delete":
            self.delete_event(**target)
            return Written(before=before, after=None)
        return Written(before=before, after=self.update_event(data=write.data, **target))

    def busy_reader(
        self,
        *,
        start: datetime,
        end: datetime,
        calendar_ids: list[str] | None = None,
        ignore: frozenset[str] = frozenset(),
    ) -> Callable[[datetime, datetime], list[tuple[float, float]]]:
        """A function giving the epoch-second busy spans of the user's own occurrences in any part of
        [start, end), in no particular order; ``ignore`` holds occurrence keys not to count.

        A free-time search reads a long range piece by piece, stopping once it has found enough;
        backends that can fetch once what every piece needs (and read bare times rather than whole
        occurrences) override this.
        """

        def spans(lo: datetime, hi: datetime) -> list[tuple[float, float]]:
            return [
                (o.start.timestamp(), o.end.timestamp())
                for o in self.list_occurrences(start=lo, end=hi, calendar_ids=calendar_ids)
                if o.busy and o.occurrence_key not in ignore
            ]

        return spans

    def default_calendar(self) -> CalendarInfo:
        calendars = self.list_calendars()
        if not calendars:
            raise NotFoundError("You have no calendar yet.")
        return next((c for c in calendars if c.is_default), calendars[0])

    def event_titles(self, *, start: datetime, end: datetime) -> list[str]:
        """Distinct titles of events around [start, end): what a turn's "the check-in" can name.

        Backends with a cheaper way than expanding every occurrence override this.
        """
        return sorted({o.summary for o in self.list_occurrences(start=start, end=end) if o.summary})

    def calendar_by_key(self, key: str) -> CalendarInfo:
        wanted = key.casefold()
        for cal in self.list_calendars():
            if wanted in (cal.key.casefold(), cal.name.casefold(), cal.id):
                return cal
        raise NotFoundError(f"You have no calendar called {key!r}.")
