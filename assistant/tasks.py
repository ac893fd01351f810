"""Celery entry points of the assistant app."""

from __future__ import annotations

from celery import shared_task

__all__ = ["prune_model_calls"]


@shared_task(name="assistant.prune_model_calls")
def prune_model_calls() -> int:
    """Blank model-call prompts and outputs older than LLM_LOG_DAYS (celery beat runs it daily).

    ``manage.py prune_model_calls`` is the same for cron.  Returns how many rows were blanked.
    """
    from assistant.llm.usage import prune_model_calls as prune

    return prune()
