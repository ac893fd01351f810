"""What a running skill may use besides its input: the runtime dependencies of one task.

Nothing here is persisted: the user, the provider clients and caches are rebuilt for every task, so a
paused workflow stored in the database never holds a credential or a connection (as pydantic-ai keeps
``GraphAgentDeps`` apart from the persistable state).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from django.utils import timezone

if TYPE_CHECKING:
    from skills.providers.base import CalendarProvider

__all__ = ["NO_ANSWER", "Interrupt", "SkillContext"]

logger = logging.getLogger("skills")

NO_ANSWER: Any = object()


class Interrupt(Exception):  # noqa: N818 - named for what it does, like LangGraph's interrupt()
    """Raised by :meth:`SkillContext.interrupt` to pause the workflow until the user answers.

    The engine stores the payload (the question, options and preview the chat shows) and, on resume,
    runs the same task again from its start with the answer available; a skill that interrupts must
    therefore do nothing before the interrupt that it would regret doing twice.
    """

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload.get("text", "waiting for the user"))
        self.payload = payload


class _RunLogger(logging.LoggerAdapter[logging.Logger]):
    """Prefixes every line with the run and task, so one run's story can be grepped out of the logs."""

    def process(self, msg: Any, kwargs: Any) -> tuple[Any, Any]:
        extra = self.extra or {}
        return f"[run={extra.get('run_id', '-')} task={extra.get('task_id', '-')}] {msg}", kwargs


@dataclass
class SkillContext:
    """Runtime dependencies of one task: the user, their clock and zone, their calendars."""

    user: Any
    tz: ZoneInfo
    run_id: str = ""
    task_id: str = ""
    # The chat turn's trace (``Decision.trace_id``), so what a skill logs (its model calls) finds the turn.
    trace_id: str = ""
    attempt: int = 1
    answer: Any = NO_ANSWER
    _provider: CalendarProvider | None = field(default=None, repr=False)
    _preferences: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def now(self) -> datetime:
        """The current time in the user's zone (read per call: a resumed task runs days later)."""
        return timezone.now().astimezone(self.tz)

    @property
    def provider(self) -> CalendarProvider:
        if self._provider is None:
            from skills.providers import provider_for

            self._provider = provider_for(self.user)
        return self._provider

    @property
    def preferences(self) -> dict[str, Any]:
        if self._preferences is None:
            from preferences.selectors import preferences_for

            self._preferences = preferences_for(user=self.user)
        return self._preferences

    @property
    def operation_id(self) -> str:
        """An idempotency key for writes: the same task of the same run always gets the same one."""
        return f"{self.run_id}:{self.task_id}"

    @property
    def log(self) -> logging.LoggerAdapter[logging.Logger]:
        return _RunLogger(logger, {"run_id": self.run_id, "task_id": self.task_id})

    def interrupt(self, payload: dict[str, Any]) -> Any:
        """Return the user's answer to this question, or pause the workflow to ask it."""
        if self.answer is not NO_ANSWER:
            return self.answer
        raise Interrupt(payload)
