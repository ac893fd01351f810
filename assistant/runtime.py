"""Process-wide caches, and the one function that drops them all (what a restart does)."""

from __future__ import annotations

from preferences.selectors import forget_reported
from skills.recurrence import clear_cache as clear_recurrence_cache

__all__ = ["drop_caches"]


def drop_caches() -> None:
    """Forget everything held in memory between requests; the database is the only truth left."""
    clear_recurrence_cache()
    forget_reported()
