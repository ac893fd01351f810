"""Calendar backends, chosen per user; skills only ever see the :class:`CalendarProvider` API."""

from __future__ import annotations

from typing import Any

from skills.providers.base import CalendarProvider

__all__ = ["provider_for"]


def provider_for(user: Any) -> CalendarProvider:
    """The provider serving ``user``'s calendars (the built-in store until other accounts exist)."""
    from skills.providers.local import LocalProvider

    return LocalProvider(user)
