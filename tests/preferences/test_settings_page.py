"""The settings page: a signed-in user sees their own preferences in words and edits only those."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from preferences.models import Preference
from preferences.services import preference_set
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

URL = reverse("preferences:settings")
HOURS = {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "08:00", "end": "18:00"}
THEIR_HOURS = {"days": ["SA", "SU"], "start": "10:00", "end": "14:00"}


@pytest.fixture
def me(client: Client) -> Any:
    user, _ = user_with_calendar("me", key="work", name="Work", timezone="Europe/Berlin")
    client.force_login(user)
    return user


@pytest.fixture
def them() -> Any:
    other, _ = user_with_calendar("them", key="home", name="Home", timezone="Asia/Tokyo")
    preference_set(user=other, key="working_hours", value=THEIR_HOURS)
    return other


def test_anonymous_visitors_are_sent_to_log_in(client: Client) -> None:
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    response = client.post(URL, {"key": "timezone", "timezone-zone": "Europe/London"})
    assert response.status_code == 302
    assert not Preference.objects.filter(value="Europe/London").exists()


def test_the_page_restates_my_values_in_words_and_not_theirs(client: Client, me: Any, them: Any) -> None:
    preference_set(user=me, key="working_hours", value=HOURS)
    html = client.get(URL).content.decode()
    assert "Monday to Friday, 8 AM to 6 PM" in html
    assert "Europe/Berlin" in html
    assert "Saturday and Sunday, 10 AM to 2 PM" not in html  # their working hours
    assert "Asia/Tokyo" not in html.split("<main", 1)[1].split('name="timezone-zone"')[0]
    assert '"MO"' not in html.split('id="working_hours"', 1)[1].split("<details", 1)[0]


def test_saving_changes_only_my_preference(client: Client, me: Any, them: Any) -> None:
    response = client.post(
        URL,
        {
            "key": "working_hours",
            "working_hours-days": ["MO", "TU", "WE", "TH"],
            "working_hours-start": "09:00",
            "working_hours-end": "17:30",
            "user": them.pk,  # not a field of the page: ignored
        },
    )
    assert response.status_code == 302
    assert Preference.objects.get(user=me, key="working_hours").value == {
        "days": ["MO", "TU", "WE", "TH"],
        "start": "09:00",
        "end": "17:30",
    }
    assert Preference.objects.get(user=them, key="working_hours").value == THEIR_HOURS
    page = client.get(response["Location"]).content.decode()
    assert "Saved your working hours: Monday to Thursday, 9 AM to 5:30 PM." in page


def test_a_malformed_value_is_refused_naming_the_field(client: Client, me: Any) -> None:
    preference_set(user=me, key="working_hours", value=HOURS)
    response = client.post(
        URL,
        {
            "key": "working_hours",
            "working_hours-days": ["XX"],
            "working_hours-start": "25:00",
            "working_hours-end": "18:00",
        },
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "working_hours.start: &#x27;25:00&#x27; is not a time; use HH:MM, 00:00-23:59" in html
    assert "working_hours.days[0]: &#x27;XX&#x27; is not a day" in html
    assert Preference.objects.get(user=me, key="working_hours").value == HOURS


def test_every_key_can_be_set_from_its_fields(client: Client, me: Any) -> None:
    posts: dict[str, dict[str, Any]] = {
        "timezone": {"timezone-zone": "Europe/London"},
        "lunch_hours": {"lunch_hours-start": "12:30", "lunch_hours-end": "13:30"},
        "gym_schedule": {
            "gym_schedule-mo_start": "18:00",
            "gym_schedule-mo_end": "19:30",
            "gym_schedule-fr_start": "07:00",
            "gym_schedule-fr_end": "08:00",
        },
        "writing_block": {
            "writing_block-days": ["TU", "TH"],
            "writing_block-start": "09:00",
            "writing_block-end": "11:00",
            "writing_block-allow_exceptions_with_approval": "on",
        },
        "meeting_hours": {"meeting_hours-earliest": "10:00", "meeting_hours-no_meeting_days": ["FR"]},
        "work_calendar": {"work_calendar-calendar": "work"},
        "default_event_minutes": {"default_event_minutes-minutes": "45"},
        "week_start": {"week_start-day": "SU"},
        "day_parts": {
            "day_parts-morning_start": "06:00",
            "day_parts-morning_end": "12:00",
            "day_parts-afternoon_start": "12:00",
            "day_parts-afternoon_end": "18:00",
            "day_parts-evening_start": "18:00",
            "day_parts-evening_end": "22:00",
        },
        "busy_visible_to": {
            "busy_visible_to-who": "named",
            "busy_visible_to-people": "Ann@example.com,\nraj@example.com",
        },
    }
    for key, fields in posts.items():
        response = client.post(URL, {"key": key, **fields})
        assert response.status_code == 302, (key, response.content.decode()[-2000:])
    stored = dict(Preference.objects.filter(user=me).values_list("key", "value"))
    assert stored["timezone"] == "Europe/London"
    assert stored["lunch_hours"] == {"start": "12:30", "end": "13:30"}
    assert stored["gym_schedule"] == [
        {"day": "MO", "start": "18:00", "end": "19:30"},
        {"day": "FR", "start": "07:00", "end": "08:00"},
    ]
    assert stored["writing_block"] == {
        "days": ["TU", "TH"],
        "start": "09:00",
        "end": "11:00",
        "allow_exceptions_with_approval": True,
    }
    assert stored["meeting_hours"] == {"earliest": "10:00", "no_meeting_days": ["FR"]}
    assert stored["work_calendar"] == "work"
    assert stored["default_event_minutes"] == 45
    assert stored["week_start"] == "SU"
    assert stored["day_parts"]["evening"] == {"start": "18:00", "end": "22:00"}
    assert stored["busy_visible_to"] == {"who": "named", "people": ["ann@example.com", "raj@example.com"]}
    html = client.get(URL).content.decode()
    assert "on, only with ann@example.com and raj@example.com" in html
    assert "No meetings before 10 AM and none on Fridays" in html
    assert "Monday, 6 PM to 7:30 PM; Friday, 7 AM to 8 AM" in html


def test_a_calendar_that_is_not_mine_is_refused(client: Client, me: Any, them: Any) -> None:
    response = client.post(URL, {"key": "work_calendar", "work_calendar-calendar": "home"})  # their calendar
    assert response.status_code == 200
    assert (
        "work_calendar: &#x27;home&#x27; is not one of your calendars; use one of: work"
        in response.content.decode()
    )
    assert not Preference.objects.filter(user=me, key="work_calendar").exists()


def test_remove_forgets_only_my_preference(client: Client, me: Any, them: Any) -> None:
    preference_set(user=me, key="working_hours", value=HOURS)
    response = client.post(URL, {"key": "working_hours", "action": "remove"})
    assert response.status_code == 302
    assert not Preference.objects.filter(user=me, key="working_hours").exists()
    assert Preference.objects.get(user=them, key="working_hours").value == THEIR_HOURS


def test_an_unknown_key_is_refused(client: Client, me: Any) -> None:
    response = client.post(URL, {"key": "favourite_colour", "favourite_colour-value": "blue"})
    assert response.status_code == 400
    assert not Preference.objects.filter(user=me, key="favourite_colour").exists()


def test_a_stored_value_that_no_longer_validates_is_shown_as_ignored(client: Client, me: Any) -> None:
    preference_set(user=me, key="working_hours", value=HOURS)
    Preference.objects.filter(user=me, key="working_hours").update(
        value={"days": ["XX"], "start": "25:00", "end": "banana"}
    )
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Your saved value is ignored: working_hours.days[0]: &#x27;XX&#x27; is not a day" in html


def test_the_chat_page_links_to_the_settings(client: Client, me: Any) -> None:
    response = client.get(reverse("chat"), follow=True)
    assert f'href="{URL}"' in response.content.decode()


def test_a_refusal_is_shown_at_the_field_it_names(client: Client, me: Any) -> None:
    response = client.post(
        URL,
        {
            "key": "day_parts",
            "day_parts-morning_start": "06:00",
            "day_parts-morning_end": "12:00",
            "day_parts-afternoon_start": "11:00",
            "day_parts-afternoon_end": "17:00",
            "day_parts-evening_start": "17:00",
            "day_parts-evening_end": "21:00",
        },
    )
    form = next(row.form for row in response.context["rows"] if row.key == "day_parts")
    assert list(form.errors) == ["afternoon_start"]
    assert form.errors["afternoon_start"][0].startswith(
        "day_parts.afternoon: starts at '11:00', before the morning"
    )
    assert not Preference.objects.filter(user=me, key="day_parts").exists()


def test_an_unset_key_starts_from_the_usual_value_or_empty(client: Client, me: Any) -> None:
    forms = {row.key: row.form for row in client.get(URL).context["rows"]}
    assert forms["working_hours"].initial == {
        "days": ["MO", "TU", "WE", "TH", "FR"],
        "start": "09:00",
        "end": "17:00",
    }
    assert forms["timezone"].initial == {"zone": "Europe/Berlin"}  # the stored one
    assert forms["meeting_hours"].initial == {"no_meeting_days": []}
    assert forms["gym_schedule"].initial == {}
