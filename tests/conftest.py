"""Suite-wide settings: no request to a real language model, and cheap password hashes.

pydantic-ai's HTTP models (OpenAI, Anthropic, Google, ...) check ``ALLOW_MODEL_REQUESTS`` before every
request and raise ``RuntimeError`` when it is off; ``TestModel`` and ``FunctionModel`` are not
affected. Tests that point a model at the loopback server (tests/llm/openai_server.py) turn it on
for themselves with ``override_allow_model_requests(True)``, so a test that forgot to point its model
somewhere local fails instead of reaching the internet.

Django's default hasher spends about 0.3 s of CPU on a password, by design; the sign-in and throttle
tests hash dozens, so the suite hashes with MD5, as Django's own test suite does. Processes the
tests start (daphne, workers) keep the real hashers: they are given signed-in session cookies, not
passwords.
"""

import pydantic_ai.models
import pytest
from django.conf import settings

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False


def pytest_configure() -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_process_caches() -> None:
    """Each test starts as after a restart: nothing a test before it left in a process-wide cache
    (an expansion, a preference already reported) shows in its results or its logs."""
    from assistant.runtime import drop_caches

    drop_caches()


# What a test asks for to reach the database (django_db_setup: a session fixture that unblocks it
# itself, as the quick bench's does); pytest-django refuses the database to any other test.
DATABASE_FIXTURES = {
    "django_db_setup",
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--database-tests-only",
        action="store_true",
        help="run only the tests that use the database (a second pass on another database: the "
        "others, refused the database by pytest-django, would only repeat themselves)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("database_tests_only"):
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        uses = item.get_closest_marker("django_db") is not None or bool(
            DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
        )
        (keep if uses else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
