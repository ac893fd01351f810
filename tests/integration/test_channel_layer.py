"""Progress events cross processes through Redis: what a worker publishes, a websocket receives.

A Celery worker calls ``workflows.events.publish`` from plain synchronous code, with no event loop,
while the websocket consumer listening to the run's group lives in the ASGI server.  The in-memory
layer the rest of the suite uses cannot show that this works, since it never leaves the process;
these tests publish through ``channels_redis`` and receive on a separate layer instance, so that
the only thing publisher and subscriber share is the Redis server.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from pytest_django.fixtures import Settings

from tests.integration.conftest import Subscriber, layer_at, redis_layer_settings
from workflows.events import publish

pytestmark = pytest.mark.integration


def test_publish_from_sync_code_reaches_a_channel_of_the_group_through_redis(
    redis_layer: str, subscribe: Callable[[str], Subscriber]
) -> None:
    subscriber = subscribe("conversation.layer")
    event = {"type": "task.started", "run_id": "run-1", "task_id": "find", "summary": "Find events"}

    publish("conversation.layer", event)

    assert isinstance(get_channel_layer(), RedisPubSubChannelLayer)
    assert subscriber.receive_until("task.started", timeout=5) == [event]


def test_publish_reaches_only_the_group_it_names(
    redis_layer: str, subscribe: Callable[[str], Subscriber]
) -> None:
    """Each conversation has its own group, so one user's progress never shows in another's tab."""
    ours = subscribe("conversation.ours")
    subscribe("conversation.theirs")

    publish("conversation.theirs", {"type": "workflow.finished", "run_id": "theirs", "status": "succeeded"})
    publish("conversation.ours", {"type": "workflow.finished", "run_id": "ours", "status": "succeeded"})

    received = ours.receive_until("workflow.finished", timeout=5)
    assert [m["run_id"] for m in received] == ["ours"]


def test_publish_with_redis_unreachable_logs_and_returns(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Streaming is best effort: a run must not fail because the channel layer is down."""
    settings.CHANNEL_LAYERS = redis_layer_settings("redis://127.0.0.1:1/0")  # nothing listens on port 1

    with caplog.at_level(logging.WARNING, logger="workflows"):
        publish("conversation.down", {"type": "task.started", "run_id": "run-1"})

    assert "could not publish task.started to conversation.down" in caplog.text


@pytest.mark.asyncio
async def test_an_idle_receive_waits_past_redis_py_default_socket_timeout(redis_layer: str) -> None:
    """An idle websocket's channel receive blocks in Redis; redis-py 8's 5 s default read timeout must
    not cut it (it did: the consumer crashed with TimeoutError and the socket closed every 5 s)."""
    layer = layer_at(redis_layer)
    channel = await layer.new_channel()
    try:
        with pytest.raises(asyncio.TimeoutError):  # our own deadline, not redis.exceptions.TimeoutError
            await asyncio.wait_for(layer.receive(channel), timeout=6.5)
    finally:
        await layer.flush()


ROUNDS = 60


@pytest.mark.asyncio
async def test_sockets_that_close_never_take_the_messages_of_sockets_that_stay(redis_layer: str) -> None:
    """Ten sockets of one process wait for their conversations' events while, round after round,
    ten others close with their receive under way (users leaving).  channels_redis's older layer
    lost a message of a socket that stayed when the socket popping it from Redis closed
    (django/channels#1683): in the load test, one reply in about 1,200, stored but never shown."""
    daphne, worker = layer_at(redis_layer), layer_at(redis_layer)
    staying = [await daphne.new_channel() for _ in range(10)]
    for i, channel in enumerate(staying):
        await daphne.group_add(f"conversation.stay{i}", channel)
    received: dict[str, list[int]] = {channel: [] for channel in staying}

    async def listen(channel: str) -> None:
        while True:
            received[channel].append((await daphne.receive(channel))["n"])

    listeners = [asyncio.create_task(listen(channel)) for channel in staying]
    try:
        for n in range(ROUNDS):
            leaving = [await daphne.new_channel() for _ in range(10)]
            waiting = [asyncio.create_task(daphne.receive(channel)) for channel in leaving]
            await asyncio.sleep(0.01)
            for i in range(len(staying)):
                await worker.group_send(f"conversation.stay{i}", {"type": "task.started", "n": n})
            for task in waiting:
                task.cancel()
            await asyncio.gather(*waiting, return_exceptions=True)
        deadline = asyncio.get_running_loop().time() + 10
        while any(len(got) < ROUNDS for got in received.values()):
            assert asyncio.get_running_loop().time() < deadline, {
                c[-6:]: len(got) for c, got in received.items()
            }
            await asyncio.sleep(0.05)
        assert all(got == list(range(ROUNDS)) for got in received.values())
    finally:
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
        await daphne.flush()
        await worker.flush()
