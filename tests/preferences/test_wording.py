"""Preferences restated in words, never day codes: what the settings page and the chat say."""

from __future__ import annotations

from typing import Any

import pytest

from preferences.wording import (
    describe_days,
    describe_minutes,
    describe_preference,
    describe_preferences,
    describe_time,
)


@pytest.mark.parametrize(
    ("codes", "words"),
    [
        (["MO", "TU", "WE", "TH", "FR"], "Monday to Friday"),
        (["MO", "WE", "FR"], "Monday, Wednesday and Friday"),
        (["TU", "TH"], "Tuesday and Thursday"),
        (["MO", "TU", "WE", "FR"], "Monday to Wednesday and Friday"),
        (["SA", "SU"], "Saturday and Sunday"),
        (["MO", "TU", "WE", "TH", "FR", "SA", "SU"], "every day"),
        (["FR"], "Friday"),
    ],
)
def test_days_in_words(codes: list[str], words: str) -> None:
    assert describe_days(codes) == words


@pytest.mark.parametrize(
    ("hhmm", "words"),
    [
        ("08:00", "8 AM"),
        ("19:30", "7:30 PM"),
        ("12:00", "noon"),
        ("00:00", "midnight"),
        ("12:30", "12:30 PM"),
    ],
)
def test_times_in_words(hhmm: str, words: str) -> None:
    assert describe_time(hhmm) == words


@pytest.mark.parametrize(
    ("minutes", "words"), [(45, "45 minutes"), (60, "1 hour"), (90, "1 hour 30 minutes")]
)
def test_minutes_in_words(minutes: int, words: str) -> None:
    assert describe_minutes(minutes) == words


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        (
            "working_hours",
            {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "08:00", "end": "18:00"},
            "Monday to Friday, 8 AM to 6 PM",
        ),
        ("lunch_hours", {"start": "12:00", "end": "13:00"}, "every day, noon to 1 PM"),
        (
            "gym_schedule",
            [{"day": d, "start": "18:00", "end": "19:30"} for d in ("MO", "WE", "FR")],
            "Monday, Wednesday and Friday, 6 PM to 7:30 PM",
        ),
        (
            "gym_schedule",
            [
                {"day": "MO", "start": "07:00", "end": "08:00"},
                {"day": "TH", "start": "18:00", "end": "19:00"},
            ],
            "Monday, 7 AM to 8 AM; Thursday, 6 PM to 7 PM",
        ),
        (
            "writing_block",
            {"days": ["TU", "TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": True},
            "Tuesday and Thursday, 9 AM to 11 AM; exceptions only with your approval",
        ),
        ("meeting_hours", {"earliest": "10:00"}, "No meetings before 10 AM"),
        ("meeting_hours", {"no_meeting_days": ["FR"]}, "No meetings on Fridays"),
        (
            "meeting_hours",
            {"earliest": "10:00", "latest": "17:00", "no_meeting_days": ["SA", "SU"]},
            "No meetings before 10 AM or after 5 PM and none on Saturdays and Sundays",
        ),
        ("default_event_minutes", 45, "45 minutes"),
        ("week_start", "SU", "Sunday"),
        ("timezone", "Europe/London", "Europe/London"),
        (
            "day_parts",
            {
                "morning": {"start": "05:00", "end": "12:00"},
                "afternoon": {"start": "12:00", "end": "17:00"},
                "evening": {"start": "17:00", "end": "21:00"},
            },
            "morning 5 AM to noon, afternoon noon to 5 PM, evening 5 PM to 9 PM, night 9 PM to 5 AM",
        ),
    ],
)
def test_values_in_words_never_name_day_codes(key: str, value: Any, words: str) -> None:
    text = describe_preference(key, value)
    assert text == words
    for code in ("MO", "TU", "WE", "TH", "FR", "SA", "SU"):
        assert code not in text.split()


def test_a_calendar_is_named_by_its_name_when_known() -> None:
    assert describe_preference("work_calendar", "work", calendars={"work": "Work"}) == "Work"
    assert "no calendar with that key" in describe_preference(
        "work_calendar", "gone", calendars={"work": "Work"}
    )


def test_an_invalid_value_is_described_as_unusable_not_crashed_on() -> None:
    text = describe_preference("working_hours", {"days": ["XX"], "start": "25:00", "end": "banana"})
    assert text.startswith("not usable (working_hours.days[0]: 'XX' is not a day")


def test_all_preferences_one_line_each_in_the_order_of_the_keys() -> None:
    lines = describe_preferences(
        {
            "lunch_hours": {"start": "12:00", "end": "13:00"},
            "timezone": "Europe/London",
            "working_hours": {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
        }
    )
    assert lines == [
        "Time zone: Europe/London",
        "Working hours: Monday to Friday, 9 AM to 5 PM",
        "Lunch: every day, noon to 1 PM",
    ]
