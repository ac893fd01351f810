"""What the decomposer knows of the user's world: calendars, event titles, people.

Built once per turn (:meth:`World.of_turn`: the reading and the gate share it) and read lazily, so a
turn that needs no titles never lists events and one that does lists them once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any

from assistant.turnmemo import shared
from skills.people import Person, people_matching
from skills.providers import provider_for
from skills.providers.base import CalendarInfo, CalendarProvider

__all__ = ["World"]

_TITLE_HORIZON_BEFORE = timedelta(days=30)
_TITLE_HORIZON_AFTER = timedelta(days=180)


@dataclass
class World:
    user: Any
    now: datetime
    _provider: CalendarProvider | None = field(default=None, repr=False)

    @classmethod
    def of_turn(cls, user: Any, now: datetime) -> World:
        """The user's world for the turn being read: one for all its parts, a new one outside a turn."""
        return shared(f"world:{user.pk}", lambda: cls(user=user, now=now))

    @property
    def provider(self) -> CalendarProvider:
        if self._provider is None:
            self._provider = provider_for(self.user)
        return self._provider

    @cached_property
    def calendars(self) -> list[CalendarInfo]:
        return self.provider.list_calendars()

    @cached_property
    def titles(self) -> list[str]:
        """Distinct titles of the user's events around now: what "the check-in" can refer to."""
        return self.provider.event_titles(
            start=self.now - _TITLE_HORIZON_BEFORE, end=self.now + _TITLE_HORIZON_AFTER
        )

    @cached_property
    def folded_titles(self) -> frozenset[str]:
        """:attr:`titles` case-folded: what a name said in any case is compared with."""
        return frozenset(title.casefold() for title in self.titles)

    @cached_property
    def preferences(self) -> dict[str, Any]:
        """The user's valid preferences (read only by the turns that are about one)."""
        from preferences.selectors import preferences_for

        return preferences_for(user=self.user)

    def next_titled(self, title: str) -> tuple[datetime, datetime] | None:
        """When the next event of this title (as the calendar has it) starts and ends, from now on."""
        found = self.provider.list_occurrences(start=self.now, end=self.now + _TITLE_HORIZON_AFTER)
        named = title.casefold()
        at = next((o for o in found if o.summary.casefold() == named and o.start >= self.now), None)
        return (at.start, at.end) if at is not None else None

    def people_named(self, names: list[str]) -> dict[str, list[Person]]:
        """The directory's people for each candidate name, in one query."""
        return people_matching(user=self.user, names=names)
