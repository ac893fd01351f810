"""Numbers written as words ("twenty-three", "two thousand ten", "thirty first").

People type times and dates with words as often as with digits ("at three twenty", "the third
Tuesday", "Easter two thousand ten"); the grammar reads the word forms through these tables.
"""

from __future__ import annotations

__all__ = ["CARDINALS", "ORDINALS", "TENS", "VAGUE_COUNTS", "ordinal_suffix"]

CARDINALS: dict[str, int] = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
TENS: dict[str, int] = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fourty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
ORDINALS: dict[str, int] = {
    word: value
    for value, word in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
        ],
        start=1,
    )
}
ORDINALS.update({"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50})

# Counts people give without a number: Duckling reads "a few hours" as three.
VAGUE_COUNTS: dict[str, int] = {"few": 3, "several": 3, "couple": 2, "pair": 2, "dozen": 12}


def ordinal_suffix(n: int) -> str:
    """Return ``n`` with its English ordinal suffix ("1st", "22nd", "30th") for messages."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return str(n) + _SUFFIXES.get(n % 10, "th")


_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}
