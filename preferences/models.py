"""Per-user preferences: one JSON value per user and key."""

from __future__ import annotations

from django.conf import settings
from django.db import models

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
