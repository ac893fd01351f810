"""Writes of preferences: every one is validated against the key's schema (``preferences.schema``)."""

from __future__ import annotations

from typing import Any

from preferences.models import Preference
from preferences.schema import validate_preference

__all__ = ["preference_delete", "preference_set"]


def preference_set(*, user: Any, key: str, value: Any) -> Preference:
    """Store ``value`` under ``key`` in its canonical form.

    Raises :class:`preferences.schema.PreferenceError` (a ``ValueError``) for an unknown key or a value
    the schema refuses; its ``messages`` name each field and what is allowed, ready to show the user.
    """
    canonical = validate_preference(key, value)
    pref, _ = Preference.objects.update_or_create(user=user, key=key, defaults={"value": canonical})
    return pref


def preference_delete(*, user: Any, key: str) -> bool:
    """Forget the user's ``key`` ("I no longer go to the gym"); whether there was one to forget."""
    deleted, _ = Preference.objects.filter(user=user, key=key).delete()
    return deleted > 0
