"""``manage.py run_scenarios --decomposer``: the rules are the default (a model choice without a model
is refused: tests/assistant/test_eval_decomposer.py; tests/llm/test_measuring.py runs it with one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


@pytest.mark.parametrize("flags", [[], ["--decomposer", "rules"]])
def test_rules_is_the_default_and_gets_past_the_check(tmp_path: Path, flags: list[str]) -> None:
    with pytest.raises(CommandError, match="No such scenario file"):
        call_command("run_scenarios", str(tmp_path / "absent.yaml"), *flags)
