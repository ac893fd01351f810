"""The language model the assistant may call, through pydantic-ai only (issue 15's LLM planner).

``config`` turns the ``LLM_*`` settings into a pydantic-ai model (or none: the offline default);
``agents`` asks that model for one validated pydantic object, the step every planning phase is built on.
"""
