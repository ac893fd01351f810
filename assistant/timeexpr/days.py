"""Days and the parts of them: weekdays, "tomorrow", day parts, holidays, seasons, weekends."""

from __future__ import annotations

from datetime import timedelta

from assistant.timeexpr.holidays import WEAK_HOLIDAY_WORDS, holiday_spans
from assistant.timeexpr.lexicon import (
    AMBIGUOUS_NAMES,
    DAY_PART_OF,
    EXTRA_PARTS,
    PART_WORDS,
    PLURAL_PARTS,
    RELATIVE_DAYS,
    SEASONS,
    WEEKDAY_PLURALS,
    WEEKDAYS,
    WEEKEND_START,
)
from assistant.timeexpr.nodes import (
    ALL_FIELDS,
    DATE_FIELDS,
    DAY,
    DAY_FIELDS,
    HOLIDAY_FIELDS,
    PART,
    WEEK,
    WEEKDAY,
    Node,
    compose,
)
from assistant.timeexpr.parser import ONE_DAY, Parse, Parser, by_first_word
from assistant.timeexpr.series import (
    AnySeason,
    DayOfWeek,
    DaySet,
    Fixed,
    Intersect,
    Season,
    Series,
    Span,
    Weekend,
    Yearly,
    first,
)

__all__ = ["DayRules"]


# Words before a day part: "in the evening", "at night", "early in the morning".
_PART_LEADS = by_first_word(
    (("in", "the"), ("during", "the"), ("in",), ("at",), ("the",), ("early", "in", "the"))
)


# The words that make a weekday name that is also a word ("wed", "sat", "sun") a day when they lead it:
# "moved to wed", "until sat", "from sun" ("on sat" is read with its "on").
_DAY_LEADS = frozenset({"to", "till", "until", "til", "from", "by", "before", "after", "through", "thru"})


class DayRules(Parser):
    """Rules for named days and day parts."""

    def day_part(self, i: int) -> Parse | None:
        """A day part, anchored to a day or not: "this morning", "in the evening", "tonight", "mornings"."""
        if self.words[i - 1] == "good":
            return None
        anchor: Series | None = None
        j = i
        recurring = early = late = False
        if self.words[j] in ("every", "each"):
            recurring, j = True, j + 1
        elif self.words[j] == "this":
            anchor, j = self.day(self.today).anchor, j + 1
        else:
            for words in _PART_LEADS.get(self.words[j], ()):
                k = self.phrase(j, words)
                if k > 0 and (self.words[k] in PART_WORDS or self.words[k] in ("early", "late")):
                    early, j = words[0] == "early", k
                    break
        if self.words[j] in ("early", "late"):
            early, late, j = self.words[j] == "early", self.words[j] == "late", j + 1
        if early and self.phrase(j, ("hours", "of", "the")) > 0:  # "the early hours of the morning"
            j += 3
        word = self.words[j]
        part: str | None = None
        if word in ("tonight", "tonite", "tonights"):
            part, anchor = "late night" if late else "tonight", self.day(self.today).anchor
        elif self.phrase(j, ("last", "night")) > 0 and anchor is None:
            part, anchor, j = (
                "late night" if late else "tonight",
                self.day(self.today - ONE_DAY).anchor,
                j + 1,
            )
        elif word == "after" and self.words[j + 1] in ("lunch", "work", "school"):
            part, j = "after " + self.words[j + 1], j + 1
        elif word in PART_WORDS:
            part = PART_WORDS[word]
            if (early or late) and f"{'early' if early else 'late'} {part}" in EXTRA_PARTS:
                part = f"{'early' if early else 'late'} {part}"  # "late afternoon", "early evening"
            recurring = recurring or word in PLURAL_PARTS
        if part is None:
            return None
        at = j  # where the part's own word stands
        j += 1
        if self.words[j] in ("time", "hour", "break") and part == "lunch":
            j += 1
        series = compose(anchor, None, part)
        assert series is not None
        fields = frozenset({PART}) | (DATE_FIELDS if anchor is not None else frozenset())
        # "mornings" names no day: alone it stands for today's, next to "Monday" for Monday's.
        alone = (
            first(compose(self.day(self.today).anchor, None, part) or series, self.now) if recurring else None
        )
        # A bare "lunch" or "night" is more often a thing than a time ("lunch with Bob", "movie night"),
        # and so is "the lunch" ("where is the lunch with Omar" asked about today's lunch hour).
        latent = (
            j == at + 1
            and word in ("lunch", "lunchtime", "night")
            and tuple(self.words[i:at]) in ((), ("the",))
        )
        node = Node(
            series,
            "hour",
            fields,
            anchor=anchor,
            part=part,
            has_date=anchor is not None,
            day_part=DAY_PART_OF.get(part),
            is_interval=True,
            alone=alone,
            recurring=recurring,
            latent=latent,
        )
        return j, node

    def relative_day(self, i: int) -> Parse | None:
        """Days named from today ("tomorrow", "the day after tomorrow") and the present instant ("now")."""
        j = self.skip(i, "the")
        for words, offset in RELATIVE_DAYS.get(self.words[j], ()):
            k = self.phrase(j, words)
            if k > 0 and (j == i or len(words) > 1):
                return k, self.day(self.today + offset * ONE_DAY)
        k = self.skip(i, "right", "just")
        if self.words[k] == "now" or self.words[i] == "immediately":
            k = k + 1 if self.words[k] == "now" else i + 1
            if k == i + 1 and self.words[i] == "now" and self._opens_a_clause(i, k):
                return None  # "Now I want it named ...", "Now let's add it": a new step, not a time
            if self.words[i] != "immediately" and self._negated(i):
                return None  # "not now", "don't do that right now": a time refused, not one to use
            span = (self.now, self.now + timedelta(seconds=1))
            node = Node(Fixed(span, "second"), "second", ALL_FIELDS, alone=span, has_date=True, has_time=True)
            return k, node
        return None

    def _negated(self, i: int) -> bool:
        """Whether the sentence the word at ``i`` is in says "not" before it."""
        j = i - 1
        while j >= 0 and self.puncts[j] not in (".", "!", "?", ";"):
            word = self.words[j]
            if word in ("not", "never", "cannot") or word.endswith("n't"):
                return True
            j -= 1
        return False

    def _opens_a_clause(self, i: int, k: int) -> bool:
        """Whether the word at ``i`` opens a sentence that goes on with its subject ("Now I ...")."""
        first = i == 0 or self.puncts[i - 1] in (".", "!", "?", ",")
        return first and self.words[k] in ("i", "we", "let", "let's", "lets")

    def weekday(self, i: int) -> Parse | None:
        """A weekday, with the product's modifiers: "this Friday" is in this week, "next Friday" in the next,
        "Friday" the coming one (today if it is Friday); "on Mondays" and "weekdays" recur."""
        j = i
        on = every = False
        if self.words[j] == "on":
            on, j = True, self.skip(j + 1, "a")
        if self.words[j] in ("every", "each"):
            every, j = True, j + 1
        mod = self.modifier(j) if not every else None
        if mod is not None:
            j = mod[0]
        word = self.words[j]
        if word in ("weekday", "weekdays") and (every or on or word == "weekdays") and mod is None:
            days = frozenset(range(5))
            node = Node(
                DaySet(days), "day", frozenset({WEEKDAY}), anchor=DaySet(days), weekdays=days, recurring=True
            )
            return j + 1, node
        plural = word in WEEKDAY_PLURALS
        if not plural and word not in WEEKDAYS:
            return None
        number = WEEKDAY_PLURALS[word] if plural else WEEKDAYS[word]
        k = j + 1
        if self.puncts[k] == "." and self.glued(k):
            k += 1
        series = DayOfWeek(number)
        if plural or every:
            if mod is not None:
                return None
            node = Node(
                series,
                "day",
                frozenset({WEEKDAY}),
                anchor=series,
                weekdays=frozenset({number}),
                recurring=True,
            )
            return k, node
        after = self.phrase(k, ("after", "next"))
        before = self.phrase(k, ("before", "last"))
        span: Span | None
        if mod is None and after > 0:
            k, span = after, self._nth_span(series, 1)
        elif mod is None and before > 0:
            k, span = before, self._nth_span(series, -2)
        elif mod is None:
            latent = word in AMBIGUOUS_NAMES and not on and self.words[i - 1] not in _DAY_LEADS
            return k, Node(series, "day", frozenset({WEEKDAY}), anchor=series, has_date=True, latent=latent)
        elif mod[1] in ("this", "next"):
            week = self.cycle("week", 0 if mod[1] == "this" else 1)
            span = first(Intersect(Fixed(week, "week"), series), self.now)
        elif mod[1] == "coming":
            span = self._nth_span(series, 0)
        else:
            span = next(series.backward(self.today), None)
        if span is None:
            return None
        return k, self.fixed(span, "day", DATE_FIELDS)

    def _nth_span(self, series: Series, n: int) -> Span | None:
        """The n-th span starting after today (n >= 0), or the (-n-1)-th before it (n < 0)."""
        if n < 0:
            spans = series.backward(self.today)
            n = -n - 1
        else:
            spans = (s for s in series.forward(self.today) if s[0] >= self.today + ONE_DAY)
        for index, span in enumerate(spans):
            if index == n:
                return span
        return None

    def holiday(self, i: int) -> Parse | None:
        """A holiday, with a modifier ("next Halloween") or as a long weekend ("Labor Day weekend")."""
        mod = self.modifier(i)
        j = mod[0] if mod is not None else i
        if self.kinds[j] != "hol":
            return None
        token = self.toks[j]
        key = token.key
        series = Yearly(lambda year: holiday_spans(key, year))
        sample = first(series, self.now)
        if sample is None:
            return None
        multi_day = sample[1] - sample[0] > ONE_DAY
        weekend = self._weekend_word(j + 1)
        if weekend > 0:  # "Memorial Day weekend": the long weekend the holiday makes
            span = self.pick(series, mod[1] if mod else "this")
            if span is None:
                return None
            friday = span[0] - ((span[0].weekday() - 4) % 7) * ONE_DAY
            long_weekend = (friday + timedelta(hours=17), max(span[1], friday + 3 * ONE_DAY))
            return weekend, self.fixed(long_weekend, "hour", DATE_FIELDS, is_interval=True)
        if mod is None:
            latent = token.text in WEAK_HOLIDAY_WORDS
            node = Node(
                series,
                "day",
                HOLIDAY_FIELDS,
                anchor=series,
                has_date=True,
                latent=latent,
                is_interval=multi_day,
            )
            return j + 1, node
        span = self.pick(series, mod[1])
        if span is None:
            return None
        return j + 1, self.fixed(span, "day", DATE_FIELDS, is_interval=multi_day)

    def season(self, i: int) -> Parse | None:
        """A season ("this winter", "next season", "in the fall"); a bare "fall" or "spring" needs a year."""
        mod = self.modifier(i)
        j = mod[0] if mod is not None else i
        strong = mod is not None
        if mod is None and self.words[j] in ("in", "during"):
            strong, j = True, self.skip(j + 1, "the")
        word = self.words[j]
        series: Series
        if word in SEASONS:
            series = Season(*SEASONS[word])
        elif word in ("season", "seasons") and mod is not None:
            series = AnySeason([SEASONS[name] for name in ("spring", "summer", "fall", "winter")])
        else:
            return None
        fields = DAY_FIELDS | {WEEKDAY}
        if mod is None:
            return j + 1, Node(
                series, "day", fields, anchor=series, has_date=True, latent=not strong, is_interval=True
            )
        span = self.pick(series, mod[1])
        if span is None:
            return None
        return j + 1, self.fixed(span, "day", DATE_FIELDS, is_interval=True)

    def weekend(self, i: int) -> Parse | None:
        """A weekend ("this weekend", "this past weekend") or every weekend ("on weekends")."""
        j = i
        recurring = False
        if self.words[j] in ("every", "each"):
            recurring, j = True, j + 1
        elif self.words[j] in ("on", "over", "during", "for"):
            j += 1
        mod = self.modifier(j)
        j = mod[0] if mod is not None else self.skip(j, "the")
        k = self._weekend_word(j)
        if k < 0:
            return None
        recurring = recurring or self.words[k - 1].endswith("s")
        series = Weekend(WEEKEND_START)
        if recurring:
            return k, Node(
                series,
                "hour",
                frozenset({WEEK, WEEKDAY, DAY}),
                anchor=series,
                weekdays=frozenset({5, 6}),
                is_interval=True,
                recurring=True,
            )
        span = self.pick(series, mod[1] if mod else "this")
        if mod is not None and mod[1] == "next" and span is not None:
            # "next weekend" is next week's, as "next Friday" is ("this weekend" and "the coming weekend"
            # are this week's)
            week_ends = self.cycle("week", 0)[1]
            if span[0] < week_ends:
                span = next((s for s in series.forward(self.now) if s[0] >= week_ends), None)
        if span is None:
            return None
        return k, self.fixed(span, "hour", frozenset({WEEK, WEEKDAY, DAY}), is_interval=True)
