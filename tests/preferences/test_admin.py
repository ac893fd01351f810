"""The preference admin: the key is chosen from the known ones, each key has its own fields (time
inputs, day checkboxes, a zone select, the user's calendars), and a malformed value is refused with
the message naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from preferences.models import Preference
from preferences.services import preference_set
from skills.services import calendar_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

ADD = reverse("admin:preferences_preference_add")


@pytest.fixture
def admin_client(client: Client) -> Client:
    admin = get_user_model().objects.create_superuser(
        username="root", email="root@example.com", password=None
    )
    client.force_login(admin)
    return client


@pytest.fixture
def owner() -> Any:
    user, _ = user_with_calendar("owner", key="work", name="Work", timezone="Europe/Berlin")
    calendar_create(owner=user, key="personal", name="Personal", timezone="Europe/Berlin")
    return user


def working_hours_post(owner: Any, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"user": owner.pk, "key": "working_hours"}
    data.update({f"working_hours-{name}": value for name, value in fields.items()})
    return data


def test_the_add_form_offers_the_known_keys_and_real_fields(admin_client: Client, owner: Any) -> None:
    response = admin_client.get(ADD)
    assert response.status_code == 200
    html = response.content.decode()
    form = response.context["adminform"].form
    key_choices = [value for value, _ in form.fields["key"].choices]
    assert "working_hours" in key_choices
    assert "meeting_hours" in key_choices
    assert "day_parts" in key_choices
    assert "value" not in form.fields  # no raw JSON box
    assert 'type="time"' in html
    assert 'type="checkbox" name="working_hours-days" value="MO"' in html
    assert '<option value="Europe/London">Europe/London</option>' in html
    assert "The days and hours you work" in html  # help text


def test_a_malformed_value_is_refused_naming_the_field(admin_client: Client, owner: Any) -> None:
    response = admin_client.post(ADD, working_hours_post(owner, days=["XX"], start="25:00", end="banana"))
    assert response.status_code == 200  # the form again, not a redirect
    html = response.content.decode()
    assert "working_hours.start: &#x27;25:00&#x27; is not a time; use HH:MM, 00:00-23:59" in html
    assert "working_hours.end: &#x27;banana&#x27; is not a time" in html
    assert "working_hours.days[0]: &#x27;XX&#x27; is not a day; use MO, TU, WE, TH, FR, SA or SU" in html
    errors = response.context["adminform"].form.errors
    assert "working_hours-start" in errors
    assert "working_hours-days" in errors
    assert not Preference.objects.filter(user=owner, key="working_hours").exists()


def test_an_end_before_the_start_is_refused_at_the_end(admin_client: Client, owner: Any) -> None:
    response = admin_client.post(ADD, working_hours_post(owner, days=["MO"], start="09:00", end="08:00"))
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["working_hours-end"]
    assert "is not after the start '09:00'" in errors["working_hours-end"][0]


def test_a_good_value_is_saved_in_canonical_form(admin_client: Client, owner: Any) -> None:
    response = admin_client.post(
        ADD, working_hours_post(owner, days=["MO", "TU", "WE", "TH", "FR"], start="08:00", end="18:00")
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Preference.objects.get(user=owner, key="working_hours").value == {
        "days": ["MO", "TU", "WE", "TH", "FR"],
        "start": "08:00",
        "end": "18:00",
    }


def test_only_the_chosen_keys_fields_count(admin_client: Client, owner: Any) -> None:
    data = working_hours_post(owner, days=["MO"], start="09:00", end="17:00")
    data["lunch_hours-start"] = "nonsense"  # another key's field: not what is being saved
    response = admin_client.post(ADD, data)
    assert response.status_code == 302
    assert not Preference.objects.filter(user=owner, key="lunch_hours").exists()


def test_a_calendar_preference_must_name_one_of_the_users_calendars(admin_client: Client, owner: Any) -> None:
    response = admin_client.post(
        ADD, {"user": owner.pk, "key": "work_calendar", "work_calendar-calendar": "school"}
    )
    errors = response.context["adminform"].form.errors
    assert errors["work_calendar-calendar"] == [
        "work_calendar: 'school' is not one of your calendars; use one of: personal, work"
    ]
    response = admin_client.post(
        ADD, {"user": owner.pk, "key": "work_calendar", "work_calendar-calendar": "work"}
    )
    assert response.status_code == 302
    assert Preference.objects.get(user=owner, key="work_calendar").value == "work"


def test_the_change_form_shows_the_stored_value_in_its_fields(admin_client: Client, owner: Any) -> None:
    pref = preference_set(
        user=owner, key="gym_schedule", value=[{"day": "WE", "start": "18:00", "end": "19:30"}]
    )
    response = admin_client.get(reverse("admin:preferences_preference_change", args=[pref.pk]))
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form.initial["gym_schedule-we_start"] == "18:00"
    assert form.initial["gym_schedule-we_end"] == "19:30"
    assert "gym_schedule-mo_start" not in form.initial
    response = admin_client.post(
        reverse("admin:preferences_preference_change", args=[pref.pk]),
        {
            "user": owner.pk,
            "key": "gym_schedule",
            "gym_schedule-fr_start": "07:00",
            "gym_schedule-fr_end": "06:00",
        },
    )
    errors = response.context["adminform"].form.errors
    assert "is not after the start '07:00'" in errors["gym_schedule-fr_end"][0]
    pref.refresh_from_db()
    assert pref.value == [{"day": "WE", "start": "18:00", "end": "19:30"}]


def test_the_calendar_select_lists_the_users_calendars(admin_client: Client, owner: Any) -> None:
    pref = preference_set(user=owner, key="personal_calendar", value="personal")
    response = admin_client.get(reverse("admin:preferences_preference_change", args=[pref.pk]))
    choices = dict(response.context["adminform"].form.fields["personal_calendar-calendar"].choices)
    assert choices == {"": "Choose a calendar", "personal": "Personal (personal)", "work": "Work (work)"}


def test_a_value_stored_behind_the_schemas_back_can_be_opened_and_fixed(
    admin_client: Client, owner: Any
) -> None:
    pref = preference_set(user=owner, key="working_hours", value={"start": "09:00", "end": "17:00"})
    Preference.objects.filter(pk=pref.pk).update(value={"days": ["XX"], "start": "25:00", "end": "banana"})
    listing = admin_client.get(reverse("admin:preferences_preference_changelist"))
    assert "Ignored (no longer valid): working_hours.days[0]" in listing.content.decode()
    url = reverse("admin:preferences_preference_change", args=[pref.pk])
    assert admin_client.get(url).status_code == 200
    response = admin_client.post(
        url, working_hours_post(owner, days=["MO", "TU"], start="10:00", end="16:00")
    )
    assert response.status_code == 302
    pref.refresh_from_db()
    assert pref.value == {"days": ["MO", "TU"], "start": "10:00", "end": "16:00"}


def test_the_list_restates_values_in_words(admin_client: Client, owner: Any) -> None:
    preference_set(user=owner, key="working_hours", value={"start": "08:00", "end": "18:00"})
    html = admin_client.get(reverse("admin:preferences_preference_changelist")).content.decode()
    assert "Monday to Friday, 8 AM to 6 PM" in html
