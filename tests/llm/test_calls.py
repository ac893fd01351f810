"""The model-call log: saved per turn, counted against the daily budget, pruned, shown in the admin."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from io import StringIO
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Permission
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from assistant.celery import app
from assistant.llm.calls import CallRecord
from assistant.llm.usage import daily_tokens_left, prune_model_calls, record_calls, tokens_spent_today
from assistant.models import ModelCall
from assistant.tasks import prune_model_calls as prune_task
from tests.llm.conftest import spent_at

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 3, 9, 0, tzinfo=NY)  # a Tuesday morning in New York, 14:00 UTC
TRACE = "0f" * 16
LIST = reverse("admin:assistant_modelcall_changelist")


def call(tokens_in: int = 100, tokens_out: int = 20, **fields: Any) -> CallRecord:
    values: dict[str, Any] = {
        "phase": "orchestrate",
        "model": "openai:gpt-4.1-mini",
        "outcome": "ok",
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "requests": 1,
        "latency_ms": 812.5,
        "prompt": "Move my dentist appointment to Friday",
        "output": '{"subtasks": [{"service": "calendar"}]}',
    } | fields
    return CallRecord(**values)


@pytest.fixture
def raj() -> Any:
    return get_user_model().objects.create_user("raj", "raj@example.com")


@pytest.fixture
def admin_client(client: Client) -> Client:
    root = get_user_model().objects.create_superuser(username="root", email="root@example.com", password=None)
    client.force_login(root)
    return client


# Saving


def test_a_turns_calls_are_saved_in_one_insert(ann: Any, django_assert_num_queries: Any) -> None:
    records = [call(), call(300, 40, phase="params:event_move", outcome="retried", requests=2)]
    with django_assert_num_queries(1):
        record_calls(ann, TRACE, records)
    saved = ModelCall.objects.filter(user=ann).order_by("id")
    assert [(c.phase, c.outcome, c.input_tokens, c.output_tokens, c.requests) for c in saved] == [
        ("orchestrate", "ok", 100, 20, 1),
        ("params:event_move", "retried", 300, 40, 2),
    ]
    first = saved[0]
    assert first.trace_id == TRACE
    assert first.model == "openai:gpt-4.1-mini"
    assert first.latency_ms == 812.5
    assert first.prompt == "Move my dentist appointment to Friday"
    assert first.output == '{"subtasks": [{"service": "calendar"}]}'


NOBODY = [None, AnonymousUser(), get_user_model()(username="unsaved")]
NOBODY_IDS = ["no user", "anonymous", "unsaved"]


@pytest.mark.parametrize("user", NOBODY, ids=NOBODY_IDS)
def test_nothing_is_saved_without_a_stored_user(user: Any, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        record_calls(user, TRACE, [call()])
    assert not ModelCall.objects.exists()


@pytest.mark.parametrize("user", NOBODY, ids=NOBODY_IDS)
def test_without_a_stored_user_nothing_was_spent(user: Any, ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=1), call(500, 0))
    with time_machine.travel(NOW, tick=False), override_settings(LLM_DAILY_TOKENS=1000):
        assert tokens_spent_today(user) == 0
        assert daily_tokens_left(user) == 1000


def test_no_calls_means_no_query(ann: Any, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        record_calls(ann, TRACE, [])
    assert not ModelCall.objects.exists()


def test_the_log_line_has_the_numbers_never_the_prompt_output_or_error(
    ann: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="assistant.llm"):
        record_calls(ann, TRACE, [call(1234, 56, error="Friday's 'Dentist' clashes")])
    assert "orchestrate" in caplog.text
    assert "openai:gpt-4.1-mini" in caplog.text
    assert "1234 in / 56 out tokens" in caplog.text
    assert "812 ms" in caplog.text
    assert TRACE in caplog.text
    assert "dentist" not in caplog.text.lower()
    assert "subtasks" not in caplog.text


# The daily budget


def test_tokens_spent_today_counts_the_last_24_hours(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=24, minutes=1), call(5000, 0))  # a day and a minute ago: not counted
    spent_at(ann, NOW - timedelta(hours=23, minutes=59), call(100, 20))
    spent_at(ann, NOW - timedelta(minutes=1), call(300, 40), call(7, 3))
    with time_machine.travel(NOW, tick=False):
        assert tokens_spent_today(ann) == 120 + 340 + 10


def test_the_day_rolls_rather_than_resetting_at_midnight(ann: Any) -> None:
    late = datetime(2026, 3, 2, 23, 30, tzinfo=ZoneInfo("UTC"))
    spent_at(ann, late, call(1000, 0))
    with time_machine.travel(late + timedelta(hours=1), tick=False):  # past midnight UTC
        assert tokens_spent_today(ann) == 1000


def test_one_users_calls_never_count_for_another(ann: Any, raj: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=1), call(900, 100))
    spent_at(raj, NOW - timedelta(hours=1), call(30, 5))
    with time_machine.travel(NOW, tick=False), override_settings(LLM_DAILY_TOKENS=1000):
        assert tokens_spent_today(ann) == 1000
        assert tokens_spent_today(raj) == 35
        assert daily_tokens_left(ann) == 0
        assert daily_tokens_left(raj) == 965


def test_a_user_without_calls_has_spent_nothing(ann: Any) -> None:
    with override_settings(LLM_DAILY_TOKENS=400):
        assert tokens_spent_today(ann) == 0
        assert daily_tokens_left(ann) == 400


def test_daily_tokens_left_never_goes_below_zero(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=2), call(700, 0))
    spent_at(ann, NOW - timedelta(hours=1), call(500, 0))  # one turn may overshoot what was left
    with time_machine.travel(NOW, tick=False), override_settings(LLM_DAILY_TOKENS=1000):
        assert daily_tokens_left(ann) == 0


def test_a_daily_limit_of_zero_means_unlimited(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(hours=1), call(10**6, 0))
    with time_machine.travel(NOW, tick=False), override_settings(LLM_DAILY_TOKENS=0):
        assert daily_tokens_left(ann) is None


# Retention


def test_prune_blanks_old_prompts_and_keeps_their_numbers_and_recent_ones(ann: Any) -> None:
    timed_out = call(111, 11, outcome="timeout", error="timed out")
    spent_at(ann, NOW - timedelta(days=31), timed_out, trace_id="old")
    spent_at(ann, NOW - timedelta(days=29), call(222, 22), trace_id="recent")
    with override_settings(LLM_LOG_DAYS=30):
        assert prune_model_calls(now=NOW) == 1
    old, recent = ModelCall.objects.get(trace_id="old"), ModelCall.objects.get(trace_id="recent")
    assert (old.prompt, old.output) == ("", "")
    assert (old.phase, old.input_tokens, old.output_tokens, old.latency_ms) == ("orchestrate", 111, 11, 812.5)
    assert old.error == ""  # an error may quote the model's answer, which quotes the user
    assert old.outcome == "timeout"
    assert recent.prompt == "Move my dentist appointment to Friday"
    assert recent.output != ""
    with override_settings(LLM_LOG_DAYS=30):
        assert prune_model_calls(now=NOW) == 0  # already blank: not counted again


def test_prune_reads_the_clock_when_not_given_a_time(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(days=3), call())
    with time_machine.travel(NOW, tick=False), override_settings(LLM_LOG_DAYS=2):
        assert prune_model_calls() == 1
    assert ModelCall.objects.get().prompt == ""


def test_the_daily_task_and_the_command_prune(ann: Any) -> None:
    spent_at(ann, NOW - timedelta(days=40), call(), trace_id="a")
    with time_machine.travel(NOW, tick=False), override_settings(LLM_LOG_DAYS=30):
        assert prune_task.apply().get() == 1
        spent_at(ann, NOW - timedelta(days=40), call(), trace_id="b")
        out = StringIO()
        call_command("prune_model_calls", stdout=out)
    assert "Blanked the prompt and output of 1 model call(s) over 30 days old" in out.getvalue()
    assert not ModelCall.objects.exclude(prompt="").exists()


def test_celery_finds_the_task_and_beat_runs_it_daily() -> None:
    app.loader.import_default_modules()
    assert "assistant.prune_model_calls" in app.tasks
    entry: dict[str, Any] = settings.CELERY_BEAT_SCHEDULE["model-calls-prune"]
    assert entry == {"task": "assistant.prune_model_calls", "schedule": 86400.0}


# The admin


def test_the_admin_lists_calls_and_finds_a_turn_by_trace_id(admin_client: Client, ann: Any, raj: Any) -> None:
    spent_at(ann, NOW, call(phase="orchestrate"), trace_id=TRACE)
    spent_at(raj, NOW, call(phase="select:calendar"), trace_id="ab" * 16)
    response = admin_client.get(LIST)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="field-phase">orchestrate<' in html
    assert 'class="field-phase">select:calendar<' in html
    # The filter sidebar names every phase; a row's cell is what tells the rows shown.
    found = admin_client.get(LIST, {"q": TRACE}).content.decode()
    assert 'class="field-phase">orchestrate<' in found
    assert 'class="field-phase">select:calendar<' not in found
    by_user = admin_client.get(LIST, {"q": "raj"}).content.decode()
    assert 'class="field-phase">select:calendar<' in by_user
    assert 'class="field-phase">orchestrate<' not in by_user


def test_a_call_shows_its_prompt_and_output_read_only(admin_client: Client, ann: Any) -> None:
    spent_at(ann, NOW, call())
    logged = ModelCall.objects.get()
    page = admin_client.get(reverse("admin:assistant_modelcall_change", args=[logged.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Move my dentist appointment to Friday" in html
    assert "subtasks" in html
    assert 'name="_save"' not in html
    assert admin_client.get(reverse("admin:assistant_modelcall_add")).status_code == 403


def test_only_a_superuser_may_delete_a_call(admin_client: Client, ann: Any) -> None:
    spent_at(ann, NOW, call())
    logged = ModelCall.objects.get()
    delete = reverse("admin:assistant_modelcall_delete", args=[logged.pk])
    staff = get_user_model().objects.create_user("sam", "sam@example.com", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_modelcall", "delete_modelcall"])
    )
    staff_client = Client()
    staff_client.force_login(staff)
    assert staff_client.get(LIST).status_code == 200
    assert staff_client.post(delete, {"post": "yes"}).status_code == 403
    assert ModelCall.objects.filter(pk=logged.pk).exists()
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not ModelCall.objects.filter(pk=logged.pk).exists()
