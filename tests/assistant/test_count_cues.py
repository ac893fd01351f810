"""``count_cues`` counts what is listed by hand in the reading code, from the syntax tree alone."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

from django.core.management import call_command

from assistant.evaluation.cues import count_cues

SAMPLE = '''
import re

__all__ = ["a", "b", "c"]                         # names code: not a table
_DAYS = ("mon", "tue", "wed")                      # a table
_KEYS = {"gym": 1, "lunch": 2, "work": 3}          # a table, by its keys
_WORDS = frozenset({"one", "two", "three"})        # a table, through frozenset()
_TWO = ("a", "b")                                  # too short
_NUMBERS = (1, 2, 3)                               # not words
_GREETING = re.compile(r"^(?:hi|hello)\\b")        # a regex
_JOINED = re.compile(r"a" r"b")                    # a regex, written in two parts
_LEAD = r"(?:so|well) "                            # a fragment: no call, nothing counted
_LED = re.compile(_LEAD + r"next\\b")               # a regex: a fragment and words of its own
_BUILT = re.compile(_LEAD + _LEAD)                 # fragments only: counted where they are written
_VERBS = phrase_re(["add", "book", "put"])         # a table, as phrases
_HEDGES = _vocabulary("maybe perhaps probably")    # a table, written as one string of words
_KEPT = "lunch gym break"                          # a table too, split where it is used
_SPLIT = frozenset("one two three".split())        # a table
_MESSAGE = "Say the hours, e.g. 9 to 5."           # a message, not words alone: not a table
_SHORT = _vocabulary("maybe perhaps")              # too short


def read(text: str, pattern: str) -> bool:
    local = ("x", "y", "z")                        # inside a function: not a module table
    return bool(re.search(r"\\bnext\\b", text)) or bool(re.match(pattern, text)) or text in local
'''


def test_regexes_and_tables_are_counted_as_the_module_docstring_says(tmp_path: Path) -> None:
    (tmp_path / "sample.py").write_text(SAMPLE)
    (tmp_path / "notes.txt").write_text("re.compile('x')")

    [count] = count_cues([tmp_path])

    assert count.path.endswith("sample.py")
    assert (count.regexes, count.tables) == (4, 7)  # the re.match on a variable pattern is not counted


def test_the_command_counts_the_reading_code_by_default() -> None:
    out = StringIO()
    call_command("count_cues", stdout=out)
    lines = out.getvalue().splitlines()

    assert lines[0].split() == ["file", "regexes", "tables"]
    assert any(line.startswith("assistant/answers.py") for line in lines)
    last = lines[-1].split()
    assert last[:2] == ["all", str(len(lines) - 2)]
    assert int(last[-2]) > 0
    assert int(last[-1]) > 0
