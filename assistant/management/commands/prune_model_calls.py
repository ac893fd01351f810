"""``manage.py prune_model_calls``: blank old model-call prompts and outputs once, for cron (the same
work celery beat does daily with ``assistant.prune_model_calls``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from assistant.llm.usage import prune_model_calls


class Command(BaseCommand):
    help = (
        "Blank the prompt and output of language-model calls older than LLM_LOG_DAYS days (they quote "
        "the user and their calendar); the calls and their token counts stay."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        pruned = prune_model_calls()
        if options["verbosity"] > 0:
            days = settings.LLM_LOG_DAYS
            self.stdout.write(f"Blanked the prompt and output of {pruned} model call(s) over {days} days old")
