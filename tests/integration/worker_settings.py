"""Settings of the Celery worker that the integration tests start: the app's own, with few changes.

The worker is another process, so pytest's ``settings`` fixture cannot reach it; what it must differ
in is decided here, from environment variables the test process sets when it starts the worker.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from assistant.settings import *  # noqa: F403

# The chat listener imports the whole decomposer.  While a piece of it does not import, keeping it
# would make every task fail in the worker, so the test process keeps it only when it could import it.
if os.environ.get("INTEGRATION_CHAT_LISTENER") != "1":
    WORKFLOW_RUN_LISTENERS = []

# Attendee mail reaches a server that turns some addresses away once, and is retried a second later
# instead of a minute (the task's own default, changed through Celery's task annotations).
EMAIL_BACKEND = "tests.integration.mail.HiccupBackend"
CELERY_TASK_ANNOTATIONS = {"skills.notifications_send": {"default_retry_delay": 1}}

# A worker that cannot reach its broker should exit and say so, not retry while a test waits on it.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = False


def _stop_when_orphaned(parent: int) -> None:
    """Shut the worker down once the test process is gone (killed before its fixture could stop it).

    An orphaned worker would keep consuming from a Redis database that a later session may claim,
    and run that session's tasks on the wrong database.
    """
    while os.getppid() == parent:
        time.sleep(1)
    os.kill(os.getpid(), signal.SIGTERM)


if parent := int(os.environ.get("INTEGRATION_PARENT_PID", "0")):
    threading.Thread(target=_stop_when_orphaned, args=(parent,), daemon=True, name="orphan-watch").start()
