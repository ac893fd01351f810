"""The Celery application; eager (in-process) unless CELERY_BROKER_URL names a broker."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant.settings")

app = Celery("assistant")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
