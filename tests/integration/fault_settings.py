"""Worker settings for the fault tests: the integration worker's, and a crash at a chosen point.

``FAULT_KILL_AT`` names the point; the crash happens once the test has armed it (the file
``$FAULT_DIR/armed`` exists) and only once (``$FAULT_DIR/fired`` is written first), so the worker
started after it runs normally.  The crash is SIGKILL of the worker's whole process group (parent,
pool child and embedded beat), as an out-of-memory kill or a pulled plug would do: no handler runs,
nothing is acknowledged, no transaction is committed.

Points:
- ``in_apply``: the changes are written, their records not yet, the transaction not committed;
- ``after_apply``: the changes and their records are committed, the task's result is not stored;
- ``before_reply``: every task is stored, the run is not finished and the user not told;
- ``caldav`` / ``google``: that remote part of a mixed set has been sent, the rest not, nothing
  committed.

``FAULT_GOOGLE_*`` point the worker at the test's loopback Google server.
"""

from __future__ import annotations

import functools
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery.signals import task_prerun

from tests.integration.worker_settings import *  # noqa: F403

CELERY_TASK_DEFAULT_QUEUE = os.environ.get("FAULT_QUEUE", "celery")
for _name in ("GOOGLE_API_ENDPOINT", "GOOGLE_TOKEN_URI", "GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"):
    if os.environ.get(f"FAULT_{_name}"):
        globals()[_name] = os.environ[f"FAULT_{_name}"]
_POINT = os.environ.get("FAULT_KILL_AT", "")
_DIR = Path(os.environ.get("FAULT_DIR", "."))


def _crash() -> None:
    armed, fired = _DIR / "armed", _DIR / "fired"
    if not armed.exists() or fired.exists():
        return
    fired.write_text(str(os.getpid()))
    os.killpg(os.getpgid(0), signal.SIGKILL)


def _crashing(func: Callable[..., Any], *, before: bool) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if before:
            _crash()
        result = func(*args, **kwargs)
        if not before:
            _crash()
        return result

    return wrapper


def _install(**_: Any) -> None:
    """Patch the chosen point, in the process that runs tasks, once Django is set up."""
    if getattr(_install, "done", False) or not _POINT:
        return
    _install.done = True  # type: ignore[attr-defined]
    from skills import changes
    from workflows import engine

    if _POINT == "in_apply":
        changes._log = _crashing(changes._log, before=True)
    elif _POINT == "after_apply":
        changes.apply_change_set = _crashing(changes.apply_change_set, before=False)
        from skills import change_skills

        change_skills.apply_change_set = changes.apply_change_set
    elif _POINT == "before_reply":
        engine.run_finish = _crashing(engine.run_finish, before=True)
    elif _POINT in ("caldav", "google"):
        from skills.providers.caldav import CaldavProvider
        from skills.providers.google import GoogleProvider

        cls: Any = CaldavProvider if _POINT == "caldav" else GoogleProvider
        cls.apply_writes = _crashing(cls.apply_writes, before=False)
    else:
        raise ValueError(f"unknown FAULT_KILL_AT {_POINT!r}")


task_prerun.connect(_install, weak=False)
