"""HTTP views: the chat page, and the JSON fallback the page uses when its websocket is not open.

Every view is thin: it validates its input, calls one service or selector and serializes the result.
Conversations are always looked up through :func:`assistant.selectors.conversation_get`, which is
scoped to the signed-in user, so another user's conversation id is a plain 404 (never a 403 that would
confirm the id exists).
"""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
)
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic_core import PydanticCustomError

from assistant.models import Conversation
from assistant.selectors import conversation_get, conversation_list, message_list
from assistant.services import chat_turn, clean_text, conversation_create

__all__ = [
    "MESSAGE_MAX_CHARS",
    "SendInput",
    "chat",
    "conversation_detail",
    "conversation_new",
    "conversation_url",
    "healthz",
    "message_send",
    "messages_json",
    "unreadable_body",
    "validation_message",
]

MESSAGE_MAX_CHARS = 2000


def _words(text: str) -> str:
    """The text as the chat stores it (control characters stripped), refused when nothing is left or
    when it holds a lone surrogate (JSON can escape one; no database or page can store it)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        raise PydanticCustomError("string_unicode", "not valid unicode") from None
    cleaned = clean_text(text)
    if not cleaned:
        raise PydanticCustomError("string_too_short", "nothing but control characters")
    return cleaned


class SendInput(BaseModel):
    """One message typed by the user, as the form, the JSON body and the websocket all carry it."""

    model_config = ConfigDict(extra="ignore")

    text: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=MESSAGE_MAX_CHARS),
        AfterValidator(_words),
    ]
    undo: uuid.UUID | None = Field(default=None, description="The run a reply's Undo button reverts.")

    @property
    def undo_run(self) -> str | None:
        return str(self.undo) if self.undo else None


class _AfterInput(BaseModel):
    """The polling cursor: only messages with a larger id than ``after`` are returned."""

    after: int = Field(default=0, ge=0)


def validation_message(exc: ValidationError) -> str:
    """One sentence a person can act on, instead of pydantic's full error list."""
    err = exc.errors()[0]
    field = ".".join(str(part) for part in err.get("loc", ())) or "message"
    kind = err.get("type", "")
    if kind == "missing" or kind == "string_too_short":
        return f"The {field} is required."
    if kind == "string_too_long":
        return f"The {field} is too long: at most {MESSAGE_MAX_CHARS} characters."
    if kind == "string_type":
        return f"The {field} must be a string."
    if kind == "string_unicode":
        return f"The {field} is not valid text: it holds a broken character."
    return f"Invalid {field}: {err.get('msg', 'not valid')}."


def _wants_json(request: HttpRequest) -> bool:
    """The page's script asks for JSON; a plain form post (no script) gets a redirect instead."""
    return (
        "application/json" in request.headers.get("Accept", "") or request.content_type == "application/json"
    )


def _bad_request(message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=400)


def unreadable_body(exc: Exception) -> JsonResponse:
    """The answer to a body Django refuses to read: too big (413), too many fields or files, or a
    broken form (400)."""
    if isinstance(exc, RequestDataTooBig):
        return JsonResponse(
            {"error": f"That is far too long: a message has at most {MESSAGE_MAX_CHARS} characters."},
            status=413,
        )
    return _bad_request("The form could not be read.")


def _own_conversation(request: HttpRequest, conversation_id: uuid.UUID) -> Conversation:
    """The signed-in user's conversation, or 404: someone else's id must look exactly like a missing one."""
    try:
        return conversation_get(user=request.user, conversation_id=conversation_id)
    except Conversation.DoesNotExist:
        raise Http404("No such conversation.") from None


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness for operators and load balancers: no login, no database, just "the process answers"."""
    return HttpResponse("ok", content_type="text/plain")


@login_required
@require_GET
def chat(request: HttpRequest) -> HttpResponse:
    """The landing page: continue the newest conversation, or start the user's first one."""
    conversation = conversation_list(user=request.user).first() or conversation_create(user=request.user)
    return redirect("conversation", conversation_id=conversation.pk)


@login_required
@require_POST
def conversation_new(request: HttpRequest) -> HttpResponse:
    conversation = conversation_create(user=request.user)
    if _wants_json(request):
        return JsonResponse({"id": str(conversation.pk), "url": conversation_url(conversation)}, status=201)
    return redirect("conversation", conversation_id=conversation.pk)


def conversation_url(conversation: Conversation) -> str:
    return reverse("conversation", kwargs={"conversation_id": conversation.pk})


@never_cache
@login_required
@require_GET
def conversation_detail(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
    """The chat page; the history is embedded as JSON, so the script renders it like live messages."""
    conversation = _own_conversation(request, conversation_id)
    return render(
        request,
        "assistant/chat.html",
        {
            "conversation": conversation,
            "conversations": conversation_list(user=request.user)[:50],
            "history": [m.as_payload() for m in message_list(conversation=conversation)],
            "message_max_chars": MESSAGE_MAX_CHARS,
        },
    )


@login_required
@require_POST
def message_send(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponseBase:
    """The HTTP fallback for one chat turn (the websocket's ``chat.send``).

    Answers 200 with the user's message and the reply, or 202 with only the user's message when a
    worker will answer later (the page then polls ``messages/``).
    """
    conversation = _own_conversation(request, conversation_id)
    raw: Any
    try:
        if request.content_type == "application/json":
            try:
                raw = json.loads(request.body or b"null")
            except (ValueError, RecursionError):  # RecursionError: arrays nested thousands deep
                return _bad_request("The body is not valid JSON.")
            if not isinstance(raw, dict):
                return _bad_request('Send a JSON object like {"text": "..."}.')
        else:
            raw = request.POST.dict()
    except (RequestDataTooBig, SuspiciousOperation, MultiPartParserError) as exc:
        return unreadable_body(exc)
    try:
        data = SendInput.model_validate(raw)
    except ValidationError as exc:
        return _bad_request(validation_message(exc))

    # Everything after the newest message before this turn was produced by it (the user's message,
    # and the reply unless a worker answers later).
    before = message_list(conversation=conversation).order_by("-id").values_list("id", flat=True).first() or 0
    reply = chat_turn(user=request.user, conversation=conversation, text=data.text, undo=data.undo_run)
    if not _wants_json(request):
        return redirect("conversation", conversation_id=conversation.pk)
    created = message_list(conversation=conversation).filter(id__gt=before)
    return JsonResponse({"messages": [m.as_payload() for m in created]}, status=200 if reply else 202)


@never_cache
@login_required
@require_GET
def messages_json(request: HttpRequest, conversation_id: uuid.UUID) -> JsonResponse:
    """The history as JSON, for polling while a worker is still answering (``?after=<id>`` for new ones)."""
    conversation = _own_conversation(request, conversation_id)
    try:
        cursor = _AfterInput.model_validate(request.GET.dict())
    except ValidationError:
        return _bad_request("after must be a non-negative message id.")
    messages = message_list(conversation=conversation).filter(id__gt=cursor.after)
    return JsonResponse({"messages": [m.as_payload() for m in messages]})
