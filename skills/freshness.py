"""A chat turn reads remote calendars from their mirror; it brings a stale mirror up to date first.

The assistant answers from the mirror of each Google or CalDAV calendar (a read never waits on the
network), which the beat task refreshes every ``CALENDAR_SYNC_SECONDS``.  Between two rounds an
event another client moved or deleted would be shown, planned around or written over as it was; a
write would still be refused (``If-Match``), but only after the user approved a plan made on stale
data.  A sync from a bookmark costs one request per calendar (Google's ``syncToken``, CalDAV's
``sync-collection``), so a turn makes one when the last is older than :data:`FRESH_FOR`, and the turns
of one quick exchange share it, except a turn answering a pending question: an approval acts on a
preview, which must be checked against what the server holds now, however recent the last sync
(an edit made even later is still refused by the server's etag check).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from skills.accounts import REMOTE_KINDS, sync
from skills.models import CalendarAccount

__all__ = ["FRESH_FOR", "refresh_stale_accounts"]

logger = logging.getLogger(__name__)

FRESH_FOR = timedelta(seconds=5)


def refresh_stale_accounts(user: Any, *, answering: bool = False) -> int:
    """Sync each connected remote account of ``user`` last synced longer ago than :data:`FRESH_FOR`
    (every one when the turn is ``answering`` a pending question); returns how many were synced.  A
    failure is recorded on the account (reads stay as they were, slightly stale), never raised into
    the chat turn."""
    now = timezone.now()
    synced = 0
    accounts = CalendarAccount.objects.filter(
        owner=user, status=CalendarAccount.Status.OK, kind__in=REMOTE_KINDS
    )
    for account in accounts.order_by("pk"):
        last = account.sync_state.get("last_sync")
        if last and not answering and now - datetime.fromisoformat(last) < FRESH_FOR:
            continue
        try:
            synced += sync(account).ok
        except Exception:
            logger.exception("refreshing calendar account %s before a chat turn failed", account.pk)
    return synced
