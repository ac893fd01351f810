"""The security headers of static files, which WhiteNoise serves before the page middlewares run.

WhiteNoise answers ``/static/…`` from its own middleware, near the top of the stack: Django's
``SecurityMiddleware`` above it still adds ``nosniff``, the referrer policy and the opener policy, but
the Content-Security-Policy and X-Frame-Options middlewares below it never see those responses.  A
stylesheet or script is harmless framed, but an SVG or an HTML file opened from ``/static/`` is a
document like any page, so each file carries the same two headers the pages do.

Settings refer to :func:`add_static_headers` by value (WhiteNoise wants the callable), so this module
imports nothing that reads them at import time (it is imported by them).
"""

from __future__ import annotations

from wsgiref.headers import Headers

from csp.utils import build_policy
from django.conf import settings

__all__ = ["add_static_headers"]


def add_static_headers(headers: Headers, path: str, url: str) -> None:
    """WhiteNoise's ``WHITENOISE_ADD_HEADERS_FUNCTION``: the pages' CSP and frame refusal, per file."""
    policy = build_policy()
    if policy:
        headers["Content-Security-Policy"] = policy
    headers["X-Frame-Options"] = getattr(settings, "X_FRAME_OPTIONS", "DENY")
