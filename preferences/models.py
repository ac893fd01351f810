"""Per-user preferences: one JSON value per user and key."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from preferences.schema import KEYS, PreferenceError, validate_preference

__all__ = ["Preference"]


class Preference(models.Model):
    """A user's setting under a key (working_hours, lunch_hours, timezone...).

    Values are JSON in the canonical form the scenarios README defines (days MO..SU, times HH:MM), so
    the admin, chat edits and the free-slot search all read and write one shape.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences")
    key = models.CharField(max_length=64)
    value = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="preference_unique_user_key")]
        ordering = ["user_id", "key"]

    def __str__(self) -> str:
        return f"{self.key}={self.value!r}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Every save validates (the shell and ``objects.create`` too): only a raw ``update()`` or SQL can
        store a value the schema refuses, and reads ignore those (``preferences.selectors``)."""
        self.value = validate_preference(self.key, self.value)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """Refuse an unknown key or a value its schema refuses, naming each field; canonicalise the rest."""
        try:
            self.value = validate_preference(self.key, self.value)
        except PreferenceError as exc:
            field = "value" if self.key in KEYS else "key"
            raise ValidationError({field: exc.messages}) from exc
