"""The people directory: other users of this instance, as the assistant may name them.

"Lunch with Ann" has to become ann@example.com before free/busy or an invitation can use it; the
directory is the instance's own users, since they are the people whose calendars it can see.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from operator import sub
from typing import Any

from django.db import connection

from preferences.selectors import busy_shared_with
from skills.formatting import format_person
from skills.freetime import Span, merge
from skills.hotsql import people_rows
from skills.models import Calendar, Event
from skills.providers.base import CalendarInfo
from skills.selectors import BusyIndex, _columns, _epoch, calendar_info

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


class Availability:
    """When some people of this instance are busy within a range, read once for a whole search.

    ``people`` are the addresses asked about that belong to users here who let the asking user see when
    they are busy (busy spans, nothing of what the events are), ``hidden`` the users here who do not
    (``busy_visible_to``), ``unknown`` the other addresses, whose time cannot be seen either.
    Their calendars are read through one busy index for the search (two queries however many people
    and however long the range); who of them is busy at a given time is read per person when asked.
    """

    def __init__(
        self,
        *,
        people: tuple[Person, ...] = (),
        hidden: tuple[Person, ...] = (),
        unknown: tuple[str, ...] = (),
        calendars: dict[int, list[CalendarInfo]] | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> None:
        self.people = people
        self.hidden = hidden
        self.unknown = unknown
        self._calendars = calendars or {}
        self._range = (start, end)
        self._all: _PeopleBusy | None = None
        self._each: dict[int, list[Span]] = {}

    @property
    def unseen(self) -> list[str]:
        """Everyone asked about whose busy times cannot be read, as names to show ("Ann Lee", "Zoe")."""
        return [p.name for p in self.hidden] + [format_person(a) for a in self.unknown]

    def _window(self) -> tuple[datetime, datetime]:
        start, end = self._range
        assert start is not None
        assert end is not None
        return start, end

    def spans(self, start: datetime, end: datetime) -> list[Span]:
        """Times within [start, end) when at least one of the people is busy (epoch seconds, unsorted)."""
        if not self._calendars:
            return []
        if self._all is None:
            self._all = _PeopleBusy(self._calendars, *self._window())
        return self._all.spans(start.timestamp(), end.timestamp())

    def busy_between(self, lo: float, hi: float) -> list[Person]:
        """The people busy at some moment of [lo, hi) (epoch seconds within the range read)."""
        found = []
        for person in self.people:
            spans = self.busy_of(person)
            i = bisect_right(spans, (lo, float("inf")))
            before = spans[i - 1] if i else None
            if (before is not None and before[1] > lo) or (i < len(spans) and spans[i][0] < hi):
                found.append(person)
        return found

    def busy_of(self, person: Person) -> list[Span]:
        """When one of the people is busy in the range read: merged spans (epoch seconds) by start, whole
        as their events are (a meeting 9-12 asked about at 10 is 9-12), nothing of what the events are."""
        if person.user_id not in self._each:
            lo, hi = self._window()
            mine = self._calendars.get(person.user_id, [])
            busy = _PeopleBusy({person.user_id: mine}, lo, hi).spans(lo.timestamp(), hi.timestamp())
            self._each[person.user_id] = merge(busy) if mine else []
        return self._each[person.user_id]


class _PeopleBusy:
    """The busy spans of several people's calendars in a range, for a search to slice.

    Colleagues' calendars are mostly one-off meetings: those are read as bare epoch pairs in one
    index-friendly query (no ids, etags or Python per row beyond the pair), and only the calendars
    that hold a series in the range go through the full :class:`~skills.selectors.BusyIndex`
    (expansions, overrides, cancelled occurrences).
    """

    def __init__(self, calendars: dict[int, list[CalendarInfo]], start: datetime, end: datetime) -> None:
        by_id = {int(info.id): info for infos in calendars.values() for info in infos}
        rows = _people_rows(list(by_id), start, end) if by_id else []
        # A series comes first, as (-calendar id, 0); the one-offs follow as their (start, end) by start,
        # kept as the very rows read.  A calendar holding a series is read again whole by the busy
        # index: its one-offs then count twice, which changes no free time.
        heads = 0
        while heads < len(rows) and rows[heads][1] == 0 and -rows[heads][0] in by_id:
            heads += 1
        with_series = sorted({-int(rows[i][0]) for i in range(heads)})
        spans: list[Span] = rows[heads:] if heads else rows
        self._starts = [b for b, _ in spans]
        self._spans = spans
        self._longest = max(map(sub, [f for _, f in spans], self._starts), default=0.0)
        self._series = (
            BusyIndex(calendars=[by_id[c] for c in with_series], start=start, end=end)
            if with_series
            else None
        )

    def spans(self, lo: float, hi: float) -> list[Span]:
        first = bisect_left(self._starts, lo - self._longest)
        last = bisect_left(self._starts, hi)
        found = [span for span in self._spans[first:last] if span[1] > lo]
        if self._series is not None:
            found += self._series.spans(datetime.fromtimestamp(lo, UTC), datetime.fromtimestamp(hi, UTC))
        return found


@cache
def _people_sql(vendor: str, calendars: int) -> str:
    calendar, series, rrule, start, end, status, all_day = _columns(
        "calendar", "series", "rrule", "start", "end", "status", "all_day"
    )
    transparency, series_end = _columns("transparency", "series_end")
    table = connection.ops.quote_name(Event._meta.db_table)
    # SQLite, without statistics, would walk the series index (every top-level event of every user)
    # rather than the (calendar, start) one; a unary plus keeps the term out of index choice.
    top = f"+{series}" if vendor == "sqlite" else series
    return (
        f"SELECT CASE WHEN {rrule} <> '' THEN -{calendar} ELSE {_epoch(start)} END, "
        f"CASE WHEN {rrule} <> '' THEN 0 ELSE {_epoch(end)} END FROM {table} "
        f"WHERE {calendar} IN ({', '.join(['%s'] * calendars)}) AND {top} IS NULL AND {status} = %s "
        f"AND NOT {all_day} AND {transparency} <> %s AND {start} < %s AND (({rrule} = '' AND {end} > %s) "
        f"OR ({rrule} <> '' AND ({series_end} IS NULL OR {series_end} >= %s))) "
        f"ORDER BY {rrule} = '', {start}"
    )


def _people_rows(calendars: list[int], start: datetime, end: datetime) -> list[Any]:
    """The busy top-level events of these calendars that can meet [start, end): each series as
    (-its calendar id, 0), first, then each one-off as its epoch (start, end), by start."""
    adapt = connection.ops.adapt_datetimefield_value
    params = [
        *calendars,
        Event.Status.CONFIRMED.value,
        Event.Transparency.TRANSPARENT.value,
        adapt(end),
        adapt(start),
        adapt(start),
    ]
    with connection.cursor() as cursor:
        cursor.execute(_people_sql(connection.vendor, len(calendars)), params)
        return cursor.fetchall()


def availability(*, user: Any, emails: list[str], start: datetime, end: datetime) -> Availability:
    """The busy times within [start, end) of the people among ``emails`` who are users of this
    instance and let ``user`` see them (the asking user and blank addresses left out), read in a few
    queries whatever the range.

    Their calendars are read through the same busy index as the user's own free-time search
    (transparent, cancelled and all-day events do not make anyone busy).
    """
    wanted: dict[str, str] = {}
    for email in emails:
        address = email.strip()
        if address and address.casefold() not in wanted:
            wanted[address.casefold()] = address
    wanted.pop((getattr(user, "email", "") or "").casefold(), None)
    if not wanted:
        return Availability()
    # The directory's plain-SQL look-up (a change's conflict check asks it on every invitation); an
    # address is never anyone's first name, and only the rows whose address was asked are kept.
    addresses = sorted(wanted)
    rows = people_rows(exclude_id=user.pk, firsts=addresses, addresses=addresses)
    people: dict[str, Person] = {}
    for pk, first, last, email, username in sorted(rows):
        name = f"{first} {last}".strip() or username
        if email.casefold() in wanted:
            people.setdefault(email.casefold(), Person(email=email, name=name, user_id=pk))
    owners = [p.user_id for p in people.values()]
    shared = busy_shared_with(viewer=user, owner_ids=owners) if owners else set()
    hidden = {a: p for a, p in people.items() if p.user_id not in shared}
    people = {a: p for a, p in people.items() if p.user_id in shared}
    calendars: dict[int, list[CalendarInfo]] = {}
    if people:
        owners = [p.user_id for p in people.values()]
        for calendar in Calendar.objects.filter(owner_id__in=owners).order_by("pk"):
            calendars.setdefault(calendar.owner_id, []).append(calendar_info(calendar))
    return Availability(
        people=tuple(people[a] for a in wanted if a in people),
        hidden=tuple(hidden[a] for a in wanted if a in hidden),
        unknown=tuple(wanted[a] for a in wanted if a not in people and a not in hidden),
        calendars=calendars,
        start=start.astimezone(UTC),
        end=end.astimezone(UTC),
    )


def names_and_you(people: tuple[Person, ...] | list[Person]) -> str:
    """ "Ann Lee and you", "Ann Lee, Raj Patel and you": who a time suits, the user last."""
    names = [p.name for p in people]
    if not names:
        return "you"
    return f"{', '.join(names)} and you"
