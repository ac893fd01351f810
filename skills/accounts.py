"""Connecting, choosing, syncing and disconnecting a user's calendar accounts (Google, CalDAV).

The settings pages (:mod:`skills.views`) call these; so do the periodic sync (:mod:`skills.tasks`)
and ``manage.py sync_accounts``.  Every function takes the account (or its owner) the caller has
already looked up by owner: nothing here decides who may see what.

What the owner chose not to have read is kept in the account's ``sync_state["unread"]`` (remote id
→ name, zone, colour; never a secret): those calendars leave the mirror with their events, the
Google sync skips them, and the picker still offers them.  ``sync_state["last_sync"]`` is when the
account last synced without an error.  Nothing here ever writes to the remote calendars.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone

from skills import services
from skills.crypto import SecretUnreadableError, encrypt_json
from skills.models import Calendar, CalendarAccount, Event, default_timezone
from skills.providers.base import PermissionDeniedError, ProviderError

__all__ = [
    "AccountSummary",
    "Choice",
    "ConnectError",
    "SyncOutcome",
    "connect_caldav",
    "connect_google",
    "credentials_problem",
    "disconnect",
    "overview",
    "reconnect_caldav",
    "save_choices",
    "sync",
    "sync_all",
]

logger = logging.getLogger("skills")

REMOTE_KINDS = (CalendarAccount.Kind.GOOGLE, CalendarAccount.Kind.CALDAV)


class ConnectError(Exception):
    """Connecting failed and nothing was stored; the message is for the user."""


# -- what the page shows ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """One calendar as the picker offers it: mirrored (``calendar`` set) or offered but not read."""

    prefix: str  # the picker's field names start with it
    name: str
    calendar: Calendar | None
    remote_id: str = ""
    writable: bool = True

    @property
    def read(self) -> bool:
        return self.calendar is not None


@dataclass
class AccountSummary:
    """An account with its calendars; ``account`` None is the built-in store's calendars."""

    account: CalendarAccount | None
    choices: list[Choice] = field(default_factory=list)

    @property
    def last_sync(self) -> datetime | None:
        stamp = (self.account.sync_state or {}).get("last_sync") if self.account else None
        try:
            return datetime.fromisoformat(stamp) if stamp else None
        except (TypeError, ValueError):
            return None

    @property
    def needs_reconnect(self) -> bool:
        return self.account is not None and self.account.status == CalendarAccount.Status.NEEDS_RECONNECT


def unread_prefix(account: CalendarAccount, remote_id: str) -> str:
    """A field prefix for a calendar not read (its remote id may be a long URL)."""
    return f"a{account.pk}-{hashlib.sha256(remote_id.encode('utf-8')).hexdigest()[:16]}"


def overview(owner: Any) -> list[AccountSummary]:
    """The owner's accounts (then their built-in calendars, if any) with every calendar they offer."""
    calendars = list(Calendar.objects.filter(owner=owner).order_by("name", "pk"))
    summaries = []
    for account in CalendarAccount.objects.filter(owner=owner, kind__in=REMOTE_KINDS).order_by(
        "display_name", "pk"
    ):
        choices = [
            Choice(f"c{c.pk}", c.name, c, c.remote_id, c.writable)
            for c in calendars
            if c.account_id == account.pk
        ]
        unread = (account.sync_state or {}).get("unread") or {}
        choices += [
            Choice(
                unread_prefix(account, remote_id), str(info.get("name") or remote_id), None, remote_id, False
            )
            for remote_id, info in sorted(unread.items(), key=lambda item: str(item[1].get("name", "")))
        ]
        summaries.append(AccountSummary(account, choices))
    remote = {summary.account.pk for summary in summaries if summary.account}
    local = [Choice(f"c{c.pk}", c.name, c, "", c.writable) for c in calendars if c.account_id not in remote]
    if local:
        summaries.append(AccountSummary(None, local))
    return summaries


def credentials_problem() -> str | None:
    """Why no account can be connected here (no key to encrypt its secrets with), or None."""
    try:
        encrypt_json({})
    except ImproperlyConfigured as exc:
        return (
            "Calendar accounts cannot be connected on this server yet: it has no key to encrypt their "
            f"passwords and tokens with. The operator has to set CREDENTIAL_KEYS. {exc}"
        )
    return None


# -- choosing calendars ------------------------------------------------------------------------------------

def _stop_reading(calendar: Calendar, account: CalendarAccount) -> None:
    """Drop ``calendar`` and its events from the mirror; remember it as offered but not read.

    Its sync bookmark goes too (Google's by remote id, CalDAV's by row id): read again later, it is
    listed from scratch, not from a token that would skip every event it already had.
    """
    state = account.sync_state
    state.setdefault("unread", {})[calendar.remote_id] = {
        "name": calendar.name,
        "timezone": calendar.timezone,
        "color": calendar.color,
    }
    for bookmark in (calendar.remote_id, str(calendar.pk)):
        state.get("calendars", {}).pop(bookmark, None)
    calendar.delete()


def _read_again(account: CalendarAccount, remote_id: str, writable: bool) -> Calendar:
    info = account.sync_state.get("unread", {}).pop(remote_id)
    return Calendar.objects.create(
        owner=account.owner,
        account=account,
        remote_id=remote_id,
        key=services.calendar_free_key(account.owner, str(info.get("name") or "calendar")),
        name=str(info.get("name") or remote_id)[:200],
        timezone=str(info.get("timezone") or default_timezone()),
        color=str(info.get("color") or ""),
        writable=writable,
    )


def save_choices(
    owner: Any, summaries: list[AccountSummary], chosen: dict[str, Any]
) -> list[CalendarAccount]:
    """Apply the picker: which calendars are read and may be changed, and the default for new events.

    ``chosen`` is the picker's cleaned data (``<prefix>-read``, ``<prefix>-write``, ``default``: a
    calendar pk or empty).  Returns the accounts with a calendar read again, whose events have to be
    synced.
    """
    added: list[CalendarAccount] = []
    with transaction.atomic():
        for summary in summaries:
            account = summary.account
            if account is not None:
                account = CalendarAccount.objects.select_for_update().get(pk=account.pk, owner=owner)
            touched = False
            for choice in summary.choices:
                read = chosen.get(f"{choice.prefix}-read", True) if account else True
                writable = bool(chosen.get(f"{choice.prefix}-write"))
                if choice.calendar is not None and account is not None and not read:
                    _stop_reading(choice.calendar, account)
                    touched = True
                elif choice.calendar is None and account is not None and read:
                    _read_again(account, choice.remote_id, writable)
                    touched = True
                    if account not in added:
                        added.append(account)
                elif choice.calendar is not None and choice.calendar.writable != writable:
                    Calendar.objects.filter(pk=choice.calendar.pk).update(writable=writable)
            if touched and account is not None:
                account.save(update_fields=["sync_state", "updated_at"])
        default = chosen.get("default") or ""
        current = Calendar.objects.filter(owner=owner, is_default=True).first()
        if default and (current is None or str(current.pk) != default):
            Calendar.objects.filter(owner=owner, is_default=True).update(is_default=False)
            Calendar.objects.filter(owner=owner, pk=int(default)).update(is_default=True)
    return added


# -- syncing ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SyncOutcome:
    """What a sync did: how many events changed in the mirror, or why it failed (for the owner)."""

    changed: int = 0
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


def _provider_sync(account: CalendarAccount) -> int:
    if account.kind == CalendarAccount.Kind.GOOGLE:
        from skills.providers.google.sync import sync_account as google_sync

        return google_sync(account).changed
    if account.kind == CalendarAccount.Kind.CALDAV:
        from skills.providers.caldav import sync_account as caldav_sync

        report = caldav_sync(account)
        return report.fetched + report.deleted
    raise ProviderError(f"{account.get_kind_display()} accounts are not synced.")


def sync(account: CalendarAccount) -> SyncOutcome:
    """Mirror the account's calendars now; a failure is recorded on the account, never raised.

    A refused grant or password leaves the account *Needs reconnecting* (the providers mark it);
    credentials no configured key can decrypt do too.  Other failures (the server down, no key
    configured) keep its status and say why in ``last_error``.
    """
    try:
        changed = _provider_sync(account)
    except SecretUnreadableError:
        message = "The stored credentials can no longer be decrypted on this server; reconnect the account."
        _failed(account, message, status=CalendarAccount.Status.NEEDS_RECONNECT)
        return SyncOutcome(error=message)
    except PermissionDeniedError as exc:
        _failed(account, str(exc), status=CalendarAccount.Status.NEEDS_RECONNECT)
        return SyncOutcome(error=str(exc))
    except (ProviderError, ImproperlyConfigured) as exc:
        _failed(account, str(exc), status=account.status)
        return SyncOutcome(error=str(exc))
    account.sync_state["last_sync"] = timezone.now().isoformat()
    account.status, account.last_error = CalendarAccount.Status.OK, ""
    CalendarAccount.objects.filter(pk=account.pk).update(
        sync_state=account.sync_state, status=account.status, last_error="", updated_at=timezone.now()
    )
    return SyncOutcome(changed=changed)


def _failed(account: CalendarAccount, message: str, *, status: str) -> None:
    account.status, account.last_error = status, message
    CalendarAccount.objects.filter(pk=account.pk).update(
        status=status, last_error=message, updated_at=timezone.now()
    )


@dataclass(frozen=True)
class SyncSummary:
    synced: int = 0
    failed: int = 0


def sync_all() -> SyncSummary:
    """Sync every connected account (status ok), one after the other; one failing (even with an
    error nobody foresaw) does not keep the others from syncing."""
    synced = failed = 0
    accounts = CalendarAccount.objects.filter(status=CalendarAccount.Status.OK, kind__in=REMOTE_KINDS)
    for account in accounts.order_by("pk").iterator():
        try:
            outcome = sync(account)
        except Exception:
            logger.exception("syncing calendar account %s failed", account.pk)
            failed += 1
            continue
        if outcome.ok:
            synced += 1
        else:
            failed += 1
            logger.warning("syncing calendar account %s failed", account.pk)
    return SyncSummary(synced=synced, failed=failed)


# -- connecting ------------------------------------------------------------------------------------------
def _google_identity(credentials: dict[str, Any]) -> str:
    """The Google account a grant is for: its primary calendar's id is its address."""
    from skills.providers.google.client import GoogleClient

    probe = CalendarAccount(kind=CalendarAccount.Kind.GOOGLE, display_name="Google Calendar")
    probe.credentials = credentials
    client = GoogleClient(probe)  # unsaved: a refreshed token is not stored anywhere
    entry = client.execute(client.service.calendarList().get(calendarId="primary"))
    return str(entry.get("id") or "")


def _offers(account: CalendarAccount, remote_id: str) -> bool:
    return (
        account.calendars.filter(remote_id=remote_id).exists()
        or remote_id in (account.sync_state or {}).get("unread", {})
        or account.display_name == remote_id
    )


def connect_google(
    owner: Any, credentials: dict[str, Any], *, account: CalendarAccount | None = None
) -> tuple[CalendarAccount, SyncOutcome]:
    """Store a Google grant (encrypted) and run the first sync.

    ``account`` is the one being reconnected (its status back to ok, its last error cleared); the
    grant must then be for the same Google account.  A new grant for an address the owner has
    connected already renews that account rather than make a second.

    Raises:
        ConnectError: Google could not tell whose grant it is, or a reconnect signed in as someone else.
        ImproperlyConfigured: no CREDENTIAL_KEYS.
    """
    try:
        identity = _google_identity(credentials)
    except ProviderError:
        raise ConnectError(
            "Google Calendar could not be reached to finish connecting; nothing was stored."
        ) from None
    if account is not None and identity and not _offers(account, identity):
        raise ConnectError(
            f"You signed in to Google as {identity}, but {account.display_name} is another Google account; "
            "nothing was changed. Reconnect it signed in as that account."
        )
    if account is None and identity:
        account = next(
            (
                known
                for known in CalendarAccount.objects.filter(owner=owner, kind=CalendarAccount.Kind.GOOGLE)
                if _offers(known, identity)
            ),
            None,
        )
    if account is None:
        account = CalendarAccount(
            owner=owner, kind=CalendarAccount.Kind.GOOGLE, display_name=identity or "Google"
        )
    account.credentials = credentials
    account.status, account.last_error = CalendarAccount.Status.OK, ""
    account.save()
    return account, sync(account)


CALDAV_UNREACHABLE = (
    "Couldn't reach a CalDAV server at that address. Check the address (your provider's help page "
    "gives it) and try again."
)


def _caldav_refusal(exc: ProviderError) -> ConnectError:
    """What the form says: a refused password, or one message for everything else.

    One message, never the server's words: an address the server may not reach (skills.outbound), a
    closed port, a redirect, an error page and an answer that is not CalDAV read the same, so that the
    form tells nobody what listens where.  The log names the kind of failure, for the operator.
    """
    if isinstance(exc, PermissionDeniedError):
        return ConnectError("The server refused that user name or password.")
    logger.info("CalDAV connect failed: %s", type(exc.__cause__ or exc).__name__)
    return ConnectError(CALDAV_UNREACHABLE)


def connect_caldav(
    owner: Any, *, url: str, username: str, password: str, display_name: str = ""
) -> tuple[CalendarAccount, SyncOutcome]:
    """Discover the calendars at ``url`` (all of them read; the picker narrows that down), store the
    app password encrypted and run the first sync.

    Raises:
        ConnectError: the server refused the password, could not be reached or has no calendars;
            nothing was stored.
        ImproperlyConfigured: no CREDENTIAL_KEYS.
    """
    from skills.providers.caldav import connect_account

    try:
        account = connect_account(
            owner=owner, url=url, username=username, password=password, display_name=display_name
        )
    except ProviderError as exc:
        raise _caldav_refusal(exc) from None
    return account, sync(account)


def reconnect_caldav(account: CalendarAccount, *, url: str, username: str, password: str) -> SyncOutcome:
    """Check a new password (or address) against the server, store it and sync.

    Raises:
        ConnectError: the server refused it or could not be reached; the account is as it was.
        ImproperlyConfigured: no CREDENTIAL_KEYS.
    """
    from skills.providers.caldav.client import DavConnection

    try:
        DavConnection(url, username, password).calendars()
    except ProviderError as exc:
        raise _caldav_refusal(exc) from None
    account.credentials = {"url": url, "username": username, "password": password}
    account.status, account.last_error = CalendarAccount.Status.OK, ""
    account.save(update_fields=["encrypted_credentials", "status", "last_error", "updated_at"])
    return sync(account)


# -- disconnecting ---------------------------------------------------------------------------------------
def disconnect(account: CalendarAccount) -> tuple[int, int]:
    """Remove the account, its calendars and their mirrored events from this site (never from the
    server: the remote calendars stay as they are).  Returns how many calendars and events went."""
    with transaction.atomic():
        calendars = account.calendars.count()
        events = Event.objects.filter(calendar__account=account).count()
        account.delete()
    return calendars, events
