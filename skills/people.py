"""The people directory: other users of this instance, as the assistant may name them.

"Lunch with Ann" has to become ann@example.com before free/busy or an invitation can use it; the
directory is the instance's own users, since they are the people whose calendars it can see.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.functions import Lower

from skills.freetime import Span, merge
from skills.hotsql import people_rows
from skills.models import Calendar
from skills.selectors import BusyIndex, calendar_info

__all__ = ["Availability", "Person", "availability", "names_and_you", "people_matching", "people_search"]


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


@dataclass(frozen=True, slots=True)
class Availability:
    """When some people of this instance are busy within a range, read once for a whole search.

    ``people`` are the addresses asked about that belong to users here (their free/busy is visible:
    busy spans, nothing of what the events are), ``unknown`` the others, whose time cannot be seen.
    Spans are epoch seconds, merged per person and into one sorted union for the search.
    """

    people: tuple[Person, ...] = ()
    unknown: tuple[str, ...] = ()
    busy: dict[str, list[Span]] = field(default_factory=dict)  # by the person's address, lower case
    union: list[Span] = field(default_factory=list)
    _starts: list[float] = field(default_factory=list)
    _ends: list[float] = field(default_factory=list)

    def spans(self, start: datetime, end: datetime) -> list[Span]:
        """Times within [start, end) when at least one of the people is busy (merged, sorted)."""
        lo, hi = start.timestamp(), end.timestamp()
        return self.union[bisect_right(self._ends, lo) : bisect_left(self._starts, hi)]

    def busy_between(self, lo: float, hi: float) -> list[Person]:
        """The people busy at some moment of [lo, hi) (epoch seconds)."""
        found = []
        for person in self.people:
            spans = self.busy.get(person.email.casefold(), [])
            i = bisect_right(spans, (lo, float("inf")))
            before = spans[i - 1] if i else None
            if (before is not None and before[1] > lo) or (i < len(spans) and spans[i][0] < hi):
                found.append(person)
        return found


def availability(*, user: Any, emails: list[str], start: datetime, end: datetime) -> Availability:
    """The busy times within [start, end) of the people among ``emails`` who are users of this
    instance (the asking user and blank addresses left out), read in a few queries whatever the range.

    Their calendars are read through the same busy index as the user's own free-time search
    (transparent, cancelled and all-day events do not make anyone busy).
    """
    wanted: dict[str, str] = {}
    for email in emails:
        address = email.strip()
        if address and address.casefold() not in wanted:
            wanted[address.casefold()] = address
    own = (getattr(user, "email", "") or "").casefold()
    wanted.pop(own, None)
    if not wanted:
        return Availability()
    model = get_user_model()
    rows = (
        model.objects.filter(is_active=True)
        .exclude(pk=user.pk)
        .annotate(address=Lower("email"))
        .filter(address__in=list(wanted))
        .order_by("pk")
        .values_list("pk", "first_name", "last_name", "email", model.USERNAME_FIELD)
    )
    people: dict[str, Person] = {}
    for pk, first, last, email, username in rows:
        people.setdefault(
            email.casefold(), Person(email=email, name=f"{first} {last}".strip() or username, user_id=pk)
        )
    calendars: dict[int, list[Any]] = {}
    for calendar in Calendar.objects.filter(owner_id__in=[p.user_id for p in people.values()]).order_by("pk"):
        calendars.setdefault(calendar.owner_id, []).append(calendar_info(calendar))
    lo, hi = start.astimezone(UTC), end.astimezone(UTC)
    busy: dict[str, list[Span]] = {}
    for address, person in people.items():
        mine = calendars.get(person.user_id, [])
        busy[address] = merge(BusyIndex(calendars=mine, start=lo, end=hi).spans(lo, hi)) if mine else []
    union = merge(span for spans in busy.values() for span in spans)
    return Availability(
        people=tuple(people[a] for a in wanted if a in people),
        unknown=tuple(wanted[a] for a in wanted if a not in people),
        busy=busy,
        union=union,
        _starts=[s for s, _ in union],
        _ends=[e for _, e in union],
    )


def names_and_you(people: tuple[Person, ...] | list[Person]) -> str:
    """ "Ann Lee and you", "Ann Lee, Raj Patel and you": who a time suits, the user last."""
    names = [p.name for p in people]
    if not names:
        return "you"
    return f"{', '.join(names)} and you"
