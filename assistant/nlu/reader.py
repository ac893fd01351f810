"""Reading one turn with a given set of models: the act classifier, then the span tagger, which also
takes whether the acts found inform (see :func:`assistant.nlu.features.token_features`), and the
names, people, move, exclusion and edit taggers and the operation model where they are given."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from assistant.lexicon import LINKS
from assistant.nlu.acts import INFORM, ActModel
from assistant.nlu.features import (
    edit_features,
    exclusion_features,
    operation_features,
    token_features,
    turn_features,
)
from assistant.nlu.operations import OperationModel
from assistant.nlu.reading import ASKED, NAME_SLOTS, Asked, Span, TurnReading
from assistant.nlu.spans import Items, SpanTagger, found_tags, items_of, spans_from_tags
from assistant.nlu.words import Words, words_of

__all__ = ["TurnReader"]


@dataclass(frozen=True, slots=True)
class TurnReader:
    """Both models of the reader. The shipped ones are behind :func:`assistant.nlu.read_turn`; the
    evaluation builds others from training folds and reads with them the same way."""

    acts: ActModel
    spans: SpanTagger
    # Titles and places learnt from every corpus (see :mod:`assistant.nlu.corpora`); without it, the
    # span tagger's own.
    names: SpanTagger | None = None
    # Who the turn names, learnt from the corpora that name people (see assistant.nlu.corpora).
    people: SpanTagger | None = None
    # Where a move takes its event, learnt from SMCalFlow's moves (see assistant.nlu.moves).
    moves: SpanTagger | None = None
    # What the turn asks the calendar to do, learnt from every corpus (see assistant.nlu.operations).
    operations: OperationModel | None = None
    # What the turn leaves out, learnt from SMCalFlow's negated constraints (see assistant.nlu.exclusions).
    exclusions: SpanTagger | None = None
    # What an edit gives an event, learnt from SMCalFlow's edits (see assistant.nlu.edits).
    edits: SpanTagger | None = None

    def read(self, text: str, *, asked: Asked | None = None, now: datetime | None = None) -> TurnReading:
        """What ``text`` does and gives, after the assistant asked for ``asked`` (None: nothing), read
        at the turn's clock ``now`` where there is one (see :func:`assistant.nlu.timemarks.time_marks`).

        An ``asked`` the models do not know would silently count as nothing asked: it is refused.
        """
        if asked is not None and asked not in ASKED:
            raise ValueError(f"asked must be one of {', '.join(ASKED)} or None, not {asked!r}")
        words = words_of(text, now=now)
        turn = turn_features(words, asked)
        acts, intent = self.acts.predict(turn)
        operation, sure = (
            self.operations.predict(operation_features(words, turn))
            if self.operations is not None
            else (None, 0.0)
        )
        featured = token_features(words, asked, informs=INFORM in acts)
        features = items_of(featured)
        spans = spans_from_tags(text, words.tokens, self.spans.tags(features))
        found = list(spans)
        if self.names is not None:
            named = _unlinked(spans_from_tags(text, words.tokens, self.names.tags(features)))
            found = [*(s for s in found if s.slot not in NAME_SLOTS), *named]
        if self.people is not None:
            found += spans_from_tags(text, words.tokens, self.people.tags(features))
        spans = tuple(sorted(found, key=lambda s: (s.start, s.end)))
        excluded, unsure = self._excluded(text, words, featured)
        return TurnReading(
            acts=acts,
            intent=intent,
            spans=spans,
            operation=operation,
            operation_confidence=sure,
            excluded=excluded,
            excluded_confidence=unsure,
        )

    def _excluded(self, text: str, words: Words, featured: list[list[str]]) -> tuple[tuple[Span, ...], float]:
        """What the exclusion tagger reads the turn as leaving out, and the least chance it gives a word
        of it; the chances are worked out only for a turn that leaves something out (few do)."""
        if self.exclusions is None or not featured:
            return (), 0.0
        features = items_of(exclusion_features(words, featured, self.exclusions.attributes))
        return _spans_and_chance(text, words, self.exclusions, features)

    def new_time(
        self, text: str, *, asked: Asked | None = None, now: datetime | None = None
    ) -> tuple[Span | None, float]:
        """Where ``text`` would take an event if it moves one, and the least chance the move tagger
        gives a word of it; (None, 0.0) without that model or when it reads no new time.

        Apart from :meth:`read` because only a move has a new time: the handler that knows the turn
        is a move asks, and no other turn pays for it."""
        if self.moves is None:
            return None, 0.0
        words = words_of(text, now=now)
        acts, _ = self.acts.predict(turn_features(words, asked))
        features = items_of(token_features(words, asked, informs=INFORM in acts))
        tagged = spans_from_tags(text, words.tokens, self.moves.tags(features))
        return _likeliest(text, words, self.moves.inside(features), tagged[-1:])

    def edit(self, text: str, *, now: datetime | None = None) -> tuple[tuple[Span, ...], float]:
        """What ``text`` gives an event if it edits one (a new title or place, people invited or
        taken off), and the least chance the edit tagger gives a word of them; ((), 0.0) without
        that model or when it reads none.

        Apart from :meth:`read` for the reason :meth:`new_time` is: only the edit handler asks."""
        if self.edits is None:
            return (), 0.0
        words = words_of(text, now=now)
        if not words.tokens:
            return (), 0.0
        acts, _ = self.acts.predict(turn_features(words, None))
        featured = token_features(words, None, informs=INFORM in acts)
        found = found_tags(self.names, self.people, items_of(featured))
        features = items_of(edit_features(words, featured, found, self.edits.attributes))
        return _spans_and_chance(text, words, self.edits, features)


def _unlinked(spans: tuple[Span, ...]) -> tuple[Span, ...]:
    """The names without a word that links one to the next taken into the first ("Put *Movie at*
    Pruneyard Cinemas": 'Movie', then the place): the tagger's slip at the border of two names, as
    no title or place ends in "at" or "with" before another one starts."""
    kept = list(spans)
    for n, (first, second) in enumerate(pairwise(spans)):
        head, _, last = first.text.rpartition(" ")
        if head and last.casefold() in LINKS and second.start - first.end <= 1:
            kept[n] = Span(first.slot, first.start, first.start + len(head.rstrip()), head.rstrip())
    return tuple(kept)


def _spans_and_chance(
    text: str, words: Words, tagger: SpanTagger, features: Items
) -> tuple[tuple[Span, ...], float]:
    """The spans ``tagger`` reads and the least chance it gives a word of them; ((), 0.0) for none.
    The chances are worked out only when there are spans (most turns have none)."""
    found = spans_from_tags(text, words.tokens, tagger.tags(features))
    if not found:
        return (), 0.0
    inside = tagger.inside(features)
    chances = [
        p for t, p in zip(words.tokens, inside, strict=True) if any(s.start <= t.start < s.end for s in found)
    ]
    return found, min(chances)


# Where the tagger's best reading has no new time, one is taken from the words it gives at least this
# chance of being in one: the tagger learnt from a few hundred moves and is often unsure of a new time
# led by "for", which only a time after "for" makes one ("reschedule my 2 meeting with jennifer for
# friday at 2 in building b" is 0.14 to 0.21 a word); the caller that knows how the time is led in
# decides whether so little will do (see ``new_time_confidence``).
_NEW_TIME_FLOOR = 0.1


def _likeliest(
    text: str, words: Words, inside: list[float], best: tuple[Span, ...]
) -> tuple[Span | None, float]:
    """The tagger's last new time (``best``, its best reading) or, without one, the words around the
    likeliest word that are at least half as likely (and above the floor), as a span with the time words
    next to it; and the least chance the tagger gives a word it read."""
    if best:
        run = [i for i, t in enumerate(words.tokens) if best[0].start <= t.start and t.end <= best[0].end]
    else:
        peak = max(range(len(inside)), key=lambda i: (inside[i], i), default=None)
        if peak is None or inside[peak] < _NEW_TIME_FLOOR:
            return None, 0.0
        least = max(_NEW_TIME_FLOOR, inside[peak] / 2)
        first = last = peak
        while first > 0 and inside[first - 1] >= least:
            first -= 1
        while last + 1 < len(inside) and inside[last + 1] >= least:
            last += 1
        run = list(range(first, last + 1))
    chance = min(inside[i] for i in run)
    # A new time is whole: the tagger sometimes stops inside one ("to monday *morning*"), and the words
    # next to its span that name a day, a time or a day part by themselves belong to it. Words alone,
    # not the resolver's expressions, which run across "on friday to monday morning" as one range.
    first, last = run[0], run[-1]
    while first > 0 and words.kinds[first - 1] is not None:
        first -= 1
    while last + 1 < len(words.tokens) and words.kinds[last + 1] is not None:
        last += 1
    start, end = words.tokens[first].start, words.tokens[last].end
    return Span("new_time", start, end, text[start:end]), chance
