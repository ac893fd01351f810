"""The people directory: other users of this instance, as the assistant may name them.

"Lunch with Ann" has to become ann@example.com before free/busy or an invitation can use it; the
directory is the instance's own users, since they are the people whose calendars it can see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q, Value
from django.db.models.functions import Concat

__all__ = ["Person", "people_search"]


@dataclass(frozen=True, slots=True)
class Person:
    """Someone the user can meet with; only what an invitation needs, nothing from their calendars."""

    email: str
    name: str
    user_id: int


def people_search(*, user: Any, query: str) -> list[Person]:
    """Other active users whose first name, full name or email is ``query`` (any case, extra spaces).

    The asking user is left out: "meet with Ann" never means yourself, even if you are an Ann.
    """
    text = " ".join(query.split())
    if not text:
        return []
    matches = (
        get_user_model()
        .objects.filter(is_active=True)
        .exclude(pk=user.pk)
        .exclude(email="")
        .annotate(full_name=Concat("first_name", Value(" "), "last_name"))
        .filter(Q(first_name__iexact=text) | Q(full_name__iexact=text) | Q(email__iexact=text))
        .order_by("first_name", "last_name", "email")
    )
    return [Person(email=u.email, name=u.get_full_name() or u.get_username(), user_id=u.pk) for u in matches]
