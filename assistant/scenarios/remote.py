"""Scenarios on remote calendars: the world on a Google or CalDAV server, mirrored as a user's would be.

The shared scenarios prove the product on the built-in store; a user whose calendars live in Google or
on a CalDAV server goes through more: the first sync into the mirror, reads from that mirror, writes
sent to the server with its ids and etags, and edits made by other clients.  With
``provider="google"`` or ``"caldav"`` the runner therefore puts each scenario user's calendars and
events on a server (the loopback Google server or an in-process Radicale, both test infrastructure
from ``tests/providers``, imported only here and only when asked for), connects one account per user
and syncs it, exactly as a user connecting an existing account, and then plays the same turns.

Outside edits go to the server, never to the mirror: the product must notice them itself.  The
final checks read a mirror rebuilt from nothing by a full sync (every mirrored row of the user's
accounts deleted first), so they prove what the server holds; the mirror as the conversation left it
must read the same (no drift between what the product shows and what the server has).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.core.mail import EmailMessage

from assistant.scenarios.judge import Occ
from assistant.scenarios.spec import CalendarSpec
from skills.crypto import generate_key
from skills.models import Calendar, CalendarAccount, Event

__all__ = ["PROVIDERS", "RemoteCalendars", "remote_calendars", "resync_and_compare"]

PROVIDERS = ("local", "google", "caldav")


class RemoteCalendars(ABC):
    """One running server that scenario users' calendars are put on (one account per user)."""

    kind: str

    def __init__(self) -> None:
        self.credential_key = generate_key()
        self.accounts: list[CalendarAccount] = []  # of the run being played, the user's first

    # -- what a backend does -------------------------------------------------------------------------
    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Settings the product needs to reach this server (beyond the credential key)."""

    @abstractmethod
    def create(
        self, owner: Any, calendars: list[tuple[CalendarSpec, ZoneInfo]]
    ) -> tuple[CalendarAccount, dict[str, CalendarSpec], dict[str, str]]:
        """Put the calendars and their events on the server and connect an account of ``owner`` to
        them; returns it, the spec of each calendar by remote id, and each event handle's remote uid."""

    @abstractmethod
    def sync(self, account: CalendarAccount) -> None:
        """Mirror the account the way the product does (a full listing when it has no bookmarks)."""

    @abstractmethod
    def move(self, master: Event, occurrence: Occ, start: datetime, end: datetime) -> None:
        """Move one occurrence (or a one-off event) on the server, as another client would."""

    @abstractmethod
    def delete(self, master: Event, occurrence: Occ) -> None:
        """Delete one occurrence (or a one-off event) on the server, as another client would."""

    def delivered_mail(self) -> list[EmailMessage]:
        """Mail the server sent attendees itself since the last call (Google with sendUpdates): the
        scenario's outbox checks count it like the assistant's own mail.  None by default."""
        return []

    # -- shared ---------------------------------------------------------------------------------------
    def populate(self, owner: Any, calendars: list[tuple[CalendarSpec, ZoneInfo]]) -> dict[str, str]:
        """The calendars of one scenario user on the server, connected and synced into the mirror
        under the scenario's keys and default (names and zones are the server's, as it was told
        them); returns event handle → mirrored master row id."""
        account, specs, uids = self.create(owner, calendars)
        self.accounts.append(account)
        self.sync(account)
        rows = {row.remote_id: row for row in Calendar.objects.filter(account=account)}
        for remote_id, spec in specs.items():
            row = rows[remote_id]
            row.key, row.is_default = spec.key, spec.default
            row.save(update_fields=["key", "is_default"])
        masters = dict(
            Event.objects.filter(calendar__account=account, series__isnull=True).values_list("uid", "pk")
        )
        return {handle: str(masters[uid]) for handle, uid in uids.items()}


@contextmanager
def remote_calendars(provider: str) -> Iterator[RemoteCalendars | None]:
    """The server for ``provider`` started for the block (None for the built-in store)."""
    if provider == "local":
        yield None
        return
    if provider == "google":
        from assistant.scenarios.remote_google import GoogleCalendars

        with GoogleCalendars() as google:
            yield google
        return
    if provider == "caldav":
        from assistant.scenarios.remote_caldav import CaldavCalendars

        with CaldavCalendars() as caldav:
            yield caldav
        return
    raise ValueError(f"Unknown provider {provider!r}: one of {', '.join(PROVIDERS)}.")


def resync_and_compare(world: Any, mirror: dict[str, Occ]) -> tuple[dict[str, Occ], list[str]]:
    """Rebuild the user's mirror from the server alone and read it back.

    ``mirror`` is the snapshot of the mirror as the conversation left it.  Every mirrored row of the
    user's accounts is deleted and their bookmarks dropped, then a full sync fills the mirror again;
    the world's handles, initial snapshot and baseline are moved to the new rows (matched by calendar and
    remote uid).  Returns the fresh snapshot and what the old mirror showed differently (drift).
    """
    from assistant.scenarios.world import snapshot

    remote: RemoteCalendars = world.remote
    accounts = [a for a in remote.accounts if a.owner_id == world.user.pk]
    rows = Event.objects.filter(calendar__account__in=accounts, series__isnull=True)
    old = {str(pk): (calendar, uid) for pk, calendar, uid in rows.values_list("pk", "calendar_id", "uid")}
    for account in accounts:
        Event.objects.filter(calendar__account=account).delete()
        CalendarAccount.objects.filter(pk=account.pk).update(sync_state={})
        account.refresh_from_db()
        remote.sync(account)
    rows = Event.objects.filter(calendar__account__in=accounts, series__isnull=True)
    new = {(calendar, uid): str(pk) for pk, calendar, uid in rows.values_list("pk", "calendar_id", "uid")}
    moved = {pk: new.get(key, f"gone:{pk}") for pk, key in old.items()}
    world.handles = {handle: moved.get(pk, pk) for handle, pk in world.handles.items()}
    world.initial = _renamed(world.initial, moved)
    world.baseline = _renamed(world.baseline, moved)
    fresh = snapshot(world)
    return fresh, _drift(_renamed(mirror, moved), fresh)


def _renamed(snap: dict[str, Occ], moved: dict[str, str]) -> dict[str, Occ]:
    renamed = (
        dataclasses.replace(occ, event_id=moved.get(occ.event_id, occ.event_id)) for occ in snap.values()
    )
    return {occ.key: occ for occ in renamed}


def _drift(mirror: dict[str, Occ], fresh: dict[str, Occ]) -> list[str]:
    """Occurrences the mirror showed that the server does not hold as shown, and the reverse."""
    found = []
    for key in sorted(mirror.keys() | fresh.keys()):
        shown, held = mirror.get(key), fresh.get(key)
        if shown == held:
            continue
        if held is None:
            found.append(f"the mirror shows {_describe(shown)}, which the server does not hold")
        elif shown is None:
            found.append(f"the server holds {_describe(held)}, which the mirror does not show")
        else:
            found.append(f"the mirror shows {_describe(shown)}, the server holds {_describe(held)}")
    return found


def _describe(occ: Occ | None) -> str:
    assert occ is not None
    return (
        f"{occ.summary!r} {occ.start.isoformat()}-{occ.end.isoformat()} on {occ.calendar}"
        f" (attendees {list(occ.attendees)}, location {occ.location!r}, {occ.visibility},"
        f" {'transparent' if occ.transparent else 'opaque'}, description {occ.description!r})"
    )
