"""``manage.py run_scenarios --decomposer``: the documented LLM choice is refused, not run as the rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def test_llm_is_refused_before_anything_runs(tmp_path: Path) -> None:
    # an absent path would be the first complaint if the decomposer choice were not checked first
    with pytest.raises(CommandError, match=r"LLM decomposer is not available yet.*--decomposer rules"):
        call_command("run_scenarios", str(tmp_path / "absent.yaml"), "--decomposer", "llm")


@pytest.mark.parametrize("flags", [[], ["--decomposer", "rules"]])
def test_rules_is_the_default_and_gets_past_the_check(tmp_path: Path, flags: list[str]) -> None:
    with pytest.raises(CommandError, match="No such scenario file"):
        call_command("run_scenarios", str(tmp_path / "absent.yaml"), *flags)
