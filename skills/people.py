"""The people directory: other users of this instance, as the assistant may name them.

"Lunch with Ann" has to become ann@example.com before free/busy or an invitation can use it; the
directory is the instance's own users, since they are the people whose calendars it can see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skills.hotsql import people_rows

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
    # A full name is looked up by its first word (or whole, for a first name of two words) and
    # checked below.  Plain SQL: a name look-up runs in most turns that mention someone.
    rows = people_rows(
        exclude_id=user.pk,
        firsts=sorted(wanted | {text.split()[0] for text in wanted}),
        addresses=sorted(wanted),
    )
    found: dict[str, list[Person]] = {text: [] for text in wanted}
    for pk, first, last, email, username in rows:
        full = f"{first} {last}".strip()
        person = Person(email=email, name=full or username, user_id=pk)
        for key in {first.casefold(), f"{first} {last}".casefold(), email.casefold()}:
            if key in found:
                found[key].append(person)
    return found
