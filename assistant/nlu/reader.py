"""Reading one turn with a given set of models: the act classifier, then the span tagger, which also
takes whether the acts found inform (see :func:`assistant.nlu.features.token_features`), and the
names, people and operation models where they are given."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.nlu.acts import INFORM, ActModel
from assistant.nlu.features import operation_features, token_features, turn_features
from assistant.nlu.operations import OperationModel
from assistant.nlu.reading import ASKED, NAME_SLOTS, Asked, TurnReading
from assistant.nlu.spans import SpanTagger, spans_from_tags
from assistant.nlu.words import words_of

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
    # What the turn asks the calendar to do, learnt from every corpus (see assistant.nlu.operations).
    operations: OperationModel | None = None

    def read(self, text: str, *, asked: Asked | None = None) -> TurnReading:
        """What ``text`` does and gives, after the assistant asked for ``asked`` (None: nothing).

        An ``asked`` the models do not know would silently count as nothing asked: it is refused.
        """
        if asked is not None and asked not in ASKED:
            raise ValueError(f"asked must be one of {', '.join(ASKED)} or None, not {asked!r}")
        words = words_of(text)
        turn = turn_features(words, asked)
        acts, intent = self.acts.predict(turn)
        operation, sure = (
            self.operations.predict(operation_features(words, turn))
            if self.operations is not None
            else (None, 0.0)
        )
        features = token_features(words, asked, informs=INFORM in acts)
        spans = spans_from_tags(text, words.tokens, self.spans.tags(features))
        found = list(spans)
        if self.names is not None:
            named = spans_from_tags(text, words.tokens, self.names.tags(features))
            found = [*(s for s in found if s.slot not in NAME_SLOTS), *named]
        if self.people is not None:
            found += spans_from_tags(text, words.tokens, self.people.tags(features))
        spans = tuple(sorted(found, key=lambda s: (s.start, s.end)))
        return TurnReading(
            acts=acts, intent=intent, spans=spans, operation=operation, operation_confidence=sure
        )
