"""Calendar accounts: where a calendar lives, shown in the admin with their status, never their secrets."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.test import Client, override_settings
from django.urls import reverse

from skills.crypto import generate_key
from skills.models import Calendar, CalendarAccount
from skills.services import calendar_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

KEY = generate_key()
LIST = reverse("admin:skills_calendaraccount_changelist")


def _account(owner: Any, name: str, **extra: Any) -> CalendarAccount:
    account = CalendarAccount(owner=owner, kind=CalendarAccount.Kind.GOOGLE, display_name=name, **extra)
    with override_settings(CREDENTIAL_KEYS=[KEY]):
        account.credentials = {"refresh_token": f"secret-of-{owner.username}"}
    account.save()
    return account


@pytest.fixture
def admin_client(client: Client) -> Client:
    root = get_user_model().objects.create_superuser(username="root", email="root@example.com", password=None)
    client.force_login(root)
    return client


def test_a_calendar_without_an_account_is_the_built_in_stores_and_writable() -> None:
    _, calendar = user_with_calendar("ann")

    calendar.refresh_from_db()
    assert calendar.account is None
    assert calendar.remote_id == ""
    assert calendar.writable is True


def test_a_remote_calendar_is_mirrored_once_per_account() -> None:
    user, _ = user_with_calendar("ann")
    account = _account(user, "ann@example.com")
    calendar_create(owner=user, key="g-work", name="Work (Google)", timezone="UTC")
    Calendar.objects.filter(key="g-work").update(account=account, remote_id="work@group.calendar.google.com")

    with pytest.raises(IntegrityError):
        Calendar.objects.create(
            owner=user,
            key="g-work-2",
            name="Again",
            account=account,
            remote_id="work@group.calendar.google.com",
        )


def test_a_calendar_cannot_belong_to_someone_elses_account() -> None:
    ann, _ = user_with_calendar("ann")
    raj, _ = user_with_calendar("raj")
    calendar = Calendar(
        owner=raj, key="g", name="G", timezone="UTC", account=_account(ann, "ann@example.com")
    )

    with pytest.raises(ValidationError, match="account of its owner"):
        calendar.full_clean()


def test_deleting_an_account_removes_the_mirror_of_its_calendars_only() -> None:
    user, own = user_with_calendar("ann")
    account = _account(user, "ann@example.com")
    Calendar.objects.create(owner=user, key="g", name="G", timezone="UTC", account=account, remote_id="g")

    account.delete()

    assert list(Calendar.objects.filter(owner=user)) == [own]


def test_the_admin_shows_status_and_last_error_but_never_credentials(admin_client: Client) -> None:
    ann, _ = user_with_calendar("ann")
    account = _account(
        ann,
        "ann@example.com",
        status=CalendarAccount.Status.NEEDS_RECONNECT,
        last_error="The grant was revoked.",
    )

    listed = admin_client.get(LIST).content.decode()
    page = admin_client.get(
        reverse("admin:skills_calendaraccount_change", args=[account.pk])
    ).content.decode()

    for html in (listed, page):
        assert "ann@example.com" in html
        assert "Needs reconnecting" in html
        assert "The grant was revoked." in html
        assert "secret-of-ann" not in html
        assert account.encrypted_credentials not in html
    assert "stored, encrypted" in page
    assert 'name="encrypted_credentials"' not in page
    assert 'name="credentials"' not in page


@pytest.mark.parametrize("field", CalendarAccount.SECRET_FIELDS)
@pytest.mark.parametrize("lookup", ["", "__regex", "__startswith", "__contains", "__gt", "__isnull"])
def test_no_admin_filter_reads_a_secret_column(admin_client: Client, field: str, lookup: str) -> None:
    """The probe recovered ciphertext with ``?encrypted_credentials__regex=^gAAAA...``: refused (400),
    whether the guess is right or wrong, so the answer says nothing."""
    ann, _ = user_with_calendar("ann")
    account = _account(ann, "ann@example.com")
    value = "True" if lookup == "__isnull" else getattr(account, field)[:5]
    right = admin_client.get(LIST, {f"{field}{lookup}": value})
    wrong = admin_client.get(LIST, {f"{field}{lookup}": "zzzz" if lookup != "__isnull" else "False"})
    assert (right.status_code, wrong.status_code) == (400, 400)
    assert getattr(account, field)[:5] not in right.content.decode()


def test_the_admin_search_never_reads_a_secret_column(admin_client: Client) -> None:
    ann, _ = user_with_calendar("ann")
    account = _account(ann, "ann@example.com")
    fields = {f.split("__", 1)[0] for f in admin.site._registry[CalendarAccount].search_fields}
    assert not fields & set(CalendarAccount.SECRET_FIELDS)
    found = admin_client.get(LIST, {"q": account.encrypted_credentials[:12]}).content.decode()
    assert "ann@example.com" not in found  # the ciphertext finds nothing


def test_accounts_are_not_added_in_the_admin_but_can_be_renamed(admin_client: Client) -> None:
    ann, _ = user_with_calendar("ann")
    account = _account(ann, "ann@example.com")
    change = reverse("admin:skills_calendaraccount_change", args=[account.pk])

    assert admin_client.get(reverse("admin:skills_calendaraccount_add")).status_code == 403
    saved = admin_client.post(change, {"display_name": "Ann's Google"})

    assert saved.status_code == 302
    account.refresh_from_db()
    assert account.display_name == "Ann's Google"
    with override_settings(CREDENTIAL_KEYS=[KEY]):
        assert account.credentials == {"refresh_token": "secret-of-ann"}  # untouched by the form


def test_a_staff_member_sees_only_their_own_accounts(client: Client) -> None:
    ann, _ = user_with_calendar("ann")
    raj, _ = user_with_calendar("raj")
    _account(ann, "ann@example.com")
    _account(raj, "raj@example.com")
    ann.is_staff = True
    ann.save()
    ann.user_permissions.add(Permission.objects.get(codename="view_calendaraccount"))
    client.force_login(ann)

    html = client.get(LIST).content.decode()

    assert "ann@example.com" in html
    assert "raj@example.com" not in html
