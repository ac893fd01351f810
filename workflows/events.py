"""Progress events of runs, sent to the run's channel group (the websocket of its conversation).

Streaming is best effort: a run never fails because nobody is listening or the channel layer is down.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

__all__ = ["publish"]

logger = logging.getLogger("workflows")


def publish(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` (its ``type`` dotted, e.g. ``task.started``) to everyone in ``group``."""
    if not group:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:  # the layer being unreachable must not fail the run
        logger.warning("could not publish %s to %s", event.get("type"), group, exc_info=True)
