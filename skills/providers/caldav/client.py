"""The HTTP side of CalDAV, through the ``caldav`` library's :class:`caldav.DAVClient`.

Discovery uses the library's principal and calendar-home-set walk.  Everything the provider's
correctness depends on (conditional PUT and DELETE, ``sync-collection``, ``calendar-multiget``,
etag and ctag PROPFINDs, ``free-busy-query``) is sent as the exact request RFC 4791 / RFC 6578
describe through the client's ``request``, and answers are read here, so what the server is asked
and what a status means is in one place.  Failures become the provider contract's exceptions:
412 → :class:`ConflictError`, 401/403 → :class:`PermissionDeniedError`, 404/410 →
:class:`NotFoundError`, 429/5xx and network failures → :class:`TransientProviderError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit
from xml.sax.saxutils import escape

import caldav
from caldav.lib import error as dav_error
from lxml import etree

from skills import outbound
from skills.providers.base import (
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    TransientProviderError,
)

__all__ = ["DavCalendar", "DavConnection", "Resource", "SyncTokenExpiredError"]

_NS = {"D": "DAV:", "C": "urn:ietf:params:xml:ns:caldav", "CS": "http://calendarserver.org/ns/"}
_XML = {"Content-Type": "application/xml; charset=utf-8"}
_ICS = {"Content-Type": "text/calendar; charset=utf-8"}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True)
# What caldav raises reading an answer that is not WebDAV: a 302's empty body gave an AttributeError.
_NOT_CALDAV = (AttributeError, KeyError, IndexError, TypeError, ValueError, etree.LxmlError)


class SyncTokenExpiredError(ProviderError):
    """The server no longer knows a sync token (RFC 6578 ``valid-sync-token``): sync again from none."""


@dataclass(frozen=True)
class DavCalendar:
    """A calendar collection found by discovery."""

    url: str
    name: str
    color: str = ""
    timezone: str = ""


@dataclass(frozen=True)
class Resource:
    """A calendar object resource: its path, etag and (when fetched) its iCalendar text."""

    path: str
    etag: str
    data: str = ""


def _tz_id(text: str) -> str:
    """The TZID of a calendar-timezone property (a VCALENDAR with one VTIMEZONE), or ""."""
    for line in text.splitlines():
        if line.upper().startswith("TZID:"):
            return line[5:].strip()
    return ""


class DavConnection:
    """One account's connection: server URL, user name and app password."""

    def __init__(self, url: str, username: str, password: str) -> None:
        """Raises ProviderError, nothing sent, for a URL :mod:`skills.outbound` does not let us reach."""
        self.url = url if url.endswith("/") else url + "/"
        try:
            outbound.check_url(self.url)
        except outbound.OutboundRefusedError as exc:
            raise ProviderError("The server at that address may not be reached from here.") from exc
        self.client = caldav.DAVClient(  # type: ignore[operator]
            url=self.url,
            username=username,
            password=password,
            auth_type="basic",
            timeout=(outbound.CONNECT_TIMEOUT, outbound.READ_TIMEOUT),
            require_tls=False,  # read by discovery only (off); outbound keeps http to allowed networks
            enable_rfc6764=False,
        )
        # Every connection, redirect and answer through the guard: a user typed this URL.
        self.client.session = outbound.session()

    # -- plumbing --------------------------------------------------------------------------------------
    def absolute(self, path: str) -> str:
        return urljoin(self.url, path)

    @staticmethod
    def path_of(url: str) -> str:
        return unquote(urlsplit(url).path)

    def request(self, url: str, method: str, body: str = "", headers: dict[str, str] | None = None) -> Any:
        """One HTTP request; network failures and rate limits are transient, auth failures refused."""
        try:
            response = self.client.request(self.absolute(url), method, body, headers or {})
        except dav_error.RateLimitError as exc:
            raise TransientProviderError(f"The CalDAV server asked to slow down ({method}).") from exc
        except dav_error.AuthorizationError as exc:
            if "valid-sync-token" in str(getattr(exc, "preconditions", "")):
                raise SyncTokenExpiredError("The CalDAV server no longer knows the sync token.") from exc
            if "403" in str(getattr(exc, "status", "")):
                raise PermissionDeniedError(f"The CalDAV server does not allow this {method} (403).") from exc
            raise PermissionDeniedError("The CalDAV server refused the user name or app password.") from exc
        except dav_error.DAVError as exc:
            raise ProviderError(f"The CalDAV server refused a {method}.") from exc  # its words stay out
        except (OSError, ConnectionError) as exc:
            raise TransientProviderError(f"The CalDAV server could not be reached ({method}).") from exc
        except _NOT_CALDAV as exc:  # caldav reading an answer that is not WebDAV (a redirect's, an HTML page)
            raise ProviderError(f"The CalDAV server's answer to a {method} was not CalDAV.") from exc
        except Exception as exc:  # niquests' own exception family (timeouts, connection resets)
            if type(exc).__module__.split(".")[0] in ("niquests", "urllib3", "urllib3_future"):
                raise TransientProviderError(f"The CalDAV server could not be reached ({method}).") from exc
            raise
        return response

    @staticmethod
    def check(response: Any, method: str, what: str) -> None:
        status = int(response.status)
        if status < 300:
            return
        if status == 412:
            raise ConflictError(f"{what} changed on the CalDAV server since it was read; read it again.")
        if status in (401, 403):
            raise PermissionDeniedError(f"The CalDAV server refused to {method} {what} ({status}).")
        if status in (404, 410):
            raise NotFoundError(f"{what} is not on the CalDAV server any more.")
        if status == 429 or status >= 500:
            raise TransientProviderError(f"The CalDAV server failed a {method} ({status}); try again.")
        raise ProviderError(f"The CalDAV server refused a {method} of {what} ({status}).")

    @staticmethod
    def _tree(response: Any) -> Any:
        raw = response.raw if isinstance(response.raw, bytes) else str(response.raw).encode("utf-8")
        try:
            return etree.fromstring(raw, _PARSER)
        except etree.LxmlError as exc:
            raise ProviderError("The CalDAV server's answer was not XML.") from exc

    @staticmethod
    def _etag(response: Any) -> str:
        headers = response.headers or {}
        return str(headers.get("ETag") or headers.get("etag") or "")

    # -- discovery -------------------------------------------------------------------------------------
    def calendars(self) -> list[DavCalendar]:
        """The principal's calendar collections (principal → calendar-home-set → calendars)."""
        try:
            principal = self.client.principal()
            found = principal.calendars()
        except dav_error.AuthorizationError as exc:
            raise PermissionDeniedError("The CalDAV server refused the user name or app password.") from exc
        except dav_error.DAVError as exc:
            raise ProviderError("No CalDAV calendars were found at that address.") from exc
        except (OSError, ConnectionError) as exc:
            raise TransientProviderError("The CalDAV server could not be reached.") from exc
        except _NOT_CALDAV as exc:
            raise ProviderError("The answer at that address was not CalDAV.") from exc
        except Exception as exc:
            if type(exc).__module__.split(".")[0] in ("niquests", "urllib3", "urllib3_future"):
                raise TransientProviderError("The CalDAV server could not be reached.") from exc
            raise
        calendars = []
        for calendar in found:
            url = str(calendar.url)
            props = self.properties(url)
            name = props.get("displayname") or url.rstrip("/").rsplit("/", 1)[-1]
            calendars.append(
                DavCalendar(
                    url=url,
                    name=name,
                    color=props.get("calendar-color", "")[:7],
                    timezone=_tz_id(props.get("calendar-timezone", "")),
                )
            )
        return calendars

    def properties(self, url: str) -> dict[str, str]:
        """displayname, calendar-color, calendar-timezone, getctag and sync-token of a collection."""
        body = (
            '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:" '
            'xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" '
            'xmlns:I="http://apple.com/ns/ical/"><D:prop><D:displayname/><I:calendar-color/>'
            "<C:calendar-timezone/><CS:getctag/><D:sync-token/></D:prop></D:propfind>"
        )
        response = self.request(url, "PROPFIND", body, {**_XML, "Depth": "0"})
        self.check(response, "read", "the calendar")
        props: dict[str, str] = {}
        for propstat in self._tree(response).iterfind(".//D:propstat", _NS):
            status = propstat.findtext("D:status", "", _NS)
            if " 200 " not in status:
                continue
            found = propstat.find("D:prop", _NS)
            for prop in found if found is not None else ():
                props[etree.QName(prop).localname] = (prop.text or "").strip()
        return props

    # -- reading ---------------------------------------------------------------------------------------
    def sync_collection(self, url: str, token: str) -> tuple[list[Resource], list[str], str]:
        """Changes since ``token`` ("" for all): (changed resources with etags, deleted paths, new token).

        Raises:
            SyncTokenExpiredError: the server no longer knows ``token``.
            ProviderError: the server has no sync-collection (the caller falls back to etags).
        """
        body = (
            '<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:">'
            f"<D:sync-token>{escape(token)}</D:sync-token><D:sync-level>1</D:sync-level>"
            "<D:prop><D:getetag/></D:prop></D:sync-collection>"
        )
        response = self.request(url, "REPORT", body, {**_XML, "Depth": "1"})
        status = int(response.status)
        if token and status in (403, 409, 412) and b"valid-sync-token" in _bytes(response.raw):
            raise SyncTokenExpiredError("The CalDAV server no longer knows the sync token.")
        self.check(response, "sync", "the calendar")
        tree = self._tree(response)
        changed, deleted = [], []
        for item in tree.iterfind("D:response", _NS):
            path = unquote(item.findtext("D:href", "", _NS))
            if path.rstrip("/") == self.path_of(url).rstrip("/"):
                continue
            if "404" in item.findtext("D:status", "", _NS):
                deleted.append(path)
                continue
            etag = item.findtext(".//D:getetag", "", _NS)
            changed.append(Resource(path=path, etag=etag))
        return changed, deleted, tree.findtext("D:sync-token", "", _NS)

    def etags(self, url: str) -> list[Resource]:
        """Every resource of a collection with its etag (one depth-1 PROPFIND)."""
        body = (
            '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:">'
            "<D:prop><D:getetag/><D:resourcetype/></D:prop></D:propfind>"
        )
        response = self.request(url, "PROPFIND", body, {**_XML, "Depth": "1"})
        self.check(response, "read", "the calendar")
        found = []
        for item in self._tree(response).iterfind("D:response", _NS):
            path = unquote(item.findtext("D:href", "", _NS))
            if path.rstrip("/") == self.path_of(url).rstrip("/"):
                continue
            etag = item.findtext(".//D:getetag", "", _NS)
            if etag:
                found.append(Resource(path=path, etag=etag))
        return found

    def multiget(self, url: str, paths: Iterable[str]) -> list[Resource]:
        """The iCalendar text and etag of many resources in one calendar-multiget REPORT."""
        paths = list(paths)
        if not paths:
            return []
        hrefs = "".join(f"<D:href>{escape(path)}</D:href>" for path in paths)
        body = (
            '<?xml version="1.0" encoding="utf-8"?><C:calendar-multiget xmlns:D="DAV:" '
            'xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>'
            f"{hrefs}</C:calendar-multiget>"
        )
        response = self.request(url, "REPORT", body, {**_XML, "Depth": "1"})
        self.check(response, "read", "events")
        found = []
        for item in self._tree(response).iterfind("D:response", _NS):
            data = item.findtext(".//C:calendar-data", "", _NS)
            if data:
                path = unquote(item.findtext("D:href", "", _NS))
                found.append(Resource(path=path, etag=item.findtext(".//D:getetag", "", _NS), data=data))
        return found

    def get(self, path: str) -> Resource | None:
        response = self.request(path, "GET")
        if int(response.status) == 404:
            return None
        self.check(response, "read", "an event")
        return Resource(path=path, etag=self._etag(response), data=_bytes(response.raw).decode("utf-8"))

    def free_busy(self, url: str, start: datetime, end: datetime) -> str:
        """The VFREEBUSY text a free-busy-query REPORT answers for a calendar."""

        def stamp(moment: datetime) -> str:
            return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")

        body = (
            '<?xml version="1.0" encoding="utf-8"?>'
            '<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav">'
            f'<C:time-range start="{stamp(start)}" end="{stamp(end)}"/></C:free-busy-query>'
        )
        response = self.request(url, "REPORT", body, {**_XML, "Depth": "1"})
        self.check(response, "read free/busy of", "the calendar")
        return _bytes(response.raw).decode("utf-8")

    # -- writing ---------------------------------------------------------------------------------------
    def create(self, path: str, ics: str) -> tuple[bool, str]:
        """PUT a new resource with ``If-None-Match: *``: (True, etag) when made, (False, "") when a
        resource is already there (a retried create finds its own, never makes a second)."""
        response = self.request(path, "PUT", ics, {**_ICS, "If-None-Match": "*"})
        if int(response.status) == 412:
            return False, ""
        self.check(response, "create", "the event")
        return True, self._etag(response)

    def update(self, path: str, ics: str, etag: str) -> str:
        """PUT over the version ``etag`` (``If-Match``); the new etag ("" if the server sent none)."""
        headers = {**_ICS, "If-Match": etag} if etag else {**_ICS, "If-None-Match": "*"}
        response = self.request(path, "PUT", ics, headers)
        self.check(response, "change", "the event")
        return self._etag(response)

    def delete(self, path: str, etag: str) -> None:
        """DELETE the version ``etag`` (``If-Match``); one already gone is fine."""
        response = self.request(path, "DELETE", "", {"If-Match": etag} if etag else {})
        if int(response.status) in (404, 410):
            return
        self.check(response, "delete", "the event")


def _bytes(raw: Any) -> bytes:
    if isinstance(raw, bytes):
        return raw
    return str(raw or "").encode("utf-8")
