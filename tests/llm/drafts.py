"""A small output contract for the LLM tests, shaped like what a planning phase asks a model for."""

from pydantic import BaseModel, Field

__all__ = ["INSTRUCTIONS", "EventDraft"]

INSTRUCTIONS = "You turn a calendar request into an event draft. Answer only through the output tool."


class EventDraft(BaseModel):
    """An event to create: a title and a length the model must keep within a day."""

    title: str = Field(min_length=1)
    minutes: int = Field(gt=0, le=24 * 60)
