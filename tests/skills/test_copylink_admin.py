"""Copy links in the admin: which event is a copy of which, per user, read-only (deletable as a fix)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from assistant.services import chat_turn, conversation_create
from skills.models import CopyLink
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
LIST = reverse("admin:skills_copylink_changelist")


def copied(username: str, titles: list[str]) -> Any:
    """A user whose work events of this week were copied to the personal calendar by chat."""
    user, work = user_with_calendar(username, key="work", name="Work")
    calendar_create(owner=user, key="personal", name="Personal", timezone="America/New_York")
    for day, title in enumerate(titles, start=3):
        event_create(
            calendar=work,
            summary=title,
            start=datetime(2026, 3, day, 10, tzinfo=NY),
            end=datetime(2026, 3, day, 11, tzinfo=NY),
        )
    conversation = conversation_create(user=user)
    with time_machine.travel(datetime(2026, 3, 2, 9, tzinfo=NY), tick=False):
        chat_turn(user=user, conversation=conversation, text="Copy my work week to personal")
        done = chat_turn(user=user, conversation=conversation, text="yes")
    assert done is not None
    assert done.kind == "done", done.text
    assert CopyLink.objects.filter(owner=user).count() == len(titles)
    return user


@pytest.fixture
def admin_client(client: Client) -> Client:
    root = get_user_model().objects.create_superuser(username="root", email="root@example.com", password=None)
    client.force_login(root)
    return client


def test_the_list_names_each_original_and_its_copy(
    admin_client: Client, django_assert_max_num_queries: Any
) -> None:
    copied("ann", ["Budget review", "Vendor call"])
    copied("raj", ["Site visit"])
    with django_assert_max_num_queries(12):  # a page reads the events it names at once, not row by row
        response = admin_client.get(LIST)
    assert response.status_code == 200
    html = response.content.decode()
    for title in ("Budget review", "Vendor call", "Site visit"):
        assert f"Work: {title}" in html
        assert f"Personal: {title}" in html
    assert 'class="field-owner nowrap">ann<' in html
    assert 'class="field-owner nowrap">raj<' in html


def test_links_are_found_by_their_user(admin_client: Client) -> None:
    copied("ann", ["Budget review"])
    copied("raj", ["Site visit"])
    html = admin_client.get(LIST, {"q": "raj"}).content.decode()
    assert "Site visit" in html
    assert "Budget review" not in html


def test_links_are_read_only_but_a_stale_one_can_be_deleted(admin_client: Client) -> None:
    user = copied("ann", ["Budget review"])
    link = CopyLink.objects.get(owner=user)
    assert admin_client.get(reverse("admin:skills_copylink_add")).status_code == 403
    page = admin_client.get(reverse("admin:skills_copylink_change", args=[link.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Work: Budget review" in html
    assert 'name="_save"' not in html  # nothing to edit
    deleted = admin_client.post(reverse("admin:skills_copylink_delete", args=[link.pk]), {"post": "yes"})
    assert deleted.status_code == 302
    assert not CopyLink.objects.filter(pk=link.pk).exists()


def test_a_copy_deleted_since_is_named_as_gone(admin_client: Client) -> None:
    user = copied("ann", ["Budget review"])
    link = CopyLink.objects.get(owner=user)
    user.calendars.get(key="personal").events.all().delete()
    html = admin_client.get(LIST).content.decode()
    assert f"Personal: event {link.copy_event_id} (gone)" in html


def test_a_staff_member_sees_only_their_own_links(client: Client) -> None:
    ann = copied("ann", ["Budget review"])
    copied("raj", ["Site visit"])
    ann.is_staff = True
    ann.save()
    ann.user_permissions.add(Permission.objects.get(codename="view_copylink"))
    client.force_login(ann)
    html = client.get(LIST).content.decode()
    assert "Budget review" in html
    assert "Site visit" not in html
