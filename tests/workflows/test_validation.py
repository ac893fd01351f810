from __future__ import annotations

import pytest

from tests.workflows.skillset import registry
from workflows.definition import TaskSpec, WorkflowDefinition
from workflows.validation import WorkflowValidationError, compile_workflow


def wf(*tasks: TaskSpec, output: str | None = None) -> WorkflowDefinition:
    return WorkflowDefinition(name="t", tasks=tasks, output=output)


def errors_of(definition: WorkflowDefinition, **kwargs: object) -> list[str]:
    with pytest.raises(WorkflowValidationError) as info:
        compile_workflow(definition, registry=registry, **kwargs)  # type: ignore[arg-type]
    return info.value.errors


def test_valid_workflow_compiles_in_topological_order() -> None:
    plan = compile_workflow(
        wf(
            TaskSpec(id="b", skill="add", params={"values": "{{a.output.items}}"}, depends_on=("a",)),
            TaskSpec(id="a", skill="emit", params={"value": 1, "values": [1, 2]}),
        ),
        registry=registry,
    )
    assert plan.order == ("a", "b")
    assert plan.depends_on["b"] == ("a",)
    assert plan.output_task == "b"


def test_missing_dependency_is_named_like_the_seed_example() -> None:
    errors = errors_of(wf(TaskSpec(id="1", skill="emit", depends_on=("task-999",))))
    assert errors == ["Task 1 depends on non-existent task task-999."]


def test_every_error_is_gathered_before_raising() -> None:
    errors = errors_of(
        wf(
            TaskSpec(id="a", skill="emitt"),
            TaskSpec(id="b", skill="emit", depends_on=("b",)),
            TaskSpec(id="c", skill="emit", params={"value": "not a number"}),
            TaskSpec(id="d", skill="emit", params={"bogus": 1}),
        )
    )
    assert any("unknown skill 'emitt' (did you mean 'emit'?)" in e for e in errors)
    assert any("Task b depends on itself" in e for e in errors)
    assert any("Task c: param 'value'" in e for e in errors)
    assert any("Task d: skill emit has no param 'bogus'" in e for e in errors)
    assert len(errors) == 4


def test_cycle_error_names_the_path() -> None:
    errors = errors_of(
        wf(
            TaskSpec(id="a", skill="emit", depends_on=("c",)),
            TaskSpec(id="b", skill="emit", depends_on=("a",)),
            TaskSpec(id="c", skill="emit", depends_on=("b",)),
        )
    )
    assert len(errors) == 1
    assert errors[0].startswith("Tasks form a cycle: ")
    path = errors[0].removeprefix("Tasks form a cycle: ").rstrip(".").split(" -> ")
    assert path[0] == path[-1]
    assert set(path) == {"a", "b", "c"}


def test_reference_to_a_task_not_depended_on_is_rejected() -> None:
    errors = errors_of(
        wf(
            TaskSpec(id="a", skill="emit"),
            TaskSpec(id="b", skill="add", params={"value": "{{a.output.value}}"}),
        )
    )
    assert errors == [
        "Task b references task a in {{a.output.value}} but does not depend on it; add a to its dependsOn."
    ]


def test_transitive_dependency_may_be_referenced() -> None:
    plan = compile_workflow(
        wf(
            TaskSpec(id="a", skill="emit"),
            TaskSpec(id="b", skill="emit", depends_on=("a",)),
            TaskSpec(id="c", skill="add", params={"value": "{{a.output.value}}"}, depends_on=("b",)),
        ),
        registry=registry,
    )
    assert plan.order[-1] == "c"


def test_tasks_listed_before_their_dependencies_are_ordered_and_checked() -> None:
    plan = compile_workflow(
        wf(
            TaskSpec(id="c", skill="add", params={"value": "{{a.output.value}}"}, depends_on=("b",)),
            TaskSpec(id="b", skill="emit", depends_on=("a",)),
            TaskSpec(id="a", skill="emit"),
        ),
        registry=registry,
    )
    assert plan.order == ("a", "b", "c")
    assert dict(plan.depends_on) == {"a": (), "b": ("a",), "c": ("b",)}
    errors = errors_of(
        wf(
            TaskSpec(id="c", skill="add", params={"value": "{{a.output.value}}"}, depends_on=("b",)),
            TaskSpec(id="b", skill="emit"),
            TaskSpec(id="a", skill="emit"),
        )
    )
    assert errors == [
        "Task c references task a in {{a.output.value}} but does not depend on it; add a to its dependsOn."
    ]


def test_reference_to_a_missing_output_field_is_rejected() -> None:
    errors = errors_of(
        wf(
            TaskSpec(id="a", skill="emit"),
            TaskSpec(id="b", skill="add", params={"value": "{{a.output.nothing}}"}, depends_on=("a",)),
        )
    )
    assert errors == ["Task b references {{a.output.nothing}}, but skill emit has no output nothing."]


def test_bad_condition_and_missing_output_task_are_reported() -> None:
    errors = errors_of(
        wf(TaskSpec(id="a", skill="emit", when="maybe"), output="zzz"),
    )
    assert any("Task a: condition 'maybe' is not of the form" in e for e in errors)
    assert any("output names non-existent task zzz" in e for e in errors)


def test_task_limit_is_enforced_and_settable() -> None:
    tasks = tuple(TaskSpec(id=f"t{i}", skill="emit") for i in range(5))
    assert errors_of(wf(*tasks), max_tasks=4) == ["The workflow has 5 tasks; at most 4 are allowed."]
    assert len(compile_workflow(wf(*tasks), registry=registry, max_tasks=5).order) == 5


def test_default_limit_comes_from_settings(settings: object) -> None:
    settings.WORKFLOW_MAX_TASKS = 2  # type: ignore[attr-defined]
    tasks = tuple(TaskSpec(id=f"t{i}", skill="emit") for i in range(3))
    assert errors_of(wf(*tasks)) == ["The workflow has 3 tasks; at most 2 are allowed."]


def test_thousand_task_dag_validates() -> None:
    tasks = [TaskSpec(id="t0", skill="emit", params={"value": 1})]
    tasks += [
        TaskSpec(
            id=f"t{i}",
            skill="add",
            params={"values": [f"{{{{t{i - 1}.output.value}}}}"]},
            depends_on=(f"t{i - 1}",),
        )
        for i in range(1, 1000)
    ]
    plan = compile_workflow(wf(*tasks), registry=registry, max_tasks=1000)
    assert plan.order == tuple(f"t{i}" for i in range(1000))
