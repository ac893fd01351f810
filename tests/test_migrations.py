"""The migrations are in step with the models: ``run_scenarios`` makes a fresh clone's tables from the
models, and they must be the tables the migrations make."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_is_without_its_migration() -> None:
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # exits 1 when one is missing
    assert "No changes detected" in out.getvalue()
