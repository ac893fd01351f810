"""How much of the reading is listed by hand: the regular expressions and cue tables in a set of files.

Issue 24 asks for these counted before and after the decomposer is rebuilt on learned models: a rule
that serves a class of requests is one regex or one table, so their number is a fair, if rough,
measure of how much is still listed.  Counted from the code's syntax tree, nothing is run:

- a **regex** is a ``re.compile(...)`` or a ``re.search/match/fullmatch/sub/subn/findall/finditer/split``
  call whose pattern is written out as a string, or joined with ``+`` from parts one of which is
  (``_LEADS + r"..."``: a shared fragment and the words of its own);
- a **cue table** is a module-level name bound to a set, frozenset, tuple, list or dict literal (or a
  ``frozenset``/``set``/``tuple``/``phrase_re`` call on one) of three or more strings (a dict by its
  keys); ``__all__`` and other dunders name code, not words, and do not count. ``phrase_re`` builds a
  regex from a list of phrases: the list is the cue table. Words written as one string are a table
  too: a module-level name bound to three or more plain words in one string (``"lunch gym break"``),
  bare, split (``"...".split()``) or passed alone to a call (``_vocabulary("maybe perhaps probably")``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CueCount", "count_cues"]

_RE_CALLS = frozenset(
    {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
)
_WRAPPERS = frozenset({"frozenset", "set", "tuple", "list", "phrase_re"})
_MIN_STRINGS = 3
_WORD = re.compile(r"[a-z][a-z'’-]*")


@dataclass(frozen=True, slots=True)
class CueCount:
    path: str
    regexes: int
    tables: int


def _is_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    # "a" "b" concatenations and "..." + "..." build one pattern
    return isinstance(node, ast.BinOp) and _is_text(node.left) and _is_text(node.right)


def _word_list(node: ast.AST) -> int:
    """How many plain words one string of words holds ("maybe perhaps probably"), or 0 for any other
    node or a string that is not only words (a message, a pattern)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return 0
    words = node.value.split()
    return len(words) if all(_WORD.fullmatch(w) for w in words) else 0


def _strings(node: ast.AST) -> int:
    """How many strings a literal collection holds (a dict: its keys), through one wrapping call; or
    how many words one string of words holds, bare, split or passed alone to a call."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split":
        return _word_list(node.func.value) if not node.args else 0
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and _word_list(node.args[0]):
        return _word_list(node.args[0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS:
        return _strings(node.args[0]) if len(node.args) == 1 else 0
    if _word_list(node):
        return _word_list(node)
    if isinstance(node, ast.Dict):
        return sum(1 for key in node.keys if key is not None and _is_text(key))
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return sum(1 for element in node.elts if _is_text(element))
    return 0


def _written(node: ast.AST) -> bool:
    """A pattern with words of its own: text, or a ``+`` of parts one of which is text."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _written(node.left) or _written(node.right)
    return _is_text(node)


def _regexes(tree: ast.AST) -> int:
    found = 0
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_CALLS
            and node.args
            and _written(node.args[0])
        ):
            found += 1
    return found


def _tables(tree: ast.Module) -> int:
    found = 0
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if any(n.startswith("__") for n in names):  # __all__ and the like name code, not words
            continue
        if _strings(value) >= _MIN_STRINGS:
            found += 1
    return found


def count_cues(paths: list[Path]) -> list[CueCount]:
    """The counts of every Python file among ``paths`` (folders are searched), by path."""
    files = sorted({f for p in paths for f in ([p] if p.is_file() else p.rglob("*.py")) if f.suffix == ".py"})
    counts = []
    for file in files:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
        counts.append(CueCount(path=str(file), regexes=_regexes(tree), tables=_tables(tree)))
    return counts
