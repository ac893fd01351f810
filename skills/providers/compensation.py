"""All or nothing across remote calendars: remote writes already made are taken back when a change fails.

The database rolls back the built-in store's part of a change, and with it the mirror of every remote
calendar; a write a remote server has accepted stays until another write undoes it.  So a remote
provider, before it sends a batch, registers a :class:`Compensation` with the current unit of work
(:func:`all_or_nothing`): what it needs to take back whatever of the batch the server accepts (the
images recorded before each remote write and the etags each accepted write left).  When the unit
fails, whatever the reason (a later request refused, another calendar's part refused, the change
log not written), the compensations run newest first, and the error says what could not be put
back (:class:`~skills.providers.base.PartlyAppliedError`), so the user never holds half a change
without being told.

A compensating write carries ``If-Match`` with the etag the write it undoes left: an event edited
meanwhile by someone else answers 412 and is named as not put back, never overwritten.

Units nest: a provider opens one around each batch (a standalone call needs it), inside the unit of
the change set (:func:`skills.changes.apply_change_set`) or of a mixed batch (the router).  A unit
that succeeds hands its compensations to the enclosing one; a unit that fails compensates at once
(its writes were rolled back locally, and its caller may catch the error and go on).  Once the
outermost unit has ended (after its transaction has rolled back; a refresh made inside would be
rolled back with it), each compensated provider refreshes its mirror so that it shows what the
server holds: the etags compensation left, and whatever could not be put back.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from skills.providers.base import NotPutBack, PartlyAppliedError

__all__ = ["Compensation", "Journal", "all_or_nothing"]

logger = logging.getLogger(__name__)


class Compensation(Protocol):
    """One provider's accepted remote writes of one batch, and how to take them back."""

    def undo(self) -> list[NotPutBack]:
        """Take back every accepted write, newest first; what could not be (refused, 412, unreachable).
        Never raises for a refused compensating write: that is reported, not forced."""

    def made(self) -> list[NotPutBack]:
        """Every write the server accepted, as the user would name it (for a report if undo crashes)."""

    def refresh(self) -> None:
        """Make the mirror show what the server holds now; called outside the failed transaction."""


class Journal:
    """The compensations of one unit of work, and the mirrors to refresh once the outermost ends."""

    def __init__(self) -> None:
        self.compensations: list[Compensation] = []
        self.to_refresh: list[Compensation] = []

    def add(self, compensation: Compensation) -> None:
        """Register a batch's compensation before the batch is sent."""
        self.compensations.append(compensation)

    def compensate(self) -> list[NotPutBack]:
        """Run every compensation, newest first; what could not be put back."""
        left: list[NotPutBack] = []
        for compensation in reversed(self.compensations):
            try:
                left.extend(compensation.undo())
            except Exception:  # a bug in a compensation must not hide what is left
                logger.exception("compensation failed")
                left.extend(compensation.made())
            self.to_refresh.append(compensation)
        self.compensations.clear()
        return left

    def refresh(self) -> None:
        """Refresh each compensated mirror once (best effort: a failure leaves it for the next sync)."""
        seen: set[int] = set()
        for compensation in self.to_refresh:
            if id(compensation) in seen:
                continue
            seen.add(id(compensation))
            try:
                compensation.refresh()
            except Exception:
                logger.exception("refreshing a mirror after compensation failed")
        self.to_refresh.clear()


_current: ContextVar[Journal | None] = ContextVar("compensation_journal", default=None)


@contextmanager
def all_or_nothing() -> Iterator[Journal]:
    """A unit of work: if the block raises, the remote writes registered in it are taken back.

    Open it outside the transaction of the same work, so that the refresh after compensating runs
    once that transaction has rolled back.

    Raises:
        PartlyAppliedError: the block failed and some remote writes could not be taken back (its
            ``cause`` is the block's error).
    """
    parent = _current.get()
    unit = Journal()
    token = _current.set(unit)
    try:
        yield unit
    except BaseException as exc:
        _current.reset(token)
        if not isinstance(exc, Exception):
            # The process is going (an exit, an interrupt): nothing more is sent; what was is settled
            # by the set's next attempt (skills.inflight).  The unit is no longer the current one.
            raise
        left = unit.compensate()
        _hand_up(unit, parent)
        if isinstance(exc, PartlyAppliedError):
            left = [*exc.left, *left]
            exc = exc.cause
        if left:
            raise PartlyAppliedError(left=left, cause=exc) from exc
        raise
    _current.reset(token)
    if parent is not None:
        parent.compensations.extend(unit.compensations)
    _hand_up(unit, parent)


def _hand_up(unit: Journal, parent: Journal | None) -> None:
    """Refreshes wait for the outermost unit; that one runs them as it ends."""
    if parent is None:
        unit.refresh()
    else:
        parent.to_refresh.extend(unit.to_refresh)
