"""Requests to addresses users give (CalDAV servers now, calendar subscriptions later) go through here.

A URL typed into a form is a way into the server's own network unless every connection made for it
is checked: without this, a signed-in user could have the server send a PROPFIND, with the
credentials they typed, to ``http://127.0.0.1:6379/`` or a cloud metadata address, and learn from the
answer (or from how it failed) what listens there.  So:

* the URL must be ``http`` or ``https`` with a host, and plain ``http`` only to addresses the operator
  allows (``OUTBOUND_ALLOWED_NETWORKS``): credentials never cross the internet in the clear;
* every connection, the first and each redirect's, is checked on the address it actually connects
  to (:class:`GuardedResolver`), after resolution, so a name that resolves to ``127.0.0.1`` or is
  rebound between a check and the request is refused as a literal address is: loopback, private,
  link-local, shared, multicast, reserved and unspecified addresses unless the operator allows their
  network; nothing is sent to a refused address;
* redirects are followed at most :data:`MAX_REDIRECTS` times, each target checked like the first;
* connecting gives up after :data:`CONNECT_TIMEOUT` seconds, a silent server after
  :data:`READ_TIMEOUT`, and an answer longer than :data:`MAX_BODY_BYTES` is dropped unread.

Whatever goes wrong, the caller turns it into one message that quotes nothing the target said.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any
from urllib.parse import urljoin, urlsplit

import niquests
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from niquests.packages.urllib3.contrib.resolver.system import SystemResolver

__all__ = [
    "CONNECT_TIMEOUT",
    "MAX_BODY_BYTES",
    "MAX_REDIRECTS",
    "READ_TIMEOUT",
    "GuardedResolver",
    "OutboundRefusedError",
    "allowed_networks",
    "check_url",
    "session",
]

logger = logging.getLogger("skills")

CONNECT_TIMEOUT = 5
READ_TIMEOUT = 30
MAX_REDIRECTS = 5
MAX_BODY_BYTES = 32 * 1024 * 1024  # a year of a busy calendar fetched at once is a few megabytes

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class OutboundRefusedError(OSError):
    """A target the operator has not allowed, or an answer too large to read.

    An ``OSError`` so that raised while connecting it fails the request as an unreachable host does.
    """


def allowed_networks() -> list[Network]:
    """``OUTBOUND_ALLOWED_NETWORKS``: the non-public networks users' URLs may reach (CIDR strings)."""
    networks = []
    for text in getattr(settings, "OUTBOUND_ALLOWED_NETWORKS", []):
        try:
            networks.append(ipaddress.ip_network(str(text).strip(), strict=False))
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"OUTBOUND_ALLOWED_NETWORKS: {text!r} is not a network (write it as 192.168.1.0/24)."
            ) from exc
    return networks


def _plain(ip: Address) -> Address:
    """The IPv4 address an IPv4-mapped IPv6 one (``::ffff:127.0.0.1``) stands for."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _is_public(ip: Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):  # 6to4 and Teredo carry an IPv4 address: it must be public too
        embedded = ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None and not _is_public(embedded):
            return False
    return ip.is_global and not ip.is_multicast


def _in_allowance(ip: Address) -> bool:
    return any(ip.version == net.version and ip in net for net in allowed_networks())


def _refuse(reason: str, host: str) -> OutboundRefusedError:
    logger.warning("outbound request refused: %s (OUTBOUND_ALLOWED_NETWORKS can allow it)", reason)
    logger.debug("the refused outbound target was %s", host)
    return OutboundRefusedError(f"not an address this server may reach for you ({reason})")


def _addresses(host: str, port: int) -> list[Address]:
    try:
        records = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise OutboundRefusedError(f"{host} does not resolve") from exc
    return [_plain(ipaddress.ip_address(str(record[4][0]).split("%")[0])) for record in records]


def check_url(url: str) -> None:
    """Refuse, before anything is sent, a URL that is not HTTP(S) or is plain HTTP outside the allowance.

    The addresses themselves are checked again on every connection (:class:`GuardedResolver`).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _refuse("only http:// and https:// addresses with a host name", url)
    if parts.scheme == "http":
        try:
            port = parts.port or 80
        except ValueError as exc:
            raise _refuse("a port out of range", url) from exc
        if not all(_in_allowance(ip) for ip in _addresses(parts.hostname, port)):
            raise _refuse("plain http:// outside the operator's networks", parts.hostname)


class GuardedResolver(SystemResolver):
    """The system's resolver, refusing any address users' URLs may not reach.

    urllib3-future resolves through the session's resolver for every connection it opens, literal
    addresses included, and connects to exactly the addresses returned: checking here is checking
    what is connected to.  A name with one refused address among its answers is refused whole.
    """

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        records = super().getaddrinfo(host, port, *args, **kwargs)
        for record in records:
            ip = _plain(ipaddress.ip_address(str(record[4][0]).split("%")[0]))
            if not (_is_public(ip) or _in_allowance(ip)):
                raise _refuse("a loopback, private, link-local or reserved address", str(host))
        return records


def _read_at_most(response: Any, **kwargs: Any) -> Any:
    """A response hook: read the body here, giving up past :data:`MAX_BODY_BYTES`."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        response.close()
        raise _refuse("an answer larger than the limit", str(response.url))
    body = bytearray()
    for chunk in response.iter_content(64 * 1024):
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            response.close()
            raise _refuse("an answer larger than the limit", str(response.url))
    response._content = bytes(body)  # what ``response.content`` would have read, now bounded
    response._content_consumed = True
    return response


class GuardedSession(niquests.Session):
    """A niquests session whose connections, redirects and answers follow this module's rules."""

    def __init__(self) -> None:
        super().__init__(resolver=GuardedResolver())
        self.max_redirects = MAX_REDIRECTS
        self.hooks["response"].append(_read_at_most)

    def get_redirect_target(self, resp: niquests.Response) -> str | None:
        target = super().get_redirect_target(resp)
        if target is not None:
            check_url(urljoin(str(resp.url), target))
        return target


def session() -> niquests.Session:
    """A session for requests to a URL a user gave; pass ``timeout=(CONNECT_TIMEOUT, READ_TIMEOUT)``."""
    return GuardedSession()
