"""Progress events of runs, sent to the run's channel group (the websocket of its conversation).

Streaming is best effort: a run never fails because nobody is listening or the channel layer is down.

From a worker (plain sync code) each ``async_to_sync`` call would run the layer in a fresh event
loop, and ``channels_redis`` keeps its connections per loop: every event paid for a new Redis
connection (about 4 ms, several events a task).  Events are therefore sent from one event loop kept
running in a thread of this process, whose connections stay open.  The in-memory layer is not
thread-safe, so with it (tests, the offline default) events go the plain way.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer

__all__ = ["publish"]

logger = logging.getLogger("workflows")

SEND_SECONDS = 5.0
_lock = threading.Lock()
_sender: tuple[int, asyncio.AbstractEventLoop] | None = None


def _sender_loop() -> asyncio.AbstractEventLoop:
    """This process's sending loop, started on first use (and again in a forked child, where the
    parent's thread does not exist)."""
    global _sender
    with _lock:
        if _sender is None or _sender[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="channel-layer-sender", daemon=True).start()
            _sender = (os.getpid(), loop)
        return _sender[1]


def _send(layer: BaseChannelLayer, group: str, event: dict[str, Any]) -> None:
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.group_send)(group, event)
        return
    future = asyncio.run_coroutine_threadsafe(layer.group_send(group, event), _sender_loop())
    future.result(timeout=SEND_SECONDS)


def publish(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` (its ``type`` dotted, e.g. ``task.started``) to everyone in ``group``."""
    if not group:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        _send(layer, group, event)
    except Exception:  # the layer being unreachable must not fail the run
        logger.warning("could not publish %s to %s", event.get("type"), group, exc_info=True)
