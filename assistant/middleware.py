"""Request bodies past Django's limits refused with a readable error before any middleware reads them.

``CsrfViewMiddleware`` reads a POSTed form to look for its token; a form with more fields than
``DATA_UPLOAD_MAX_NUMBER_FIELDS`` or a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` then raised there,
which Django answered with its HTML 400 page and logged with a traceback at ERROR.  Read here first
(Django keeps the parsed form, so nothing reads it twice), the same request gets the JSON error the
chat's own view gives.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponseBase
from django.http.multipartparser import MultiPartParserError

from assistant.views import unreadable_body

__all__ = ["RequestLimitsMiddleware"]


class RequestLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 - parsed (and kept) now, under our handling
            except (RequestDataTooBig, SuspiciousOperation, MultiPartParserError) as exc:
                return unreadable_body(exc)
        return self.get_response(request)
