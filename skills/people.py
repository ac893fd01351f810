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

__all__ = ["Person", "people_matching", "people_search"]


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
    text = " ".join(query.split()).casefold()
    return people_matching(user=user, names=[text]).get(text, []) if text else []


def people_matching(*, user: Any, names: list[str]) -> dict[str, list[Person]]:
    """Several :func:`people_search` look-ups in one query: each name to the people it names."""
    wanted = {" ".join(n.split()).casefold() for n in names if n.split()}
    if not wanted:
        return {}
    condition = Q()
    for text in wanted:
        condition |= Q(first_name__iexact=text) | Q(full_name__iexact=text) | Q(email__iexact=text)
    matches = (
        get_user_model()
        .objects.filter(is_active=True)
        .exclude(pk=user.pk)
        .exclude(email="")
        .annotate(full_name=Concat("first_name", Value(" "), "last_name"))
        .filter(condition)
        .order_by("first_name", "last_name", "email")
    )
    found: dict[str, list[Person]] = {text: [] for text in wanted}
    for u in matches:
        person = Person(email=u.email, name=u.get_full_name() or u.get_username(), user_id=u.pk)
        for key in {u.first_name.casefold(), f"{u.first_name} {u.last_name}".casefold(), u.email.casefold()}:
            if key in found:
                found[key].append(person)
    return found
