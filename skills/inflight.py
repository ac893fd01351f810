"""Remote writes in flight: what a change set is about to send, recorded before it sends anything.

A change set is applied in one database transaction (the built-in store, the mirrors of remote
calendars, the receipts and the change records), and its remote writes are sent inside it.  A worker
killed after a server accepted a write and before the commit leaves that write on the server and
nothing in the database: the next attempt of the set (the workflow's retry, the same idempotency key)
would meet its own write as someone else's edit ("changed meanwhile"), ask again, and leave a partial,
unrecorded change.

So, before its transaction opens, the set records its remote writes (:class:`RemoteIntent`: each
write's idempotency key, action, target and the etag it goes over) in a transaction of their own, and
deletes the record inside its transaction, with the change records.  Every remote write carries the
set's key (:data:`CALDAV_PROPERTY` on each CalDAV component, :data:`GOOGLE_PROPERTY` among a Google
event's private extended properties).  When the next attempt finds the record left over
(:func:`resuming`), a server's "changed since" (412) on a resource that carries the set's own key is
its own earlier write: the provider sends over the server's current version (the same content again,
or the rest of the set) instead of refusing, so the set finishes, recorded once, undoable, with one
reply.  A version counts as the set's only if it also shows what the set sent: other apps keep
unknown properties through their own edits.  Until the record is settled a sync leaves the set's
targets, and any resource carrying its key, alone (:func:`unsettled`), so the mirror never shows a
write no change record explains.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

from skills.models import Event, RemoteIntent

__all__ = [
    "CALDAV_PROPERTY",
    "GOOGLE_PROPERTY",
    "carries_key",
    "current_key",
    "forget",
    "record",
    "resuming",
    "sending",
    "stale",
    "unsettled",
]

CALDAV_PROPERTY = "X-CALENDAR-ASSISTANT-OPERATION"
GOOGLE_PROPERTY = "calendarAssistantOperation"

_key: ContextVar[str] = ContextVar("remote_intent_key", default="")
_resuming: ContextVar[bool] = ContextVar("remote_intent_resuming", default=False)


def record(*, user: Any, operation_id: str, writes: list[dict[str, Any]]) -> bool:
    """Record the set's remote writes before any is sent; True when a record of the same set was
    left over, by an attempt that died after it (its writes may be on a server already)."""
    intent, made = RemoteIntent.objects.get_or_create(
        owner=user, operation_id=operation_id, defaults={"writes": writes}
    )
    if not made and intent.writes != writes:
        intent.writes = writes
        intent.save(update_fields=["writes"])
    return not made


def stale(before: datetime) -> list[RemoteIntent]:
    """Records older than ``before``: sets whose attempt died, if no run is still working on them."""
    return list(RemoteIntent.objects.filter(created_at__lt=before).select_related("owner").order_by("pk"))


def forget(*, user: Any, operation_id: str) -> None:
    """The set is settled (committed with its change records, or refused and taken back)."""
    RemoteIntent.objects.filter(owner=user, operation_id=operation_id).delete()


@contextmanager
def sending(operation_id: str, *, resumed: bool) -> Iterator[None]:
    """The set whose writes are being sent: providers mark each write with its key, and, when it
    resumes an attempt that died, take a 412 on a resource carrying that key for their own write."""
    key, again = _key.set(operation_id), _resuming.set(resumed)
    try:
        yield
    finally:
        _key.reset(key)
        _resuming.reset(again)


def current_key() -> str:
    """The key of the set being sent ("" outside one: an undo or a sync marks nothing)."""
    return _key.get()


def resuming() -> bool:
    """Whether the set being sent resumes an attempt that died after recording its writes."""
    return _resuming.get()


def carries_key(text: str, key: str) -> bool:
    """Whether an iCalendar resource carries ``key`` (unfolded, as a server may fold the line)."""
    flat = text.replace("\r\n ", "").replace("\n ", "").replace("\r\n\t", "").replace("\n\t", "")
    return bool(key) and f"{CALDAV_PROPERTY}:{key}" in flat


def unsettled(user_id: Any, calendar_id: Any) -> tuple[set[str], set[str]]:
    """What a sync of ``calendar_id`` leaves alone until the user's sets not yet settled are: the
    server names (CalDAV UIDs, Google ids) of the events they write there, whatever the server shows
    (a move or a deletion no record explains yet), and the sets' keys, which a resource the sets
    created carries.  One read of the records."""
    intents = list(RemoteIntent.objects.filter(owner_id=user_id).values_list("operation_id", "writes"))
    pks = {
        int(write["event_id"])
        for _, writes in intents
        for write in writes
        if str(write.get("calendar_id")) == str(calendar_id) and str(write.get("event_id", "")).isdigit()
    }
    rows = Event.objects.filter(pk__in=pks).values_list("uid", "series__uid") if pks else []
    return {uid for pair in rows for uid in pair if uid}, {key for key, _ in intents}
