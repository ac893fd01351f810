"""No-op skills for the engine benchmarks, in a registry of their own.

They are registered the real way (``@registry.skill``, pydantic input and output models) so that
the engine does all its usual work per task (resolve references, validate input, call, validate and
dump output, store) while the skills themselves cost nothing: what is measured is the engine.  They
live in a private :class:`SkillRegistry`, never the global ``REGISTRY``, so neither the catalog the
decomposer sees nor any user's workflow can reach them.
"""

from __future__ import annotations

from pydantic import BaseModel

from skills.context import SkillContext
from skills.registry import SkillRegistry
from skills.schemas import SkillInput

__all__ = ["BENCH_REGISTRY", "ValueIn", "ValueOut", "ValuesIn"]

BENCH_REGISTRY = SkillRegistry()
BENCH_REGISTRY.service("bench", "No-op skills for measuring the workflow engine.")


class ValueIn(SkillInput):
    value: int = 0


class ValuesIn(SkillInput):
    values: list[int] = []


class ValueOut(BaseModel):
    value: int


@BENCH_REGISTRY.skill(service="bench")
def emit(ctx: SkillContext, params: ValueIn) -> ValueOut:
    """Return the given number: the source of a DAG."""
    return ValueOut(value=params.value)


@BENCH_REGISTRY.skill(service="bench")
def step(ctx: SkillContext, params: ValueIn) -> ValueOut:
    """Return the number an earlier task produced: one parallel task of a fan-out."""
    return ValueOut(value=params.value)


@BENCH_REGISTRY.skill(service="bench")
def gather(ctx: SkillContext, params: ValuesIn) -> ValueOut:
    """Sum the numbers of many earlier tasks: the join of a fan-in."""
    return ValueOut(value=sum(params.values))
