"""Every door that writes a preference validates (the service the chat, demo and scenario loader use,
the model's full_clean and save), and every read returns only values that validate."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from preferences.models import Preference
from preferences.schema import PreferenceError
from preferences.selectors import (
    ignored_note,
    preference_get,
    preferences_checked,
    preferences_described,
    preferences_for,
    user_timezone,
)
from preferences.services import preference_delete, preference_set
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

BAD_HOURS = {"days": ["XX"], "start": "25:00", "end": "banana"}
HOURS = {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "08:00", "end": "18:00"}


@pytest.fixture
def user() -> Any:
    return user_with_calendar("door", timezone="Europe/Berlin")[0]


def test_preference_set_refuses_a_malformed_value_and_stores_nothing(user: Any) -> None:
    with pytest.raises(PreferenceError) as refused:
        preference_set(user=user, key="working_hours", value=BAD_HOURS)
    assert "working_hours.start: '25:00' is not a time; use HH:MM, 00:00-23:59" in refused.value.messages
    assert not Preference.objects.filter(user=user, key="working_hours").exists()


def test_preference_set_refuses_an_unknown_key(user: Any) -> None:
    with pytest.raises(PreferenceError, match="'favourite_colour' is not a preference"):
        preference_set(user=user, key="favourite_colour", value="blue")
    assert not Preference.objects.filter(user=user, key="favourite_colour").exists()


def test_preference_set_keeps_an_older_value_when_the_new_one_is_refused(user: Any) -> None:
    preference_set(user=user, key="working_hours", value=HOURS)
    with pytest.raises(PreferenceError):
        preference_set(user=user, key="working_hours", value={**HOURS, "end": "07:00"})
    assert Preference.objects.get(user=user, key="working_hours").value == HOURS


def test_preference_set_stores_the_canonical_form(user: Any) -> None:
    pref = preference_set(
        user=user, key="working_hours", value={"days": ["fr", "MO"], "start": "8:00", "end": "18:00"}
    )
    pref.refresh_from_db()
    assert pref.value == {"days": ["MO", "FR"], "start": "08:00", "end": "18:00"}


def test_preference_delete_forgets_only_that_key(user: Any) -> None:
    preference_set(user=user, key="gym_schedule", value=[{"day": "MO", "start": "18:00", "end": "19:00"}])
    assert preference_delete(user=user, key="gym_schedule") is True
    assert preference_delete(user=user, key="gym_schedule") is False
    assert preferences_for(user=user) == {"timezone": "Europe/Berlin"}


def test_full_clean_names_the_field(user: Any) -> None:
    pref = Preference(user=user, key="lunch_hours", value={"start": "12:00", "end": "11:00"})
    with pytest.raises(ValidationError) as refused:
        pref.full_clean()
    assert refused.value.message_dict == {
        "value": [
            "lunch_hours.end: '11:00' is not after the start '12:00'; the end must be later than the start "
            "on the same day"
        ]
    }


def test_full_clean_refuses_an_unknown_key_on_the_key(user: Any) -> None:
    with pytest.raises(ValidationError) as refused:
        Preference(user=user, key="colour", value="blue").full_clean()
    assert list(refused.value.message_dict) == ["key"]


def test_save_from_the_shell_validates_too(user: Any) -> None:
    with pytest.raises(PreferenceError, match="default_event_minutes: 0 minutes is out of range"):
        Preference.objects.create(user=user, key="default_event_minutes", value=0)
    pref = Preference.objects.get(user=user, key="timezone")
    pref.value = "Mars/Olympus"
    with pytest.raises(PreferenceError, match="timezone: 'Mars/Olympus' is not a known time zone"):
        pref.save()
    assert Preference.objects.get(user=user, key="timezone").value == "Europe/Berlin"
    assert not Preference.objects.filter(user=user, key="default_event_minutes").exists()


def test_reads_ignore_a_value_stored_behind_the_schemas_back(
    user: Any, caplog: pytest.LogCaptureFixture
) -> None:
    preference_set(user=user, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    preference_set(user=user, key="working_hours", value=HOURS)
    Preference.objects.filter(user=user, key="working_hours").update(value=BAD_HOURS)
    with caplog.at_level(logging.WARNING, logger="preferences"):
        values = preferences_for(user=user)
    assert values == {"timezone": "Europe/Berlin", "lunch_hours": {"start": "12:00", "end": "13:00"}}
    assert "preference working_hours of user" in caplog.text
    assert preference_get(user=user, key="working_hours", default="unset") == "unset"
    assert preference_get(user=user, key="lunch_hours") == {"start": "12:00", "end": "13:00"}


def test_checked_reads_say_which_preference_was_ignored_and_why(user: Any) -> None:
    preference_set(user=user, key="working_hours", value=HOURS)
    Preference.objects.filter(user=user, key="working_hours").update(value=BAD_HOURS)
    Preference.objects.filter(user=user, key="timezone").update(value="Mars/Olympus")
    checked = preferences_checked(user=user)
    assert checked.values == {}
    by_key = {p.key: p for p in checked.problems}
    assert set(by_key) == {"working_hours", "timezone"}
    assert (
        "working_hours.start: '25:00' is not a time; use HH:MM, 00:00-23:59"
        in by_key["working_hours"].messages
    )
    note = ignored_note(checked.problems, where="/settings/")
    assert note.startswith("Note: I ignored your saved ")
    assert "your saved working hours (working_hours.days[0]: 'XX' is not a day" in note
    assert "your saved time zone (timezone: 'Mars/Olympus' is not a known time zone" in note
    assert "and used America/New_York instead" in note
    assert note.endswith("You can fix them on the settings page (/settings/).")


def test_an_invalid_stored_zone_falls_back_to_the_instance_default(user: Any) -> None:
    assert user_timezone(user=user) == "Europe/Berlin"
    Preference.objects.filter(user=user, key="timezone").update(value="Mars/Olympus")
    assert user_timezone(user=user) == "America/New_York"


def test_a_stored_value_is_canonicalised_on_read(user: Any) -> None:
    preference_set(user=user, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    Preference.objects.filter(user=user, key="lunch_hours").update(value={"start": "9:30", "end": "10:00"})
    assert preferences_for(user=user)["lunch_hours"] == {"start": "09:30", "end": "10:00"}


def test_reads_are_scoped_to_the_user(user: Any) -> None:
    other, _ = user_with_calendar("other-door", timezone="Asia/Tokyo")
    preference_set(user=other, key="lunch_hours", value={"start": "11:00", "end": "12:00"})
    assert "lunch_hours" not in preferences_for(user=user)
    assert user_timezone(user=user) == "Europe/Berlin"


def test_preferences_described_in_words_with_the_ignored_ones_last(user: Any) -> None:
    preference_set(user=user, key="work_calendar", value="work")
    preference_set(user=user, key="working_hours", value=HOURS)
    preference_set(user=user, key="lunch_hours", value={"start": "12:00", "end": "13:00"})
    Preference.objects.filter(user=user, key="lunch_hours").update(value={"start": "12:00", "end": "11:00"})
    assert preferences_described(user=user) == [
        "Time zone: Europe/Berlin",
        "Working hours: Monday to Friday, 8 AM to 6 PM",
        "Work calendar: Work",
        "Lunch: ignored (lunch_hours.end: '11:00' is not after the start '12:00'; the end must be later "
        "than the start on the same day)",
    ]
