"""Reads of preferences; every read is scoped to one user."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from preferences.models import Preference

__all__ = ["preference_get", "preferences_for", "user_timezone"]


def preferences_for(*, user: Any) -> dict[str, Any]:
    return dict(Preference.objects.filter(user=user).values_list("key", "value"))


def preference_get(*, user: Any, key: str, default: Any = None) -> Any:
    row = Preference.objects.filter(user=user, key=key).values_list("value", flat=True).first()
    return default if row is None else row


def user_timezone(*, user: Any) -> str:
    """The user's IANA zone; the instance default until they set one."""
    return str(preference_get(user=user, key="timezone", default=settings.ASSISTANT_DEFAULT_TIMEZONE))
