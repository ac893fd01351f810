"""Clock times: "3pm", "15:15", "half past 2", "a quarter to 5", "ten thirty", "noon", "4pm CET".

A clock time said without am/pm ("at 3") stays ambiguous between its two 12-hour readings; the
series picks the next one, or a day part next to it decides ("3 in the afternoon"). A bare number
("7", "ten thirty") is latent: it only counts next to a date or a day part, never on its own.
"""

from __future__ import annotations

from typing import NamedTuple

from assistant.timeexpr.lexicon import ROUGHLY, TIMEZONES, UNITS, WEEKDAYS, Grain
from assistant.timeexpr.nodes import TIME, Node, Tod
from assistant.timeexpr.numbers import CARDINALS
from assistant.timeexpr.parser import Parse, Parser, by_first_word

__all__ = ["ClockRules"]

_SUFFIXES = frozenset({"ish", "sharp", "exactly", "approximately", "approx"})
_MINUTE_WORDS = frozenset({"minutes", "minute", "mins", "min"})
_NOON = {"noon": 12, "midday": 12, "noonish": 12, "midnight": 0, "midnite": 0, "eod": 0}
_DAYS_BY_NAME = frozenset({"today", "tomorrow", "tonight", "yesterday"})
# Words after "at one" that make it something else than a time: "at one of the cafes", "at one point".
_NOT_AFTER_AN_HOUR = frozenset(
    {"of", "point", "time", "another", "stage", "way", "more", "hand", "side", "or", "by"}
)
_COUNTED = frozenset({"people", "persons", "guests"})
_DAY_POINTS = {
    ("end", "of", "the", "day"): 0,
    ("end", "of", "day"): 0,
    ("middle", "of", "the", "day"): 12,
    ("mid", "day"): 12,
}
_DAY_POINTS_BY_FIRST = by_first_word(_DAY_POINTS)


class _Core(NamedTuple):
    """The clock time itself, before am/pm, "o'clock" or a time zone."""

    end: int
    hour: int
    minute: int = 0
    second: int = 0
    grain: Grain = "hour"
    explicit: bool = False  # a time whatever surrounds it ("15:15", "noon"), not a bare number
    bare: int | None = None  # the number, when it is nothing but a number ("7")
    fixed_half: bool = False  # am or pm is settled ("noon", "a quarter past 3pm")


class ClockRules(Parser):
    """Rules for the time of day."""

    def clock(self, i: int) -> Parse | None:
        """A time of day with what may surround it: "at", "around", "o'clock", "ish", am/pm, a time zone."""
        j = i
        explicit = False
        if self.words[j] == "at" or self.puncts[j] == "@":
            explicit, j = True, j + 1
        if self.words[j] in ROUGHLY:
            explicit, j = True, j + 1
        core = self._clock_core(j)
        if core is None:
            return None
        k = core.end
        explicit = explicit or core.explicit
        for suffix in (self._oclock, self._ish):
            after = suffix(k)
            if after > k:
                k, explicit = after, True
        ampm = self.ampm(k)
        alone = ampm is None and not explicit and core.end == j + 1
        if alone and self.words[j] == "one" and self._after_a_day(j):
            return None  # "the Friday one", "cancel tomorrow one": a pronoun, unless "at one" or "one pm"
        if ampm is not None:
            if not 0 <= core.hour <= 12:
                return None
            # "7a" alone may be anything ("4a" is a paper size); "7am", "at 7a", "7:15a" are times
            letter_only = self.words[k] in ("a", "p") and ampm[0] == k + 1 and core.bare is not None
            k, explicit = self._ish(ampm[0]), explicit or not letter_only
            hour = core.hour % 12 + (12 if ampm[1] == "pm" else 0)
            tod = Tod(hour, core.minute, core.second, core.grain)
        else:
            leading_zero = self.kinds[j] in ("num", "clock") and self.toks[j].text.startswith("0")
            ambiguous = 1 <= core.hour <= 12 and not leading_zero and not core.fixed_half
            tod = Tod(core.hour, core.minute, core.second, core.grain, ambiguous=ambiguous)
        tz = None
        zone_at = k + 1 if self.puncts[k] == "(" else k
        if explicit and self.words[zone_at] in TIMEZONES:
            tz = TIMEZONES[self.words[zone_at]]
            k = zone_at + (2 if self.puncts[zone_at + 1] == ")" else 1)
        node = Node(
            tod.series(),
            tod.grain,
            frozenset({TIME}),
            tod=tod,
            latent=not explicit,
            has_time=True,
            tz=tz,
            bare=core.bare if ampm is None else None,
        )
        return k, node

    def _after_a_day(self, i: int) -> bool:
        """Whether the word before ``i`` names a day ("Friday", "tomorrow")."""
        return i > 0 and (self.words[i - 1] in WEEKDAYS or self.words[i - 1] in _DAYS_BY_NAME)

    def _oclock(self, i: int) -> int:
        if self.words[i] in ("o'clock", "oclock"):
            return i + 1
        if self.words[i] == "o" and self.puncts[i + 1] == '"' and self.words[i + 2] == "clock":
            return i + 3  # 'o"clock': the apostrophe typed as a quote (the others fold to it)
        return max(self.phrase(i, ("o", "clock")), i)

    def _ish(self, i: int) -> int:
        if self.words[i] in _SUFFIXES:
            return i + 1
        if self.phrase(i, ("or", "so")) > 0:
            return i + 2
        if self.puncts[i] == "-" and self.words[i + 1] == "ish":
            return i + 2
        return i

    def _clock_core(self, i: int) -> _Core | None:
        kind = self.kinds[i]
        if kind == "clock":
            h, m, s = (int(v) for v in self.toks[i].values)
            if h > 24:
                return None
            return _Core(i + 1, h % 24, m, max(s, 0), "second" if s >= 0 else "minute", explicit=True)
        word = self.words[i]
        if word in _NOON:
            return _Core(i + 1, _NOON[word], explicit=True, fixed_half=True)
        if word == "twelve" and self.words[i + 1] in ("noon", "midnight"):
            return _Core(i + 2, _NOON[self.words[i + 1]], explicit=True, fixed_half=True)
        the = self.skip(i, "the")
        for words in _DAY_POINTS_BY_FIRST.get(self.words[the], ()):
            end = self.phrase(the, words)
            if end > 0:
                return _Core(end, _DAY_POINTS[words], explicit=True, fixed_half=True)
        relative = self._relative_clock(i)
        if relative is not None:
            return relative
        if kind == "num":
            return self._numeric_clock(i)
        return self._worded_clock(i)

    def _numeric_clock(self, i: int) -> _Core | None:
        """Clock times in digits without a colon: "8.30", "730", "1530", "3", "at 3 15", "3 half"."""
        text = self.toks[i].text
        if len(text) in (4, 5) and text[-3:-2] == "." and self._unit(i + 1) is None:
            h, m = int(text[:-3]), int(text[-2:])
            return _Core(i + 1, h, m, grain="minute") if h <= 23 and m <= 59 else None
        value = self.integers[i]
        if value is None:
            return None
        if len(text) in (3, 4):  # hours and minutes run together
            h, m = divmod(value, 100)
            return _Core(i + 1, h, m, grain="minute") if h <= 23 and m <= 59 else None
        if value > 24 or len(text) > 2:
            return None
        minutes = self.integers[i + 1]
        if (
            minutes is not None
            and len(self.toks[i + 1].text) == 2
            and minutes < 60
            and self.words[i - 1] == "at"
            and self.words[i + 2] not in UNITS
            and self.words[i + 2] not in _COUNTED
        ):
            return _Core(i + 2, value % 24, minutes, grain="minute")
        if self.words[i + 1] == "half" and self.words[i + 2] not in ("an", "a"):
            return _Core(i + 2, value % 24, 30, grain="minute")
        return _Core(i + 1, value % 24, bare=value)

    def _worded_clock(self, i: int) -> _Core | None:
        """Clock times in words: "ten thirty", "four twenty-three", "nine oh five", "eight hundred"."""
        hour = CARDINALS.get(self.words[i])
        if hour is None or not 1 <= hour <= 12:
            return None
        j = i + 1
        if self.words[j] == "hundred":  # spoken military time: "eight hundred", "three hundred and thirty"
            k = self.skip(j + 1, "and")
            minutes = self.cardinal(k) if self.kinds[k] == "word" else None
            if minutes is not None and 1 <= minutes[1] < 60:
                return _Core(minutes[0], hour, minutes[1], grain="minute")
            return _Core(j + 1, hour, grain="minute")
        if self.words[j] in ("oh", "o") and CARDINALS.get(self.words[j + 1], 10) < 10:
            return _Core(j + 2, hour, CARDINALS[self.words[j + 1]], grain="minute")
        minutes = self.cardinal(j) if self.kinds[j] == "word" else None
        if minutes is not None and 10 <= minutes[1] < 60:
            return _Core(minutes[0], hour, minutes[1], grain="minute")
        if self.words[j] in _NOT_AFTER_AN_HOUR:
            return None
        return _Core(j, hour)

    def _relative_minutes(self, i: int) -> tuple[int, int] | None:
        """Minutes before "past"/"to": "a quarter", "half", "20", "twenty", "15 minutes"."""
        j = self.skip(i, "a", "one")
        if self.words[j] == "quarter":
            return j + 1, 15
        if self.words[i] == "half":
            return i + 1, 30
        found = self.cardinal(i)
        if found is None or not 1 <= found[1] < 60:
            return None
        return self.skip(found[0], *_MINUTE_WORDS), found[1]

    def _base_hour(self, i: int) -> tuple[int, Tod] | None:
        """The hour "past"/"to" counts from: "3pm", "three", "noon", "midnight"."""
        if self.words[i] in _NOON:
            return i + 1, Tod(_NOON[self.words[i]])
        value = self.integers[i]
        if value is not None and 0 <= value <= 23:
            j = i + 1
        else:
            found = self.cardinal(i)
            if found is None or self.kinds[i] != "word" or not 1 <= found[1] <= 12:
                return None
            j, value = found
        ampm = self.ampm(j)
        if ampm is not None:
            if not 1 <= value <= 12:
                return None
            return ampm[0], Tod(value % 12 + (12 if ampm[1] == "pm" else 0))
        return j, Tod(value, ambiguous=1 <= value <= 12)

    def _relative_clock(self, i: int) -> _Core | None:
        """Times counted from an hour: "half past 2", "a quarter to 5", "twenty after 3pm", "half three"."""
        if self.words[i] == "half" and self.words[i + 1] not in ("past", "after", "to", "an", "a", "of"):
            base = self._base_hour(i + 1)  # British "half three": half past three
            if base is not None and self.kinds[i + 1] in ("num", "word"):
                k, tod = base
                return _Core(k, tod.hour, 30, grain="minute", explicit=True, fixed_half=not tod.ambiguous)
        minutes = self._relative_minutes(i)
        if minutes is None:
            return None
        j, count = minutes
        direction = self.words[j]
        if direction not in ("past", "after", "to", "till", "before", "of"):
            return None
        if direction in ("to", "till", "before", "of"):
            # "10 to 5" is more often a range than 4:50; "ten to five" and "10 minutes to 5" are times
            said_in_words = self.kinds[i] == "word" or self.words[j - 1] in _MINUTE_WORDS
            if not said_in_words and self.words[j + 1] not in _NOON:
                return None
        base = self._base_hour(j + 1)
        if base is None:
            return None
        k, tod = base
        sign = 1 if direction in ("past", "after") else -1
        hour, minute = divmod((tod.hour * 60 + sign * count) % (24 * 60), 60)
        if tod.ambiguous:
            hour = hour % 12 or 12
        return _Core(k, hour, minute, grain="minute", explicit=True, fixed_half=not tod.ambiguous)
