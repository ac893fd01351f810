"""Calendar account credentials at rest: only ever stored encrypted, with keys that can be rotated."""

from __future__ import annotations

import logging
from io import StringIO
from typing import Any

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from skills.crypto import SecretUnreadableError, generate_key
from skills.models import CalendarAccount

pytestmark = pytest.mark.django_db

OLD_KEY = generate_key()
NEW_KEY = generate_key()
GRANT = {
    "refresh_token": "1//refresh-token-of-ann",
    "client_id": "client.apps.example",
    "scopes": ["calendar"],
}


@pytest.fixture
def ann(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("ann", "ann@example.com")


def _google(owner: Any, credentials: dict[str, Any] | None = None) -> CalendarAccount:
    account = CalendarAccount(owner=owner, kind=CalendarAccount.Kind.GOOGLE, display_name="ann@example.com")
    account.credentials = credentials
    account.save()
    return account


def _column(account: CalendarAccount) -> str:
    """What the database holds, read with plain SQL (no model code in between)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT encrypted_credentials FROM {CalendarAccount._meta.db_table} WHERE id = %s", [account.pk]
        )
        (value,) = cursor.fetchone()
    return str(value)


@override_settings(CREDENTIAL_KEYS=[OLD_KEY])
def test_credentials_come_back_as_they_were_stored(ann: Any) -> None:
    account = _google(ann, GRANT)

    assert CalendarAccount.objects.get(pk=account.pk).credentials == GRANT


@override_settings(CREDENTIAL_KEYS=[OLD_KEY])
def test_the_database_column_holds_no_plaintext(ann: Any) -> None:
    account = _google(ann, GRANT)

    stored = _column(account)
    assert "refresh-token-of-ann" not in stored
    assert "refresh_token" not in stored
    assert Fernet(OLD_KEY.encode()).decrypt(stored.encode())  # a Fernet token of the configured key


@override_settings(CREDENTIAL_KEYS=[OLD_KEY])
def test_credentials_never_show_in_repr_str_or_a_log_line(ann: Any, caplog: pytest.LogCaptureFixture) -> None:
    account = CalendarAccount.objects.get(pk=_google(ann, GRANT).pk)
    credentials = account.credentials
    logging.getLogger("test").warning(
        "account %s %r credentials %s %r", account, account, credentials, credentials
    )

    shown = " ".join([repr(account), str(account), repr(credentials), str(credentials), caplog.text])
    assert "refresh-token-of-ann" not in shown
    assert account.encrypted_credentials not in shown
    assert "SecretDict(<3 keys hidden>)" in shown


@override_settings(CREDENTIAL_KEYS=[])
def test_storing_credentials_without_a_key_is_refused_saying_how_to_make_one(ann: Any) -> None:
    with pytest.raises(ImproperlyConfigured, match="CREDENTIAL_KEYS is not set") as refused:
        _google(ann, GRANT)

    assert "Fernet.generate_key()" in str(refused.value)
    assert not CalendarAccount.objects.exists()


@override_settings(CREDENTIAL_KEYS=[])
def test_an_account_without_credentials_needs_no_key(ann: Any) -> None:
    account = CalendarAccount.objects.create(owner=ann, kind=CalendarAccount.Kind.LOCAL, display_name="Mine")

    assert CalendarAccount.objects.get(pk=account.pk).credentials == {}
    assert not account.has_credentials


@override_settings(CREDENTIAL_KEYS=["not-a-fernet-key"])
def test_a_malformed_key_is_named_by_position_never_shown(ann: Any) -> None:
    with pytest.raises(ImproperlyConfigured, match="key 1 is not a Fernet key") as refused:
        _google(ann, GRANT)

    assert "not-a-fernet-key" not in str(refused.value)


def test_a_key_put_second_still_decrypts_what_it_encrypted(ann: Any) -> None:
    with override_settings(CREDENTIAL_KEYS=[OLD_KEY]):
        account = _google(ann, GRANT)

    with override_settings(CREDENTIAL_KEYS=[NEW_KEY, OLD_KEY]):
        assert CalendarAccount.objects.get(pk=account.pk).credentials == GRANT


def test_after_rotation_only_the_new_key_is_needed(ann: Any, django_user_model: Any) -> None:
    raj = django_user_model.objects.create_user("raj", "raj@example.com")
    with override_settings(CREDENTIAL_KEYS=[OLD_KEY]):
        accounts = [_google(ann, GRANT), _google(raj, {"password": "app-password-of-raj"})]
        CalendarAccount.objects.create(owner=raj, kind=CalendarAccount.Kind.LOCAL, display_name="none")
    out = StringIO()

    with override_settings(CREDENTIAL_KEYS=[NEW_KEY, OLD_KEY]):
        call_command("rotate_credentials", stdout=out)

    assert "Re-encrypted the credentials of 2 calendar account(s)" in out.getvalue()
    with override_settings(CREDENTIAL_KEYS=[NEW_KEY]):
        assert CalendarAccount.objects.get(pk=accounts[0].pk).credentials == GRANT
        assert CalendarAccount.objects.get(pk=accounts[1].pk).credentials == {
            "password": "app-password-of-raj"
        }
    with override_settings(CREDENTIAL_KEYS=[OLD_KEY]), pytest.raises(SecretUnreadableError):
        CalendarAccount.objects.get(pk=accounts[0].pk).credentials  # noqa: B018


def test_rotation_names_the_accounts_no_key_decrypts_and_rotates_the_rest(ann: Any) -> None:
    other_key = generate_key()
    with override_settings(CREDENTIAL_KEYS=[OLD_KEY]):
        lost = _google(ann, GRANT)
    with override_settings(CREDENTIAL_KEYS=[other_key]):
        kept = _google(ann, {"password": "kept"})

    with (
        override_settings(CREDENTIAL_KEYS=[NEW_KEY, other_key]),  # OLD_KEY removed too early
        pytest.raises(CommandError, match=rf"account\(s\) {lost.pk}:"),
    ):
        call_command("rotate_credentials", stdout=StringIO())

    assert _column(lost) == lost.encrypted_credentials  # left as it was, for when its key is back
    with override_settings(CREDENTIAL_KEYS=[NEW_KEY]):
        assert CalendarAccount.objects.get(pk=kept.pk).credentials == {"password": "kept"}


@override_settings(CREDENTIAL_KEYS=[])
def test_rotation_without_keys_says_how_to_make_one(ann: Any) -> None:
    with override_settings(CREDENTIAL_KEYS=[OLD_KEY]):
        _google(ann, GRANT)

    with pytest.raises(CommandError, match=r"Fernet\.generate_key"):
        call_command("rotate_credentials", stdout=StringIO())
