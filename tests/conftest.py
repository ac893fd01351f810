"""Suite-wide guard: no test may send a request to a real language model.

pydantic-ai's HTTP models (OpenAI, Anthropic, Google, ...) check ``ALLOW_MODEL_REQUESTS`` before every
request and raise ``RuntimeError`` when it is off; ``TestModel`` and ``FunctionModel`` are not
affected. Tests that point a model at the loopback server (tests/llm/openai_server.py) turn it on
for themselves with ``override_allow_model_requests(True)``, so a test that forgot to point its model
somewhere local fails instead of reaching the internet.
"""

import pydantic_ai.models

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
