"""The Celery application; eager (in-process) unless CELERY_BROKER_URL names a broker."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger

from assistant.logsafety import withhold_in_handlers

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant.settings")

app = Celery("assistant")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A worker replaces the settings' log handlers with its own: they withhold user text too.
after_setup_logger.connect(withhold_in_handlers, weak=False)
after_setup_task_logger.connect(withhold_in_handlers, weak=False)
