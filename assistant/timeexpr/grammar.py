"""The grammar: the rule families put together, and the entry rule for one expression.

It follows the shape of Duckling's English time grammar. Small expressions ("atoms": a clock time,
a weekday, a date, a holiday, "in 3 days", "the last Sunday of March") combine side by side into
points ("9 tomorrow morning", "Thursday at 8:00 PST"), and points make intervals ("from 9:30 to
11:00 on Thursday", "4pm for 30 mins", "next 3 days", "since 2014").
"""

from __future__ import annotations

from assistant.timeexpr.clock import ClockRules
from assistant.timeexpr.dates import DateRules
from assistant.timeexpr.days import DayRules
from assistant.timeexpr.intervals import IntervalRules
from assistant.timeexpr.parser import Parse, memoized
from assistant.timeexpr.relative import RelativeRules

__all__ = ["Grammar"]


class Grammar(IntervalRules, RelativeRules, DateRules, DayRules, ClockRules):
    """Every rule, for parsing one text at one reference time."""

    @memoized
    def expression(self, i: int) -> Parse | None:
        """The longest time expression starting at token ``i`` that stands on its own."""
        if not self.can_start(i):
            return None
        best: Parse | None = None
        for rule in (
            self.point_expression,
            self.prefixed_range,
            self.open_interval,
            self.by,
            self.within,
            self.last_next,
            self.for_interval,
            self.bare_range,
        ):
            found = rule(i)
            if found is not None and not found[1].latent and (best is None or found[0] > best[0]):
                best = found
        return best
