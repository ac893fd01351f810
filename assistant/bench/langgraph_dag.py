"""The reference point for the engine: the same 100-task DAG in LangGraph with its SQLite checkpointer.

A ``StateGraph`` with a source, 98 nodes fanning out from it and a sink joining them, the fan-in
done by a reducer (``operator.add`` on a list), compiled with ``SqliteSaver`` on a file in a temp
dir and invoked with a fresh ``thread_id`` per run, as a new run of ours is a new row.  The saver's
connection gets the same pragmas as our database (WAL, ``synchronous=NORMAL``) so that neither side
is billed for fsyncs the other is spared.  LangGraph is a bench-only extra, imported here lazily.
"""

from __future__ import annotations

import operator
import sqlite3
import tempfile
import uuid
from pathlib import Path
from typing import Annotated, Any, TypedDict

from assistant.bench.timing import Timing, measure

__all__ = ["DagState", "langgraph_per_task"]


class DagState(TypedDict):
    value: int
    results: Annotated[list[int], operator.add]
    total: int


def _source(state: DagState) -> dict[str, Any]:
    return {"value": 1}


def _step(state: DagState) -> dict[str, Any]:
    return {"results": [state["value"]]}


def _sink(state: DagState) -> dict[str, Any]:
    return {"total": sum(state["results"])}


def _graph(width: int, saver: Any) -> Any:
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(DagState)
    builder.add_node("source", _source)
    builder.add_node("sink", _sink)
    names = [f"t{i}" for i in range(width)]
    for name in names:
        builder.add_node(name, _step)
        builder.add_edge("source", name)
    builder.add_edge(START, "source")
    builder.add_edge(names, "sink")  # a join: the sink waits for every one of them
    builder.add_edge("sink", END)
    return builder.compile(checkpointer=saver)


def langgraph_per_task(*, repeat: int, tasks: int = 100) -> Timing:
    """One invoke of the fan-out/fan-in graph from start to finish, reported per task."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    width = tasks - 2
    with tempfile.TemporaryDirectory(prefix="bench-langgraph-") as folder:
        conn = sqlite3.connect(Path(folder) / "checkpoints.sqlite", check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            saver = SqliteSaver(conn)
            saver.setup()
            graph = _graph(width, saver)

            def run_once() -> None:
                config = {"configurable": {"thread_id": uuid.uuid4().hex}}
                result = graph.invoke({"value": 0, "results": []}, config)
                if result.get("total") != width:
                    raise RuntimeError(f"the LangGraph run did not sum up: {result.get('total')}")

            return measure(run_once, repeat=repeat, warmup=2).scaled(tasks)
        finally:
            conn.close()
