"""``manage.py run_scenarios --decomposer``: the rules are the default (a model choice without a model
is refused: tests/assistant/test_eval_decomposer.py; tests/llm/test_measuring.py runs it with one)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError


@pytest.mark.parametrize("flags", [[], ["--decomposer", "rules"]])
def test_rules_is_the_default_and_gets_past_the_check(tmp_path: Path, flags: list[str]) -> None:
    with pytest.raises(CommandError, match="No such scenario file"):
        call_command("run_scenarios", str(tmp_path / "absent.yaml"), *flags)


SCENARIO = """\
name: fresh-clone
description: a question on a calendar of one event
now: "2026-03-04T09:00"
timezone: America/New_York
calendars:
  - key: personal
    name: Personal
    default: true
    events:
      - {id: dentist, summary: Dentist, start: "2026-03-06T11:00", end: "2026-03-06T12:00"}
turns:
  - user: "what's on friday?"
    expect: {kind: answer, mentions: ["Dentist"]}
final:
  - {event: dentist, unchanged: true}
"""


def test_a_database_never_migrated_runs_the_scenarios_in_one_of_their_own(tmp_path: Path) -> None:
    """A fresh clone's run crashed on 'no such table: auth_user'; its database stays as it was."""
    (tmp_path / "fresh.yaml").write_text(SCENARIO, encoding="utf-8")
    database = tmp_path / "never-migrated.sqlite3"
    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": f"sqlite:///{database}"}
    done = subprocess.run(
        [sys.executable, "manage.py", "run_scenarios", str(tmp_path / "fresh.yaml"), "--json"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["passed"] == 1
    if database.exists():  # opened (WAL sets up its header), and nothing made in it
        with closing(sqlite3.connect(database)) as opened:
            assert opened.execute("SELECT name FROM sqlite_master").fetchall() == []
