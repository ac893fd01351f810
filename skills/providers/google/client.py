"""The Calendar v3 client of one :class:`~skills.models.CalendarAccount`: built from its decrypted
credentials, refreshed tokens stored back encrypted, failures mapped onto the provider exceptions.

Settings (all optional but the client id/secret of a real deployment):

- ``GOOGLE_CLIENT_ID`` / ``GOOGLE_CLIENT_SECRET``: the operator's OAuth client.
- ``GOOGLE_TOKEN_URI`` (default Google's), ``GOOGLE_API_ENDPOINT`` (default
  ``https://www.googleapis.com/calendar/v3/``): overridden by tests to point at a loopback server.
  The batch endpoint is derived from the API endpoint (``.../batch/calendar/v3``), because
  ``service.new_batch_http_request()`` ignores ``api_endpoint``.

Retries: 429, 5xx and rate-limit 403s (``rateLimitExceeded``/``userRateLimitExceeded``) are retried
with exponential back-off, waiting what ``Retry-After`` says when the server says it (the client
library ignores that header); lost connections too, since every write here is idempotent (a
client-chosen id for inserts, ``If-Match`` for the rest).  Nothing else is retried.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httplib2
from django.conf import settings
from django.db import transaction
from google.auth.exceptions import RefreshError, TransportError
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError
from googleapiclient.http import BatchHttpRequest

from skills.models import CalendarAccount
from skills.providers.base import (
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    TransientProviderError,
)

__all__ = [
    "DEFAULT_API_ENDPOINT",
    "DEFAULT_TOKEN_URI",
    "SCOPES",
    "DuplicateError",
    "GoogleClient",
    "ReconnectNeededError",
    "mark_needs_reconnect",
]

DEFAULT_API_ENDPOINT = "https://www.googleapis.com/calendar/v3/"
DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token"
SCOPES = ["https://www.googleapis.com/auth/calendar"]
BATCH_LIMIT = 50  # Calendar's limit of parts per batch request
MAX_ATTEMPTS = 5
MAX_WAIT = 60.0  # seconds: a longer Retry-After is not waited out inside a chat turn
RATE_LIMIT_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})

# Replaced in tests that must not sleep; the wait a retry takes goes through here.
sleep: Callable[[float], None] = time.sleep


class ReconnectNeededError(PermissionDeniedError):
    """The account's grant was revoked or has expired: its owner has to connect it again."""


class DuplicateError(ProviderError):
    """409: an event with the client-chosen id exists already (an insert already made)."""


def mark_needs_reconnect(account: CalendarAccount, message: str) -> None:
    """Record on the account (in its own transaction) that it must be connected again, and why."""
    with transaction.atomic():
        CalendarAccount.objects.filter(pk=account.pk).update(
            status=CalendarAccount.Status.NEEDS_RECONNECT, last_error=message
        )
    account.status, account.last_error = CalendarAccount.Status.NEEDS_RECONNECT, message


def _setting(name: str, default: str) -> str:
    return str(getattr(settings, name, "") or default)


def batch_uri_for(api_endpoint: str) -> str:
    """``https://host/calendar/v3/`` → ``https://host/batch/calendar/v3``."""
    base = api_endpoint.rstrip("/")
    suffix = "/calendar/v3"
    root = base[: -len(suffix)] if base.endswith(suffix) else base
    return f"{root}/batch/calendar/v3"


def _reason(error: HttpError) -> str:
    try:
        body = json.loads(error.content.decode("utf-8"))
        return str(body["error"]["errors"][0].get("reason", ""))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""


def _retry_after(error: HttpError) -> float | None:
    value = error.resp.get("retry-after") if error.resp is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _retryable(error: HttpError) -> bool:
    status = error.resp.status
    return status == 429 or status >= 500 or (status == 403 and _reason(error) in RATE_LIMIT_REASONS)


def _backoff(attempt: int, error: Exception | None) -> float:
    told = _retry_after(error) if isinstance(error, HttpError) else None
    if told is not None:
        return min(told, MAX_WAIT)
    return min(0.25 * 2**attempt + random.uniform(0, 0.1), MAX_WAIT)


def translate(error: HttpError, what: str = "Google Calendar") -> ProviderError:
    """The contract's exception for an error Google answered."""
    status, reason = error.resp.status, _reason(error)
    if status == 412:
        return ConflictError(f"{what} changed in Google Calendar since it was read; read it again.")
    if status == 409:
        return DuplicateError(f"{what} exists already in Google Calendar.")
    if status in (404, 410):
        return NotFoundError(f"{what} is no longer in Google Calendar.")
    if _retryable(error):
        return TransientProviderError(f"Google Calendar is busy or failing ({status}); try again shortly.")
    if status in (401, 403):
        return PermissionDeniedError(f"Google Calendar refused this ({reason or status}).")
    return ProviderError(f"Google Calendar refused this ({status} {reason}).")


class GoogleClient:
    """The Calendar service of one account, with retries and the contract's exceptions."""

    def __init__(self, account: CalendarAccount) -> None:
        self.account = account
        self.api_endpoint = _setting("GOOGLE_API_ENDPOINT", DEFAULT_API_ENDPOINT)
        self.batch_uri = batch_uri_for(self.api_endpoint)
        stored = account.credentials
        if not stored.get("refresh_token") and not stored.get("token"):
            raise self._reconnect("The Google account has no stored grant; connect it again.")
        self.credentials = Credentials(
            token=stored.get("token"),
            refresh_token=stored.get("refresh_token"),
            token_uri=_setting("GOOGLE_TOKEN_URI", DEFAULT_TOKEN_URI),
            client_id=_setting("GOOGLE_CLIENT_ID", ""),
            client_secret=_setting("GOOGLE_CLIENT_SECRET", ""),
            scopes=stored.get("scopes") or None,
        )
        self._stored_token = stored.get("token")
        self.service = build(
            "calendar",
            "v3",
            credentials=self.credentials,
            static_discovery=True,
            cache_discovery=False,
            client_options={"api_endpoint": self.api_endpoint},
        )

    # -- credentials ------------------------------------------------------------------------------------
    def _reconnect(self, message: str) -> ReconnectNeededError:
        """The error to raise; the caller marks the account once outside its transaction (a mark made
        inside would be rolled back with the write that failed)."""
        return ReconnectNeededError(message)

    def _store_token(self) -> None:
        """A refreshed access token goes back into the account, encrypted (never logged)."""
        token = self.credentials.token
        if not token or token == self._stored_token:
            return
        stored = dict(self.account.credentials)
        stored["token"] = token
        if self.credentials.refresh_token:
            stored["refresh_token"] = self.credentials.refresh_token
        self.account.credentials = stored
        CalendarAccount.objects.filter(pk=self.account.pk).update(
            encrypted_credentials=self.account.encrypted_credentials
        )
        self._stored_token = token

    def _refresh_failed(self, exc: RefreshError) -> ReconnectNeededError:
        detail = str(exc.args[0]) if exc.args else ""
        if "invalid_grant" in detail or "invalid_token" in detail or "revoked" in detail.lower():
            message = (
                f"Google no longer accepts the connection to {self.account.display_name} (the access "
                "was revoked or has expired). Reconnect the account to go on using its calendars."
            )
        else:
            message = f"Google refused to renew the connection to {self.account.display_name}; reconnect it."
        return self._reconnect(message)

    # -- calls ------------------------------------------------------------------------------------------
    def execute(self, request: Any, what: str = "Google Calendar") -> Any:
        """Run one request, retrying what is worth retrying (see the module docstring)."""
        last: Exception | None = None
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                sleep(_backoff(attempt - 1, last))
            try:
                result = request.execute(num_retries=0)
            except RefreshError as exc:
                raise self._refresh_failed(exc) from None
            except HttpError as exc:
                if not _retryable(exc):
                    raise translate(exc, what) from None
                last = exc
                continue
            except (TimeoutError, httplib2.HttpLib2Error, TransportError, OSError) as exc:
                last = exc
                continue
            self._store_token()
            return result
        if isinstance(last, HttpError):
            raise translate(last, what)
        raise TransientProviderError("Google Calendar could not be reached; try again shortly.")

    def batch(self, requests: Sequence[Any]) -> list[Any]:
        """Run requests in batch HTTP requests of up to 50 parts, retrying only the parts worth it.

        Returns one entry per request, in order: the parsed response, or the HttpError a part
        answered that is not worth retrying (the caller decides what it means for that part), or
        what a part still met after the last attempt (an HttpError worth retrying, or a
        :class:`TransientProviderError` when the batch could not be sent).  Never an exception for
        the whole when some parts were accepted: the caller must know each one Google made.
        """
        results: list[Any] = [None] * len(requests)
        pending = list(range(len(requests)))
        unreachable = TransientProviderError("Google Calendar could not be reached; try again shortly.")
        for attempt in range(MAX_ATTEMPTS):
            if not pending:
                break
            retry: list[int] = []
            wait: float = 0.0
            for chunk_start in range(0, len(pending), BATCH_LIMIT):
                chunk = pending[chunk_start : chunk_start + BATCH_LIMIT]
                answers: dict[str, tuple[Any, Exception | None]] = {}

                def callback(request_id: str, response: Any, exception: Exception | None) -> None:
                    answers[request_id] = (response, exception)  # noqa: B023 - used at once

                batch = BatchHttpRequest(callback=callback, batch_uri=self.batch_uri)
                for index in chunk:
                    batch.add(requests[index], request_id=str(index))
                try:
                    batch.execute()
                except RefreshError as exc:
                    raise self._refresh_failed(exc) from None
                except HttpError as exc:
                    if not _retryable(exc):
                        for index in chunk:
                            results[index] = translate(exc)
                        continue
                    retry.extend(chunk)
                    for index in chunk:
                        results[index] = exc
                    wait = max(wait, _backoff(attempt, exc))
                    continue
                except (TimeoutError, httplib2.HttpLib2Error, TransportError, OSError):
                    retry.extend(chunk)
                    for index in chunk:
                        results[index] = unreachable
                    wait = max(wait, _backoff(attempt, None))
                    continue
                for index in chunk:
                    response, exception = answers.get(str(index), (None, None))
                    if isinstance(exception, HttpError) and _retryable(exception):
                        retry.append(index)
                        wait = max(wait, _backoff(attempt, exception))
                    elif exception is not None and not isinstance(exception, HttpError):
                        retry.append(index)
                        exception, wait = unreachable, max(wait, _backoff(attempt, None))
                    results[index] = exception if exception is not None else response
            self._store_token()
            pending = retry
            if pending and attempt + 1 < MAX_ATTEMPTS:
                sleep(wait)
        return results
