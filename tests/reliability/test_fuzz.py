"""Fuzz: 10,000 generated inputs over HTTP and the websocket: chat texts, and bodies and frames the
page never sends.

Every input goes through the whole stack: the HTTP ones through Django's test client (middleware,
session, login, the view's validation, :func:`assistant.services.chat_turn`, the decomposer, eager
workflows and their previews and applies), the websocket ones through the ASGI application (origin
check, session auth, the consumer, the channel layer that carries the replies back). A signed-in
user with the demo calendar (classes, gym, meetings, colleagues) types them; answers ("yes", "no",
"undo") among them resume, set aside and revert the runs the earlier inputs started, and undo ids of
another user's runs must change nothing of theirs.

What must hold, for every input:

* never a server error: HTTP status < 500; the socket never closed (an exception closes it with
  1011) and the application never crashing;
* a bad input (not JSON, the wrong shape or types, a text blank, too long or with nothing left once
  control characters are stripped, a garbage undo id, the wrong content type, a huge body) gets a 4xx
  whose JSON ``error`` is a sentence for a person, or an ``error`` event on the socket, which then
  keeps working;
* a good one gets the user's message back (as stored: control characters stripped) and a reply;
* the logs (every record at INFO and above, from every logger) carry no traceback and no ERROR
  record (:data:`ALLOWED_ERRORS` would list the justified ones; there are none), and never the
  user's text.

Inputs are drawn by hypothesis with fixed seeds (``derandomize``, ``@seed``) so a CI run is
repeatable; the counts add up to :data:`TOTAL_INPUTS`. Each hypothesis example is a batch of inputs
sent in a new conversation (on a new socket): the engine's own cost per example is paid once per
batch, and the turns of a conversation build on each other.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from pytest_django.fixtures import Settings

from assistant.asgi import application
from assistant.demo import demo_load
from assistant.models import Conversation, ReplyKind
from assistant.services import SET_ASIDE, chat_turn, clean_text, conversation_create
from skills.models import Event
from tests.factories import two_meetings
from tests.reliability.fuzzing import (
    Body,
    Frame,
    chat_texts,
    expected_ok,
    malformed_bodies,
    malformed_frames,
)
from workflows.models import WorkflowRun

pytestmark = pytest.mark.reliability

# A Monday morning: the demo week is anchored to it, so every run of the suite sees the same calendar.
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("America/New_York"))

# The split keeps the file under two minutes on two shared cores. A chat text that is taken costs a
# whole turn (~20 ms on SQLite: the decomposer, and for a quarter of them a workflow run of 50-100 ms);
# a body the view refuses ~7 ms (the request, the session and user reads); a frame the consumer
# refuses under 1 ms. So chat texts are 2,200 of the inputs, and about 600 of the bodies and frames
# are taken too (extra fields, real undo ids, form and multipart posts).
HTTP_TEXTS = 1600
HTTP_BODIES = 2000
SOCKET_TEXTS = 600
SOCKET_FRAMES = 5800
TOTAL_INPUTS = HTTP_TEXTS + HTTP_BODIES + SOCKET_TEXTS + SOCKET_FRAMES
assert TOTAL_INPUTS == 10_000

# The inputs of one hypothesis example, sent one after another in one new conversation: chat texts
# five at a time (a short conversation: a request, a question, an answer...), malformed bodies and
# frames twenty at a time (most are refused in a millisecond or two, and the engine's own cost per
# example would dominate).
TEXT_BATCH = 5
MALFORMED_BATCH = 20
# The demo calendar is loaded again every so many inputs: "delete everything" then "yes" empties it,
# and later inputs should still find classes to move and meetings to cancel.
INPUTS_PER_CALENDAR = 1000
# After each batch of malformed frames, a good one: the socket must still answer.
PROBES = ["hi", "yes", "no", "thanks"]

REPLY_KINDS = {kind.value for kind in ReplyKind}
SOCKET_EVENTS = {"chat.message", "task.started", "task.finished", "workflow.paused", "workflow.finished"}
TIMEOUT = 20

# What a reply must never show the user: the insides of a failure.
INTERNALS = ("Traceback", "validation error", "Input should be", "pydantic")
# ERROR records that are justified, as (logger name, message start, why). None so far.
ALLOWED_ERRORS: list[tuple[str, str, str]] = []
# User texts shorter than this are not looked for in the logs: "at", "no" or "3" are in any sentence.
LEAK_MIN_CHARS = 8


def fuzz_settings(inputs: int, batch: int) -> settings:
    return settings(
        max_examples=inputs // batch,
        derandomize=True,
        deadline=None,
        database=None,  # no .hypothesis directory
        print_blob=False,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,  # the fixtures hold the world the inputs act on
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
            HealthCheck.filter_too_much,
        ],
    )


def batches(inputs: st.SearchStrategy[Any], size: int) -> st.SearchStrategy[list[Any]]:
    return st.lists(inputs, min_size=size, max_size=size)


# -- the logs ----------------------------------------------------------------------------------------


class LogWatch:
    """Checks the records logged since the last check: no traceback, no ERROR, no user text."""

    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        self.caplog = caplog
        caplog.set_level(logging.INFO)  # everything above DEBUG, from every logger
        self.seen = 0

    def begin(self) -> None:
        """Forget what was logged before this input (an input that failed left its records unchecked)."""
        self.seen = len(self.caplog.records)

    def check(self, text: str = "") -> None:
        records = self.caplog.records
        fresh, self.seen = records[self.seen :], len(records)
        leak = clean_text(text) if len(clean_text(text)) >= LEAK_MIN_CHARS else ""
        for record in fresh:
            message = record.getMessage()
            where = f"{record.name} {record.levelname}: {message[:300]!r}"
            assert record.exc_info is None, f"a traceback in the logs: {where}"
            assert not record.exc_text, f"a traceback in the logs: {where}"
            if record.levelno >= logging.ERROR:
                assert any(
                    record.name == name and message.startswith(start) for name, start, _ in ALLOWED_ERRORS
                ), f"an ERROR in the logs: {where}"
            if leak and record.levelno > logging.DEBUG:
                assert leak not in message, f"the user's text in the logs: {where}"
        if len(records) > 5000:
            self.caplog.clear()
            self.seen = 0


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[LogWatch]:
    watch = LogWatch(caplog)
    yield watch
    watch.check()


# -- the world the inputs act on ---------------------------------------------------------------------


@dataclass
class World:
    """The demo user, signed in (``client``), and what the inputs may name: their own runs and someone
    else's."""

    user: Any
    client: Client
    other_runs: list[str]
    other_events: list[tuple[str, datetime, datetime]]
    own_runs: list[str] = field(default_factory=list)
    inputs: int = 0
    turns: int = 0  # inputs taken and answered (a chat turn ran for each)

    def conversation(self, inputs: int) -> Conversation:
        """A new conversation for the next ``inputs`` (the demo calendar reloaded every
        INPUTS_PER_CALENDAR inputs)."""
        if self.inputs // INPUTS_PER_CALENDAR != (self.inputs + inputs) // INPUTS_PER_CALENDAR:
            demo_load(today=NOW.date())
            # Loading sets the demo password again, which signs its sessions out.
            self.user = get_user_model().objects.get(username="demo")
            self.client.force_login(self.user)
        self.inputs += inputs
        return conversation_create(user=self.user)

    def session_cookie(self) -> bytes:
        return f"sessionid={self.client.cookies['sessionid'].value}".encode()

    def run_ids(self) -> list[str]:
        return self.other_runs + self.own_runs[-50:]


def _events_of(user: Any) -> list[tuple[str, datetime, datetime]]:
    rows = Event.objects.filter(calendar__owner=user).order_by("pk").values_list("summary", "start", "end")
    return list(rows)


def make_world() -> World:
    """The demo user with the demo calendar, signed in, and another user with runs of their own (one
    applied, one waiting for an answer) whose ids the fuzz sends as undo ids."""
    demo_load(today=NOW.date())
    user = get_user_model().objects.get(username="demo")
    other, conversation = two_meetings("someone-else")
    chat_turn(user=other, conversation=conversation, text="cancel the standup on March 3")
    chat_turn(user=other, conversation=conversation, text="yes")
    chat_turn(user=other, conversation=conversation, text="move the design sync on March 3 to 2pm")
    runs = [str(pk) for pk in WorkflowRun.objects.filter(user=other).values_list("pk", flat=True)]
    assert len(runs) == 2
    client = Client()
    client.force_login(user)
    return World(user=user, client=client, other_runs=runs, other_events=_events_of(other))


def assert_others_untouched(world: World) -> None:
    other = get_user_model().objects.get(username="someone-else")
    assert _events_of(other) == world.other_events, "another user's calendar changed"


@pytest.fixture
def frozen() -> Iterator[None]:
    with time_machine.travel(NOW, tick=True):
        yield


# -- HTTP --------------------------------------------------------------------------------------------


def _send_url(conversation: Conversation) -> str:
    return f"/c/{conversation.pk}/send/"


def assert_readable_error(response: Any, what: str) -> None:
    assert 400 <= response.status_code < 500, f"{what}: {response.status_code}, not a 4xx"
    assert response["Content-Type"].startswith("application/json"), f"{what}: {response['Content-Type']}"
    error = response.json().get("error")
    assert isinstance(error, str), f"{what}: no error in {response.content[:200]!r}"
    assert 10 <= len(error) <= 300, f"{what}: {error!r} is no sentence"
    assert "Traceback" not in error, f"{what}: {error!r}"
    assert "pydantic" not in error, f"{what}: {error!r}"


def assert_turn_answered(response: Any, text: str, world: World) -> None:
    """A good input: 200 with the user's message (as stored: control characters stripped) and the
    assistant's reply (202 would mean a worker answers later, which eager mode never does)."""
    assert response.status_code == 200, f"{response.status_code}: {response.content[:300]!r}"
    world.turns += 1
    messages = response.json()["messages"]
    assert messages[0]["role"] == "user"
    assert messages[0]["text"] == clean_text(text)
    replies = messages[1:]
    assert replies, "no reply"
    for reply in replies:
        assert reply["role"] == "assistant"
        assert reply["kind"] in REPLY_KINDS
        assert isinstance(reply["text"], str)
        assert reply["text"].strip(), "an empty reply"
        assert not any(word in reply["text"] for word in INTERNALS), reply["text"]
        if reply["run_id"]:
            world.own_runs.append(reply["run_id"])


@pytest.fixture
def http_world(db: None, frozen: None, settings: Settings) -> tuple[World, Client]:
    """The world and a client signed in as its user. Nobody listens on the channel layer here (the
    socket tests cover what is published), so none is configured: progress events are not sent."""
    settings.CHANNEL_LAYERS = {}
    world = make_world()
    return world, world.client


def test_http_chat_texts(http_world: tuple[World, Client], logs: LogWatch) -> None:
    world, client = http_world
    sent = 0

    @seed(20260302)
    @fuzz_settings(HTTP_TEXTS, TEXT_BATCH)
    @given(texts=batches(chat_texts(), TEXT_BATCH))
    def conversation(texts: list[str]) -> None:
        nonlocal sent
        url = _send_url(world.conversation(len(texts)))
        for text in texts:
            sent += 1
            logs.begin()
            response = client.post(url, data=json.dumps({"text": text}), content_type="application/json")
            assert response.status_code < 500, f"{response.status_code} for {text[:200]!r}"
            if expected_ok(text):
                assert_turn_answered(response, text, world)
            else:
                assert_readable_error(response, f"text {text[:80]!r}")
            logs.check(text)

    conversation()
    assert sent >= HTTP_TEXTS
    assert world.turns >= HTTP_TEXTS * 0.8, world.turns  # the rest were refused at the door
    assert_others_untouched(world)


def test_http_malformed_bodies(http_world: tuple[World, Client], logs: LogWatch) -> None:
    world, client = http_world
    sent = 0

    @seed(20260303)
    @fuzz_settings(HTTP_BODIES, MALFORMED_BATCH)
    @given(bodies=batches(st.tuples(malformed_bodies(world.run_ids), st.booleans()), MALFORMED_BATCH))
    def conversation(bodies: list[tuple[Body, bool]]) -> None:
        nonlocal sent
        url = _send_url(world.conversation(len(bodies)))
        for body, json_accept in bodies:
            sent += 1
            logs.begin()
            headers = {"Accept": "application/json"} if json_accept else {}
            response = client.generic(
                "POST", url, data=body.body, content_type=body.content_type, headers=headers
            )
            what = f"{body.what}: {body.body[:120]!r} ({body.content_type})"
            assert response.status_code < 500, f"{response.status_code} for {what}"
            if body.bad or (body.bad is None and response.status_code >= 400):
                assert_readable_error(response, what)
            elif json_accept or body.content_type == "application/json":
                assert_turn_answered(response, body.text, world)
            else:  # a form posted without script: back to the page
                assert response.status_code == 302, what
                world.turns += 1
            logs.check(body.text)

    conversation()
    assert sent >= HTTP_BODIES
    assert world.turns >= 50, world.turns  # extra fields, real undo ids, form and multipart posts
    assert_others_untouched(world)


# -- the websocket -----------------------------------------------------------------------------------


class Socket:
    """A signed-in browser's chat socket on the real ASGI application, driven from synchronous code
    (hypothesis calls the test body synchronously): one event loop of its own runs the application
    between the frames."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.loop = asyncio.new_event_loop()
        self.communicator: WebsocketCommunicator | None = None

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def open(self, inputs: int) -> None:
        """A socket on a new conversation, for the next ``inputs``."""
        self.close()
        conversation = self.world.conversation(inputs)
        self.communicator = self.run(self._open(conversation))

    async def _open(self, conversation: Conversation) -> WebsocketCommunicator:
        headers = [(b"origin", b"http://localhost"), (b"cookie", self.world.session_cookie())]
        communicator = WebsocketCommunicator(application, f"/ws/c/{conversation.pk}/", headers=headers)
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert connected, f"not connected: {code}"
        return communicator

    def close(self) -> None:
        if self.communicator is not None:
            self.run(self._drain_and_close(self.communicator))
            self.communicator = None

    async def _drain_and_close(self, communicator: WebsocketCommunicator) -> None:
        # What the last turn had sent after its reply (a workflow.finished) is checked too; nothing is
        # waited for: every turn was answered already.
        while not await communicator.receive_nothing(timeout=0):
            self._check(await self._next(communicator))
        await communicator.disconnect()
        # A turn lives on after its socket closes (its reply is stored for the next visit); one still
        # finishing is awaited here, or closing the loop would destroy it while pending.
        turns = asyncio.all_tasks() - {asyncio.current_task()}
        if turns:
            _done, pending = await asyncio.wait(turns, timeout=TIMEOUT)
            assert not pending, f"turns still running {TIMEOUT} s after their socket closed: {pending}"

    def shutdown(self) -> None:
        try:
            self.close()
        finally:
            self.loop.close()

    # -- frames ----------------------------------------------------------------------------------------

    def send(self, frame: Frame) -> None:
        """Send one frame and wait for what it must get: an ``error`` event for a bad one, the turn's
        messages for a good one."""
        communicator = self.communicator
        assert communicator is not None
        if frame.bad:
            self.run(self._refused(communicator, frame))
        else:
            self.run(self._answered(communicator, frame))

    async def _send(self, communicator: WebsocketCommunicator, frame: Frame) -> None:
        if frame.raw is not None:
            await communicator.send_input({"type": "websocket.receive", "text": frame.raw})
        else:
            await communicator.send_input({"type": "websocket.receive", "bytes": frame.data})

    async def _next(self, communicator: WebsocketCommunicator) -> dict[str, Any]:
        output = await communicator.receive_output(timeout=TIMEOUT)
        assert output["type"] == "websocket.send", f"the socket was closed: {output}"
        assert output.get("text") is not None, f"a binary frame: {output}"
        event = json.loads(output["text"])
        assert isinstance(event, dict), event
        return event

    def _check(self, event: dict[str, Any]) -> None:
        """Any event: one the page knows, an ``error`` with a sentence, a message with a reply kind."""
        kind = event.get("type")
        if kind == "error":
            message = event.get("message")
            assert isinstance(message, str), event
            assert 10 <= len(message) <= 300, event
            assert "went wrong" not in message, f"a turn crashed: {event}"  # the consumer's last resort
            return
        assert kind in SOCKET_EVENTS, event
        if kind == "chat.message":
            message = event["message"]
            assert message["role"] in ("user", "assistant"), event
            if message["role"] == "assistant":
                assert message["kind"] in REPLY_KINDS, event
                assert isinstance(message["text"], str), event
                assert message["text"].strip(), f"an empty reply: {event}"
                assert not any(word in message["text"] for word in INTERNALS), event
                if message["run_id"]:
                    self.world.own_runs.append(message["run_id"])

    async def _refused(self, communicator: WebsocketCommunicator, frame: Frame) -> None:
        await self._send(communicator, frame)
        while True:  # events the previous turn still had on its way may come first
            event = await self._next(communicator)
            self._check(event)
            if event["type"] == "error":
                return
            if event["type"] == "chat.message":
                assert event["message"]["role"] == "assistant", f"{frame.what} was taken: {event}"

    async def _answered(self, communicator: WebsocketCommunicator, frame: Frame) -> None:
        self.world.turns += 1
        await self._send(communicator, frame)
        said, echoed = clean_text(frame.text), False
        while True:
            event = await self._next(communicator)
            self._check(event)
            assert event["type"] != "error", f"{frame.what} {frame.raw!r:.200} was refused: {event}"
            if event["type"] != "chat.message":
                continue
            message = event["message"]
            if message["role"] == "user":
                assert not echoed, f"a second echo: {event}"
                assert message["text"] == said, f"{said!r:.200} echoed as {message['text']!r:.200}"
                echoed = True
            elif echoed and message["text"] != SET_ASIDE:
                return  # the reply (a note that an earlier question was set aside comes before it)


def chat_frame(text: str) -> Frame:
    raw = json.dumps({"type": "chat.send", "text": text})
    return Frame(raw, None, bad=not expected_ok(text), what="chat text", text=text)


@pytest.fixture
def socket_world(transactional_db: None, frozen: None, settings: Settings) -> Iterator[tuple[World, Socket]]:
    """The world, with the in-memory channel layer whatever the environment says (REDIS_URL), and a
    socket signed in as its user. Real transactions: the consumer's turns run in a worker thread."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    world = make_world()
    socket = Socket(world)
    yield world, socket
    socket.shutdown()


def test_websocket_chat_texts(socket_world: tuple[World, Socket], logs: LogWatch) -> None:
    world, socket = socket_world
    sent = 0

    @seed(20260304)
    @fuzz_settings(SOCKET_TEXTS, TEXT_BATCH)
    @given(texts=batches(chat_texts(), TEXT_BATCH))
    def conversation(texts: list[str]) -> None:
        nonlocal sent
        socket.open(len(texts))
        for text in texts:
            sent += 1
            logs.begin()
            socket.send(chat_frame(text))
            logs.check(text)

    conversation()
    socket.close()
    logs.check()
    assert sent >= SOCKET_TEXTS
    assert world.turns >= SOCKET_TEXTS * 0.75, world.turns
    assert_others_untouched(world)


def test_websocket_malformed_frames(socket_world: tuple[World, Socket], logs: LogWatch) -> None:
    """Bad frames get an ``error`` event and the socket keeps working: each batch is followed by a
    good frame whose turn must be answered."""
    world, socket = socket_world
    sent = 0

    @seed(20260305)
    @fuzz_settings(SOCKET_FRAMES, MALFORMED_BATCH)
    @given(frames=batches(malformed_frames(world.run_ids), MALFORMED_BATCH), probe=st.sampled_from(PROBES))
    def conversation(frames: list[Frame], probe: str) -> None:
        nonlocal sent
        socket.open(len(frames) + 1)
        for frame in frames:
            sent += 1
            logs.begin()
            socket.send(frame)
            logs.check(frame.text)
        socket.send(chat_frame(probe))
        logs.check(probe)

    conversation()
    socket.close()
    logs.check()
    assert sent >= SOCKET_FRAMES
    assert world.turns >= SOCKET_FRAMES // MALFORMED_BATCH + 100, world.turns  # probes, and taken frames
    assert_others_untouched(world)


# -- what the fuzz found, pinned ---------------------------------------------------------------------
# One world each (setting it up is most of their time); every case is checked, the first to fail named.

BAD_BODIES = [
    (b"[" * 5000 + b"]" * 5000, "application/json", 400),  # deeper than the decoder's recursion limit
    (json.dumps({"text": "\x00\x01\x1b"}).encode(), "application/json", 400),  # nothing left once cleaned
    (b'{"text": "\\ud800 move my gym"}', "application/json", 400),  # a lone surrogate
    (json.dumps({"text": "move " * 600_000}).encode(), "application/json", 413),  # past 2.5 MB
    (b"&".join(b"f%d=1" % i for i in range(1001)), "application/x-www-form-urlencoded", 400),
    (b"--x--", "multipart/form-data", 400),  # no boundary
]


def test_a_body_the_page_never_sends_is_a_4xx_with_a_json_error(
    http_world: tuple[World, Client], logs: LogWatch
) -> None:
    """Each was a 500, or a 400 page of HTML with a traceback in the logs."""
    world, client = http_world
    url = _send_url(world.conversation(len(BAD_BODIES)))
    for body, content_type, status in BAD_BODIES:
        response = client.generic("POST", url, data=body, content_type=content_type)
        assert response.status_code == status, body[:40]
        assert_readable_error(response, repr(body[:40]))
        logs.check()


OUT_OF_REACH = [
    ("what do I have in the next 300 years", "more than I look through at once"),
    ("in 350917127 minutes what in 1344 minutes", "more than I look through at once"),
    ("in 626040970 minutes", "further ahead than I look"),
    ("what did I have on March 3 1850", "further back than I look"),
    ("add dentist on March 3 1850 at 3pm", "further back than I look"),
    ("in 5 minutes call for 400 hours", "from 5 minutes to two weeks"),
    ("add call tomorrow at 3 for 2 minutes", "from 5 minutes to two weeks"),
    ("make the dentist 400 hours long", "from 5 minutes to two weeks"),
    ("find me a 30 hour slot tomorrow", "free time of 5 minutes to a day"),
    ("schedule gym every day for 999999 weeks", "Until when should it repeat?"),
]


def test_a_range_or_length_no_calendar_can_hold_is_asked_about(
    http_world: tuple[World, Client], logs: LogWatch
) -> None:
    """Each was a 500, an invalid plan (logged at ERROR) or a run expanding centuries of occurrences
    (30 s and more of a worker)."""
    world, client = http_world
    for text, asked in OUT_OF_REACH:
        url = _send_url(world.conversation(1))
        response = client.post(url, data=json.dumps({"text": text}), content_type="application/json")
        assert_turn_answered(response, text, world)
        reply = response.json()["messages"][-1]
        assert reply["kind"] == "clarify", (text, reply)
        assert asked in reply["text"], (text, reply)
        logs.check(text)


def test_a_frame_nested_thousands_deep_is_an_error_event_and_the_socket_keeps_working(
    socket_world: tuple[World, Socket], logs: LogWatch
) -> None:
    """It closed the socket (the consumer's JSON decoding raised RecursionError)."""
    _, socket = socket_world
    socket.open(2)
    socket.send(Frame("[" * 5000 + "]" * 5000, None, bad=True, what="nested"))
    socket.send(chat_frame("hi"))
    socket.close()
    logs.check()


@pytest.mark.parametrize(
    "body",
    [b"&".join(b"f%d=1" % i for i in range(1001)), b"text=" + b"move+" * 600_000],
    ids=["fields", "size"],
)
def test_an_oversized_form_with_csrf_checks_on_is_a_4xx_with_a_json_error(
    http_world: tuple[World, Client], logs: LogWatch, body: bytes
) -> None:
    world, _ = http_world
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.user)
    conversation = world.conversation(1)
    client.get(f"/c/{conversation.pk}/")  # the page sets the CSRF cookie
    response = client.generic(
        "POST",
        _send_url(conversation),
        data=body,
        content_type="application/x-www-form-urlencoded",
        headers={"X-CSRFToken": client.cookies["csrftoken"].value},
    )
    assert_readable_error(response, "an oversized form")
    logs.check()
