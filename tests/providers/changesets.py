"""Change sets applied the way a chat turn applies them (the ``apply_changes`` skill, through the
router), for the tests of all-or-nothing across remote calendars."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from skills.catalog import REGISTRY
from skills.changes import Change, ChangeSet
from skills.context import SkillContext
from skills.providers.base import Occurrence
from skills.reply_skills import Reply

NY = ZoneInfo("America/New_York")


def moves(occurrences: list[Occurrence], hours: int = 1) -> list[Change]:
    """Each occurrence moved by ``hours``, as plan_move plans it."""
    return [
        Change(
            action="update",
            summary=o.summary,
            calendar=o.calendar_id,
            event_id=o.event_id,
            recurrence_id=o.recurrence_id,
            etag=o.etag,
            before_start=o.start,
            before_end=o.end,
            start=o.start + timedelta(hours=hours),
            end=o.end + timedelta(hours=hours),
        )
        for o in occurrences
    ]


def approve(user: Any, changes: list[Change], run_id: str = "") -> Reply:
    """Apply ``changes`` as approved (raises the skill's error when it fails); ``run_id`` again
    is the same task re-delivered."""
    definition = REGISTRY.get("apply_changes")
    params = definition.input_model.model_validate(
        {"changes": ChangeSet(changes=changes).model_dump(mode="json"), "approved": True}
    )
    ctx = SkillContext(user=user, tz=NY, run_id=run_id or str(uuid.uuid4()), task_id="t1")
    result: Reply = definition.func(ctx, params)
    return result
