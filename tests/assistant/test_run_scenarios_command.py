"""``manage.py run_scenarios --decomposer``: a model choice without a model is refused, not run as the
rules (tests/llm/test_measuring.py runs it with one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings


@pytest.mark.parametrize("decomposer", ["routed", "llm", "llm-single"])
def test_a_model_choice_without_a_model_is_refused_before_anything_runs(
    tmp_path: Path, decomposer: str
) -> None:
    # an absent path would be the first complaint if the decomposer choice were not checked first
    with (
        override_settings(LLM_MODEL="", LLM_BASE_URL=""),
        pytest.raises(
            CommandError, match=rf"^The {decomposer} decomposer needs .*Set LLM_MODEL.*LLM_BASE_URL"
        ),
    ):
        call_command("run_scenarios", str(tmp_path / "absent.yaml"), "--decomposer", decomposer)


@pytest.mark.parametrize("flags", [[], ["--decomposer", "rules"]])
def test_rules_is_the_default_and_gets_past_the_check(tmp_path: Path, flags: list[str]) -> None:
    with pytest.raises(CommandError, match="No such scenario file"):
        call_command("run_scenarios", str(tmp_path / "absent.yaml"), *flags)
