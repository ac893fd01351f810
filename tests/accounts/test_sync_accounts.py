"""The periodic sync (Celery ``skills.sync_accounts``, ``manage.py sync_accounts``): every connected
account is synced, one failing (refused, or an error nobody foresaw) does not stop the others, and an
account waiting to be reconnected is left alone."""

from __future__ import annotations

from datetime import datetime
from io import StringIO
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.core.management import CommandError, call_command

from skills import accounts
from skills.models import CalendarAccount
from skills.tasks import sync_accounts
from tests.providers.google_fixtures import Connected, connect, google_server, google_settings
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["google_server", "google_settings"]

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("google_settings")]

NOW = datetime(2026, 3, 2, 6, 0, tzinfo=ZoneInfo("America/New_York"))


def _seed(server: GoogleCalendarServer, connected: Connected, summary: str) -> None:
    server.seed_event(
        {
            "summary": summary,
            "start": {"dateTime": "2026-03-04T10:00:00Z", "timeZone": "UTC"},
            "end": {"dateTime": "2026-03-04T11:00:00Z", "timeZone": "UTC"},
        },
        connected.calendar.remote_id,
    )


@pytest.fixture
def four(google_server: GoogleCalendarServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, Connected]:
    """Four connected accounts: two fine, one whose grant was revoked, one that hits a bug; and one
    waiting to be reconnected."""
    people = {name: connect(google_server, f"{name}-sync") for name in ("ann", "bob", "cat", "dan", "eve")}
    for name in ("ann", "cat"):
        _seed(google_server, people[name], f"{name} standup")
    google_server.revoke_refresh_token(account=people["bob"].calendar.remote_id)
    CalendarAccount.objects.filter(pk=people["eve"].account.pk).update(
        status=CalendarAccount.Status.NEEDS_RECONNECT, last_error="revoked earlier"
    )
    real = accounts._provider_sync
    broken = people["dan"].account.pk

    def provider_sync(account: CalendarAccount) -> int:
        if account.pk == broken:
            raise RuntimeError("a bug")
        return real(account)

    monkeypatch.setattr(accounts, "_provider_sync", provider_sync)
    return people


def _state(connected: Connected) -> CalendarAccount:
    connected.account.refresh_from_db()
    return connected.account


def test_the_task_syncs_every_connected_account_past_the_failing_ones(
    google_server: GoogleCalendarServer, four: dict[str, Connected], caplog: pytest.LogCaptureFixture
) -> None:
    google_server.reset_log()
    with time_machine.travel(NOW, tick=False):
        result = sync_accounts.apply().get()
    assert result == {"synced": 2, "failed": 2}
    for name in ("ann", "cat"):
        account = _state(four[name])
        assert account.status == "ok"
        assert datetime.fromisoformat(account.sync_state["last_sync"]) == NOW
        assert account.calendars.get().events.filter(summary=f"{name} standup").exists()
    bob = _state(four["bob"])
    assert bob.status == "needs_reconnect"
    assert "revoked" in bob.last_error
    assert "last_sync" not in bob.sync_state
    assert "a bug" not in _state(four["dan"]).last_error  # a bug is logged, not shown to its owner
    assert f"syncing calendar account {four['dan'].account.pk} failed" in caplog.text
    eve = _state(four["eve"])
    assert (eve.status, eve.last_error) == ("needs_reconnect", "revoked earlier")
    assert "last_sync" not in eve.sync_state


def test_the_command_does_the_same_once_for_cron(four: dict[str, Connected]) -> None:
    out = StringIO()
    with pytest.raises(CommandError, match="2 account"):
        call_command("sync_accounts", stdout=out)
    assert "Synced 2 account(s); 2 failed." in out.getvalue()
    assert _state(four["ann"]).sync_state.get("last_sync")


def test_the_command_succeeds_when_every_account_syncs(google_server: GoogleCalendarServer) -> None:
    connect(google_server, "fay-sync")
    out = StringIO()
    call_command("sync_accounts", stdout=out)
    assert "Synced 1 account(s); 0 failed." in out.getvalue()


def test_celery_finds_the_task_and_beat_runs_it_every_calendar_sync_seconds() -> None:
    from assistant.celery import app

    app.loader.import_default_modules()
    assert "skills.sync_accounts" in app.tasks
    entry: dict[str, Any] = settings.CELERY_BEAT_SCHEDULE["calendar-accounts-sync"]
    assert entry == {"task": "skills.sync_accounts", "schedule": float(settings.CALENDAR_SYNC_SECONDS)}
    assert settings.CALENDAR_SYNC_SECONDS == 300
