"""The LLM planner: a turn the rules are unsure of, planned by a model into a validated workflow.

Three phases, so no prompt holds the whole catalog (phase 1 is a tenth of the single-phase prompt):

1. orchestrate: the service catalog and the turn -> subtasks, each for one service, with ``dependsOn``;
2. select (one question per subtask, asked at once): that service's skills -> the steps that do it;
3. params (one question per step, asked at once): that skill's full schema and the outputs of the
   tasks before it -> the step's params, with ``{{task.output.field}}`` references.

Each phase's answer is checked where it is made (ids, dependencies, cycles, which subtask replies,
references to tasks not depended on, params against the schema) and a problem goes back to that phase
as a ``ModelRetry``, at most twice; the assembled workflow is then compiled like every other. A plan
that is still invalid is not guessed at: the assistant asks the user. A single-phase mode (the whole
catalog in one prompt) exists to measure the phases against.

What a model plans is never trusted to be right, only to be valid: :func:`asks_first` makes every
write preview and ask before it changes anything, whatever the policy allows the rules.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from asgiref.sync import async_to_sync
from pydantic import BaseModel
from pydantic_ai.models import Model
from pydantic_ai.usage import UsageLimits

from assistant.decomposer.gate import ACT, CONFIRM  # the gates every write passes, the model's too
from assistant.llm import phases
from assistant.llm.agents import OUTPUT_RETRIES, ModelCallError, ask
from assistant.llm.calls import CallRecord, collected
from assistant.llm.phases import Turn
from skills.registry import REGISTRY, SkillDefinition, SkillRegistry
from workflows.definition import Decision, TaskSpec, WorkflowDefinition
from workflows.validation import WorkflowValidationError, compile_workflow, dependency_order

__all__ = ["ACT", "CONFIRM", "PlanFailedError", "asks_first", "plan"]

FailureKind = Literal["invalid", "unavailable", "budget"]
CONFIRM_ID = "confirm_plan"
T = TypeVar("T")


class PlanFailedError(Exception):
    """No plan: the model's answers stayed invalid, it could not be reached, or the budget ran out."""

    def __init__(self, kind: FailureKind, calls: list[CallRecord]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.calls = calls


@dataclass
class _Budget:
    """Tokens this turn may still spend; each question may spend what is left when it is asked."""

    tokens: int
    calls: list[CallRecord] = field(default_factory=list)

    def limits(self) -> UsageLimits:
        return UsageLimits(request_limit=1 + OUTPUT_RETRIES, total_tokens_limit=max(self.tokens, 1))

    def spent(self, record: CallRecord) -> None:
        self.calls.append(record)
        self.tokens -= record.input_tokens + record.output_tokens


@dataclass(frozen=True, slots=True)
class _Step:
    """One task of the plan being assembled: its id, skill, instruction and structural dependencies."""

    id: str
    skill: SkillDefinition
    instruction: str
    depends_on: tuple[str, ...]


def plan(
    turn: Turn,
    model: Model,
    *,
    tokens: int,
    trace_id: str,
    single: bool = False,
    registry: SkillRegistry = REGISTRY,
) -> tuple[Decision, list[CallRecord]]:
    """The decision a model makes of ``turn`` within ``tokens``, and the calls it took.

    Raises :class:`PlanFailedError` (with the calls) when there is no plan to act on.
    """
    budget = _Budget(tokens)
    if tokens <= 0:
        raise PlanFailedError("budget", [])
    planner = _single if single else _phased
    try:
        decision = async_to_sync(_entered)(planner, turn, model, budget, trace_id, registry)
    except ModelCallError as exc:
        outcome = exc.record.outcome
        kind: FailureKind = (
            "invalid" if outcome == "invalid" else "budget" if outcome == "budget" else "unavailable"
        )
        raise PlanFailedError(kind, budget.calls) from exc
    except WorkflowValidationError as exc:
        raise PlanFailedError("invalid", budget.calls) from exc
    return decision, budget.calls


async def _entered(
    planner: Any, turn: Turn, model: Model, budget: _Budget, trace_id: str, registry: SkillRegistry
) -> Decision:
    """``planner`` with the model entered for the whole turn: its questions share one HTTP client (each
    question's agent would otherwise build one, certificates and all, and close it: about 28 ms each)."""
    async with model:
        decision: Decision = await planner(turn, model, budget, trace_id, registry)
    return decision


async def _ask(
    budget: _Budget,
    model: Model,
    phase: str,
    prompts: tuple[str, str],
    output_type: type[BaseModel],
    check: Any,
) -> Any:
    if budget.tokens <= 0:
        record = CallRecord(phase=phase, model=model.model_name, outcome="budget", error="turn budget spent")
        budget.calls.append(record)
        collected([record])
        raise ModelCallError(record)
    instructions, prompt = prompts
    try:
        answer = await ask(
            model,
            instructions=instructions,
            prompt=prompt,
            output_type=output_type,
            limits=budget.limits(),
            phase=phase,
            check=check,
        )
    except ModelCallError as exc:
        budget.spent(exc.record)
        raise
    budget.spent(answer.record)
    return answer.output


# -- three phases -------------------------------------------------------------------------------------


async def _phased(
    turn: Turn, model: Model, budget: _Budget, trace_id: str, registry: SkillRegistry
) -> Decision:
    contracts = phases.contracts(registry)
    replying = phases.replying_skills(registry)
    closing = {registry.get(name).service for name in replying}
    orchestration = await _ask(
        budget,
        model,
        "orchestrate",
        phases.orchestrate_prompt(turn, registry),
        contracts.orchestration,
        lambda o: _subtask_problems(o, closing),
    )
    early = _unplanned(orchestration, trace_id)
    if early is not None:
        return early
    subtasks = _in_order(orchestration.subtasks)
    sink = _sinks(subtasks)[0]
    about = {s.id: f"{s.id} ({s.service}): {s.instruction}" for s in subtasks}

    async def select(s: Any) -> Any:
        upstream = [about[d] for d in s.dependsOn]
        return await _ask(
            budget,
            model,
            f"select:{s.service}",
            phases.select_prompt(turn, s.service, s.instruction, upstream, registry),
            contracts.selections[s.service],
            lambda sel: _step_problems(sel, replying if s.id == sink.id else None),
        )

    selections = await _all([select(s) for s in subtasks])
    steps = _assembled(subtasks, selections, registry)
    by_id = {st.id: st for st in steps}

    async def fill(step: _Step) -> phases.StepParams:
        if not step.skill.input_model.model_fields:
            return phases.StepParams(params={})
        upstream = [(a, by_id[a].skill) for a in _ancestors(step, by_id)]
        return await _ask(
            budget,
            model,
            f"params:{step.skill.name}",
            phases.params_prompt(turn, step.skill, step.instruction, upstream),
            phases.StepParams,
            lambda p: _param_problems(step, p, by_id, registry),
        )

    filled = await _all([fill(st) for st in steps])
    tasks = [
        TaskSpec(
            id=st.id,
            skill=st.skill.name,
            params=p.params,
            depends_on=st.depends_on,
            when=p.when,
            summary=st.instruction[:200],
        )
        for st, p in zip(steps, filled, strict=True)
    ]
    summary = "; ".join(s.instruction for s in subtasks)
    return _workflow_decision(tasks, steps[-1].id, summary, orchestration.confidence, trace_id, registry)


async def _all(questions: list[Coroutine[Any, Any, T]]) -> list[T]:
    """The answers to ``questions`` asked at once; the first failure cancels the rest (no question
    goes on spending after the plan is given up) and is raised as itself."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(q) for q in questions]
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None
    return [t.result() for t in tasks]


def _unplanned(answer: Any, trace_id: str) -> Decision | None:
    """The model's answer or question, or a question of ours when it is unsure what is wanted."""
    if answer.kind == "answer" and answer.text:
        return Decision(
            kind="answer",
            reply_kind="answer",
            text=answer.text,
            confidence=answer.confidence,
            trace_id=trace_id,
        )
    if answer.kind != "plan" or answer.confidence < CONFIRM:
        text = answer.text or UNSURE
        return Decision(
            kind="clarify", reply_kind="clarify", text=text, confidence=answer.confidence, trace_id=trace_id
        )
    return None


UNSURE = "I'm not sure what you'd like me to do. Could you say it another way, with the event and the day?"


def _subtask_problems(o: Any, closing: set[str]) -> list[str]:
    if o.kind != "plan":
        return [] if o.text else [f"kind {o.kind} needs the text to say."]
    if not o.subtasks:
        return ["kind plan needs at least one subtask."]
    problems = _graph_problems([(s.id, list(s.dependsOn)) for s in o.subtasks], "subtask")
    if problems:
        return problems
    sinks = _sinks(o.subtasks)
    if len(sinks) != 1:
        problems.append(
            "exactly one subtask must be last (none depends on it), the one that replies; now: "
            + ", ".join(s.id for s in sinks)
            + "."
        )
    elif sinks[0].service not in closing:
        problems.append(
            f"the last subtask {sinks[0].id} must be one of the services that reply: "
            + ", ".join(sorted(closing))
            + "."
        )
    return problems


def _step_problems(selection: Any, replying: frozenset[str] | None) -> list[str]:
    steps = selection.steps
    problems = _graph_problems([(s.id, list(s.dependsOn)) for s in steps], "step", ordered=True)
    if replying is not None and steps[-1].skill not in replying:
        problems.append(
            "this subtask replies to the user: its last step must be one of "
            + ", ".join(sorted(replying))
            + "."
        )
    return problems


def _graph_problems(nodes: list[tuple[str, list[str]]], what: str, *, ordered: bool = False) -> list[str]:
    """Duplicate ids, unknown or self dependencies, and cycles; ``ordered``: only earlier nodes count."""
    problems: list[str] = []
    seen: set[str] = set()
    ids = [n for n, _ in nodes]
    for node, deps in nodes:
        if node in seen:
            problems.append(f"{what} id {node} is used twice.")
        for dep in deps:
            if dep == node:
                problems.append(f"{what} {node} depends on itself.")
            elif dep not in ids:
                problems.append(f"{what} {node} depends on {dep}, which is not a {what}.")
            elif ordered and dep not in seen:
                problems.append(f"{what} {node} depends on {dep}, which comes after it.")
        seen.add(node)
    cycle = [] if problems else dependency_order(dict(nodes))[1]
    if cycle:
        problems.append(f"the {what}s' dependsOn form a cycle: " + " -> ".join(cycle) + ".")
    return problems


def _sinks(subtasks: list[Any]) -> list[Any]:
    needed = {d for s in subtasks for d in s.dependsOn}
    return [s for s in subtasks if s.id not in needed]


def _in_order(subtasks: list[Any]) -> list[Any]:
    """The subtasks, each after those it depends on (checked acyclic), keeping the model's order else."""
    done: set[str] = set()
    ordered: list[Any] = []
    pending = list(subtasks)
    while pending:
        ready = [s for s in pending if set(s.dependsOn) <= done]
        for s in ready:
            ordered.append(s)
            done.add(s.id)
        pending = [s for s in pending if s.id not in done]
    return ordered


def _assembled(subtasks: list[Any], selections: list[Any], registry: SkillRegistry) -> list[_Step]:
    """The steps with global ids (``subtask_step``); a step without a dependency inside its subtask
    depends on every step of the subtasks its subtask depends on."""
    steps: list[_Step] = []
    of_subtask: dict[str, list[str]] = {}
    for subtask, selection in zip(subtasks, selections, strict=True):
        local = {s.id: f"{subtask.id}_{s.id}" for s in selection.steps}
        upstream = tuple(tid for dep in subtask.dependsOn for tid in of_subtask[dep])
        for s in selection.steps:
            own = tuple(local[d] for d in s.dependsOn)
            steps.append(_Step(local[s.id], registry.get(s.skill), s.instruction, own or upstream))
        of_subtask[subtask.id] = list(local.values())
    return steps


def _ancestors(step: _Step, by_id: dict[str, _Step]) -> list[str]:
    """Every task ``step`` runs after, in plan order: the tasks whose outputs it may reference."""
    found: set[str] = set()
    stack = list(step.depends_on)
    while stack:
        tid = stack.pop()
        if tid not in found:
            found.add(tid)
            stack.extend(by_id[tid].depends_on)
    return [tid for tid in by_id if tid in found]


def _param_problems(
    step: _Step, answer: phases.StepParams, by_id: dict[str, _Step], registry: SkillRegistry
) -> list[str]:
    """The workflow validator's problems with this one task, the plan's other tasks standing in without
    params (so a reference to a task that does not run before it is named as such)."""
    stand_ins = [
        TaskSpec(id=other.id, skill=other.skill.name, depends_on=other.depends_on)
        for other in by_id.values()
        if other.id != step.id
    ]
    task = TaskSpec(
        id=step.id, skill=step.skill.name, params=answer.params, depends_on=step.depends_on, when=answer.when
    )
    definition = WorkflowDefinition(name="check", tasks=(*stand_ins, task))
    try:
        compile_workflow(definition, registry=registry)
    except WorkflowValidationError as exc:
        mine = (f"Task {step.id} ", f"Task {step.id}:")
        return [e for e in exc.errors if e.startswith(mine)]
    return []


# -- one phase, for comparison ---------------------------------------------------------------------------


async def _single(
    turn: Turn, model: Model, budget: _Budget, trace_id: str, registry: SkillRegistry
) -> Decision:
    replying = phases.replying_skills(registry)

    def problems(o: Any) -> list[str]:
        if o.kind != "plan":
            return [] if o.text else [f"kind {o.kind} needs the text to say."]
        if not o.tasks:
            return ["kind plan needs at least one task."]
        try:
            compile_workflow(_single_definition(o), registry=registry)
        except WorkflowValidationError as exc:
            return exc.errors
        if o.tasks[-1].skill not in replying:
            return [
                "the last task replies to the user: its skill must be one of "
                + ", ".join(sorted(replying))
                + "."
            ]
        return []

    answer = await _ask(
        budget,
        model,
        "single",
        phases.single_prompt(turn, registry),
        phases.contracts(registry).single,
        problems,
    )
    early = _unplanned(answer, trace_id)
    if early is not None:
        return early
    definition = _single_definition(answer)
    return _workflow_decision(
        list(definition.tasks),
        answer.tasks[-1].id,
        answer.text or "planned in one step",
        answer.confidence,
        trace_id,
        registry,
    )


def _single_definition(o: Any) -> WorkflowDefinition:
    tasks = tuple(
        TaskSpec(id=t.id, skill=t.skill, params=t.params, depends_on=tuple(t.dependsOn), when=t.when)
        for t in o.tasks
    )
    return WorkflowDefinition(name="llm-plan", tasks=tasks, output=o.tasks[-1].id)


# -- what every model plan becomes ------------------------------------------------------------------------


def _workflow_decision(
    tasks: list[TaskSpec],
    output: str,
    summary: str,
    confidence: float,
    trace_id: str,
    registry: SkillRegistry,
) -> Decision:
    """The plan, made to ask before any write, and to confirm first when the model was only fairly sure."""
    definition = asks_first(
        WorkflowDefinition(name="llm-plan", summary=summary[:500], tasks=tuple(tasks), output=output),
        registry,
    )
    if confidence < ACT and not any(registry.get(t.skill).kind == "write" for t in definition.tasks):
        definition = _confirmed_first(definition, summary)
    compile_workflow(definition, registry=registry)
    return Decision(kind="workflow", workflow=definition, confidence=confidence, trace_id=trace_id)


def asks_first(definition: WorkflowDefinition, registry: SkillRegistry = REGISTRY) -> WorkflowDefinition:
    """``definition`` with every write asking first: applied changes are previewed and wait for a yes
    (``always_ask``, never ``approved``), and any other write waits on a confirmation naming it."""
    tasks: list[TaskSpec] = []
    for t in definition.tasks:
        skill = registry.get(t.skill)
        if skill.kind != "write":
            tasks.append(t)
        elif "always_ask" in skill.input_model.model_fields:
            tasks.append(t.model_copy(update={"params": {**t.params, "approved": False, "always_ask": True}}))
        else:
            confirm = f"{t.id}_ok"
            what = t.summary or skill.description
            tasks.append(
                TaskSpec(
                    id=confirm,
                    skill="ask_user",
                    params={
                        "question": f"Shall I go ahead and {_lower_first(what)}{_given(t)}?",
                        "kind": "confirm",
                    },
                    depends_on=t.depends_on,
                )
            )
            tasks.append(t.model_copy(update={"depends_on": (*t.depends_on, confirm)}))
    return definition.model_copy(update={"tasks": tuple(tasks)})


def _confirmed_first(definition: WorkflowDefinition, summary: str) -> WorkflowDefinition:
    """A read-only plan the model was only fairly sure of, run after the user says it understood them."""
    confirm = TaskSpec(
        id=CONFIRM_ID,
        skill="ask_user",
        params={"question": f"Just to check, you'd like me to: {summary}?", "kind": "confirm"},
    )
    tasks = [
        t if t.depends_on else t.model_copy(update={"depends_on": (CONFIRM_ID,)}) for t in definition.tasks
    ]
    return definition.model_copy(update={"tasks": (confirm, *tasks)})


def _given(task: TaskSpec) -> str:
    """The literal params of a write, said with its question: the model's words about a step may not
    match what the step would do, its params will."""
    said = [
        f"{k}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in task.params.items()
        if "{{" not in json.dumps(v)
    ]
    return f" ({'; '.join(said)})" if said else ""


def _lower_first(text: str) -> str:
    text = text.strip().rstrip(".?!")
    return (text[:1].lower() + text[1:]) if text else "do it"
