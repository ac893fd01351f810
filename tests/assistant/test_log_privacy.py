"""Nothing the user wrote, and no event title, reaches the logs above DEBUG, however a turn fails.

Each test runs a chat turn that goes wrong in one way (a plan that does not validate, a skill that
crashes with the title in its message, a skill whose output does not validate, a view that raises) with
the root logger at INFO, and reads what the settings' log handler wrote: the failure is logged (by
ids and exception types, with its traceback's frames), the words are not.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from pydantic import BaseModel

import skills.calendar_skills
from assistant import services, views
from assistant.logsafety import WITHHELD, WithholdUserText, exception_summary, validation_summary
from assistant.models import ReplyKind
from assistant.services import chat_turn, conversation_create
from preferences.models import Preference
from skills.services import event_create
from tests.factories import user_with_calendar
from workflows.definition import Decision, TaskSpec, WorkflowDefinition

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)  # a Monday
TITLE = "Quixotic marmalade tasting"
WORDS = ("quixotic", "marmalade")  # in the title, and in what the user types


@pytest.fixture
def log(caplog: pytest.LogCaptureFixture) -> Iterator[io.StringIO]:
    """What the settings' console handler writes while the root logger is at INFO."""
    handlers = [
        h for h in logging.getLogger().handlers if any(isinstance(f, WithholdUserText) for f in h.filters)
    ]
    assert handlers, "the settings' LOGGING handler withholds user text"
    handler = handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    written = io.StringIO()
    before = handler.setStream(written)
    caplog.set_level(logging.INFO)
    try:
        yield written
    finally:
        handler.setStream(before)


def no_words(text: str) -> None:
    found = [w for w in WORDS if w in text.casefold()]
    assert not found, f"the log shows {found}:\n{text}"


@pytest.fixture
def tasting() -> tuple[Any, Any]:
    """A user with the tasting on Tuesday, and a conversation."""
    user, cal = user_with_calendar("taster")
    event_create(
        calendar=cal,
        summary=TITLE,
        start=datetime(2026, 3, 3, 15, tzinfo=NY),
        end=datetime(2026, 3, 3, 16, tzinfo=NY),
    )
    return user, conversation_create(user=user)


def ask_about_tuesday(user: Any, conversation: Any) -> Any:
    with time_machine.travel(NOW, tick=False):
        return chat_turn(
            user=user,
            conversation=conversation,
            text="What do I have on Tuesday? Is the quixotic marmalade on?",
        )


def test_a_plan_that_does_not_validate_is_logged_without_the_users_words(
    monkeypatch: pytest.MonkeyPatch, log: io.StringIO, caplog: pytest.LogCaptureFixture, tasting: Any
) -> None:
    def decompose(request: Any) -> Decision:  # a decomposer that copies the user's words into params
        task = TaskSpec(id="find", skill="find_events", params={"start": request.text, "end": request.text})
        return Decision(kind="workflow", workflow=WorkflowDefinition(name="bad", tasks=(task,)))

    monkeypatch.setattr(services, "decompose", decompose)
    reply = ask_about_tuesday(*tasting)

    assert reply is not None
    assert reply.kind == ReplyKind.ERROR
    assert "was invalid" in log.getvalue()  # logged, by the message's id
    no_words(log.getvalue())
    no_words("\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO))


def test_a_skill_that_crashes_with_the_title_in_its_message_is_logged_without_it(
    monkeypatch: pytest.MonkeyPatch, log: io.StringIO, tasting: Any
) -> None:
    def crash(items: list[Any], *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"cannot filter {[i.summary for i in items]}")

    monkeypatch.setattr(skills.calendar_skills, "filter_items", crash)
    reply = ask_about_tuesday(*tasting)

    assert reply is not None
    assert "crashed" in log.getvalue()
    assert f"RuntimeError: {WITHHELD}" in log.getvalue()  # the traceback stays, its message does not
    assert "calendar_skills.py" in log.getvalue()
    no_words(log.getvalue())


def test_a_skill_output_that_does_not_validate_is_logged_without_the_title(
    monkeypatch: pytest.MonkeyPatch, log: io.StringIO, tasting: Any
) -> None:
    def half(items: list[Any], *args: Any, **kwargs: Any) -> Any:
        return [{"summary": i.summary, "start": "not a time"} for i in items]  # FoundEvents refuses these

    monkeypatch.setattr(skills.calendar_skills, "filter_items", half)
    reply = ask_about_tuesday(*tasting)

    assert reply is not None
    assert "invalid output" in log.getvalue()
    assert "validation error(s) for FoundEvents" in log.getvalue()
    no_words(log.getvalue())


def test_a_view_that_raises_is_logged_without_the_users_words(
    monkeypatch: pytest.MonkeyPatch, log: io.StringIO, tasting: Any
) -> None:
    user, conversation = tasting

    def explode(**kwargs: Any) -> Any:
        raise ValueError(f"could not store {kwargs['text']!r}")

    monkeypatch.setattr(views, "chat_turn", explode)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    response = client.post(
        reverse("message_send", kwargs={"conversation_id": conversation.pk}),
        data={"text": "Add the quixotic marmalade tasting on Friday"},
        headers={"accept": "application/json"},
        content_type="application/json",
    )

    assert response.status_code == 500
    assert "Internal Server Error" in log.getvalue()
    assert f"ValueError: {WITHHELD}" in log.getvalue()
    no_words(log.getvalue())


def test_a_stored_preference_that_no_longer_validates_is_logged_once_without_its_value(
    log: io.StringIO, caplog: pytest.LogCaptureFixture, tasting: Any
) -> None:
    """The probe found 663 lines in one daphne log quoting users' stored values: the field is named,
    once a process, and the value (the user's words) only at DEBUG."""
    user, conversation = tasting
    Preference.objects.bulk_create(  # a raw write, as older data or SQL would leave it
        [
            Preference(
                user=user,
                key="working_hours",
                value={"days": ["marmalade"], "start": "09:00", "end": "17:00"},
            )
        ]
    )
    for _ in range(3):
        ask_about_tuesday(user, conversation)

    lines = [line for line in log.getvalue().splitlines() if "working_hours" in line]
    assert lines == [f"preference working_hours of user {user.pk} ignored: working_hours.days[0] not valid"]
    no_words(log.getvalue())
    no_words("\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO))


def test_debug_records_keep_everything() -> None:
    """An operator who sets LOG_LEVEL=DEBUG asked to see it all: DEBUG records are not rewritten."""
    try:
        raise RuntimeError(TITLE)
    except RuntimeError as exc:
        record = logging.LogRecord("x", logging.DEBUG, __file__, 1, "%s", (exc,), (RuntimeError, exc, None))
    assert WithholdUserText().filter(record)
    assert record.exc_text is None
    assert record.getMessage() == TITLE


def test_the_summaries_keep_types_and_places_only() -> None:
    class Event(BaseModel):
        start: datetime
        count: int

    try:
        Event.model_validate({"start": TITLE, "count": TITLE})
    except Exception as exc:
        summary = validation_summary(exc)  # type: ignore[arg-type]
    assert summary == "2 validation error(s) for Event: start: datetime_from_date_parsing; count: int_parsing"
    try:
        try:
            raise KeyError(TITLE)
        except KeyError as inner:
            raise ValueError(TITLE) from inner
    except ValueError as exc:
        text = exception_summary((ValueError, exc, exc.__traceback__))
    assert text.count(WITHHELD) == 2
    assert "KeyError" in text
    assert "ValueError" in text
    assert "test_log_privacy.py" in text
    no_words(text)


def test_a_celery_workers_own_handlers_withhold_too() -> None:
    """A worker sets up its own handlers (``after_setup_logger``); the app's hook filters them as well."""
    from celery.signals import after_setup_logger, after_setup_task_logger

    import assistant.celery  # noqa: F401  (connects the hook, as the worker's app import does)

    for signal in (after_setup_logger, after_setup_task_logger):
        worker_logger = logging.Logger(f"worker-{signal.name}")
        worker_logger.addHandler(logging.StreamHandler(io.StringIO()))
        signal.send(
            sender=None, logger=worker_logger, loglevel=logging.INFO, logfile=None, format="", colorize=False
        )
        assert any(isinstance(f, WithholdUserText) for f in worker_logger.handlers[0].filters), signal.name
