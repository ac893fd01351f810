"""Load: 50 signed-in websocket users for 60 s against one daphne and two workers (see
``assistant.bench.load``): half only read, half approve a move and undo it.  No errors at all; the
figures (p50/p95 of a turn, messages per second, daphne's memory growth over 1,000 turns) are printed
for the record and the memory growth must stay within 20 MB.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection

from assistant.bench.load import LoadStack, drive, load_users
from tests.integration.conftest import chat_listener_error, database_url

pytestmark = [pytest.mark.integration, pytest.mark.reliability, pytest.mark.django_db(transaction=True)]

USERS = int(os.environ.get("LOAD_USERS", "50"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "60"))
# On past the minute, if need be, until daphne's memory is read after 1,000 turns. Alone on two cores
# the stack serves about 20 turns a second (1,000 turns in under a minute); in CI it shares them with
# both unit passes and served 7 a second (898 turns at 150 s), so the cap leaves room for that.
MAX_SECONDS = float(os.environ.get("LOAD_MAX_SECONDS", "300"))
MEMORY_MB = 20


def test_fifty_users_for_a_minute_without_an_error(redis_url: str, tmp_path: Path) -> None:
    if chat_listener_error():
        pytest.skip(chat_listener_error())
    users = load_users(USERS)
    stack = LoadStack(
        log_dir=tmp_path,
        env={
            "DJANGO_SETTINGS_MODULE": "assistant.settings",
            "DEBUG": "1",
            "SECRET_KEY": str(django_settings.SECRET_KEY),
            "DATABASE_URL": database_url(connection.settings_dict),
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
        },
    )
    with stack.running():
        report = asyncio.run(drive(stack, users, seconds=SECONDS, max_seconds=MAX_SECONDS))
    print("load:", report.summary())
    assert report.errors == []
    assert report.turns >= USERS
    assert report.turns_at_memory >= 1000, report.summary()
    growth = report.memory_growth_mb
    assert growth is not None
    assert growth <= MEMORY_MB, report.summary()
