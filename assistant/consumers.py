"""The chat websocket: one socket per open conversation page, one channel group per conversation.

Protocol (JSON text frames):

* browser → server: ``{"type": "chat.send", "text": "..."}`` (1 to 2,000 characters); a reply's Undo
  button adds ``"undo": "<run id>"``, the run whose changes to revert.
* server → browser: ``chat.message`` (``message``: a :meth:`Message.as_payload`, for the user's own
  message and for the reply), ``task.started`` / ``task.finished`` (``run_id``, ``task_id``,
  ``summary``; finished also ``status`` and ``error``), ``workflow.paused`` / ``workflow.finished``
  (``run_id``; finished also ``status``), and ``error`` (``message``) for a frame we could not accept.

Close codes: 4401 when nobody is signed in, 4404 when the conversation is not the user's, 1013 (Try
Again Later) when the channel layer cannot be reached: the page reconnects after a growing pause on any
code but the first two, so a Redis outage during the handshake costs a retry, not an HTTP 500.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any, Literal

from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import close_old_connections
from pydantic import ValidationError
from redis.exceptions import RedisError

from assistant.models import Conversation
from assistant.selectors import conversation_get
from assistant.services import chat_turn
from assistant.views import SendInput, validation_message

__all__ = ["CLOSE_FORBIDDEN", "CLOSE_NOT_FOUND", "CLOSE_TRY_AGAIN", "ChatConsumer", "ChatSend"]

logger = logging.getLogger("assistant")

CLOSE_FORBIDDEN = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TRY_AGAIN = 1013
# What the Redis channel layer raises when Redis is down, refuses, or times out (OSError: a socket's own).
LAYER_ERRORS = (RedisError, OSError)


class ChatSend(SendInput):
    """The one message a browser sends: the text the user typed."""

    type: Literal["chat.send"]


class ChatConsumer(AsyncJsonWebsocketConsumer):
    """Forwards a conversation's group events to the browser and runs the turns the browser sends.

    A turn runs as a background task rather than inside ``receive_json``: a consumer handles one
    message at a time, so awaiting the turn there would hold back the ``task.*`` progress events the
    workflow publishes while it runs, and the page would see them all at once at the end.  Turns of
    one socket still run one after another (``_turn_lock``), in the order they were typed.

    A turn's sync code runs in a thread of a pool (``thread_sensitive=False``), not on the one thread
    Channels keeps for sync code: a turn the language model takes seconds to plan, or one waiting on
    a slow CalDAV server, would otherwise hold up every other user's turn in this process.  Turns of
    one conversation from two tabs may then run at once; their replies are written one at a time
    (``run_settled`` locks the conversation's row), as with two web processes.
    """

    group_name: str = ""
    # Set once the server reports the socket closed; what is still to send is dropped quietly.
    gone: bool = False
    accepted: bool = False

    async def connect(self) -> None:
        # Accept before closing: a close during the handshake becomes an HTTP 403 and the browser never
        # sees the code, while the page needs it to tell "sign in again" from "no such conversation".
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.conversation_id: uuid.UUID = self.scope["url_route"]["kwargs"]["conversation_id"]
        try:
            conversation = await database_sync_to_async(conversation_get)(
                user=user, conversation_id=self.conversation_id
            )
        except Conversation.DoesNotExist:
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self._turn_lock = asyncio.Lock()
        self._turns: set[asyncio.Task[None]] = set()
        await self.channel_layer.group_add(conversation.channel_group, self.channel_name)
        self.group_name = conversation.channel_group
        await self.accept()

    async def disconnect(self, code: int) -> None:
        # Turns already started are left to finish: the reply is stored and shown on the next visit.
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        """Decode the frame ourselves, so that a frame that is not JSON is answered, not a crash."""
        if text_data is None:
            await self.send_error("Send JSON text frames, not binary ones.")
            return
        try:
            content = await self.decode_json(text_data)
        except (ValueError, RecursionError):  # RecursionError: arrays nested thousands deep
            await self.send_error("That was not valid JSON.")
            return
        await self.receive_json(content, **kwargs)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not self.group_name:  # frames racing the close of a rejected connection
            return
        if not isinstance(content, dict):
            await self.send_error('Send an object like {"type": "chat.send", "text": "..."}.')
            return
        try:
            message = ChatSend.model_validate(content)
        except ValidationError as exc:
            await self.send_error(validation_message(exc))
            return
        task = asyncio.create_task(self._turn(message.text, message.undo_run))
        self._turns.add(task)
        task.add_done_callback(self._turns.discard)

    async def _turn(self, text: str, undo: str | None) -> None:
        """Run one chat turn; its messages and progress reach the browser through the group."""
        async with self._turn_lock:
            try:
                await database_sync_to_async(_chat_turn, thread_sensitive=False)(
                    user=self.scope["user"], conversation_id=self.conversation_id, text=text, undo=undo
                )
            except Conversation.DoesNotExist:
                await self.close(code=CLOSE_NOT_FOUND)
            except Exception:
                logger.exception("chat turn failed in conversation %s", self.conversation_id)
                await self.send_error("Something went wrong while answering. Please try again.")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Run the consumer; if the channel layer fails, close with 1013 so that the page retries.

        The layer is read all the time the socket is open (Channels waits on it beside the browser),
        and written at the handshake (``group_add``) and the end (``group_discard``): with Redis down
        any of them raises, and without this the handshake became an HTTP 500 and an open socket a
        traceback.
        """
        self._server_send = send
        try:
            await super().__call__(scope, receive, self._send_while_open)
        except LAYER_ERRORS:
            logger.warning(
                "channel layer unreachable; socket of conversation %s closed for a retry",
                getattr(self, "conversation_id", "-"),
            )
            if not self.accepted:  # a close during the handshake would reach the page as an HTTP 403
                await self._send_while_open({"type": "websocket.accept"})
            await self._send_while_open({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})

    async def _send_while_open(self, message: dict[str, Any]) -> None:
        """Send unless the socket has closed under us.

        A reply or progress event can reach a socket the browser (or the server, after an oversized
        frame) has just closed: daphne then raises ``Disconnected`` before it has told us so.  The turn
        itself is stored and shown on the next visit, so there is nothing to report.  Every send and
        close of the consumer passes here (Channels' ``base_send``), whichever helper made it.
        """
        if self.gone:
            return
        try:
            await self._server_send(message)
        except Disconnected:
            self.gone = True
            return
        self.accepted = self.accepted or message["type"] == "websocket.accept"
        self.gone = message["type"] == "websocket.close"

    async def send_error(self, message: str) -> None:
        await self.send_json({"type": "error", "message": message})

    # -- group events, forwarded as they are (their ``type`` keeps its dots) ------------------------
    async def chat_message(self, event: dict[str, Any]) -> None:
        await self.send_json(event)

    async def task_started(self, event: dict[str, Any]) -> None:
        await self.send_json(event)

    async def task_finished(self, event: dict[str, Any]) -> None:
        await self.send_json(event)

    async def workflow_paused(self, event: dict[str, Any]) -> None:
        await self.send_json(event)

    async def workflow_finished(self, event: dict[str, Any]) -> None:
        await self.send_json(event)


def _chat_turn(*, user: Any, conversation_id: uuid.UUID, text: str, undo: str | None) -> None:
    """Re-read the conversation for every turn: a previous turn or a worker may have changed its context
    or pending run since the socket opened, and ``chat_turn`` must build on the stored state."""
    try:
        conversation = conversation_get(user=user, conversation_id=conversation_id)
        chat_turn(user=user, conversation=conversation, text=text, undo=undo)
    finally:
        # The turn runs on a pool thread: the connection it opened is closed here, as the end of a
        # request would.  database_sync_to_async's own closing, around this call, left it open there
        # (measured: the PostgreSQL test database could not be dropped, its sessions still open).
        close_old_connections()
