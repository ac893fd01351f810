"""Pointing this process's Celery app at a broker (a real one, or an address where none listens)."""

from __future__ import annotations

import kombu.pools
from celery import Celery

__all__ = ["NO_BROKER", "point_app_at"]

# A port nothing listens on: connecting is refused at once, as with a broker that is down.
NO_BROKER = "redis://127.0.0.1:9/0"


def point_app_at(app: Celery, *, broker_url: str, eager: bool) -> None:
    """Send this process's tasks to ``broker_url``.

    The app caches its connection and producer pools on first use; they are dropped so that the next
    publish opens them on the new broker (the same reset Celery does after a fork).
    """
    if app._pool is not None:
        app._pool.force_close_all()
    kombu.pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
    app.conf.update(broker_url=broker_url, task_always_eager=eager)
