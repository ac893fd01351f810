"""The workflow shapes the engine benchmarks run: a fan-out/fan-in and a layered 1,000-task DAG.

Every dependant reads its dependencies' outputs through ``{{task.output.value}}`` references, so
validation checks references (ancestry and output paths) and the executor resolves them, as it does
for real plans.
"""

from __future__ import annotations

from workflows.definition import TaskSpec, WorkflowDefinition

__all__ = ["LAYERS", "LAYER_WIDTH", "fan_out_fan_in", "layered"]

# 1 + 37 × (26 + 1) = 1,000 tasks.
LAYERS = 37
LAYER_WIDTH = 26


def _ref(task_id: str) -> str:
    return "{{" + task_id + ".output.value}}"


def _block(source: str, prefix: str, width: int, join: str) -> list[TaskSpec]:
    """``width`` parallel steps reading ``source``, then one ``join`` reading them all."""
    steps = [
        TaskSpec(id=f"{prefix}{i}", skill="step", params={"value": _ref(source)}, depends_on=(source,))
        for i in range(width)
    ]
    gathered = TaskSpec(
        id=join,
        skill="gather",
        params={"values": [_ref(s.id) for s in steps]},
        depends_on=tuple(s.id for s in steps),
    )
    return [*steps, gathered]


def fan_out_fan_in(width: int = 98) -> WorkflowDefinition:
    """1 source, ``width`` parallel tasks, 1 sink: ``width + 2`` tasks."""
    tasks = [TaskSpec(id="source", skill="emit", params={"value": 1}), *_block("source", "t", width, "sink")]
    return WorkflowDefinition(name="bench-fan-out", tasks=tuple(tasks), output="sink")


def layered(blocks: int = LAYERS, width: int = LAYER_WIDTH) -> WorkflowDefinition:
    """A source then ``blocks`` fan-out/fan-in layers of ``width`` steps: 1 + blocks × (width + 1) tasks.

    The defaults give exactly 1,000 tasks, each layer fanning out from the previous layer's join.
    """
    tasks = [TaskSpec(id="source", skill="emit", params={"value": 1})]
    previous = "source"
    for b in range(blocks):
        join = f"j{b}"
        tasks.extend(_block(previous, f"b{b}-", width, join))
        previous = join
    return WorkflowDefinition(name="bench-layered", tasks=tuple(tasks), output=previous)
