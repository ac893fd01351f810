"""The chat turn: the one function the websocket consumer, the HTTP view and the scenario runner call."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from assistant.answers import ASK_AGAIN, DECLINE, NOT_AN_ANSWER, Amended, after_no, answer_for
from assistant.decomposer.changes import undo_workflow
from assistant.decomposer.handlers import only_a_new_time
from assistant.decomposer.state import ABOUT_ONE_SHOWN, DECLINED, PASSING, Draft
from assistant.models import Conversation, Message, ReplyKind
from assistant.planning import DecomposeRequest, decompose
from preferences.selectors import ignored_note, preferences_checked, user_timezone
from skills.freshness import refresh_stale_accounts
from skills.models import ChangeRecord
from workflows import events
from workflows.definition import Decision
from workflows.engine import run_cancel, run_start
from workflows.models import RunStatus, WorkflowRun
from workflows.persistence import run_resume_claim
from workflows.scheduler import SKIPPED_BECAUSE, TaskStatus
from workflows.tasks import dispatch_run
from workflows.validation import WorkflowValidationError

__all__ = ["chat_turn", "clean_text", "conversation_create", "run_settled"]

logger = logging.getLogger("assistant")

HISTORY_TURNS = 10


# Control characters (NUL, escapes, bells) are nobody's words, and PostgreSQL refuses NUL in text;
# line breaks and tabs are kept, carriage returns become line breaks.
_CONTROL = dict.fromkeys([*range(9), 11, 12, *range(14, 32), *range(127, 160)])
_CONTROL[0x0D] = None


def clean_text(text: str) -> str:
    """The user's text without control characters (line breaks and tabs kept), trimmed."""
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(_CONTROL).strip()


def conversation_create(*, user: Any, title: str = "") -> Conversation:
    return Conversation.objects.create(user=user, title=title[:200])


def chat_turn(*, user: Any, conversation: Conversation, text: str, undo: str | None = None) -> Message | None:
    """Take one message from the user and produce the assistant's reply.

    ``undo`` is the run a reply's Undo button names: the turn then reverts that run instead of being
    decomposed (the button's ``text`` is what the conversation shows the user said).
    Returns the reply, or None when a worker will produce it later (it then arrives over the
    websocket, and in the conversation's history).
    """
    if conversation.user_id != user.pk:
        raise PermissionError("This conversation belongs to someone else.")
    refresh_stale_accounts(user, answering=conversation.pending_run_id is not None)  # no stale mirror
    text = clean_text(text)
    user_message = _message_add(conversation, role=Message.Role.USER, text=text)
    if not conversation.title:
        conversation.title = text[:80]
        conversation.save(update_fields=["title", "updated_at"])
    waiting = _pending(conversation)
    draft: Draft | None = None  # the one new event the waiting preview shows, if that is what it shows
    if waiting is not None and undo is None:
        tz = ZoneInfo(waiting.timezone)
        payload = waiting.pause_payload or {}
        now = timezone.now().astimezone(tz)
        answer = answer_for(text, payload, tz=tz, now=now)
        if answer is ASK_AGAIN:
            return _ask_again(conversation, payload)
        if answer is DECLINE or isinstance(answer, Amended):  # the preview is set aside, unapplied
            run_cancel(run_id=waiting.pk, user=user)
            _pending_clear(conversation)
        draft = Draft.of_preview(payload, tz)
        if isinstance(answer, Amended) and draft is not None:
            # "yes, but call it Book club": the new event shown, with the change, is read again
            text = answer.request
            conversation.context = _describing(conversation.context, draft)
            waiting, answer = None, NOT_AN_ANSWER
        elif isinstance(answer, Amended) and _corrects_a_move(answer, payload, now):
            # "yes, but make it 5" to a move shown first: declined, and the change read as a
            # correction of it ("no, make it 5"), with the event it would have changed as "it"
            text = answer.request
            conversation.context = _after_declining(conversation.context, payload, None)
            waiting, answer = None, NOT_AN_ANSWER
        elif isinstance(answer, Amended):
            return _message_add(
                conversation,
                role=Message.Role.ASSISTANT,
                kind=ReplyKind.CLARIFY,
                text=(
                    f'I left your calendar as it was: "{answer.change}" changes what I showed you. '
                    "Say the request again with the change in it, and I'll show you the new version first."
                ),
            )
        if answer is DECLINE:
            rest = after_no(text)
            if not rest:
                return _message_add(
                    conversation,
                    role=Message.Role.ASSISTANT,
                    kind=ReplyKind.ANSWER,
                    text="OK, I left your calendar as it was.",
                )
            # "No, find another time that day": declined, and the rest is a request about what was
            # declined, which the decomposer reads with it in the context.
            text = rest
            conversation.context = _after_declining(conversation.context, payload, draft)
            waiting, answer = None, NOT_AN_ANSWER
        if waiting is not None and answer is not NOT_AN_ANSWER:
            return _resume(conversation, waiting, user_message, user=user, answer=answer)
    if waiting is not None:
        run_cancel(run_id=waiting.pk, user=user)
        _pending_clear(conversation)
        if draft is not None:  # "call it Book club" instead of a yes: the new event shown goes on
            conversation.context = _describing(conversation.context, draft)
        _message_add(
            conversation,
            role=Message.Role.ASSISTANT,
            kind=ReplyKind.ANSWER,
            text="I set aside the earlier request that was waiting for your answer; it changed nothing.",
        )
    if undo is not None:
        decision = Decision(kind="workflow", workflow=undo_workflow(undo))
        return _run(conversation, user_message, decision, user=user, timezone_name=user_timezone(user=user))
    request = DecomposeRequest(
        text=text,
        user=user,
        timezone=user_timezone(user=user),
        history=[
            (m.role, m.text)
            for m in conversation.messages.order_by("-created_at", "-id")[1 : HISTORY_TURNS + 1]
        ][::-1],
        context=conversation.context,
    )
    decision = decompose(request)
    for note in decision.notes:  # why the turn was read as it was (the model was down, a budget spent)
        _message_add(
            conversation,
            role=Message.Role.ASSISTANT,
            kind=ReplyKind.ANSWER,
            text=note,
            trace_id=decision.trace_id,
        )
    # What only the next turn may use (the event being assembled, what the reply asked) ends here.
    remembered = {k: v for k, v in conversation.context.items() if k not in PASSING}
    if remembered != conversation.context or decision.context_update:
        conversation.context = {**remembered, **decision.context_update}
        conversation.save(update_fields=["context", "updated_at"])
    if decision.kind != "workflow" or decision.workflow is None:
        kind = decision.reply_kind or decision.kind
        context_before = conversation.context
        reply_text = _preference_note(conversation, decision.text)
        if conversation.context is not context_before:
            conversation.save(update_fields=["context", "updated_at"])
        return _message_add(
            conversation,
            role=Message.Role.ASSISTANT,
            kind=kind,
            text=reply_text,
            trace_id=decision.trace_id,
        )
    return _run(conversation, user_message, decision, user=user, timezone_name=request.timezone)


def _run(
    conversation: Conversation, user_message: Message, decision: Decision, *, user: Any, timezone_name: str
) -> Message | None:
    """Start the decision's workflow for this turn; its reply arrives through :func:`run_settled`."""
    assert decision.workflow is not None
    try:
        run = run_start(
            user=user,
            definition=decision.workflow,
            timezone_name=timezone_name,
            channel_group=conversation.channel_group,
            trace_id=decision.trace_id,
        )
    except WorkflowValidationError as exc:
        # The message itself stays out of the log (it is the user's text); its id finds it.
        logger.error(
            "trace %s: the plan for message %s was invalid: %s",
            decision.trace_id,
            user_message.pk,
            exc.errors,
        )
        return _message_add(
            conversation,
            role=Message.Role.ASSISTANT,
            kind=ReplyKind.ERROR,
            text="I could not put together a valid plan for that. Could you rephrase it?",
            trace_id=decision.trace_id,
        )
    user_message.run = run
    user_message.trace_id = decision.trace_id
    user_message.save(update_fields=["run", "trace_id"])
    return _dispatch(conversation, run, user_message, later=LATER)


# What the user is told when the workers cannot be reached: the turn is stored, and the sweeper
# hands it to them when they can.
LATER = "I can't get to that right now, but I've kept it: I'll get back to you here as soon as I can."
LATER_ANSWER = (
    "I've got your answer, but I can't act on it right now: I'll get back to you here as soon as I can."
)


def _dispatch(conversation: Conversation, run: WorkflowRun, turn: Message, *, later: str) -> Message | None:
    """Hand the run to the workers; returns its reply if it is already written (eager mode), or the
    note that it will come later if the broker could not take it (the sweeper sends it on)."""
    notes: list[Message] = []

    def undelivered() -> None:
        notes.append(
            _message_add(conversation, role=Message.Role.ASSISTANT, kind=ReplyKind.ANSWER, text=later)
        )

    dispatch_run(run.pk, undelivered=undelivered)
    reply = Message.objects.filter(
        conversation=conversation, run=run, role=Message.Role.ASSISTANT, pk__gt=turn.pk
    ).last()
    return reply or (notes[-1] if notes else None)


def _pending(conversation: Conversation) -> WorkflowRun | None:
    """The run waiting for an answer, read from the database: it may have paused in another process."""
    conversation.refresh_from_db(fields=["pending_run", "context"])
    run = conversation.pending_run
    return run if run is not None and run.status == RunStatus.PAUSED else None


def _pending_clear(conversation: Conversation) -> None:
    conversation.pending_run = None
    conversation.save(update_fields=["pending_run", "updated_at"])


def _resume(
    conversation: Conversation, run: WorkflowRun, user_message: Message, *, user: Any, answer: Any
) -> Message | None:
    """Continue the waiting workflow with this answer; a second answer to the same question is told so."""
    if run.pause_id is None or not run_resume_claim(
        run_id=run.pk, pause_id=run.pause_id, user=user, answer=answer
    ):
        return _message_add(
            conversation,
            role=Message.Role.ASSISTANT,
            kind=ReplyKind.ANSWER,
            text="That question was already answered.",
        )
    user_message.run = run
    user_message.save(update_fields=["run"])
    return _dispatch(conversation, run, user_message, later=LATER_ANSWER)


SET_ASIDE = "I set aside the earlier request that was waiting for your answer; it changed nothing."


def run_settled(run: WorkflowRun) -> None:
    """Engine listener: turn a run that paused, finished or failed into the assistant's reply.

    Replies of one conversation are written one at a time (its row locked): two requests sent at
    once may settle in any order, and the conversation must end up waiting on the question that is
    still open, with a note for the one set aside, never on a question nobody can answer.
    """
    origin = Message.objects.filter(run=run, role=Message.Role.USER).only("conversation_id").first()
    if origin is None:
        return  # a run started outside a conversation (the scenario runner's direct runs, the bench)
    with transaction.atomic():
        conversation = Conversation.objects.select_for_update().get(pk=origin.conversation_id)
        waiting_on = conversation.pending_run_id
        if (
            run.status == RunStatus.PAUSED
            and not WorkflowRun.objects.filter(pk=run.pk, status=RunStatus.PAUSED).exists()
        ):
            # A newer request of this conversation paused meanwhile and set this one aside.
            _message_add(
                conversation, role=Message.Role.ASSISTANT, kind=ReplyKind.ANSWER, text=SET_ASIDE, run=run
            )
            return
        if waiting_on is not None and waiting_on != run.pk and run.status == RunStatus.PAUSED:
            # This pause set aside the question the conversation was waiting on (the database keeps
            # one question open per conversation): say so before asking the new one.
            conversation.pending_run = None
            _message_add(conversation, role=Message.Role.ASSISTANT, kind=ReplyKind.ANSWER, text=SET_ASIDE)
        kind, text, data = _reply(conversation, run)
        if run.status == RunStatus.PAUSED:
            conversation.pending_run = run
        elif conversation.pending_run_id == run.pk:
            conversation.pending_run = None
        text = _preference_note(conversation, text)
        conversation.save(update_fields=["pending_run", "context", "updated_at"])
        _message_add(conversation, role=Message.Role.ASSISTANT, kind=kind, text=text, data=data, run=run)


def _reply(conversation: Conversation, run: WorkflowRun) -> tuple[str, str, dict[str, Any]]:
    """The kind, text and data of the reply to a settled run; what it showed is remembered."""
    if run.status == RunStatus.PAUSED:
        payload = run.pause_payload or {}
        data = {k: v for k, v in payload.items() if k not in ("kind", "text")}
        return payload.get("kind", ReplyKind.CONFIRM), payload.get("text", ""), data
    if run.status == RunStatus.SUCCEEDED:
        result = run.result or {}
        data = result.get("data") or {}
        _remember(conversation, run, data)
        return result.get("kind", ReplyKind.ANSWER), result.get("text", ""), data
    if run.question:
        # A step failed because the plan was wrong, and the replanner asked rather than guessed.
        return ReplyKind.CLARIFY, run.question, {}
    if ChangeRecord.objects.filter(run_id=run.pk, undone_by__isnull=True).exists():
        # A step after the changes were applied failed: the calendar did change, and says so, with undo.
        data = {"undo": {"run_id": str(run.pk)}}
        _remember(conversation, run, data)
        return (
            ReplyKind.DONE,
            "Your calendar was changed, but I couldn't finish the rest: " + _failure(run),
            data,
        )
    return ReplyKind.ERROR, "I couldn't finish that: " + _failure(run), {}


def _failure(run: WorkflowRun) -> str:
    """Why a run failed, in the words of the step that failed first: the user never sees task names
    or the steps that were skipped because of it (the whole trace stays on the run, for the admin).
    A run failed as a whole, with no step failing (the sweeper gave up on it), says why itself."""
    errors = list(run.task_runs.filter(status=TaskStatus.FAILED).values_list("error", flat=True))
    if not errors:
        return run.error or "something went wrong."
    first = next((e for e in errors if not e.startswith(SKIPPED_BECAUSE)), "")
    return first or "something went wrong."


# Stored preferences the conversation was told were ignored (so it is told once, again only if it recurs).
PREFERENCES_IGNORED = "preferences_ignored"


def _preference_note(conversation: Conversation, text: str) -> str:
    """The reply, followed by a note on stored preferences that were ignored because they no longer
    validate (the first time this conversation meets each one); updates ``conversation.context``."""
    problems = preferences_checked(user=conversation.user_id).problems
    told = conversation.context.get(PREFERENCES_IGNORED) or []
    fresh = [p for p in problems if p.text not in told]
    current = [p.text for p in problems]
    if current != told:
        context = {k: v for k, v in conversation.context.items() if k != PREFERENCES_IGNORED}
        conversation.context = {**context, PREFERENCES_IGNORED: current} if current else context
    if not fresh:
        return text
    note = ignored_note(fresh, where=reverse("preferences:settings"))
    return f"{text}\n\n{note}" if text else note


def _corrects_a_move(answer: Amended, payload: dict[str, Any], now: datetime) -> bool:
    """Whether a yes with a change ("yes, but make it 5") only moves elsewhere the one event a preview
    changes; a change that asks for more ("but invite Bo too") would drop what was shown."""
    rows = [row for row in payload.get("preview") or [] if isinstance(row, dict)]
    one = len(rows) == 1 and rows[0].get("action") == "update"
    return one and only_a_new_time(answer.request, now)


def _after_declining(context: dict[str, Any], payload: dict[str, Any], draft: Draft | None) -> dict[str, Any]:
    """The context a turn that declines a preview and asks something else is read in: the rows
    declined ("No, find another time that day"), as the events "it" names, those the preview
    would have changed ("No, move it to Monday instead"), and the one new event it would have made
    as the event being described ("no, call it Book club")."""
    declined = payload.get("preview") or []
    kept = [
        {"summary": row["summary"], **row["before"]}
        for row in declined
        if isinstance(row, dict) and row.get("action") != "create" and (row.get("before") or {}).get("start")
    ]
    context = _describing(context, draft) if draft is not None else context
    return {**context, DECLINED: declined, **({"last_events": kept} if kept else {})}


def _describing(context: dict[str, Any], draft: Draft) -> dict[str, Any]:
    """The context with the new event a preview showed as the event being described, and nothing
    asked: the preview asked for a yes, not for the place its reply would have asked after it."""
    return {**{k: v for k, v in context.items() if k != "asked"}, "draft": draft.model_dump(mode="json")}


def _remember(conversation: Conversation, run: WorkflowRun, data: dict[str, Any]) -> None:
    """What follow-ups may refer to: the events just shown or changed ("it"), the free times offered
    ("the first one"), the run to undo."""
    context = dict(conversation.context)
    if data.get("undo"):
        context["last_applied_run"] = data["undo"]["run_id"]
    changed = [c for c in data.get("changed") or [] if c.get("action") != "delete"]
    if changed:
        context["last_events"] = [
            {"summary": c.get("new_summary") or c["summary"], "start": c["start"], "end": c["end"]}
            for c in changed
            if c.get("start") and c.get("end")
        ]
        if len(changed) == 1 and len(context["last_events"]) == 1:
            # The one event this turn made or changed: what "it's at 4045 Castro Valley Blvd" amends.
            change = changed[0]
            place = change.get("new_location")
            context["made"] = {
                **context["last_events"][0],
                "location": place if place is not None else change.get("location", ""),
                "created": change.get("action") == "create",  # "do the same for Monday" makes another
                # a series made or changed whole: "actually make it 6:30" moves every occurrence of it
                "series": bool(change.get("rrule")) or change.get("scope") == "series",
                "rule": change.get("rrule") or "",  # "do the same for April": how it repeats there
            }
    elif data.get("events") and run.name != ABOUT_ONE_SHOWN:
        context["last_events"] = [
            {"summary": e["summary"], "start": e["start"], "end": e["end"]} for e in data["events"][:20]
        ]
    # the free times a reply offers, which "book the first one" takes; any other reply withdraws them
    offered = [
        {"start": s["start"], "end": s["end"], **({"asked": True} if s.get("asked") else {})}
        for s in data.get("slots") or []
    ][:20]
    if offered:
        context["offered"] = offered
    else:
        context.pop("offered", None)
    conversation.context = context


def _ask_again(conversation: Conversation, payload: dict[str, Any]) -> Message:
    """The open question asked again, with its options, after a yes that picked none of them: the
    user agreed to something, and which one is still theirs to say."""
    data = {k: v for k, v in payload.items() if k not in ("kind", "text")}
    return _message_add(
        conversation,
        role=Message.Role.ASSISTANT,
        kind=ReplyKind.CHOOSE,
        text='Which one? Pick one of the options, say which ("the first one", or its day), or say "none".',
        data=data,
    )


def _message_add(
    conversation: Conversation,
    *,
    role: str,
    text: str,
    kind: str = "",
    data: dict[str, Any] | None = None,
    run: WorkflowRun | None = None,
    trace_id: str = "",
) -> Message:
    message = Message.objects.create(
        conversation=conversation,
        role=role,
        kind=kind,
        text=text,
        data=data or {},
        run=run,
        trace_id=trace_id,
    )
    payload = {"type": "chat.message", "message": message.as_payload()}
    # After commit, so that a client reacting to the event always finds the message in the database.
    transaction.on_commit(lambda: events.publish(conversation.channel_group, payload))
    return message
