"""The site's guards that plug into libraries: sign-in throttling's two hooks into django-axes (whose
address a sign-in comes from, and the page shown to an address and username that failed too often),
and the Content-Security-Policy middleware naming the chat's own websocket."""

from __future__ import annotations

import math
from typing import Any

from axes.helpers import get_cool_off
from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render, resolve_url

__all__ = ["SameOriginSocketCSPMiddleware", "client_ip", "lockout_response"]

LOCKOUT_STATUS = 429
"""Too Many Requests: the refusal is about the number of attempts, not about who is asking."""


def client_ip(request: HttpRequest) -> str:
    """The address a sign-in came from.

    The peer's address, unless ``SIGNIN_PROXY_COUNT`` reverse proxies stand in front of the app: then
    the address the outermost of them saw, which it wrote into ``X-Forwarded-For`` (entries further
    left were written by the client and prove nothing).
    """
    peer = str(request.META.get("REMOTE_ADDR") or "")
    count = int(getattr(settings, "SIGNIN_PROXY_COUNT", 0) or 0)
    if count <= 0:
        return peer
    forwarded = [a.strip() for a in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",") if a.strip()]
    if len(forwarded) < count:  # not everything came through the proxies: trust what we can see
        return forwarded[0] if forwarded else peer
    return forwarded[-count]


def lockout_minutes(request: HttpRequest | None = None) -> int:
    """Minutes until a locked-out sign-in may try again (each refused attempt starts the wait anew)."""
    cool_off = get_cool_off(request)
    if cool_off is None:
        return 0
    return max(1, math.ceil(cool_off.total_seconds() / 60))


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """The sign-in page's refusal for too many failures, in the site's own look (status 429)."""
    minutes = lockout_minutes(request)
    # Back to the form that was used: the admin's sign-in or the site's.
    admin = getattr(request.resolver_match, "namespace", "") == "admin"
    login_path = request.path if admin else resolve_url(settings.LOGIN_URL)
    return render(
        request,
        "registration/locked_out.html",
        {"minutes": minutes, "failure_limit": settings.AXES_FAILURE_LIMIT, "login_path": login_path},
        status=LOCKOUT_STATUS,
    )


class SameOriginSocketCSPMiddleware(CSPMiddleware):
    """django-csp's middleware, whose ``connect-src`` also names this host's websocket scheme.

    CSP Level 3 has ``'self'`` match ``ws:``/``wss:`` on the page's own host, and current browsers
    follow it; browsers that predate that rule need the socket's origin spelt out.  Only the host the
    request came to (already checked against ``ALLOWED_HOSTS``) is added, never a wildcard.
    """

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if report_only:
            return parts
        try:
            host = request.get_host()
        except DisallowedHost:
            return parts
        sockets = [f"wss://{host}"] if request.is_secure() else [f"ws://{host}", f"wss://{host}"]
        update = dict(parts.update or {})
        connect = update.get("connect-src") or []
        update["connect-src"] = [*([connect] if isinstance(connect, str) else connect), *sockets]
        parts.update = update
        return parts
