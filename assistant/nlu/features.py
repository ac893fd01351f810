"""What the models see of a turn: features of each word for the span tagger, of the whole turn for
the act classifier and, with the lexicon's cues, for the operation model.

Every feature is about the form of words and their neighbours (case, digits, affixes, the words around
them), what the assistant asked, what the time resolver found and, for the tagger, whether the act
classifier found the turn informing; never about particular sentences: the models must read turns
nobody wrote down before.
"""

from __future__ import annotations

import itertools
import re

from assistant import lexicon
from assistant.nlu.reading import Asked
from assistant.nlu.timemarks import OUTSIDE
from assistant.nlu.words import Words

__all__ = ["edit_features", "exclusion_features", "operation_features", "token_features", "turn_features"]

_SENTENCE_END = frozenset({".", "!", "?", ";"})
_DIGITS = re.compile(r"\d")
_RUN = re.compile(r"(.)\1+")
_LONG_RUN = re.compile(r"(.)\1{4,}", re.DOTALL)
# What _shape makes of each ASCII letter and digit (any other character stands for itself).
_ASCII_KINDS = str.maketrans(
    {
        **{chr(c): "X" for c in range(ord("A"), ord("Z") + 1)},
        **{chr(c): "x" for c in range(ord("a"), ord("z") + 1)},
        **{chr(c): "d" for c in range(ord("0"), ord("9") + 1)},
    }
)


def token_features(words: Words, asked: Asked | None, *, informs: bool) -> list[list[str]]:
    """The span tagger's features, one list for each token.

    The tagger sees what the resolver makes of the turn rather than the spelling of its time words:
    inside an expression a word is marked with what the expression names (see :func:`time_marks`),
    and a word the resolver reads alone ("Friday", "noon") is given by that reading instead of its
    letters, so every weekday is learnt from the examples of any weekday.

    ``informs`` is whether the turn gives details (the INFORM act: the annotated acts in training, the
    act classifier's reading at run time). The dataset labels the spans of the calendar's details
    only, so the times and addresses a turn gives another service ("book me a cab to 45 Camino Alto")
    are unlabelled there; knowing whether the turn informs at all lets the tagger learn from those
    turns without learning that an address or a time is usually nothing.
    """
    tokens, marks, kinds = words.tokens, words.marks, words.kinds
    lower = [t.text.lower() for t in tokens]
    shapes = [_shape(t.text) for t in tokens]
    shorts = [_short_shape(shape) for shape in shapes]
    ask = asked or "none"
    starts = _sentence_starts(words)
    last = len(tokens) - 1
    ends_with_mark = last >= 0 and lower[last] in _SENTENCE_END
    # The parts every token shares, made once.
    ask_is, ask_short, ask_tx = f"ask={ask}", f"ask|short={ask}|", f"ask|tx={ask}|"
    informs_is, informs_short, informs_tx = f"inf={informs}", f"inf|short={informs}|", f"inf|tx={informs}|"
    out: list[list[str]] = []
    for i, token in enumerate(tokens):
        text, word, short, mark = token.text, lower[i], shorts[i], marks[i]
        features = [
            "bias",
            "shape=" + shapes[i],
            "short=" + short,
            ask_is,
            ask_short + short,
            "tx=" + mark,
            ask_tx + mark,
            informs_is,
            informs_short + short,
            informs_tx + mark,
            f"pos={min(i - starts[i], 4)}",
        ]
        kind = kinds[i]
        if kind:
            features.append("kind=" + kind)
        else:
            features.extend(("w=" + word, "pre=" + word[:3], "suf=" + word[-3:]))
        if text.istitle():
            features.append("title")
        if text.isupper():
            features.append("upper")
        if text.isdigit():
            features.append("digit")
        if not text[0].isalnum():
            features.append("punct")
        if i == last or (i + 1 == last and ends_with_mark):
            features.append("last")
        # The words around it: two either side, the nearest with their shape, mark, kind and pair.
        features.append("-2:w=" + lower[i - 2] if i >= 2 else "-2:w=BOUNDARY")
        if i >= 1:
            j = i - 1
            features.extend(("-1:w=" + lower[j], "-1:short=" + shorts[j], "-1:tx=" + marks[j]))
            features.append(f"-1|0:w={lower[j]}|{word}")
            if kinds[j]:
                features.append(f"-1:kind={kinds[j]}")
        else:
            features.append("-1:w=BOUNDARY")
        if i < last:
            j = i + 1
            features.extend(("1:w=" + lower[j], "1:short=" + shorts[j], "1:tx=" + marks[j]))
            features.append(f"1|0:w={word}|{lower[j]}")
            if kinds[j]:
                features.append(f"1:kind={kinds[j]}")
        else:
            features.append("1:w=BOUNDARY")
        features.append("2:w=" + lower[i + 2] if i + 2 <= last else "2:w=BOUNDARY")
        out.append(features)
    return out


# How far back the exclusion tagger looks for the words that turn a constraint around: "not taking
# place in *Philadelphia*" puts four words between them.
_EXCLUSION_WINDOW = 4


def exclusion_features(
    words: Words, tagger: list[list[str]], known: frozenset[str] | None = None
) -> list[list[str]]:
    """The exclusion tagger's features: the span tagger's (``tagger``, as :func:`token_features` gave
    them for the same words) and, for each word, the words of the stretch before it in its sentence,
    wherever they stand there.

    A negation reaches over a few words whose number varies ("not in X", "not taking place in X",
    "that aren't at X"); a feature of the word itself or its nearest neighbours sees only one of these,
    the stretch before sees them all. A contraction's "n't" counts as "not", as English reads it.

    ``known``: the features a trained tagger weighs (:attr:`assistant.nlu.spans.SpanTagger.attributes`),
    the only ones kept when given: the others add nothing to a word's score, and cost time to pass.
    """
    before = [f"<w={_negation_form(t.text.lower())}" for t in words.tokens]
    starts = _sentence_starts(words)
    out: list[list[str]] = []
    for i, features in enumerate(tagger):
        stretch = sorted({before[j] for j in range(max(starts[i], i - _EXCLUSION_WINDOW), i)})
        if known is None:
            out.append([*features, *stretch])
        else:  # sorted, so that every process passes them in the same order
            out.append(sorted(known.intersection(itertools.chain(features, stretch))))
    return out


def edit_features(
    words: Words, tagger: list[list[str]], found: list[str], known: frozenset[str] | None = None
) -> list[list[str]]:
    """The edit tagger's features: the exclusion tagger's (the words before tell "instead of X" and
    "remove X" from "add X") and what the names and people taggers found at each word and the word
    before (``found``, their tags: "B-person", "I-title", "O"), so that it learns which of the names
    already found is the new one, from a few hundred edits, rather than what a name is."""
    out = exclusion_features(words, tagger)
    for i, features in enumerate(out):
        features += [f"found={found[i]}", f"found-1={found[i - 1] if i else '^'}"]
    if known is None:
        return out
    return [sorted(known.intersection(features)) for features in out]


def _negation_form(word: str) -> str:
    return "not" if word.endswith(("n't", "n’t")) else word


def turn_features(words: Words, asked: Asked | None) -> set[str]:
    """The act classifier's features: words and word pairs, what was asked, what the resolver found.

    Numbers become their shape ("17705" -> "d", "4:30" -> "d:d"): what a turn does with a number does
    not depend on which number it is.
    """
    lower = ["<s>", *(_number_shape(t.text.lower()) for t in words.tokens), "</s>"]
    features = {f"ask={asked or 'none'}"}
    features.update(f"w={w}" for w in lower[1:-1])
    features.update(f"ww={a}|{b}" for a, b in itertools.pairwise(lower))
    features.update(f"tx={mark}" for mark in words.marks if mark != OUTSIDE)
    return features


# The lexicon's classes of words that say what a turn does. The operation model weighs them like any
# other feature: a class, learnt once, reaches the verbs a corpus rarely uses ("erase", "clear" beside
# the "cancel" most people type), while the model decides what a cue means in its sentence.
_CUES: dict[str, re.Pattern[str]] = {
    "create": lexicon.CREATE_VERBS,
    "delete": lexicon.DELETE_VERBS,
    "move": lexicon.MOVE_VERBS,
    "count": lexicon.COUNT_CUES,
    "free": lexicon.FREE_CUES,
    "query": lexicon.QUERY_CUES,
    "undo": lexicon.UNDO_CUES,
    "yes": lexicon.YES_WORDS,
    "no": lexicon.NO_WORDS,
    "greeting": lexicon.GREETINGS,
    "out_of_scope": lexicon.OUT_OF_SCOPE,
    "question": lexicon.QUESTION_STARTERS,
    "not_attending": lexicon.NOT_ATTENDING,
    "reminder": lexicon.REMINDER_CUES,
}


def operation_features(words: Words, turn: set[str]) -> set[str]:
    """The operation model's features: the act classifier's (``turn``, as :func:`turn_features` gave
    them for the same words: a turn read once is featured once), the first words, the stems of the
    longer words (so "cancels", "cancelled" and "cancel" count as one), and which lexicon classes the
    turn holds, anywhere and at its head once politeness is stripped ("can you please erase ...")."""
    features = set(turn)
    lower = [t.text.lower() for t in words.tokens if t.text[:1].isalpha()]
    features.update("p4=" + w[:4] for w in lower if len(w) > 4)
    if lower:
        features.add("first=" + lower[0])
        features.add("first2=" + "|".join(lower[:2]))
    features.add(f"len={min(len(lower) // 3, 4)}")
    text = " ".join(t.text.lower() for t in words.tokens)
    head = lexicon.POLITE_PREFIX.sub("", text)
    for name, cue in _CUES.items():
        if cue.search(text):
            features.add("cue=" + name)
            if cue.match(head):
                features.add("lead=" + name)
    return features


def _sentence_starts(words: Words) -> list[int]:
    """For each token, the index of the first token of its sentence."""
    starts, start = [], 0
    for i, token in enumerate(words.tokens):
        starts.append(start)
        if token.text in _SENTENCE_END:
            start = i + 1
    return starts


def _shape(text: str) -> str:
    """Xxxx for "Rangoon", dd:dd for "11:30": each run of a kind of character cut at four."""
    if text.isascii():  # the kind of an ASCII character is a table lookup, and runs are cut by one pass
        return _LONG_RUN.sub(_four, text.translate(_ASCII_KINDS))
    out: list[str] = []
    for ch in text:
        kind = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if out[-4:] != [kind] * 4:
            out.append(kind)
    return "".join(out)


def _short_shape(shape: str) -> str:
    """Xx for "Rangoon", d:d for "11:30": each run of a kind of character as one."""
    return _RUN.sub(_one, shape)


# Replacements as functions: a template (r"\1") is expanded by Python code at every match, a run of
# letters is in nearly every word, and these are several times faster.
def _one(run: re.Match[str]) -> str:
    return run.group(1)


def _four(run: re.Match[str]) -> str:
    return run.group(1) * 4


def _number_shape(word: str) -> str:
    return _short_shape(_shape(word)) if _DIGITS.search(word) else word
