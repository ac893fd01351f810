"""Sign-in throttling (django-axes): a username and address that failed five times in a row are refused,
the right password too, for a quarter of an hour; other users, and the same user elsewhere, are not."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone

from assistant.security import client_ip

pytestmark = pytest.mark.django_db

ADA_PASSWORD = "correct horse battery"
ATTACKER, ELSEWHERE = "203.0.113.9", "198.51.100.7"


@pytest.fixture
def ada() -> Any:
    return get_user_model().objects.create_user(username="ada", password=ADA_PASSWORD)


@pytest.fixture
def grace() -> Any:
    return get_user_model().objects.create_user(username="grace", password="another long passphrase")


def sign_in(username: str, password: str, *, ip: str = ATTACKER, url: str = "") -> Any:
    """A fresh browser posting the sign-in form from ``ip``."""
    return Client(REMOTE_ADDR=ip).post(
        url or reverse("login"), {"username": username, "password": password}, follow=False
    )


def signed_in(response: Any) -> bool:
    return response.status_code == 302 and response["Location"] == reverse("chat")


def fail(username: str, times: int, *, ip: str = ATTACKER, url: str = "") -> list[Any]:
    return [sign_in(username, f"wrong {n}", ip=ip, url=url) for n in range(times)]


def test_the_settings_are_what_the_readme_says() -> None:
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"
    assert settings.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"
    assert settings.AXES_FAILURE_LIMIT == 5
    assert timedelta(minutes=15) == settings.AXES_COOLOFF_TIME
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]


def test_four_wrong_passwords_then_the_right_one_signs_in(ada: Any) -> None:
    assert [r.status_code for r in fail("ada", 4)] == [200] * 4  # the form again, saying it was wrong
    assert signed_in(sign_in("ada", ADA_PASSWORD))
    # A sign-in that worked clears the count: four more wrong ones still leave the door open.
    fail("ada", 4)
    assert signed_in(sign_in("ada", ADA_PASSWORD))


def test_five_wrong_passwords_lock_out_the_right_one_with_a_page_that_says_how_long(ada: Any) -> None:
    failures = fail("ada", 5)
    assert [r.status_code for r in failures[:4]] == [200] * 4
    assert failures[4].status_code == 429  # the fifth failure is the one that locks

    refused = sign_in("ada", ADA_PASSWORD)

    assert not signed_in(refused)
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "Too many failed sign-ins; try again in 15 minutes." in page
    assert 'role="alert"' in page
    assert "Content-Security-Policy" in refused.headers  # the site's own page, with its headers
    assert "registration/locked_out.html" in [t.name for t in refused.templates]


def test_a_locked_out_pair_leaves_other_users_and_other_addresses_alone(ada: Any, grace: Any) -> None:
    fail("ada", 5)
    assert sign_in("ada", ADA_PASSWORD).status_code == 429

    # Another user from the attacker's address, and ada herself from elsewhere, sign in as usual.
    assert signed_in(sign_in("grace", "another long passphrase"))
    assert signed_in(sign_in("ada", ADA_PASSWORD, ip=ELSEWHERE))


def test_the_lockout_ends_after_the_cool_off(ada: Any) -> None:
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        fail("ada", 5)
        assert sign_in("ada", ADA_PASSWORD).status_code == 429
    with time_machine.travel(start + timedelta(minutes=14), tick=False):
        assert sign_in("ada", ADA_PASSWORD).status_code == 429  # and the wait starts again
    with time_machine.travel(start + timedelta(minutes=14 + 16), tick=False):
        assert signed_in(sign_in("ada", ADA_PASSWORD))


def test_the_admin_sign_in_is_throttled_too() -> None:
    get_user_model().objects.create_superuser(username="root", password="an admin passphrase")
    admin_login = reverse("admin:login")
    fail("root", 5, url=admin_login)

    refused = sign_in("root", "an admin passphrase", url=admin_login)

    assert refused.status_code == 429
    assert "Too many failed sign-ins; try again in 15 minutes." in refused.content.decode()
    assert f'href="{admin_login}"' in refused.content.decode()  # back to the form that was used
    elsewhere = Client(REMOTE_ADDR=ELSEWHERE)
    ok = elsewhere.post(admin_login, {"username": "root", "password": "an admin passphrase"})
    assert ok.status_code == 302
    assert elsewhere.get(reverse("admin:index")).status_code == 200


@override_settings(AXES_COOLOFF_TIME=timedelta(minutes=1))
def test_the_page_names_the_configured_wait_in_words(ada: Any) -> None:
    fail("ada", 5)
    assert "try again in 1 minute." in sign_in("ada", ADA_PASSWORD).content.decode()


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "1.1.1.1", "10.0.0.1"),  # no proxy: a client's header proves nothing
        (1, "1.1.1.1, 203.0.113.9", "203.0.113.9"),  # the proxy's own entry, not the client's claim
        (2, "1.1.1.1, 203.0.113.9, 10.0.0.2", "203.0.113.9"),
        (1, "", "10.0.0.1"),
    ],
)
def test_the_address_behind_proxies(proxies: int, forwarded: str, expected: str) -> None:
    request = RequestFactory().post("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    with override_settings(SIGNIN_PROXY_COUNT=proxies):
        assert client_ip(request) == expected
