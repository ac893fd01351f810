"""What the user wrote and what their events are called stay out of the logs above DEBUG.

The app's own log lines name ids (message, run, task, trace), never text.  Two things could still
carry text into a log line: an exception's message (``logger.exception`` in a consumer, Django's
"Internal Server Error", a skill that crashed; a database error may quote the value it refused), and
a pydantic ``ValidationError`` passed as an argument, whose text repeats the input it refused (an event
with its title).  :class:`WithholdUserText`, a filter on the log handlers (settings ``LOGGING``, and
Celery's own handlers in a worker), rewrites both for records at INFO and above: tracebacks keep their
frames and exception types but not their messages, and validation errors keep where and what kind of
error, not the input.  DEBUG records pass untouched, so ``LOG_LEVEL=DEBUG`` still shows everything to
an operator who asks for it.
"""

from __future__ import annotations

import logging
import traceback
from types import TracebackType
from typing import Any

from pydantic import ValidationError

__all__ = ["WITHHELD", "WithholdUserText", "exception_summary", "validation_summary", "withhold_in_handlers"]

WITHHELD = "(message withheld above DEBUG: it may quote the user's words or their events)"

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def validation_summary(exc: ValidationError) -> str:
    """Where and what kind each error of ``exc`` is ("events.0.start: datetime_parsing"), no input."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or '(value)'}: {error['type']}"
        for error in exc.errors(include_url=False, include_input=False, include_context=False)
    ]
    return f"{exc.error_count()} validation error(s) for {exc.title}: " + "; ".join(problems)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what led to it, oldest first, as a traceback prints them."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return chain[::-1]


def exception_summary(exc_info: ExcInfo) -> str:
    """A traceback of ``exc_info`` with its frames and exception types, and no exception messages."""
    parts: list[str] = []
    for n, exc in enumerate(_chain(exc_info[1])):
        if n:
            parts.append("\nThe above exception led to the following one:\n\n")
        parts.append("Traceback (most recent call last):\n")
        parts.extend(traceback.format_tb(exc.__traceback__))
        kind = type(exc)
        module = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
        name = f"{module}{kind.__qualname__}"
        parts.append(f"{name}: {WITHHELD}\n")
    return "".join(parts).rstrip("\n")


class WithholdUserText(logging.Filter):
    """Rewrites records at INFO and above so that no exception message or validated input is shown."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno <= logging.DEBUG:
            return True
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = exception_summary(record.exc_info)
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, ValidationError) for a in args):
            record.args = tuple(validation_summary(a) if isinstance(a, ValidationError) else a for a in args)
        return True


def withhold_in_handlers(logger: logging.Logger | None = None, **_: Any) -> None:
    """Put the filter on ``logger``'s handlers: Celery calls this (``after_setup_logger``) in a worker,
    whose handlers replace the ones the settings configure."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, WithholdUserText) for f in handler.filters):
            handler.addFilter(WithholdUserText())
