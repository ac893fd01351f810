"""A loopback Google Calendar API v3 server for tests (test infrastructure, no product code).

``GoogleCalendarServer`` is a threaded ``http.server`` on a free 127.0.0.1 port that speaks enough
of Google's real REST protocol that the *real* client works against it unchanged::

    server = GoogleCalendarServer().start()          # or ``with GoogleCalendarServer() as server:``
    creds = google.oauth2.credentials.Credentials(
        token=None, refresh_token=server.issue_refresh_token(), token_uri=server.token_uri,
        client_id=server.client_id, client_secret=server.client_secret)
    service = googleapiclient.discovery.build(
        "calendar", "v3", credentials=creds, static_discovery=True,
        client_options={"api_endpoint": server.api_endpoint})   # ``server.url`` works too
    batch = googleapiclient.http.BatchHttpRequest(batch_uri=server.batch_uri)

Shortcuts doing the same: ``server.credentials()``, ``server.build_service()``, ``server.new_batch()``;
``server.client_config(redirect_uri)`` is a ``{"web": ...}`` config for google-auth-oauthlib's ``Flow``
(over plain http oauthlib wants ``OAUTHLIB_INSECURE_TRANSPORT=1`` in the environment).

URLs: the client joins each method's path ("calendars/{calendarId}/events") to ``api_endpoint``.
With the real service that is ``https://www.googleapis.com/calendar/v3/``; here ``server.api_endpoint``
is ``<url>/calendar/v3/`` and the bare ``server.url`` is accepted as well (paths without the prefix).
CAUTION, a real-client quirk (googleapis/google-api-python-client#1107): ``service.new_batch_http_request()``
builds its URL from the discovery document's rootUrl + batchPath, ignoring ``api_endpoint``, so it
would post to https://www.googleapis.com/batch/calendar/v3. Code that must run against this server
builds ``BatchHttpRequest(batch_uri=...)`` itself; the batch endpoint is ``server.batch_uri``
(``<url>/batch/calendar/v3``; any POST path starting with ``/batch`` is accepted).

Implemented (state in memory, per server instance; JSON shaped as the real API's):

- OAuth 2: ``POST /token`` (``refresh_token`` grant, ``authorization_code`` grant with PKCE S256/plain
  checked, client id/secret in the body or HTTP Basic), ``POST /revoke``, and a consent stand-in at
  ``GET /o/oauth2/auth`` (and ``/o/oauth2/v2/auth``) that signs in ``consent_account`` without a page
  and redirects to ``redirect_uri`` with ``code``, ``state`` and ``scope``. A refresh token comes back
  only for ``access_type=offline``, and then only on the first consent of that account to that client
  or with ``prompt=consent`` (as Google does). Errors: ``invalid_grant`` (revoked/unknown refresh
  token, used/expired code, wrong or missing code_verifier), ``redirect_uri_mismatch``,
  ``invalid_client``, ``invalid_scope``. Every API call needs ``Authorization: Bearer <token>`` issued
  here; a missing, unknown, expired or revoked token answers 401 ``authError`` (the client refreshes
  and retries on its own). Scopes are enforced loosely (read vs write vs free/busy).
- calendarList.list/get, calendars.get ("primary" resolves to the account's primary calendar).
- events.list: ``timeMin``/``timeMax`` (RFC 3339 with an offset, else 400), ``singleEvents`` expanding
  RRULE/EXRULE/RDATE/EXDATE with python-dateutil in the event's time zone (DST-safe),
  ``orderBy`` (startTime only with singleEvents, as the real API), ``showDeleted`` (cancelled instances
  are listed when both showDeleted and singleEvents are false, as documented), ``q``, ``iCalUID``,
  ``updatedMin``, ``private/sharedExtendedProperty``, ``maxResults`` (default 250, max 2500) with
  ``pageToken`` paging over a snapshot taken on the first page, ``nextSyncToken`` on the last page and
  ``syncToken`` incremental listing (everything changed since, deletions as ``status: cancelled``);
  ``syncToken`` with timeMin/timeMax/q/iCalUID/orderBy/updatedMin/extended properties answers 400.
- events.get/insert/patch/update/delete: client-chosen ids must be base32hex ``[a-v0-9]{5,1024}``
  (else 400 ``invalid``), a used id (even of a deleted event) answers 409 ``duplicate``; server ids are
  26 base32hex chars; ``If-Match`` on patch/update/delete (mismatch → 412 ``conditionNotMet``); every
  write gives a new etag, ``updated`` and sync sequence; ``sequence`` goes up when times/recurrence
  change; patch is Google's patch (objects merged, arrays replaced, null clears; setting one of
  ``date``/``dateTime`` in start/end drops the other); ``get`` of a deleted event still answers it with
  ``status: cancelled``, deleting it again answers 410 ``deleted``, patching it back to ``confirmed``
  restores it; times validated as Google does (missing time zone, mixed date/dateTime, empty range
  ``timeRangeEmpty``, recurring events need ``timeZone``); all-day events use ``date`` with an
  exclusive end; ``sendUpdates`` (all/externalOnly/none, else 400) is recorded in ``sent_updates``.
- Recurring events: instance ids ``<masterId>_<YYYYMMDDTHHMMSSZ>`` (``_<YYYYMMDD>`` all-day) with
  ``recurringEventId`` and ``originalStartTime``; events.instances; get/patch/update/delete of an
  instance id (patching creates a stored exception; ``status: cancelled`` or delete cancels the
  occurrence); deleting a master cancels its exceptions; after a master's rule or start changes,
  exceptions that no longer fall on an occurrence are cancelled (they show up in the next sync).
- freebusy.query: merged busy intervals clipped to the range, opaque and not cancelled events,
  recurrences expanded, all-day events in the calendar's zone; unknown or unreadable calendars get
  ``errors: [{reason: notFound}]``. Any account may read the free/busy of any calendar held here
  (``freebusy_public=False`` on ``add_calendar`` to hide one).
- Batch: ``POST /batch/calendar/v3`` multipart/mixed, each ``application/http`` part run as its own
  call (own Authorization, own faults, own log line) and answered in a multipart/mixed response with
  ``Content-ID: <response-...>``; more than 50 parts answers 400 (Calendar's batch limit is 50).
- Faults (plain methods): ``fail_write`` (the Nth write from now answers 500 and changes nothing, or
  ``after_commit=True``), ``rate_limit`` (429 with ``Retry-After`` or 403 ``rateLimitExceeded`` /
  ``userRateLimitExceeded`` with Google's error JSON), ``lose_response`` (the write is committed, then
  the connection is closed with no answer; NB httplib2 silently resends a request once when the first
  answer is missing, so with a client-chosen id the caller usually sees 409 ``duplicate``; ``times=2``
  makes the client see the connection error), ``expire_next_sync_token`` / ``invalidate_sync_tokens``
  (410 ``fullSyncRequired``), ``revoke_refresh_token``, ``expire_access_tokens``, ``deny_next_consent``,
  and the general ``inject``. Faults apply to batch parts like to single calls.
- Observation: ``log`` (every HTTP request and every batch part: method, path, query, lower-cased
  headers such as ``if-match``, parsed body, status, op), ``counters`` (``http``, ``api_http`` = HTTP
  requests to the Calendar API incl. batches, ``batch_http``, ``token``, ``authorize``, ``calls`` =
  logical API calls incl. batch parts, ``writes``, ``op:<name>``), ``reset_log()``,
  ``api_http_requests``; state helpers ``seed_event``/``edit_event``/``remove_event`` ("another
  device", no HTTP, no faults) and ``stored_event``/``stored_events``.

Not implemented / known deviations from the real API:

- No quickAdd, import, move, watch/channels, ACL, settings, colors, calendar/calendarList writes,
  attachments, conference data, event types other than "default", ``fields`` partial responses,
  gzip, ``If-None-Match``/304, JSONP/``alt`` other than json. Unknown query parameters are ignored.
- ``timeZone`` on list/instances does not re-render times: dateTimes are normalised at write time to
  the event's ``timeZone`` (else the calendar's), offset ``Z`` when it is zero.
- Expansion without ``timeMax`` stops two years after max(now, series start) (Google pages on much
  further). A master's later changes to summary etc. are not propagated into stored exceptions.
  Whether Google cancels exceptions orphaned by a master's time change is an approximation here.
- Incremental sync with ``singleEvents=true`` returns every instance of a changed series (within the
  horizon) and changed exceptions; other list parameters are not compared with the initial sync's.
  Cancelled items in lists carry only kind/etag/id/status (+ recurringEventId/originalStartTime for
  instances). A sync token this server never issued answers 400, an issued one that was invalidated
  answers 410. The 400 message for syncToken + time bounds is this server's wording.
- Attendees are stored as given; ``sendUpdates`` is validated and recorded, and for ``all`` or
  ``externalOnly`` the mail Google would send each guest is kept in ``emailed`` (never sent).
  Free/busy ignores declined invitations; no ``groups``, no time-range-too-long check.
- OAuth: no id_token, no consent page, no incremental authorization or rapt; an access token's scope
  list is the grant's.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import email
import email.message
import email.parser
import hashlib
import json
import re
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil.rrule import rrule, rruleset, rrulestr

CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar"
READ_SCOPES = frozenset(
    {
        CALENDAR_SCOPE,
        CALENDAR_SCOPE + ".readonly",
        CALENDAR_SCOPE + ".events",
        CALENDAR_SCOPE + ".events.readonly",
    }
)
WRITE_SCOPES = frozenset({CALENDAR_SCOPE, CALENDAR_SCOPE + ".events"})
FREEBUSY_SCOPES = READ_SCOPES | {CALENDAR_SCOPE + ".freebusy"}

BASE32HEX_ID = re.compile(r"[a-v0-9]{5,1024}")
_BASE32HEX = "0123456789abcdefghijklmnopqrstuv"
BATCH_LIMIT = 50
EXPANSION_HORIZON = timedelta(days=730)
SYNC_INCOMPATIBLE = (
    "timeMin",
    "timeMax",
    "q",
    "iCalUID",
    "orderBy",
    "updatedMin",
    "privateExtendedProperty",
    "sharedExtendedProperty",
)
WRITE_OPS = frozenset({"events.insert", "events.patch", "events.update", "events.delete"})
ROLE_RANK = {"freeBusyReader": 0, "reader": 1, "writer": 2, "owner": 3}


# --------------------------------------------------------------------------- errors and replies


class ApiError(Exception):
    """An error answered in Google's JSON error format."""

    def __init__(
        self,
        status: int,
        reason: str,
        message: str,
        *,
        domain: str = "global",
        headers: dict[str, str] | None = None,
        extra: dict[str, str] | None = None,
        status_text: str | None = None,
    ) -> None:
        super().__init__(f"{status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message
        self.domain = domain
        self.headers = headers or {}
        self.extra = extra or {}
        self.status_text = status_text

    def body(self) -> dict[str, Any]:
        detail: dict[str, Any] = {"domain": self.domain, "reason": self.reason, "message": self.message}
        detail.update(self.extra)
        error: dict[str, Any] = {"errors": [detail], "code": self.status, "message": self.message}
        if self.status_text:
            error["status"] = self.status_text
        return {"error": error}

    def reply(self) -> _Reply:
        headers = {"Content-Type": "application/json; charset=UTF-8", **self.headers}
        return _Reply(self.status, headers, _json_bytes(self.body()))


def _not_found() -> ApiError:
    return ApiError(404, "notFound", "Not Found")


def _bad_request(message: str = "Bad Request", reason: str = "badRequest") -> ApiError:
    return ApiError(400, reason, message)


@dataclass
class _Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    drop: bool = False


def _json_bytes(obj: Any) -> bytes:
    return json.dumps(obj, indent=1).encode("utf-8")


def _json_reply(status: int, obj: Any, headers: dict[str, str] | None = None) -> _Reply:
    all_headers = {"Content-Type": "application/json; charset=UTF-8", **(headers or {})}
    return _Reply(status, all_headers, _json_bytes(obj))


def _oauth_error(status: int, error: str, description: str) -> _Reply:
    return _json_reply(
        status, {"error": error, "error_description": description}, {"Cache-Control": "no-store"}
    )


# --------------------------------------------------------------------------- observation


@dataclass
class LoggedRequest:
    """One HTTP request, or one part of a batch request (``in_batch``)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    kind: str  # "api", "batch", "token", "authorize", "revoke", "other"
    in_batch: bool = False
    op: str | None = None
    status: int | None = None  # None when the response was dropped

    @property
    def if_match(self) -> str | None:
        return self.headers.get("if-match")


@dataclass(frozen=True)
class CallInfo:
    """What a fault's matcher sees of a logical API call."""

    op: str
    method: str
    path: str
    query: dict[str, list[str]]
    in_batch: bool

    @property
    def write(self) -> bool:
        return self.op in WRITE_OPS


@dataclass
class Fault:
    """A pending injected fault; ``remaining`` goes down each time it fires."""

    description: str
    match: Callable[[CallInfo], bool]
    skip: int
    remaining: int
    status: int | None = None
    reason: str = "backendError"
    message: str = "Backend Error"
    domain: str = "global"
    headers: dict[str, str] = field(default_factory=dict)
    after_commit: bool = False
    drop: bool = False
    fired: int = 0

    def error(self) -> ApiError:
        assert self.status is not None
        return ApiError(self.status, self.reason, self.message, domain=self.domain, headers=self.headers)


# --------------------------------------------------------------------------- time helpers


def _zone(name: str, what: str = "start") -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise _bad_request(f"Invalid time zone definition for {what} time.", "invalid") from exc


def parse_rfc3339(value: str) -> datetime:
    """A timestamp with an offset, as the API's timeMin/timeMax/updatedMin need."""
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise _bad_request() from exc
    if parsed.tzinfo is None:
        raise _bad_request()
    return parsed


def format_datetime(value: datetime, zone: ZoneInfo) -> str:
    local = value.astimezone(zone)
    if local.utcoffset() == timedelta(0):
        return local.strftime("%Y-%m-%dT%H:%M:%SZ")
    return local.isoformat(timespec="seconds")


def _utc_stamp(value: datetime | None = None) -> str:
    value = (value or datetime.now(UTC)).astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class _When:
    """A parsed ``start``/``end``/``originalStartTime``."""

    day: date | None = None
    at: datetime | None = None  # aware
    zone: str | None = None  # the explicit timeZone field

    @property
    def all_day(self) -> bool:
        return self.day is not None

    def instant(self, calendar_zone: str) -> datetime:
        if self.day is not None:
            return datetime.combine(self.day, dtime(), ZoneInfo(calendar_zone))
        assert self.at is not None
        return self.at


def _parse_when(raw: Any, what: str, calendar_zone: str) -> _When:
    if not isinstance(raw, dict) or not (raw.get("date") or raw.get("dateTime")):
        raise _bad_request(f"Missing {what} time.", "required")
    if raw.get("date") and raw.get("dateTime"):
        raise _bad_request(f"Invalid {what} time.", "invalid")
    zone_name = raw.get("timeZone")
    if zone_name is not None:
        _zone(zone_name, what)
    if raw.get("date"):
        try:
            return _When(day=date.fromisoformat(raw["date"]), zone=zone_name)
        except (TypeError, ValueError) as exc:
            raise _bad_request(f"Invalid {what} time.", "invalid") from exc
    try:
        at = datetime.fromisoformat(raw["dateTime"])
    except (TypeError, ValueError) as exc:
        raise _bad_request(f"Invalid {what} time.", "invalid") from exc
    if at.tzinfo is None:
        if zone_name is None:
            raise _bad_request(f"Missing time zone definition for {what} time.", "required")
        at = at.replace(tzinfo=ZoneInfo(zone_name))
    del calendar_zone
    return _When(at=at, zone=zone_name)


def _when_json(value: datetime | date, zone: str | None, display_zone: str) -> dict[str, str]:
    if isinstance(value, datetime):
        out = {"dateTime": format_datetime(value, ZoneInfo(zone or display_zone))}
        if zone:
            out["timeZone"] = zone
        return out
    return {"date": value.isoformat()}


# --------------------------------------------------------------------------- recurrence


def _ical_value(value: str, params: dict[str, str], zone: ZoneInfo, all_day: bool) -> datetime:
    value = value.strip()
    if all_day:
        return datetime.strptime(value[:8], "%Y%m%d")
    if params.get("VALUE", "").upper() == "DATE" or len(value) == 8:
        return datetime.strptime(value, "%Y%m%d").replace(tzinfo=zone)
    if value.endswith("Z"):
        return datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    local_zone = ZoneInfo(params["TZID"]) if "TZID" in params else zone
    return datetime.strptime(value, "%Y%m%dT%H%M%S").replace(tzinfo=local_zone)


def _fix_until(rule: str, zone: ZoneInfo, all_day: bool) -> str:
    """dateutil wants UNTIL in UTC for zoned starts and naive for floating ones; Google takes any."""

    def fix(match: re.Match[str]) -> str:
        value = match.group(1)
        if all_day:
            return "UNTIL=" + value.rstrip("Z")
        if value.endswith("Z"):
            return "UNTIL=" + value
        if len(value) == 8:  # a date: through the end of that day in the event's zone
            local = datetime.strptime(value, "%Y%m%d").replace(hour=23, minute=59, second=59, tzinfo=zone)
        else:
            local = datetime.strptime(value, "%Y%m%dT%H%M%S").replace(tzinfo=zone)
        return "UNTIL=" + local.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")

    return re.sub(r"UNTIL=([0-9TZ]+)", fix, rule, flags=re.IGNORECASE)


class _Series:
    """The occurrences of a recurring event (a master)."""

    def __init__(self, data: dict[str, Any], calendar_zone: str) -> None:
        start = _parse_when(data["start"], "start", calendar_zone)
        end = _parse_when(data["end"], "end", calendar_zone)
        self.master_id: str = data["id"]
        self.calendar_zone = calendar_zone
        self.all_day = start.all_day
        self.start_zone_name = start.zone or calendar_zone
        self.end_zone_name = end.zone or self.start_zone_name
        self.zone = ZoneInfo(self.start_zone_name)
        if start.day is not None:
            assert end.day is not None
            self.days = (end.day - start.day).days
            self.duration = timedelta(days=self.days)
            dtstart = datetime.combine(start.day, dtime())
        else:
            assert start.at is not None
            assert end.at is not None
            self.duration = end.at - start.at
            dtstart = start.at.astimezone(self.zone)
        self.dtstart = dtstart
        self.rules = rruleset()
        for line in data.get("recurrence") or []:
            name, _, value = str(line).partition(":")
            prop, *raw_params = name.split(";")
            params = dict(p.split("=", 1) for p in raw_params if "=" in p)
            prop = prop.strip().upper()
            if prop in ("RRULE", "EXRULE"):
                parsed = rrulestr(_fix_until(value, self.zone, self.all_day), dtstart=dtstart)
                assert isinstance(parsed, rrule)
                (self.rules.rrule if prop == "RRULE" else self.rules.exrule)(parsed)
            elif prop in ("RDATE", "EXDATE"):
                for item in value.split(","):
                    moment = _ical_value(item, params, self.zone, self.all_day)
                    (self.rules.rdate if prop == "RDATE" else self.rules.exdate)(moment)
            else:
                raise ValueError(line)

    # An occurrence is a naive midnight (all-day) or an aware datetime in the event's zone.
    def _local(self, moment: datetime) -> datetime:
        if self.all_day:
            return moment.astimezone(ZoneInfo(self.calendar_zone)).replace(tzinfo=None)
        return moment

    def _span(self, occurrence: datetime) -> tuple[datetime, datetime]:
        if self.all_day:
            begin = occurrence.replace(tzinfo=ZoneInfo(self.calendar_zone))
            return begin, (occurrence + self.duration).replace(tzinfo=ZoneInfo(self.calendar_zone))
        return occurrence, occurrence.astimezone(UTC) + self.duration

    def occurrences(self, low: datetime | None, high: datetime | None) -> list[datetime]:
        """Occurrences whose [start, end) overlaps [low, high); bounded by the horizon."""
        first = self._span(self.dtstart)[0]
        if high is None:
            high = max(datetime.now(UTC), first) + EXPANSION_HORIZON
        if low is None:
            low = first - timedelta(seconds=1)
        found = self.rules.between(self._local(low) - self.duration, self._local(high), inc=True)
        out = []
        for occurrence in found:
            begin, end = self._span(occurrence)
            if begin < high and end > low:
                out.append(occurrence)
        return out

    def key(self, occurrence: datetime) -> str:
        if self.all_day:
            return occurrence.strftime("%Y%m%d")
        return occurrence.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")

    def occurrence_for_key(self, key: str) -> datetime | None:
        try:
            if self.all_day:
                moment = datetime.strptime(key, "%Y%m%d")
            else:
                moment = datetime.strptime(key, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).astimezone(self.zone)
        except ValueError:
            return None
        window = timedelta(seconds=1)
        for found in self.rules.between(moment - window, moment + window, inc=True):
            if self.key(found) == key:
                return found
        return None

    def instance_id(self, occurrence: datetime) -> str:
        return f"{self.master_id}_{self.key(occurrence)}"

    def times(self, occurrence: datetime) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """start, end and originalStartTime of an occurrence."""
        if self.all_day:
            day = occurrence.date()
            return (
                {"date": day.isoformat()},
                {"date": (day + timedelta(days=self.days)).isoformat()},
                {"date": day.isoformat()},
            )
        start = _when_json(occurrence, self.start_zone_name, self.calendar_zone)
        end = _when_json(occurrence.astimezone(UTC) + self.duration, self.end_zone_name, self.calendar_zone)
        return start, end, dict(start)


def _original_key(data: dict[str, Any], calendar_zone: str) -> str:
    when = _parse_when(data["originalStartTime"], "originalStart", calendar_zone)
    if when.day is not None:
        return when.day.strftime("%Y%m%d")
    assert when.at is not None
    return when.at.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


# --------------------------------------------------------------------------- state


@dataclass
class _Stored:
    data: dict[str, Any]
    seq: int
    order: int

    @property
    def cancelled(self) -> bool:
        return self.data.get("status") == "cancelled"

    @property
    def is_exception(self) -> bool:
        return bool(self.data.get("recurringEventId"))

    @property
    def is_master(self) -> bool:
        return bool(self.data.get("recurrence")) and not self.is_exception


@dataclass
class _Calendar:
    id: str
    summary: str
    time_zone: str
    acl: dict[str, str]  # account -> role
    freebusy_public: bool = True
    description: str = ""
    events: dict[str, _Stored] = field(default_factory=dict)
    etag: str = '"1"'


@dataclass
class _Grant:
    token: str
    account: str
    client_id: str
    scopes: list[str] | None
    revoked: bool = False


@dataclass
class _AccessToken:
    token: str
    account: str
    expires_at: float
    scopes: list[str] | None
    refresh_token: str | None
    revoked: bool = False


@dataclass
class _AuthCode:
    code: str
    client_id: str
    redirect_uri: str
    account: str
    scopes: list[str]
    challenge: str | None
    challenge_method: str
    offline: bool
    prompt_consent: bool
    expires_at: float
    used: bool = False


@dataclass
class _SyncToken:
    calendar_id: str
    seq: int
    single_events: bool
    valid: bool = True


@dataclass
class _Page:
    calendar_id: str
    items: list[dict[str, Any]]
    offset: int
    next_sync_token: str | None


# --------------------------------------------------------------------------- the server


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    app: GoogleCalendarServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle + delayed ACK stall each answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.app._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.app._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {key.lower(): value for key, value in self.headers.items()}
        reply = self.server.app._handle_http(self.command, self.path, headers, body)
        if reply.drop:
            self.close_connection = True
            return
        self.send_response(reply.status)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()


class GoogleCalendarServer:
    """A Google Calendar v3 + OAuth 2 stand-in; see the module docstring."""

    def __init__(
        self,
        *,
        account: str = "user@example.com",
        time_zone: str = "UTC",
        client_id: str = "test-client.apps.googleusercontent.com",
        client_secret: str = "test-client-secret",
        redirect_uris: Iterable[str] | None = None,
        access_token_lifetime: int = 3599,
    ) -> None:
        self._lock = threading.RLock()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self.access_token_lifetime = access_token_lifetime
        self.account = account
        self.consent_account = account
        self.client_id = client_id
        self.client_secret = client_secret
        self._clients: dict[str, tuple[str, list[str] | None]] = {}
        self.add_client(client_id, client_secret, redirect_uris)
        self._accounts: dict[str, str] = {}  # email -> primary calendar id
        self._calendars: dict[str, _Calendar] = {}
        self._grants: dict[str, _Grant] = {}
        self._access: dict[str, _AccessToken] = {}
        self._codes: dict[str, _AuthCode] = {}
        self._consented: set[tuple[str, str]] = set()
        self._sync_tokens: dict[str, _SyncToken] = {}
        self._pages: dict[str, _Page] = {}
        self._seq = 0
        self._order = 0
        self._etag_counter = 0
        self._faults: list[Fault] = []
        self._deny_consent: list[str] = []
        self._expire_sync_next = 0
        self._direct = False
        self.log: list[LoggedRequest] = []
        self.counters: Counter[str] = Counter()
        self.sent_updates: list[tuple[str, str, str, str | None]] = []
        # Mails Google would have sent for sendUpdates=all/externalOnly: (to, subject, body).
        self.emailed: list[tuple[str, str, str]] = []
        self.consents: list[dict[str, str]] = []
        self.add_account(account, time_zone=time_zone)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> GoogleCalendarServer:
        httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        httpd.app = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name="google-calendar-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> GoogleCalendarServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def api_endpoint(self) -> str:
        return self.url + "/calendar/v3/"

    @property
    def batch_uri(self) -> str:
        return self.url + "/batch/calendar/v3"

    @property
    def token_uri(self) -> str:
        return self.url + "/token"

    @property
    def auth_uri(self) -> str:
        return self.url + "/o/oauth2/auth"

    @property
    def revoke_uri(self) -> str:
        return self.url + "/revoke"

    # ------------------------------------------------------------------ setup

    def add_client(
        self, client_id: str, client_secret: str, redirect_uris: Iterable[str] | None = None
    ) -> None:
        """An OAuth client; with ``redirect_uris`` the consent stand-in insists on one of them."""
        with self._lock:
            self._clients[client_id] = (client_secret, list(redirect_uris) if redirect_uris else None)

    def add_account(self, email_address: str, *, time_zone: str = "UTC", summary: str | None = None) -> str:
        """A Google account and its primary calendar (whose id is the address)."""
        with self._lock:
            self._accounts[email_address] = email_address
            self._calendars[email_address] = _Calendar(
                id=email_address,
                summary=summary or email_address,
                time_zone=time_zone,
                acl={email_address: "owner"},
            )
        return email_address

    def add_calendar(
        self,
        calendar_id: str | None = None,
        *,
        account: str | None = None,
        summary: str = "Calendar",
        time_zone: str = "UTC",
        role: str = "owner",
        freebusy_public: bool = True,
    ) -> str:
        """A secondary calendar in ``account``'s list (with ``role``); returns its id."""
        calendar_id = calendar_id or (
            "".join(secrets.choice(_BASE32HEX) for _ in range(26)) + "@group.calendar.google.com"
        )
        with self._lock:
            self._calendars[calendar_id] = _Calendar(
                id=calendar_id,
                summary=summary,
                time_zone=time_zone,
                acl={account or self.account: role},
                freebusy_public=freebusy_public,
            )
        return calendar_id

    def share_calendar(self, calendar_id: str, account: str, role: str = "reader") -> None:
        with self._lock:
            self._calendars[calendar_id].acl[account] = role

    def issue_refresh_token(
        self, account: str | None = None, *, scopes: Iterable[str] | None = None, client_id: str | None = None
    ) -> str:
        """A refresh token as if ``account`` had consented (``scopes=None``: any scope)."""
        token = "1//" + secrets.token_urlsafe(32)
        with self._lock:
            self._grants[token] = _Grant(
                token, account or self.account, client_id or self.client_id, list(scopes) if scopes else None
            )
        return token

    def issue_access_token(
        self,
        account: str | None = None,
        *,
        expires_in: int | None = None,
        scopes: Iterable[str] | None = None,
    ) -> str:
        token = "ya29." + secrets.token_urlsafe(32)
        lifetime = self.access_token_lifetime if expires_in is None else expires_in
        with self._lock:
            self._access[token] = _AccessToken(
                token, account or self.account, time.time() + lifetime, list(scopes) if scopes else None, None
            )
        return token

    def credentials(self, account: str | None = None, *, scopes: Iterable[str] | None = None) -> Any:
        """google-auth user credentials with a fresh refresh token, refreshing against this server."""
        from google.oauth2.credentials import Credentials

        scope_list = list(scopes) if scopes else None
        return Credentials(
            token=None,
            refresh_token=self.issue_refresh_token(account, scopes=scope_list),
            token_uri=self.token_uri,
            client_id=self.client_id,
            client_secret=self.client_secret,
            scopes=scope_list,
        )

    def build_service(self, credentials: Any = None) -> Any:
        """The real discovery-based client pointed at this server."""
        from googleapiclient.discovery import build

        return build(
            "calendar",
            "v3",
            credentials=credentials if credentials is not None else self.credentials(),
            static_discovery=True,
            client_options={"api_endpoint": self.api_endpoint},
        )

    def new_batch(self, callback: Callable[..., Any] | None = None) -> Any:
        """A real ``BatchHttpRequest`` posting here (``service.new_batch_http_request`` would not)."""
        from googleapiclient.http import BatchHttpRequest

        return BatchHttpRequest(callback=callback, batch_uri=self.batch_uri)

    def client_config(self, redirect_uri: str) -> dict[str, Any]:
        """A ``{"web": ...}`` client config for google-auth-oauthlib's ``Flow.from_client_config``."""
        return {
            "web": {
                "client_id": self.client_id,
                "client_secret": self.client_secret,
                "auth_uri": self.auth_uri,
                "token_uri": self.token_uri,
                "redirect_uris": [redirect_uri],
            }
        }

    # ------------------------------------------------------------------ faults

    @staticmethod
    def _matcher(on: str | Iterable[str] | Callable[[CallInfo], bool]) -> Callable[[CallInfo], bool]:
        if callable(on):
            return on
        if on == "any":
            return lambda call: not call.op.startswith("oauth.")
        if on == "write":
            return lambda call: call.write
        if on == "read":
            return lambda call: not call.write and not call.op.startswith("oauth.")
        ops = {on} if isinstance(on, str) else set(on)
        return lambda call: call.op in ops

    def inject(
        self,
        *,
        status: int | None = 500,
        reason: str = "backendError",
        message: str = "Backend Error",
        domain: str = "global",
        on: str | Iterable[str] | Callable[[CallInfo], bool] = "any",
        nth: int = 1,
        times: int = 1,
        retry_after: int | None = None,
        headers: dict[str, str] | None = None,
        after_commit: bool = False,
        drop: bool = False,
        description: str = "injected fault",
    ) -> Fault:
        """The ``nth`` matching call from now (and the ``times - 1`` matching calls after it) fails.

        ``on``: "any" (every Calendar call), "read", "write", an op name such as "events.insert" /
        "freebusy.query" / "oauth.token", a set of op names, or a predicate on ``CallInfo``.
        ``after_commit``: the call takes effect before the error/drop. ``drop``: no answer at all, the
        connection is closed.
        """
        all_headers = dict(headers or {})
        if retry_after is not None:
            all_headers["Retry-After"] = str(retry_after)
        fault = Fault(
            description=description,
            match=self._matcher(on),
            skip=nth - 1,
            remaining=times,
            status=None if drop else status,
            reason=reason,
            message=message,
            domain=domain,
            headers=all_headers,
            after_commit=after_commit,
            drop=drop,
        )
        with self._lock:
            self._faults.append(fault)
        return fault

    def fail_write(
        self, nth: int = 1, *, status: int = 500, times: int = 1, after_commit: bool = False
    ) -> Fault:
        """The Nth write (insert/patch/update/delete, batch parts included) from now answers 500."""
        reason, message = {
            500: ("backendError", "Backend Error"),
            502: ("backendError", "Bad Gateway"),
            503: ("backendError", "Service Unavailable"),
        }.get(status, ("backendError", "Backend Error"))
        return self.inject(
            status=status,
            reason=reason,
            message=message,
            on="write",
            nth=nth,
            times=times,
            after_commit=after_commit,
            description=f"{status} on write #{nth}",
        )

    def rate_limit(
        self,
        *,
        status: int = 429,
        retry_after: int | None = None,
        reason: str | None = None,
        on: str | Iterable[str] | Callable[[CallInfo], bool] = "any",
        nth: int = 1,
        times: int = 1,
    ) -> Fault:
        """429 (``rateLimitExceeded``, domain usageLimits) or 403 ``rateLimitExceeded`` /
        ``userRateLimitExceeded``, with ``Retry-After`` when given."""
        reason = reason or "rateLimitExceeded"
        message = "User Rate Limit Exceeded" if reason == "userRateLimitExceeded" else "Rate Limit Exceeded"
        return self.inject(
            status=status,
            reason=reason,
            message=message,
            domain="usageLimits",
            on=on,
            nth=nth,
            times=times,
            retry_after=retry_after,
            description=f"{status} {reason}",
        )

    def lose_response(
        self,
        *,
        on: str | Iterable[str] | Callable[[CallInfo], bool] = "events.insert",
        nth: int = 1,
        times: int = 1,
    ) -> Fault:
        """Commit the call, then close the connection without answering (a lost response)."""
        return self.inject(
            on=on, nth=nth, times=times, after_commit=True, drop=True, description="lost response"
        )

    def expire_next_sync_token(self, times: int = 1) -> None:
        """The next ``times`` lists with a syncToken answer 410 fullSyncRequired (the token dies)."""
        with self._lock:
            self._expire_sync_next += times

    def invalidate_sync_tokens(self) -> None:
        """Every sync token issued so far answers 410 from now on."""
        with self._lock:
            for token in self._sync_tokens.values():
                token.valid = False

    def revoke_refresh_token(self, token: str | None = None, *, account: str | None = None) -> None:
        """Revoke one refresh token, or every grant of ``account`` (default: the default account),
        with the access tokens minted from them."""
        with self._lock:
            for grant in self._grants.values():
                if grant.token == token or (token is None and grant.account == (account or self.account)):
                    grant.revoked = True
                    for access in self._access.values():
                        if access.refresh_token == grant.token:
                            access.revoked = True

    def expire_access_tokens(self) -> None:
        """Every access token issued so far is expired (the client should refresh and retry)."""
        with self._lock:
            for access in self._access.values():
                access.expires_at = 0

    def deny_next_consent(self, error: str = "access_denied") -> None:
        with self._lock:
            self._deny_consent.append(error)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    @property
    def pending_faults(self) -> list[Fault]:
        with self._lock:
            return [fault for fault in self._faults if fault.remaining > 0]

    def _take_fault(self, call: CallInfo) -> Fault | None:
        for fault in self._faults:
            if fault.remaining <= 0 or not fault.match(call):
                continue
            if fault.skip > 0:
                fault.skip -= 1
                continue
            fault.remaining -= 1
            fault.fired += 1
            return fault
        return None

    # ------------------------------------------------------------------ observation

    def reset_log(self) -> None:
        with self._lock:
            self.log.clear()
            self.counters.clear()
            self.sent_updates.clear()
            self.emailed.clear()

    @property
    def api_http_requests(self) -> int:
        """HTTP requests made to the Calendar API (a batch counts once), OAuth excluded."""
        return self.counters["api_http"]

    def requests(
        self, *, op: str | None = None, in_batch: bool | None = None, kind: str | None = None
    ) -> list[LoggedRequest]:
        with self._lock:
            return [
                entry
                for entry in self.log
                if (op is None or entry.op == op)
                and (in_batch is None or entry.in_batch == in_batch)
                and (kind is None or entry.kind == kind)
            ]

    # ------------------------------------------------------------------ direct state access (no HTTP)

    def _calendar(self, calendar_id: str) -> _Calendar:
        if calendar_id == "primary":
            calendar_id = self.account
        return self._calendars[self._accounts.get(calendar_id, calendar_id)]

    def stored_event(self, calendar_id: str, event_id: str) -> dict[str, Any] | None:
        with self._lock:
            stored = self._calendar(calendar_id).events.get(event_id)
            return copy.deepcopy(stored.data) if stored else None

    def stored_events(
        self, calendar_id: str | None = None, *, include_cancelled: bool = False
    ) -> list[dict[str, Any]]:
        """Stored events (masters, exceptions, single events) in insertion order."""
        with self._lock:
            calendar = self._calendar(calendar_id or self.account)
            return [
                copy.deepcopy(stored.data)
                for stored in sorted(calendar.events.values(), key=lambda s: s.order)
                if include_cancelled or not stored.cancelled
            ]

    def seed_event(self, body: dict[str, Any], calendar_id: str | None = None) -> dict[str, Any]:
        """Insert as another device would: no HTTP, no faults, no log."""
        with self._lock:
            calendar = self._calendar(calendar_id or self.account)
            self._direct = True
            try:
                return self._insert(calendar, {}, copy.deepcopy(body))
            finally:
                self._direct = False

    def edit_event(
        self, event_id: str, changes: dict[str, Any], calendar_id: str | None = None
    ) -> dict[str, Any]:
        """Patch as another device would (new etag, counts as a change for sync)."""
        with self._lock:
            calendar = self._calendar(calendar_id or self.account)
            self._direct = True
            try:
                return self._patch(calendar, event_id, {}, copy.deepcopy(changes), {}, replace=False)
            finally:
                self._direct = False

    def remove_event(self, event_id: str, calendar_id: str | None = None) -> None:
        with self._lock:
            self._direct = True
            try:
                self._delete(self._calendar(calendar_id or self.account), event_id, {}, {})
            finally:
                self._direct = False

    # ------------------------------------------------------------------ HTTP entry

    def _handle_http(self, method: str, raw_path: str, headers: dict[str, str], body: bytes) -> _Reply:
        path = urlsplit(raw_path).path
        with self._lock:
            self.counters["http"] += 1
        if path == "/token" and method == "POST":
            return self._logged("token", method, raw_path, headers, body, self._token_endpoint)
        if path == "/revoke" and method == "POST":
            return self._logged("revoke", method, raw_path, headers, body, self._revoke_endpoint)
        if path in ("/o/oauth2/auth", "/o/oauth2/v2/auth") and method == "GET":
            return self._logged("authorize", method, raw_path, headers, body, self._authorize_endpoint)
        with self._lock:
            self.counters["api_http"] += 1
        if path.startswith("/batch") and method == "POST":
            with self._lock:
                self.counters["batch_http"] += 1
            return self._batch(raw_path, headers, body)
        return self._api_call(method, raw_path, headers, body, in_batch=False)

    def _logged(
        self,
        kind: str,
        method: str,
        raw_path: str,
        headers: dict[str, str],
        body: bytes,
        handler: Callable[[str, dict[str, str], bytes], _Reply],
    ) -> _Reply:
        parts = urlsplit(raw_path)
        logged_body: Any = parse_qs(body.decode("utf-8", "replace")) if body else None
        entry = LoggedRequest(method, parts.path, parse_qs(parts.query), headers, logged_body, kind)
        reply = handler(raw_path, headers, body)
        with self._lock:
            self.counters[kind] += 1
            entry.status = None if reply.drop else reply.status
            self.log.append(entry)
        return reply

    # ------------------------------------------------------------------ OAuth

    def _client_auth(self, headers: dict[str, str], form: dict[str, str]) -> str | None:
        client_id, secret = form.get("client_id"), form.get("client_secret")
        auth = headers.get("authorization", "")
        if auth.lower().startswith("basic "):
            decoded = base64.b64decode(auth[6:]).decode()
            user, _, password = decoded.partition(":")
            client_id, secret = unquote(user), unquote(password)
        if client_id is None or client_id not in self._clients or self._clients[client_id][0] != secret:
            return None
        return client_id

    def _token_endpoint(self, raw_path: str, headers: dict[str, str], body: bytes) -> _Reply:
        form = {key: values[-1] for key, values in parse_qs(body.decode("utf-8")).items()}
        with self._lock:
            call = CallInfo("oauth.token", "POST", "/token", {}, False)
            fault = self._take_fault(call)
            if fault is not None:
                if fault.drop:
                    return _Reply(0, drop=True)
                return fault.error().reply()
            client_id = self._client_auth(headers, form)
            if client_id is None:
                return _oauth_error(401, "invalid_client", "Unauthorized")
            grant_type = form.get("grant_type")
            if grant_type == "refresh_token":
                grant = self._grants.get(form.get("refresh_token", ""))
                if grant is None or grant.revoked or grant.client_id != client_id:
                    return _oauth_error(400, "invalid_grant", "Token has been expired or revoked.")
                requested = form.get("scope", "").split() or None
                if requested and grant.scopes is not None and not set(requested) <= set(grant.scopes):
                    return _oauth_error(400, "invalid_scope", "Some requested scopes were invalid.")
                scopes = requested or grant.scopes
                access = self._mint_access(grant.account, scopes, grant.token)
                out: dict[str, Any] = {
                    "access_token": access.token,
                    "expires_in": self.access_token_lifetime,
                    "scope": " ".join(scopes or [CALENDAR_SCOPE]),
                    "token_type": "Bearer",
                }
                return _json_reply(200, out, {"Cache-Control": "no-store"})
            if grant_type == "authorization_code":
                return self._exchange_code(client_id, form)
            return _oauth_error(400, "unsupported_grant_type", f"Invalid grant_type: {grant_type}")

    def _mint_access(self, account: str, scopes: list[str] | None, refresh_token: str | None) -> _AccessToken:
        token = "ya29." + secrets.token_urlsafe(32)
        access = _AccessToken(token, account, time.time() + self.access_token_lifetime, scopes, refresh_token)
        self._access[token] = access
        return access

    def _exchange_code(self, client_id: str, form: dict[str, str]) -> _Reply:
        code = self._codes.get(form.get("code", ""))
        if code is None or code.used or code.expires_at < time.time() or code.client_id != client_id:
            return _oauth_error(400, "invalid_grant", "Malformed auth code.")
        if form.get("redirect_uri") != code.redirect_uri:
            return _oauth_error(400, "redirect_uri_mismatch", "Bad Request")
        if code.challenge is not None:
            verifier = form.get("code_verifier")
            if not verifier:
                return _oauth_error(400, "invalid_grant", "Missing code verifier.")
            if code.challenge_method == "S256":
                digest = hashlib.sha256(verifier.encode("ascii")).digest()
                computed = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
            else:
                computed = verifier
            if computed != code.challenge:
                return _oauth_error(400, "invalid_grant", "Invalid code verifier.")
        code.used = True
        out: dict[str, Any] = {"expires_in": self.access_token_lifetime, "token_type": "Bearer"}
        refresh: str | None = None
        first_consent = (code.account, client_id) not in self._consented
        self._consented.add((code.account, client_id))
        if code.offline and (code.prompt_consent or first_consent):
            refresh = "1//" + secrets.token_urlsafe(32)
            self._grants[refresh] = _Grant(refresh, code.account, client_id, code.scopes)
            out["refresh_token"] = refresh
        access = self._mint_access(code.account, code.scopes, refresh)
        out["access_token"] = access.token
        out["scope"] = " ".join(code.scopes)
        return _json_reply(200, out, {"Cache-Control": "no-store"})

    def _revoke_endpoint(self, raw_path: str, headers: dict[str, str], body: bytes) -> _Reply:
        params = parse_qs(urlsplit(raw_path).query)
        params.update(parse_qs(body.decode("utf-8")))
        token = (params.get("token") or [""])[-1]
        with self._lock:
            if token in self._grants and not self._grants[token].revoked:
                self.revoke_refresh_token(token)
                return _json_reply(200, {})
            access = self._access.get(token)
            if access is not None and not access.revoked:
                access.revoked = True
                if access.refresh_token:
                    self.revoke_refresh_token(access.refresh_token)
                return _json_reply(200, {})
        return _oauth_error(400, "invalid_token", "Token expired or revoked")

    def _authorize_endpoint(self, raw_path: str, headers: dict[str, str], body: bytes) -> _Reply:
        params = {key: values[-1] for key, values in parse_qs(urlsplit(raw_path).query).items()}

        def page(status: int, text: str) -> _Reply:
            return _Reply(status, {"Content-Type": "text/html; charset=utf-8"}, text.encode())

        with self._lock:
            self.consents.append(params)
            client = self._clients.get(params.get("client_id", ""))
            if client is None:
                return page(401, "Error 401: invalid_client. The OAuth client was not found.")
            redirect_uri = params.get("redirect_uri", "")
            if not redirect_uri or (client[1] is not None and redirect_uri not in client[1]):
                return page(400, "Error 400: redirect_uri_mismatch")
            if params.get("response_type") != "code":
                return page(400, "Error 400: invalid_request. Invalid response_type.")
            scopes = params.get("scope", "").split()
            if not scopes:
                return page(400, "Error 400: invalid_request. Missing required parameter: scope")
            method = params.get("code_challenge_method", "plain")
            if method not in ("S256", "plain"):
                return page(400, "Error 400: invalid_request. Invalid code_challenge_method.")
            answer: dict[str, str]
            if self._deny_consent:
                answer = {"error": self._deny_consent.pop(0)}
            else:
                code = "4/" + secrets.token_urlsafe(32)
                self._codes[code] = _AuthCode(
                    code=code,
                    client_id=params["client_id"],
                    redirect_uri=redirect_uri,
                    account=self.consent_account,
                    scopes=scopes,
                    challenge=params.get("code_challenge"),
                    challenge_method=method,
                    offline=params.get("access_type") == "offline",
                    prompt_consent="consent" in params.get("prompt", "").split(),
                    expires_at=time.time() + 600,
                )
                answer = {"code": code, "scope": " ".join(scopes)}
            if "state" in params:
                answer["state"] = params["state"]
        separator = "&" if "?" in redirect_uri else "?"
        return _Reply(302, {"Location": redirect_uri + separator + urlencode(answer)}, b"")

    def _authenticate(self, headers: dict[str, str]) -> _AccessToken:
        auth = headers.get("authorization", "")
        extra = {"location": "Authorization", "locationType": "header"}
        if not auth.lower().startswith("bearer "):
            raise ApiError(
                401,
                "required",
                "Login Required.",
                extra=extra,
                status_text="UNAUTHENTICATED",
                headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'},
            )
        access = self._access.get(auth[7:].strip())
        if access is None or access.revoked or access.expires_at <= time.time():
            raise ApiError(
                401,
                "authError",
                "Invalid Credentials",
                extra=extra,
                status_text="UNAUTHENTICATED",
                headers={
                    "WWW-Authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"'
                },
            )
        return access

    # ------------------------------------------------------------------ API dispatch

    def _route(self, method: str, path: str) -> tuple[str, list[str]]:
        if path.startswith("/calendar/v3/"):
            path = path[len("/calendar/v3") :]
        segments = [unquote(part) for part in path.strip("/").split("/")]
        match segments, method:
            case ["users", "me", "calendarList"], "GET":
                return "calendarList.list", []
            case ["users", "me", "calendarList", calendar_id], "GET":
                return "calendarList.get", [calendar_id]
            case ["calendars", calendar_id], "GET":
                return "calendars.get", [calendar_id]
            case ["calendars", calendar_id, "events"], "GET":
                return "events.list", [calendar_id]
            case ["calendars", calendar_id, "events"], "POST":
                return "events.insert", [calendar_id]
            case ["calendars", calendar_id, "events", event_id], "GET":
                return "events.get", [calendar_id, event_id]
            case ["calendars", calendar_id, "events", event_id], "PATCH":
                return "events.patch", [calendar_id, event_id]
            case ["calendars", calendar_id, "events", event_id], "PUT":
                return "events.update", [calendar_id, event_id]
            case ["calendars", calendar_id, "events", event_id], "DELETE":
                return "events.delete", [calendar_id, event_id]
            case ["calendars", calendar_id, "events", event_id, "instances"], "GET":
                return "events.instances", [calendar_id, event_id]
            case ["freeBusy"], "POST":
                return "freebusy.query", []
        raise _not_found()

    def _api_call(
        self, method: str, raw_path: str, headers: dict[str, str], body: bytes, *, in_batch: bool
    ) -> _Reply:
        parts = urlsplit(raw_path)
        query = parse_qs(parts.query, keep_blank_values=True)
        parsed_body: Any = None
        if body:
            try:
                parsed_body = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                parsed_body = body.decode("utf-8", "replace")
        entry = LoggedRequest(method, parts.path, query, headers, parsed_body, "api", in_batch)
        fault: Fault | None = None
        try:
            op, args = self._route(method, parts.path)
            entry.op = op
            with self._lock:
                self.counters["calls"] += 1
                self.counters["op:" + op] += 1
                access = self._authenticate(headers)
                self._check_scope(access, op)
                fault = self._take_fault(CallInfo(op, method, parts.path, query, in_batch))
                if fault is not None and not fault.after_commit:
                    if fault.drop:
                        reply = _Reply(0, drop=True)
                        entry.status = None
                        self.log.append(entry)
                        return reply
                    raise fault.error()
                if method in ("POST", "PUT", "PATCH") and not isinstance(parsed_body, dict):
                    raise ApiError(400, "parseError", "Parse Error")
                status, payload = self._execute(op, args, access, query, parsed_body or {}, headers)
                if op in WRITE_OPS:
                    self.counters["writes"] += 1
            if status == 204:
                reply = _Reply(204, {}, b"")
            else:
                etag = payload.get("etag") if isinstance(payload, dict) else None
                reply = _json_reply(status, payload, {"ETag": etag} if etag else None)
        except ApiError as exc:
            reply = exc.reply()
        if fault is not None and fault.after_commit:  # whatever happened, the answer is replaced
            reply = _Reply(0, drop=True) if fault.drop else fault.error().reply()
        with self._lock:
            entry.status = None if reply.drop else reply.status
            self.log.append(entry)
        return reply

    def _check_scope(self, access: _AccessToken, op: str) -> None:
        if access.scopes is None:
            return
        needed = (
            WRITE_SCOPES if op in WRITE_OPS else FREEBUSY_SCOPES if op == "freebusy.query" else READ_SCOPES
        )
        if not needed & set(access.scopes):
            raise ApiError(
                403,
                "insufficientPermissions",
                "Request had insufficient authentication scopes.",
                status_text="PERMISSION_DENIED",
            )

    def _execute(
        self,
        op: str,
        args: list[str],
        access: _AccessToken,
        query: dict[str, list[str]],
        body: dict[str, Any],
        headers: dict[str, str],
    ) -> tuple[int, Any]:
        account = access.account
        if op == "calendarList.list":
            return 200, self._calendar_list(account, query)
        if op == "freebusy.query":
            return 200, self._freebusy(account, body)
        calendar = self._calendar_for(account, args[0], write=op in WRITE_OPS)
        if op == "calendarList.get":
            return 200, self._list_entry(calendar, account)
        if op == "calendars.get":
            return 200, {
                "kind": "calendar#calendar",
                "etag": calendar.etag,
                "id": calendar.id,
                "summary": calendar.summary,
                "description": calendar.description,
                "timeZone": calendar.time_zone,
                "conferenceProperties": {"allowedConferenceSolutionTypes": ["hangoutsMeet"]},
            }
        if op == "events.list":
            return 200, self._events_list(calendar, account, query)
        if op == "events.insert":
            return 200, self._insert(calendar, query, body)
        event_id = args[1]
        if op == "events.get":
            return 200, self._get(calendar, event_id)
        if op == "events.patch":
            return 200, self._patch(calendar, event_id, query, body, headers, replace=False)
        if op == "events.update":
            return 200, self._patch(calendar, event_id, query, body, headers, replace=True)
        if op == "events.delete":
            self._delete(calendar, event_id, query, headers)
            return 204, None
        if op == "events.instances":
            return 200, self._instances(calendar, account, event_id, query)
        raise _not_found()

    # ------------------------------------------------------------------ calendars

    def _calendar_for(self, account: str, calendar_id: str, *, write: bool) -> _Calendar:
        if calendar_id == "primary":
            calendar_id = self._accounts.get(account, account)
        calendar = self._calendars.get(calendar_id)
        role = calendar.acl.get(account) if calendar else None
        if calendar is None or role is None or ROLE_RANK[role] < ROLE_RANK["reader"]:
            raise _not_found()
        if write and ROLE_RANK[role] < ROLE_RANK["writer"]:
            raise ApiError(403, "requiredAccessLevel", "You need to have writer access to this calendar.")
        return calendar

    def _list_entry(self, calendar: _Calendar, account: str) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "kind": "calendar#calendarListEntry",
            "etag": calendar.etag,
            "id": calendar.id,
            "summary": calendar.summary,
            "timeZone": calendar.time_zone,
            "colorId": "14",
            "backgroundColor": "#9fe1e7",
            "foregroundColor": "#000000",
            "selected": True,
            "accessRole": calendar.acl[account],
            "defaultReminders": [],
            "conferenceProperties": {"allowedConferenceSolutionTypes": ["hangoutsMeet"]},
        }
        if self._accounts.get(account) == calendar.id:
            entry["primary"] = True
        return entry

    def _calendar_list(self, account: str, query: dict[str, list[str]]) -> dict[str, Any]:
        min_role = (query.get("minAccessRole") or ["freeBusyReader"])[-1]
        items = [
            self._list_entry(calendar, account)
            for calendar in self._calendars.values()
            if account in calendar.acl and ROLE_RANK[calendar.acl[account]] >= ROLE_RANK.get(min_role, 0)
        ]
        return {
            "kind": "calendar#calendarList",
            "etag": f'"{self._seq}"',
            "nextSyncToken": "calendarList" + secrets.token_urlsafe(8),
            "items": items,
        }

    # ------------------------------------------------------------------ events: storage helpers

    def _new_etag(self) -> str:
        self._etag_counter += 1
        return f'"{3400000000000000 + self._etag_counter * 1000}"'

    def _stamp(self, data: dict[str, Any]) -> None:
        data["etag"] = self._new_etag()
        data["updated"] = _utc_stamp()

    def _store(self, calendar: _Calendar, data: dict[str, Any]) -> _Stored:
        self._seq += 1
        existing = calendar.events.get(data["id"])
        if existing is not None:
            existing.data = data
            existing.seq = self._seq
            return existing
        self._order += 1
        stored = _Stored(data, self._seq, self._order)
        calendar.events[data["id"]] = stored
        return stored

    def _new_id(self, calendar: _Calendar) -> str:
        while True:
            candidate = "".join(secrets.choice(_BASE32HEX) for _ in range(26))
            if candidate not in calendar.events:
                return candidate

    def _record_updates(
        self,
        op: str,
        calendar: _Calendar,
        event_id: str,
        query: dict[str, list[str]],
        event: dict[str, Any],
    ) -> None:
        value = self._one(query, "sendUpdates")
        if value is not None and value not in ("all", "externalOnly", "none"):
            raise _bad_request("Invalid value for: sendUpdates", "invalidParameter")
        if self._direct:
            return
        self.sent_updates.append((op, calendar.id, event_id, value))
        if value not in ("all", "externalOnly"):
            return
        # What Google mails the guests (never the organizer): an invitation, an update, a cancellation.
        summary = event.get("summary") or "(No title)"
        start = event.get("start", {})
        when = start.get("dateTime") or start.get("date") or ""
        subject = {"events.insert": "Invitation", "events.delete": "Canceled event"}.get(
            op, "Updated invitation"
        )
        for guest in event.get("attendees") or []:
            address = guest.get("email", "")
            if address and address != calendar.id and not guest.get("organizer"):
                self.emailed.append((address, f"{subject}: {summary} @ {when}", f"{summary}\n{when}\n"))

    def _normalize(self, data: dict[str, Any], calendar: _Calendar) -> None:
        """Validate an event's times and recurrence as Google does; normalise its dateTimes."""
        start = _parse_when(data.get("start"), "start", calendar.time_zone)
        end = _parse_when(data.get("end"), "end", calendar.time_zone)
        if start.all_day != end.all_day:
            raise _bad_request("Start and end times must either both be date or both be dateTime.", "invalid")
        if start.instant(calendar.time_zone) >= end.instant(calendar.time_zone):
            raise _bad_request("The specified time range is empty.", "timeRangeEmpty")
        if data.get("status", "confirmed") not in ("confirmed", "tentative", "cancelled"):
            raise _bad_request("Invalid value for: status", "invalid")
        if data.get("transparency", "opaque") not in ("opaque", "transparent"):
            raise _bad_request("Invalid value for: transparency", "invalid")
        for which, when in (("start", start), ("end", end)):
            if when.at is not None:
                data[which] = _when_json(when.at, when.zone, calendar.time_zone)
        recurrence = data.get("recurrence")
        if recurrence:
            if data.get("recurringEventId"):
                raise _bad_request("Invalid recurrence rule.", "invalid")
            if not isinstance(recurrence, list) or not all(isinstance(line, str) for line in recurrence):
                raise _bad_request("Invalid recurrence rule.", "invalid")
            if not start.all_day and (start.zone is None or end.zone is None):
                which = "start" if start.zone is None else "end"
                raise _bad_request(f"Missing time zone definition for {which} time.", "required")
            try:
                _Series(data, calendar.time_zone)
            except (ValueError, KeyError, TypeError, ZoneInfoNotFoundError) as exc:
                raise _bad_request("Invalid recurrence rule.", "invalid") from exc
        elif "recurrence" in data:
            del data["recurrence"]

    def _series(self, calendar: _Calendar, stored: _Stored) -> _Series:
        return _Series(stored.data, calendar.time_zone)

    def _exceptions(self, calendar: _Calendar) -> dict[str, dict[str, _Stored]]:
        index: dict[str, dict[str, _Stored]] = {}
        for stored in calendar.events.values():
            if stored.is_exception:
                key = _original_key(stored.data, calendar.time_zone)
                index.setdefault(stored.data["recurringEventId"], {})[key] = stored
        return index

    def _virtual(self, series: _Series, master: dict[str, Any], occurrence: datetime) -> dict[str, Any]:
        data = {key: copy.deepcopy(value) for key, value in master.items() if key != "recurrence"}
        instance_id = series.instance_id(occurrence)
        start, end, original = series.times(occurrence)
        digest = hashlib.sha1((master["etag"] + instance_id).encode()).hexdigest()
        data.update(
            id=instance_id,
            etag=f'"{int(digest[:13], 16)}"',
            recurringEventId=master["id"],
            originalStartTime=original,
            start=start,
            end=end,
        )
        return data

    def _resolve(self, calendar: _Calendar, event_id: str) -> tuple[_Stored | None, dict[str, Any]]:
        """(stored, data) of a stored event, or (None, virtual instance) of an unmodified occurrence."""
        stored = calendar.events.get(event_id)
        if stored is not None:
            return stored, stored.data
        master_id, sep, key = event_id.rpartition("_")
        master = calendar.events.get(master_id) if sep else None
        if master is None or not master.is_master:
            raise _not_found()
        series = self._series(calendar, master)
        occurrence = series.occurrence_for_key(key)
        if occurrence is None:
            raise _not_found()
        return None, self._virtual(series, master.data, occurrence)

    @staticmethod
    def _check_if_match(headers: dict[str, str], etag: str) -> None:
        wanted = headers.get("if-match")
        if wanted is None or wanted.strip() == "*":
            return
        if etag not in [tag.strip() for tag in wanted.split(",")]:
            raise ApiError(
                412,
                "conditionNotMet",
                "Precondition Failed",
                extra={"locationType": "header", "location": "If-Match"},
            )

    @staticmethod
    def _cancelled_view(data: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            key: data[key] for key in ("kind", "etag", "id", "status", "updated") if key in data
        }
        if data.get("recurringEventId"):
            out["recurringEventId"] = data["recurringEventId"]
            out["originalStartTime"] = copy.deepcopy(data["originalStartTime"])
        return out

    # ------------------------------------------------------------------ events: writes

    _READ_ONLY = ("kind", "etag", "created", "updated", "htmlLink", "creator", "organizer")

    def _insert(
        self, calendar: _Calendar, query: dict[str, list[str]], body: dict[str, Any]
    ) -> dict[str, Any]:
        event_id = body.get("id")
        if event_id is not None:
            if not isinstance(event_id, str) or not BASE32HEX_ID.fullmatch(event_id):
                raise _bad_request("Invalid resource id value.", "invalid")
            if event_id in calendar.events:
                raise ApiError(409, "duplicate", "The requested identifier already exists.")
        else:
            event_id = self._new_id(calendar)
        for key in (*self._READ_ONLY, "recurringEventId", "originalStartTime", "id"):
            body.pop(key, None)
        now = _utc_stamp()
        data: dict[str, Any] = {
            "kind": "calendar#event",
            "etag": "",
            "id": event_id,
            "status": "confirmed",
            "htmlLink": f"https://www.google.com/calendar/event?eid={event_id}",
            "created": now,
            "updated": now,
            "creator": {"email": calendar.id, "self": True},
            "organizer": {"email": calendar.id, "displayName": calendar.summary, "self": True},
            "iCalUID": f"{event_id}@google.com",
            "sequence": 0,
            "reminders": {"useDefault": True},
            "eventType": "default",
        }
        data.update({key: value for key, value in body.items() if value is not None})
        self._normalize(data, calendar)
        self._record_updates("events.insert", calendar, event_id, query, data)
        self._stamp(data)
        self._store(calendar, data)
        return copy.deepcopy(data)

    @staticmethod
    def _merge(target: dict[str, Any], patch: dict[str, Any], path: tuple[str, ...] = ()) -> None:
        for key, value in patch.items():
            if value is None:
                target.pop(key, None)
            elif isinstance(value, dict) and isinstance(target.get(key), dict):
                if not path and key in ("start", "end"):
                    if "date" in value:
                        target[key].pop("dateTime", None)
                    if "dateTime" in value:
                        target[key].pop("date", None)
                GoogleCalendarServer._merge(target[key], value, (*path, key))
            else:
                target[key] = copy.deepcopy(value)

    def _patch(
        self,
        calendar: _Calendar,
        event_id: str,
        query: dict[str, list[str]],
        body: dict[str, Any],
        headers: dict[str, str],
        *,
        replace: bool,
    ) -> dict[str, Any]:
        stored, current = self._resolve(calendar, event_id)
        self._check_if_match(headers, current["etag"])
        for key in (*self._READ_ONLY, "id", "iCalUID", "recurringEventId", "originalStartTime"):
            body.pop(key, None)
        if replace:
            kept = ("kind", "id", "htmlLink", "created", "creator", "organizer", "iCalUID")
            new = {
                key: current[key]
                for key in (*kept, "recurringEventId", "originalStartTime")
                if key in current
            }
            new.setdefault("status", "confirmed")
            new.update({key: copy.deepcopy(value) for key, value in body.items() if value is not None})
            new.setdefault("reminders", {"useDefault": True})
            new.setdefault("sequence", current.get("sequence", 0))
        else:
            new = copy.deepcopy(current)
            self._merge(new, body)
        if new.get("recurringEventId") and new.get("recurrence"):
            raise _bad_request("Invalid recurrence rule.", "invalid")
        self._normalize(new, calendar)
        if "sequence" not in body and any(
            new.get(key) != current.get(key) for key in ("start", "end", "recurrence")
        ):
            new["sequence"] = int(current.get("sequence", 0)) + 1
        op = "events.update" if replace else "events.patch"
        self._record_updates(op, calendar, event_id, query, new)
        self._stamp(new)
        was_cancelled = stored is not None and stored.cancelled
        saved = self._store(calendar, new)
        if saved.is_master and not was_cancelled:
            self._after_master_change(calendar, saved)
        return copy.deepcopy(new)

    def _after_master_change(self, calendar: _Calendar, master: _Stored) -> None:
        """Cancel the exceptions of a cancelled master, and those no longer on an occurrence."""
        exceptions = self._exceptions(calendar).get(master.data["id"], {})
        series = None if master.cancelled else self._series(calendar, master)
        for key, exception in exceptions.items():
            if exception.cancelled:
                continue
            if series is None or series.occurrence_for_key(key) is None:
                exception.data["status"] = "cancelled"
                self._stamp(exception.data)
                self._store(calendar, exception.data)

    def _delete(
        self, calendar: _Calendar, event_id: str, query: dict[str, list[str]], headers: dict[str, str]
    ) -> None:
        _, current = self._resolve(calendar, event_id)
        self._check_if_match(headers, current["etag"])
        if current.get("status") == "cancelled":
            raise ApiError(410, "deleted", "Resource has been deleted")
        self._record_updates("events.delete", calendar, event_id, query, current)
        data = copy.deepcopy(current)
        data["status"] = "cancelled"
        self._stamp(data)
        saved = self._store(calendar, data)
        if saved.is_master:
            self._after_master_change(calendar, saved)

    # ------------------------------------------------------------------ events: reads

    def _get(self, calendar: _Calendar, event_id: str) -> dict[str, Any]:
        return copy.deepcopy(self._resolve(calendar, event_id)[1])

    def _span(self, data: dict[str, Any], calendar: _Calendar) -> tuple[datetime, datetime]:
        zone = calendar.time_zone
        return (
            _parse_when(data["start"], "start", zone).instant(zone),
            _parse_when(data["end"], "end", zone).instant(zone),
        )

    def _overlaps(
        self, data: dict[str, Any], calendar: _Calendar, low: datetime | None, high: datetime | None
    ) -> bool:
        if data.get("status") == "cancelled" and data.get("originalStartTime"):
            when = _parse_when(data["originalStartTime"], "originalStart", calendar.time_zone)
            begin = when.instant(calendar.time_zone)
            return (high is None or begin < high) and (low is None or begin >= low)
        begin, end = self._span(data, calendar)
        return (high is None or begin < high) and (low is None or end > low)

    @staticmethod
    def _flag(query: dict[str, list[str]], name: str) -> bool:
        return (query.get(name) or ["false"])[-1].lower() == "true"

    @staticmethod
    def _one(query: dict[str, list[str]], name: str) -> str | None:
        values = query.get(name)
        return values[-1] if values else None

    def _bounds(self, query: dict[str, list[str]]) -> tuple[datetime | None, datetime | None]:
        time_min, time_max = self._one(query, "timeMin"), self._one(query, "timeMax")
        low = parse_rfc3339(time_min) if time_min else None
        high = parse_rfc3339(time_max) if time_max else None
        if low is not None and high is not None and high <= low:
            raise _bad_request("The specified time range is empty.", "timeRangeEmpty")
        return low, high

    def _page_size(self, query: dict[str, list[str]]) -> int:
        try:
            size = int(self._one(query, "maxResults") or 250)
        except ValueError as exc:
            raise _bad_request("Invalid value for: maxResults", "invalidParameter") from exc
        if size < 1:
            raise _bad_request("Invalid value for: maxResults", "invalidParameter")
        return min(size, 2500)

    def _matches_filters(self, data: dict[str, Any], query: dict[str, list[str]]) -> bool:
        text = self._one(query, "q")
        if text:
            haystack = (
                " ".join(str(data.get(key, "")) for key in ("summary", "description", "location")).lower()
                + " ".join(
                    str(person.get("email", "")) + " " + str(person.get("displayName", ""))
                    for person in data.get("attendees", []) or []
                ).lower()
            )
            if not all(word in haystack for word in text.lower().split()):
                return False
        ical = self._one(query, "iCalUID")
        if ical and data.get("iCalUID") != ical:
            return False
        updated_min = self._one(query, "updatedMin")
        if updated_min and datetime.fromisoformat(data["updated"]) < parse_rfc3339(updated_min):
            return False
        for kind, param in (("private", "privateExtendedProperty"), ("shared", "sharedExtendedProperty")):
            properties = (data.get("extendedProperties") or {}).get(kind) or {}
            for constraint in query.get(param, []):
                name, _, value = constraint.partition("=")
                if properties.get(name) != value:
                    return False
        return True

    def _expand(
        self,
        calendar: _Calendar,
        master: _Stored,
        exceptions: dict[str, _Stored],
        low: datetime | None,
        high: datetime | None,
    ) -> list[dict[str, Any]]:
        """Unmodified occurrences of a master in [low, high) (exceptions are listed on their own)."""
        series = self._series(calendar, master)
        return [
            self._virtual(series, master.data, occurrence)
            for occurrence in series.occurrences(low, high)
            if series.key(occurrence) not in exceptions
        ]

    def _events_list(self, calendar: _Calendar, account: str, query: dict[str, list[str]]) -> dict[str, Any]:
        sync_token = self._one(query, "syncToken")
        if sync_token is not None:
            for param in SYNC_INCOMPATIBLE:
                if param in query:
                    raise _bad_request(
                        f"The syncToken parameter cannot be combined with the {param} parameter.", "invalid"
                    )
        size = self._page_size(query)
        single = self._flag(query, "singleEvents")
        order_by = self._one(query, "orderBy")
        if order_by not in (None, "startTime", "updated"):
            raise _bad_request("Invalid value for: orderBy", "invalidParameter")
        if order_by == "startTime" and not single:
            raise _bad_request(
                "The requested ordering is not available for the particular query.", "badRequest"
            )
        page_token = self._one(query, "pageToken")
        if page_token is not None:
            page = self._pages.get(page_token)
            if page is None or page.calendar_id != calendar.id:
                raise _bad_request("Invalid page token value.", "invalid")
        else:
            cap = self._seq
            if sync_token is not None:
                token = self._sync_tokens.get(sync_token)
                if token is None or token.calendar_id != calendar.id:
                    raise _bad_request("Invalid sync token value.", "invalid")
                if self._expire_sync_next > 0:
                    self._expire_sync_next -= 1
                    token.valid = False
                if not token.valid:
                    raise ApiError(
                        410,
                        "fullSyncRequired",
                        "Sync token is no longer valid, a full sync is required.",
                        domain="calendar",
                    )
                items = self._changes(calendar, token.seq, single)
            else:
                items = self._full_list(calendar, query, single, order_by)
            page = _Page(calendar.id, items, 0, self._new_sync_token(calendar.id, cap, single))
        chunk = page.items[page.offset : page.offset + size]
        response: dict[str, Any] = {
            "kind": "calendar#events",
            "etag": f'"p{self._seq}"',
            "summary": calendar.summary,
            "description": calendar.description,
            "updated": _utc_stamp(),
            "timeZone": calendar.time_zone,
            "accessRole": calendar.acl[account],
            "defaultReminders": [],
            "items": copy.deepcopy(chunk),
        }
        if page.offset + size < len(page.items):
            next_token = secrets.token_urlsafe(24)
            self._pages[next_token] = _Page(calendar.id, page.items, page.offset + size, page.next_sync_token)
            response["nextPageToken"] = next_token
        elif page.next_sync_token is not None:
            response["nextSyncToken"] = page.next_sync_token
        return response

    def _new_sync_token(self, calendar_id: str, seq: int, single: bool) -> str:
        token = "C" + base64.urlsafe_b64encode(secrets.token_bytes(18)).decode("ascii")
        self._sync_tokens[token] = _SyncToken(calendar_id, seq, single)
        return token

    def _full_list(
        self, calendar: _Calendar, query: dict[str, list[str]], single: bool, order_by: str | None
    ) -> list[dict[str, Any]]:
        low, high = self._bounds(query)
        show_deleted = self._flag(query, "showDeleted")
        exceptions = self._exceptions(calendar)
        out: list[dict[str, Any]] = []
        for stored in sorted(calendar.events.values(), key=lambda s: s.order):
            data = stored.data
            if not self._matches_filters(data, query):
                continue
            bounded = low is not None or high is not None
            if stored.cancelled:
                # Cancelled occurrences are listed even without showDeleted, unless expanding.
                if stored.is_exception:
                    visible = show_deleted or not single
                    in_range = self._overlaps(data, calendar, low, high)
                elif stored.is_master:
                    visible = show_deleted
                    in_range = not bounded or bool(self._series(calendar, stored).occurrences(low, high))
                else:
                    visible = show_deleted
                    in_range = self._overlaps(data, calendar, low, high)
                if visible and in_range:
                    out.append(self._cancelled_view(data))
                continue
            if stored.is_master:
                if single:
                    out.extend(self._expand(calendar, stored, exceptions.get(data["id"], {}), low, high))
                elif not bounded or self._series(calendar, stored).occurrences(low, high):
                    out.append(copy.deepcopy(data))
                continue
            if self._overlaps(data, calendar, low, high):
                out.append(copy.deepcopy(data))
        if order_by == "startTime":
            out.sort(key=lambda item: (self._span(item, calendar)[0], item["id"]))
        elif order_by == "updated":
            out.sort(key=lambda item: item.get("updated", ""))
        return out

    def _changes(self, calendar: _Calendar, since: int, single: bool) -> list[dict[str, Any]]:
        exceptions = self._exceptions(calendar)
        out: list[dict[str, Any]] = []
        for stored in sorted(calendar.events.values(), key=lambda s: s.seq):
            if stored.seq <= since:
                continue
            if stored.cancelled:
                out.append(self._cancelled_view(stored.data))
            elif stored.is_master and single:
                out.extend(self._expand(calendar, stored, exceptions.get(stored.data["id"], {}), None, None))
            else:
                out.append(copy.deepcopy(stored.data))
        return out

    def _instances(
        self, calendar: _Calendar, account: str, event_id: str, query: dict[str, list[str]]
    ) -> dict[str, Any]:
        master = calendar.events.get(event_id)
        if master is None or master.is_exception:
            raise _not_found()
        if master.cancelled:
            raise ApiError(410, "deleted", "Resource has been deleted")
        low, high = self._bounds(query)
        show_deleted = self._flag(query, "showDeleted")
        items: list[dict[str, Any]]
        if not master.is_master:
            items = [copy.deepcopy(master.data)]
        else:
            own = self._exceptions(calendar).get(event_id, {})
            items = self._expand(calendar, master, own, low, high)
            for exception in own.values():
                if exception.cancelled:
                    if show_deleted and self._overlaps(exception.data, calendar, low, high):
                        items.append(self._cancelled_view(exception.data))
                elif self._overlaps(exception.data, calendar, low, high):
                    items.append(copy.deepcopy(exception.data))
            items.sort(key=lambda item: _original_key(item, calendar.time_zone))
        original = self._one(query, "originalStart")
        if original:
            wanted = parse_rfc3339(original).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
            items = [item for item in items if _original_key(item, calendar.time_zone) == wanted]
        size = self._page_size(query)
        page_token = self._one(query, "pageToken")
        if page_token is not None:
            page = self._pages.get(page_token)
            if page is None or page.calendar_id != calendar.id:
                raise _bad_request("Invalid page token value.", "invalid")
        else:
            page = _Page(calendar.id, items, 0, None)
        response: dict[str, Any] = {
            "kind": "calendar#events",
            "etag": f'"p{self._seq}"',
            "summary": calendar.summary,
            "updated": _utc_stamp(),
            "timeZone": calendar.time_zone,
            "accessRole": calendar.acl[account],
            "defaultReminders": [],
            "items": copy.deepcopy(page.items[page.offset : page.offset + size]),
        }
        if page.offset + size < len(page.items):
            next_token = secrets.token_urlsafe(24)
            self._pages[next_token] = _Page(calendar.id, page.items, page.offset + size, None)
            response["nextPageToken"] = next_token
        return response

    # ------------------------------------------------------------------ free/busy

    def _freebusy(self, account: str, body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("timeMin"):
            raise _bad_request("Missing timeMin.", "required")
        if not body.get("timeMax"):
            raise _bad_request("Missing timeMax.", "required")
        low, high = parse_rfc3339(body["timeMin"]), parse_rfc3339(body["timeMax"])
        if high <= low:
            raise _bad_request("The specified time range is empty.", "timeRangeEmpty")
        zone = _zone(body.get("timeZone") or "UTC", "request")
        items = body.get("items") or []
        if len(items) > 50:
            raise _bad_request("Too many calendars requested.", "tooManyCalendarsRequested")
        calendars: dict[str, Any] = {}
        for item in items:
            requested = str(item.get("id", ""))
            calendar_id = self._accounts.get(account, account) if requested == "primary" else requested
            calendar = self._calendars.get(calendar_id)
            readable = calendar is not None and (calendar.freebusy_public or account in calendar.acl)
            if calendar is None or not readable:
                calendars[requested] = {"errors": [{"domain": "global", "reason": "notFound"}], "busy": []}
                continue
            intervals = self._busy(calendar, low, high)
            calendars[requested] = {
                "busy": [
                    {"start": format_datetime(begin, zone), "end": format_datetime(end, zone)}
                    for begin, end in intervals
                ]
            }
        return {
            "kind": "calendar#freeBusy",
            "timeMin": _utc_stamp(low),
            "timeMax": _utc_stamp(high),
            "calendars": calendars,
        }

    def _busy(self, calendar: _Calendar, low: datetime, high: datetime) -> list[tuple[datetime, datetime]]:
        exceptions = self._exceptions(calendar)
        spans: list[tuple[datetime, datetime]] = []
        for stored in calendar.events.values():
            data = stored.data
            if stored.cancelled or data.get("transparency") == "transparent":
                continue
            if stored.is_master:
                for instance in self._expand(calendar, stored, exceptions.get(data["id"], {}), low, high):
                    spans.append(self._span(instance, calendar))
            elif self._overlaps(data, calendar, low, high):
                spans.append(self._span(data, calendar))
        merged: list[tuple[datetime, datetime]] = []
        for begin, end in sorted((max(b, low), min(e, high)) for b, e in spans):
            if merged and begin <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((begin, end))
        return merged

    # ------------------------------------------------------------------ batch

    def _batch(self, raw_path: str, headers: dict[str, str], body: bytes) -> _Reply:
        content_type = headers.get("content-type", "")
        entry = LoggedRequest("POST", urlsplit(raw_path).path, {}, headers, None, "batch")
        if not content_type.lower().startswith("multipart/mixed"):
            reply = _bad_request("Batch requests must be multipart/mixed.").reply()
            entry.status = reply.status
            with self._lock:
                self.log.append(entry)
            return reply
        message = email.message_from_bytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
        parts = message.get_payload() if message.is_multipart() else []
        assert isinstance(parts, list)
        entry.body = f"{len(parts)} parts"
        with self._lock:
            self.log.append(entry)
        if len(parts) > BATCH_LIMIT:
            reply = _bad_request(f"A batch may hold at most {BATCH_LIMIT} requests.", "invalid").reply()
            entry.status = reply.status
            return reply
        answers: list[tuple[str, _Reply]] = []
        for part in parts:
            assert isinstance(part, email.message.Message)
            content_id = str(part.get("Content-ID", "")).strip()
            payload = part.get_payload()
            if isinstance(payload, bytes):
                payload = payload.decode("utf-8")
            assert isinstance(payload, str)
            method, target, part_headers, part_body = self._parse_http_request(payload)
            answers.append(
                (content_id, self._api_call(method, target, part_headers, part_body, in_batch=True))
            )
        if any(answer.drop for _, answer in answers):
            entry.status = None
            return _Reply(0, drop=True)
        boundary = "batch_" + secrets.token_hex(12)
        chunks: list[bytes] = []
        for content_id, answer in answers:
            response_id = "<response-" + content_id[1:] if content_id.startswith("<") else content_id
            head = [
                f"--{boundary}",
                "Content-Type: application/http",
                f"Content-ID: {response_id}",
                "",
                f"HTTP/1.1 {answer.status} {HTTPStatus(answer.status).phrase}",
                *(f"{key}: {value}" for key, value in answer.headers.items()),
                f"Content-Length: {len(answer.body)}",
                "",
                "",
            ]
            chunks.append("\r\n".join(head).encode("utf-8") + answer.body + b"\r\n")
        chunks.append(f"--{boundary}--\r\n".encode())
        entry.status = 200
        return _Reply(200, {"Content-Type": f"multipart/mixed; boundary={boundary}"}, b"".join(chunks))

    @staticmethod
    def _parse_http_request(payload: str) -> tuple[str, str, dict[str, str], bytes]:
        request_line, _, rest = payload.lstrip("\r\n").partition("\n")
        method, target = request_line.strip().split(" ")[:2]
        inner = email.parser.Parser().parsestr(rest)
        headers = {key.lower(): str(value) for key, value in inner.items()}
        raw_body = inner.get_payload()
        body = (raw_body if isinstance(raw_body, str) else "").encode("utf-8")
        length = headers.get("content-length")
        if length is not None and length.isdigit():
            body = body[: int(length)]
        return method.upper(), target, headers, body


def quote_id(value: str) -> str:
    """Percent-encode a path segment the way the client does (for hand-built URLs in tests)."""
    return quote(value, safe="")
