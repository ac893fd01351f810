"""The chat's replanner: what a run does when a step shows the plan was wrong, not late.

The engine calls :func:`replan` (``WORKFLOW_REPLANNER``) with the failed step, its failure and what the
run knows (see :mod:`workflows.replanning`), and goes on with what comes back:

- the event is not there (``missing``): a question naming what was looked for and when, listing the
  upcoming events closest to it ("I couldn't find 'dentist' on Friday, March 6. Did you mean one of
  these: ...?");
- the time is taken (``taken``): a revised plan that looks for the next free time of the same length
  with the free-time search of ``plan_create`` / ``plan_move``, and previews it;
- a calendar refused the write (``refused``): new events go to the user's writable default calendar,
  previewed; a change to events in the refusing calendar is answered with a question naming it.

Every revised plan ends in ``apply_changes`` with ``always_ask``: nothing is written without the
user's yes, whatever the first plan would have done.  Plans are built with
:class:`workflows.builder.Plan`; the resolved inputs of the failed run's tasks are their params, so
the new plan needs none of the old one's tasks.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db.models import Q
from django.utils import timezone

from skills.changes import Change, ChangeSet
from skills.formatting import format_day, format_when
from skills.models import Calendar
from skills.providers import provider_for
from skills.providers.base import Occurrence
from skills.schemas import EventItem
from workflows.builder import Plan, Ref
from workflows.definition import WorkflowDefinition
from workflows.replanning import Escalation

__all__ = ["replan"]

SEARCH_DAYS = 7
"""How far after a taken time the next free one is looked for."""
NEAREST = 3
"""Events offered when the one asked about is not there."""
LOOK_AHEAD = timedelta(days=14)
"""Where the events offered instead are looked for when the searched range holds none still to come."""


def replan(escalation: Escalation) -> WorkflowDefinition | str | None:
    """A revised plan, a question, or None (the run then fails as it would have)."""
    if escalation.failure == "missing":
        return _missing(escalation)
    if escalation.failure == "taken":
        return _taken(escalation)
    if escalation.failure == "refused":
        return _refused(escalation)
    return None


# -- the event is not there -----------------------------------------------------------------------------
def _missing(escalation: Escalation) -> str | None:
    search = _search_of(escalation)
    if search is None:
        return None
    tz = ZoneInfo(escalation.run.timezone)
    words = str(search.get("text") or "").strip()
    start, end = _moment(search.get("start")), _moment(search.get("end"))
    looked_for = f"{words!r}" if words else "the event you meant"
    when = _range_words(start, end, tz)
    nearest = _nearest(escalation, words, start, end)
    head = f"I couldn't find {looked_for}{when}."
    if not nearest:
        return f"{head} Could you name it differently, or give its day?"
    listed = "; ".join(f"{o.summary!r} ({format_when(o.start, tz)})" for o in nearest)
    return f"{head} Did you mean one of these: {listed}?"


def _search_of(escalation: Escalation) -> Mapping[str, Any] | None:
    """The resolved params of the search the failed task's events came from (its nearest
    ``find_events`` ancestor), or None when it read no search."""
    definition = escalation.definition
    by_id = {t.id: t for t in definition.tasks}
    todo, seen = [escalation.task_id], set()
    while todo:
        tid = todo.pop(0)
        if tid in seen or tid not in by_id:
            continue
        seen.add(tid)
        task = by_id[tid]
        if task.skill == "find_events" and tid in escalation.inputs:
            return escalation.inputs[tid]
        todo.extend(task.depends_on)
    return None


def _range_words(start: datetime | None, end: datetime | None, tz: ZoneInfo) -> str:
    if start is None or end is None:
        return ""
    first = start.astimezone(tz).date()
    last = (end - timedelta(microseconds=1)).astimezone(tz).date()
    if first == last:
        return f" on {format_day(first)}"
    if (last - first).days <= 31:
        return f" between {format_day(first)} and {format_day(last)}"
    return " in your calendar"  # the search of a turn that named no day: the coming year


def _nearest(
    escalation: Escalation, words: str, start: datetime | None, end: datetime | None
) -> list[Occurrence]:
    """Upcoming events the user may have meant: those of the searched range still to come (or of the
    next two weeks when it holds none), the titles most like the words asked for first."""
    now = timezone.now()
    provider = provider_for(escalation.run.user)
    lo = max(start, now) if start is not None else now
    hi = end if end is not None and end > lo else lo + LOOK_AHEAD
    found = [o for o in provider.list_occurrences(start=lo, end=hi) if o.summary and o.start >= now]
    if not found:
        found = [o for o in provider.list_occurrences(start=now, end=now + LOOK_AHEAD) if o.summary]
    wanted = words.casefold()

    def likeness(o: Occurrence) -> float:
        return difflib.SequenceMatcher(None, wanted, o.summary.casefold()).ratio() if wanted else 0.0

    ranked = sorted(found, key=lambda o: (-likeness(o), o.start))
    return ranked[:NEAREST]


# -- the time is taken ----------------------------------------------------------------------------------
def _taken(escalation: Escalation) -> WorkflowDefinition | None:
    applied = _applied(escalation)
    if applied is None:
        return None
    changes, apply_params = applied
    provider = provider_for(escalation.run.user)
    tz = ZoneInfo(escalation.run.timezone)
    for change in changes.changes:
        if change.start is None or change.end is None or change.all_day:
            continue
        clash = next(
            (
                o
                for o in provider.list_occurrences(start=change.start, end=change.end)
                if o.busy and o.occurrence_key != change.key
            ),
            None,
        )
        if clash is None:
            continue
        was = format_when(change.start, tz)
        note = f"{was} is taken now ({clash.summary!r}), so here is the next free time of the same length."
        if len(changes.changes) > 1:
            return None  # a set of several changes is not split: the user asks again
        return _next_free(escalation, change, apply_params, note)
    return None


def _next_free(
    escalation: Escalation, change: Change, apply_params: Mapping[str, Any], note: str
) -> WorkflowDefinition | None:
    minutes = _minutes(change)
    if change.start is None or minutes is None:
        return None
    until = change.start + timedelta(days=SEARCH_DAYS)
    plan = Plan()
    n = escalation.previous + 1
    if change.action == "create":
        planned = plan.add(
            "plan_create",
            {
                "summary": change.summary,
                "start": _iso(change.start),
                "search_end": _iso(until),
                "duration_minutes": minutes,
                "calendar": change.calendar,
                "attendees": change.attendees,
                "location": change.location,
                "rrule": change.rrule,
            },
            id=f"replan{n}-plan",
            summary=f"Find the next free time for {change.summary}",
        )
    else:
        item = _event_of(escalation, change)
        if item is None:
            return None
        planned = plan.add(
            "plan_move",
            {
                "events": [item.model_dump(mode="json")],
                "search_start": _iso(change.start),
                "search_end": _iso(until),
                "duration_minutes": minutes,
                "scope": change.scope,
            },
            id=f"replan{n}-plan",
            summary=f"Find the next free time for {change.summary}",
        )
    return _previewed(plan, planned.output, apply_params, note, n, name="next-free-time")


def _event_of(escalation: Escalation, change: Change) -> EventItem | None:
    """The event a change moves, as the run's plan read it (a ``plan_move`` task's input)."""
    for tid, inputs in escalation.inputs.items():
        if escalation.definition.task(tid).skill != "plan_move":
            continue
        for raw in inputs.get("events") or []:
            if isinstance(raw, dict) and raw.get("key") == change.key:
                return EventItem.model_validate(raw)
    return None


# -- a calendar refused the write -----------------------------------------------------------------------
def _refused(escalation: Escalation) -> WorkflowDefinition | str | None:
    applied = _applied(escalation)
    if applied is None:
        return None
    changes, apply_params = applied
    user = escalation.run.user
    # A new event names its calendar by id, a change to an event by the key it was read with.
    named = {c.calendar for c in changes.changes if c.calendar}
    ids = [int(x) for x in named if x.isdigit()]
    refusing = list(
        Calendar.objects.filter(owner=user, writable=False)
        .filter(Q(pk__in=ids) | Q(key__in=named))
        .order_by("name")
    )
    if not refusing:
        return None
    writable = Calendar.objects.filter(owner=user, writable=True).order_by("-is_default", "pk").first()
    names = " and ".join(repr(c.name) for c in refusing)
    said = f"{names} {'is' if len(refusing) == 1 else 'are'} read-only for me"
    if writable is None:
        return f"I couldn't make that change: {said}, and I may write to none of your calendars."
    refused_ids = {str(c.pk) for c in refusing} | {c.key for c in refusing}
    creates = [c for c in changes.changes if c.calendar in refused_ids]
    if any(c.action != "create" for c in creates):
        return (
            f"I couldn't make that change: {said}, so I can't change events in it. "
            f"I can write to {writable.name!r}, your default calendar; should I do something there instead?"
        )
    n = escalation.previous + 1
    plan = Plan()
    planned = []
    for i, change in enumerate(changes.changes):
        calendar = str(writable.pk) if change.calendar in refused_ids else change.calendar
        planned.append(
            plan.add(
                "plan_create",
                {
                    "summary": change.summary,
                    "start": _iso(change.start),
                    "duration_minutes": _minutes(change),
                    "all_day": change.all_day,
                    "last_day": _last_day(change, ZoneInfo(escalation.run.timezone)),
                    "calendar": calendar,
                    "attendees": change.attendees,
                    "location": change.location,
                    "rrule": change.rrule,
                },
                id=f"replan{n}-plan{i + 1}",
                summary=f"Plan {change.summary} in {writable.name}",
            )
        )
    source: Ref = planned[0].output
    if len(planned) > 1:
        source = plan.add(
            "combine_changes", {"sets": [p.output for p in planned]}, id=f"replan{n}-combine"
        ).output
    note = (
        f"I can't write to {names} (read-only for me), so I put it in {writable.name!r}, "
        "your default calendar."
    )
    return _previewed(plan, source, apply_params, note, n, name="create-event")


# -- shared -------------------------------------------------------------------------------------------
def _applied(escalation: Escalation) -> tuple[ChangeSet, dict[str, Any]] | None:
    """The change set the failed task was applying, and its other params; None unless it was
    ``apply_changes`` (the one skill that writes a change set)."""
    if escalation.skill != "apply_changes":
        return None
    inputs = dict(escalation.inputs.get(escalation.task_id) or {})
    raw = inputs.pop("changes", None)
    if not isinstance(raw, dict):
        return None
    changes = ChangeSet.model_validate(raw)
    return (changes, inputs) if changes.changes else None


def _previewed(
    plan: Plan, source: Ref, apply_params: Mapping[str, Any], note: str, n: int, *, name: str
) -> WorkflowDefinition:
    """The plan so far, ending in an ``apply_changes`` of ``source`` that always asks first, with
    ``note`` above its preview; what the first apply was told to do after (a question, notifying) is
    kept; what it was told to expect of the first plan (its day) and was unsure of in it is not."""
    kept = {k: v for k, v in apply_params.items() if k in ("what", "then_ask", "notify")}
    apply = plan.add(
        "apply_changes",
        {**kept, "changes": source, "always_ask": True, "unsure": note},
        id=f"replan{n}-apply",
        summary="Apply, once approved",
    )
    return plan.build(name, summary=note, output=apply)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _last_day(change: Change, tz: ZoneInfo) -> str | None:
    """For an all-day event over several days, its last day (plan_create's ``last_day``)."""
    if not change.all_day or change.start is None or change.end is None:
        return None
    last = (change.end - timedelta(days=1)).astimezone(tz).date()
    return last.isoformat() if last > change.start.astimezone(tz).date() else None


def _minutes(change: Change) -> int | None:
    if change.start is None or change.end is None or change.all_day:
        return None
    return int((change.end - change.start).total_seconds() // 60)


def _moment(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None
