"""What the model calls of a measured run cost: calls, tokens in and out, latency and how they failed.

Both measuring commands gather the :class:`~assistant.llm.calls.CallRecord` of every question asked
while they run (:func:`~assistant.llm.calls.collect_calls`), so the figures are the ones the model's
replies reported and the admin's log would show, not estimates. A *failure* is a call that got no
valid answer (every outcome but ``ok`` and ``retried``), counted by outcome: ``timeout``,
``http_error``, ``rate_limited``, ``budget``, ``invalid``, ``error``.

Latency here is the model's: a turn's calls summed. The planner asks phases 2 and 3 concurrently, so
that sum is what the model was busy for, which may exceed the turn's wall time; both are reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.llm.calls import CallRecord

__all__ = ["CallTotals", "TurnUsage", "percentiles"]

ANSWERED = frozenset({"ok", "retried"})


def percentiles(values: Iterable[float]) -> tuple[float, float]:
    """p50 (the median) and p95 (nearest rank, as the eval's wall times) of ``values``; 0 for none."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return 0.0, 0.0
    middle = n // 2
    p50 = ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return p50, ordered[min(n - 1, int(0.95 * n))]


@dataclass(frozen=True, slots=True)
class CallTotals:
    """The sums over some calls (one scenario's, one turn's)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    failures: dict[str, int] = field(default_factory=dict)
    models: tuple[str, ...] = ()

    @classmethod
    def of(cls, calls: Iterable[CallRecord]) -> CallTotals:
        records = list(calls)
        return cls(
            calls=len(records),
            input_tokens=sum(r.input_tokens for r in records),
            output_tokens=sum(r.output_tokens for r in records),
            latency_ms=sum(r.latency_ms for r in records),
            failures=dict(sorted(Counter(r.outcome for r in records if r.outcome not in ANSWERED).items())),
            models=tuple(sorted({r.model for r in records if r.model})),
        )

    @classmethod
    def summed(cls, totals: Iterable[CallTotals]) -> CallTotals:
        """The totals of several runs (a scenario run's, from each scenario's)."""
        parts = list(totals)
        failures: Counter[str] = Counter()
        for part in parts:
            failures.update(part.failures)
        return cls(
            calls=sum(p.calls for p in parts),
            input_tokens=sum(p.input_tokens for p in parts),
            output_tokens=sum(p.output_tokens for p in parts),
            latency_ms=sum(p.latency_ms for p in parts),
            failures=dict(sorted(failures.items())),
            models=tuple(sorted({m for p in parts for m in p.models})),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "latency_ms": round(self.latency_ms, 1),
            "failures": self.failures,
            "models": list(self.models),
        }


@dataclass(frozen=True, slots=True)
class TurnUsage:
    """What the model cost over the turns of an evaluation, per turn sent to it.

    ``fallbacks`` are the decisions that carry a note (the model could not plan the turn, so the rules
    answered: an outage, a budget, bad settings); ``failures`` count the calls, so one failed turn may
    count once in each.
    """

    turns: int
    turns_sent: int
    totals: CallTotals
    latency_p50_ms: float
    latency_p95_ms: float
    fallbacks: int

    @classmethod
    def of(cls, per_turn: Sequence[Sequence[CallRecord]], *, fallbacks: int) -> TurnUsage:
        sent = [calls for calls in per_turn if calls]
        p50, p95 = percentiles(sum(c.latency_ms for c in calls) for calls in sent)
        return cls(
            turns=len(per_turn),
            turns_sent=len(sent),
            totals=CallTotals.of(c for calls in sent for c in calls),
            latency_p50_ms=p50,
            latency_p95_ms=p95,
            fallbacks=fallbacks,
        )

    @property
    def share_sent(self) -> float:
        return self.turns_sent / self.turns if self.turns else 0.0

    def per_turn_sent(self, tokens: int) -> float | None:
        return tokens / self.turns_sent if self.turns_sent else None

    def as_json(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 1)

        return {
            "turns_sent": self.turns_sent,
            "share_sent": round(self.share_sent, 4),
            "calls": self.totals.calls,
            "input_tokens": self.totals.input_tokens,
            "output_tokens": self.totals.output_tokens,
            "input_tokens_per_turn": rounded(self.per_turn_sent(self.totals.input_tokens)),
            "output_tokens_per_turn": rounded(self.per_turn_sent(self.totals.output_tokens)),
            "latency_p50_ms": round(self.latency_p50_ms, 3),
            "latency_p95_ms": round(self.latency_p95_ms, 3),
            "failures": self.totals.failures,
            "fallbacks": self.fallbacks,
            "models": list(self.totals.models),
        }
