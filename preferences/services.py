"""Writes of preferences."""

from __future__ import annotations

from typing import Any

from preferences.models import Preference

__all__ = ["preference_set"]


def preference_set(*, user: Any, key: str, value: Any) -> Preference:
    pref, _ = Preference.objects.update_or_create(user=user, key=key, defaults={"value": value})
    return pref
