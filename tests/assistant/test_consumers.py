"""The chat websocket, through the real ASGI stack (origin check, session auth, routing).

The consumer runs turns in worker threads, so these tests need real transactions
(``transaction=True``) for those threads to see the rows the test created.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client
from pytest_django.fixtures import Settings

from assistant import services
from assistant.asgi import application
from assistant.consumers import CLOSE_FORBIDDEN, CLOSE_NOT_FOUND
from assistant.models import Conversation, Message, ReplyKind
from assistant.services import conversation_create
from assistant.settings import redis_channel_layers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ORIGIN = (b"origin", b"http://localhost")
TIMEOUT = 10
REPLY_KINDS = {kind.value for kind in ReplyKind}


@pytest.fixture(autouse=True)
def in_memory_layer(settings: Settings) -> None:
    """Whatever the environment says (REDIS_URL), these tests use the in-memory channel layer."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@sync_to_async
def make_user(username: str) -> Any:
    return get_user_model().objects.create_user(username=username, password="a long enough passphrase")


@sync_to_async
def make_conversation(user: Any) -> Conversation:
    return conversation_create(user=user)


@sync_to_async
def session_cookie(user: Any) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


@sync_to_async
def messages_of(conversation: Conversation) -> list[tuple[str, str]]:
    return list(Message.objects.filter(conversation=conversation).values_list("role", "text"))


def communicator_for(conversation_id: Any, *headers: tuple[bytes, bytes]) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, f"/ws/c/{conversation_id}/", headers=[ORIGIN, *headers])


async def assert_closed_with(communicator: WebsocketCommunicator, code: int) -> None:
    """Refused sockets are accepted then closed, so that the browser learns the code."""
    await communicator.connect(timeout=TIMEOUT)
    output = await communicator.receive_output(timeout=TIMEOUT)
    assert output == {"type": "websocket.close", "code": code}


async def test_anonymous_visitor_is_closed_with_4401() -> None:
    user = await make_user("ada")
    conversation = await make_conversation(user)
    communicator = communicator_for(conversation.pk)
    await assert_closed_with(communicator, CLOSE_FORBIDDEN)


async def test_another_users_conversation_is_closed_with_4404() -> None:
    ada, grace = await make_user("ada"), await make_user("grace")
    theirs = await make_conversation(grace)
    communicator = communicator_for(theirs.pk, await session_cookie(ada))
    await assert_closed_with(communicator, CLOSE_NOT_FOUND)


async def test_a_missing_conversation_is_closed_with_4404() -> None:
    ada = await make_user("ada")
    communicator = communicator_for("7a0f3c1e-0000-4000-8000-000000000000", await session_cookie(ada))
    await assert_closed_with(communicator, CLOSE_NOT_FOUND)


async def test_a_foreign_origin_is_refused() -> None:
    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/c/{conversation.pk}/",
        headers=[(b"origin", b"http://evil.example"), await session_cookie(ada)],
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert not connected


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        (b"http://localhost:8000", b"localhost:8000", True),
        (b"http://localhost:3000", b"localhost:8000", False),  # another port is another origin
        (b"https://localhost:8000", b"localhost:8000", False),  # and so is another scheme
        (b"http://evil.example:8000", b"evil.example:8000", False),  # a host that is not ours
    ],
)
async def test_the_origin_must_be_the_sockets_own_scheme_host_and_port(
    origin: bytes, host: bytes, allowed: bool
) -> None:
    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/c/{conversation.pk}/",
        headers=[(b"origin", origin), (b"host", host), await session_cookie(ada)],
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected is allowed
    if connected:
        await communicator.disconnect()


async def test_chat_send_echoes_the_message_and_delivers_the_reply() -> None:
    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = communicator_for(conversation.pk, await session_cookie(ada))
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected

    await communicator.send_json_to({"type": "chat.send", "text": "What's my week look like?"})
    events = []
    while True:
        event = await communicator.receive_json_from(timeout=TIMEOUT)
        events.append(event)
        if event["type"] == "chat.message" and event["message"]["role"] == "assistant":
            break
    await communicator.disconnect()

    chat = [e["message"] for e in events if e["type"] == "chat.message"]
    assert chat[0]["role"] == "user"
    assert chat[0]["text"] == "What's my week look like?"
    assert chat[-1]["kind"] in REPLY_KINDS
    assert chat[-1]["text"]
    other = {e["type"] for e in events} - {"chat.message"}
    assert other <= {"task.started", "task.finished", "workflow.paused", "workflow.finished"}
    assert (await messages_of(conversation))[0] == ("user", "What's my week look like?")


async def reply_of(communicator: WebsocketCommunicator) -> dict[str, Any]:
    while True:
        event = await communicator.receive_json_from(timeout=TIMEOUT)
        if event["type"] == "chat.message" and event["message"]["role"] == "assistant":
            return dict(event["message"])


async def test_a_slow_turn_does_not_hold_up_another_users_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn the model takes seconds to plan runs beside other users' turns, not before them."""
    slow_seconds = 1.5
    decompose = services.decompose

    def slow_decompose(request: Any) -> Any:
        if request.text == "What's my week look like?":
            time.sleep(slow_seconds)  # a language model thinking
        return decompose(request)

    monkeypatch.setattr(services, "decompose", slow_decompose)
    ada, grace = await make_user("ada"), await make_user("grace")
    slow = communicator_for((await make_conversation(ada)).pk, await session_cookie(ada))
    quick = communicator_for((await make_conversation(grace)).pk, await session_cookie(grace))
    assert (await slow.connect(timeout=TIMEOUT))[0]
    assert (await quick.connect(timeout=TIMEOUT))[0]

    started = time.monotonic()
    await slow.send_json_to({"type": "chat.send", "text": "What's my week look like?"})
    await asyncio.sleep(0.2)  # ada's turn is under way
    await quick.send_json_to({"type": "chat.send", "text": "hi"})
    quick_reply = await reply_of(quick)
    quick_seconds = time.monotonic() - started
    slow_reply = await reply_of(slow)
    await slow.disconnect()
    await quick.disconnect()

    assert quick_seconds < slow_seconds, f"grace waited {quick_seconds:.2f} s, behind ada's turn"
    assert quick_reply["text"]
    assert slow_reply["kind"] in REPLY_KINDS


async def test_events_published_to_the_group_are_forwarded() -> None:
    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = communicator_for(conversation.pk, await session_cookie(ada))
    await communicator.connect(timeout=TIMEOUT)

    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    assert layer is not None
    event = {
        "type": "task.finished",
        "run_id": "r1",
        "task_id": "t1",
        "summary": "Read the calendar",
        "status": "succeeded",
        "error": "",
    }
    await layer.group_send(conversation.channel_group, event)
    assert await communicator.receive_json_from(timeout=TIMEOUT) == event
    await communicator.disconnect()


@pytest.mark.parametrize(
    ("frame", "error"),
    [
        ("this is not json", "not valid JSON"),
        ('["chat.send"]', "Send an object"),
        ('{"type": "chat.send"}', "required"),
        ('{"type": "chat.send", "text": "   "}', "required"),
        ('{"type": "chat.shout", "text": "hi"}', "type"),
        ('{"type": "chat.send", "text": "' + "x" * 2001 + '"}', "at most 2000"),
    ],
)
async def test_a_bad_frame_gets_an_error_event_and_the_socket_stays_open(frame: str, error: str) -> None:
    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = communicator_for(conversation.pk, await session_cookie(ada))
    await communicator.connect(timeout=TIMEOUT)

    await communicator.send_to(text_data=frame)
    event = await communicator.receive_json_from(timeout=TIMEOUT)
    assert event["type"] == "error"
    assert error in event["message"]
    assert await messages_of(conversation) == []

    # Still usable afterwards.
    await communicator.send_json_to({"type": "chat.send", "text": "hello"})
    echoed = await communicator.receive_json_from(timeout=TIMEOUT)
    assert echoed["type"] == "chat.message"
    assert echoed["message"]["text"] == "hello"
    while not (echoed["type"] == "chat.message" and echoed["message"]["role"] == "assistant"):
        echoed = await communicator.receive_json_from(timeout=TIMEOUT)
    await communicator.disconnect()


async def test_a_binary_frame_gets_an_error_event() -> None:
    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = communicator_for(conversation.pk, await session_cookie(ada))
    await communicator.connect(timeout=TIMEOUT)
    await communicator.send_to(bytes_data=b"\x00\x01")
    event = await communicator.receive_json_from(timeout=TIMEOUT)
    assert event["type"] == "error"
    await communicator.disconnect()


async def test_a_socket_closed_under_the_consumer_ends_it_quietly(caplog: pytest.LogCaptureFixture) -> None:
    """Daphne raises ``Disconnected`` for a send on a socket that has just closed (after an oversized
    frame, say) before the consumer hears of the close; a group event arriving then must not crash it."""
    from autobahn.exception import Disconnected
    from channels.layers import get_channel_layer

    closed = asyncio.Event()
    sent: list[dict[str, Any]] = []

    async def closing_server(scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def send_or_fail(message: dict[str, Any]) -> None:
            if closed.is_set() and message["type"] != "websocket.accept":
                sent.append(message)
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        await application(scope, receive, send_or_fail)

    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = WebsocketCommunicator(
        closing_server, f"/ws/c/{conversation.pk}/", headers=[ORIGIN, await session_cookie(ada)]
    )
    assert (await communicator.connect(timeout=TIMEOUT))[0]
    closed.set()
    layer = get_channel_layer()
    assert layer is not None
    event = {"type": "workflow.finished", "run_id": "r1", "status": "succeeded"}
    await layer.group_send(conversation.channel_group, event)
    await layer.group_send(conversation.channel_group, event)
    for _ in range(50):
        if sent:
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    assert sent == [
        {
            "type": "websocket.send",
            "text": '{"type": "workflow.finished", "run_id": "r1", "status": "succeeded"}',
        }
    ]  # tried once; the second event is dropped unsent
    assert not communicator.future.done()  # the consumer is still running, not crashed
    await communicator.disconnect()
    assert not [record for record in caplog.records if record.levelno >= 30]


async def test_a_handshake_while_the_channel_layer_is_down_is_closed_for_a_retry(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis unreachable (nothing listens on port 1): the page gets 1013, which it retries, not a 500."""
    from assistant.consumers import CLOSE_TRY_AGAIN

    settings.CHANNEL_LAYERS = redis_channel_layers("redis://127.0.0.1:1/0")  # as REDIS_URL sets it up
    ada = await make_user("ada")
    conversation = await make_conversation(ada)
    communicator = communicator_for(conversation.pk, await session_cookie(ada))
    await assert_closed_with(communicator, CLOSE_TRY_AGAIN)
    await communicator.send_input({"type": "websocket.disconnect", "code": CLOSE_TRY_AGAIN})
    await communicator.wait(timeout=TIMEOUT)  # re-raises whatever ended the consumer
    assert "channel layer unreachable" in caplog.text
