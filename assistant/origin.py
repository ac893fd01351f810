"""The websocket's origin check, as strict as Django's CSRF check is for forms.

Channels' ``AllowedHostsOriginValidator`` compares only the host name with ``ALLOWED_HOSTS``, so a page
served from ``http://localhost:3000`` could drive a signed-in user's chat on ``http://localhost:8000``.
Here the origin must be the socket's own (scheme, host and port, as the ``Host`` header names it) on an
allowed host, or be listed in ``CSRF_TRUSTED_ORIGINS``, the setting operators already use for a proxy.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

__all__ = ["SameOriginValidator", "same_origin"]


def same_origin(origin: str, host: str | None, *, secure: bool = False) -> bool:
    """Whether a websocket opened from ``origin`` to ``host`` (its ``Host`` header; ``secure``: over
    wss) may go ahead."""
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if f"{parts.scheme}://{parts.netloc}".lower() in {o.lower() for o in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    if host is None:
        # No Host header (a test client): the origin's own host, on its scheme's default port.
        return parts.port is None and validate_host(parts.hostname, settings.ALLOWED_HOSTS)
    domain, _ = split_domain_port(host)
    own = parts.scheme == ("https" if secure else "http") and parts.netloc.lower() == host.lower()
    return own and validate_host(domain, settings.ALLOWED_HOSTS)


class SameOriginValidator:
    """ASGI middleware: refuses a websocket whose ``Origin`` is not :func:`same_origin`."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin")
        host = headers.get(b"host")
        if origin is not None and same_origin(
            origin.decode("latin1"),
            host.decode("latin1") if host is not None else None,
            secure=scope.get("scheme") == "wss",
        ):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
