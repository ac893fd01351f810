"""Lengths of time as the grammar reads them: "90 minutes", "1.5 hours", "a fortnight"."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.timeexpr.lexicon import GRAINS, Grain
from assistant.timeexpr.series import finer

__all__ = ["FINER", "Dur", "dur_of", "grain_rank"]

# One grain below each: Duckling reads "in 3 days" to the hour and "in 2 hours" to the minute.
FINER: dict[Grain, Grain] = {
    "year": "month",
    "quarter": "month",
    "month": "day",
    "week": "day",
    "day": "hour",
    "hour": "minute",
    "minute": "second",
    "second": "second",
}


def grain_rank(grain: Grain) -> int:
    return GRAINS.index(grain)


@dataclass(frozen=True, slots=True)
class Dur:
    """A duration as calendar months, days and seconds, kept apart because a month or a day is not a
    fixed number of seconds in wall time. ``small``/``big``: the finest and coarsest unit said."""

    months: int = 0
    days: int = 0
    seconds: float = 0.0
    small: Grain = "second"
    big: Grain = "second"

    @property
    def minutes(self) -> float:
        """Length in minutes, months counted as 30 days: what an event lasting this long takes."""
        return self.months * 30 * 1440 + self.days * 1440 + self.seconds / 60

    def plus(self, other: Dur) -> Dur:
        return Dur(
            self.months + other.months,
            self.days + other.days,
            self.seconds + other.seconds,
            finer(self.small, other.small),
            self.big if grain_rank(self.big) >= grain_rank(other.big) else other.big,
        )


def dur_of(amount: float, unit: Grain) -> Dur:
    """``amount`` units as a :class:`Dur`; fractions go down a unit ("1.5 hours" is 90 minutes)."""
    if unit in ("year", "quarter", "month"):
        months = amount * {"year": 12, "quarter": 3, "month": 1}[unit]
        if months == int(months):
            return Dur(months=int(months), small=unit, big=unit)
        return Dur(months=int(months), days=round((months % 1) * 30), small="day", big=unit)
    if unit in ("week", "day"):
        days = amount * (7 if unit == "week" else 1)
        if days == int(days):
            return Dur(days=int(days), small=unit, big=unit)
        return Dur(days=int(days), seconds=round((days % 1) * 86400), small="hour", big=unit)
    seconds = amount * {"hour": 3600, "minute": 60, "second": 1}[unit]
    small = unit if amount == int(amount) else FINER[unit]
    return Dur(seconds=seconds, small=small, big=unit)
