"""Every known key's schema: what it accepts (stored in canonical form) and what it refuses, with the
message that names the field and what is allowed."""

from __future__ import annotations

from typing import Any

import pytest

from preferences.schema import KEYS, PreferenceError, day_part_bounds, validate_preference

TIME = "use HH:MM, 00:00-23:59"
DAY = "use MO, TU, WE, TH, FR, SA or SU"
DAYS = "use a list of days from MO, TU, WE, TH, FR, SA, SU"
ZONE = "use an IANA time zone name such as Europe/London or America/New_York"
CALENDAR = "use the key of one of your calendars, e.g. 'work' or 'personal'"
MINUTES = "use a whole number of minutes from 5 to 720"

VALID: list[tuple[str, Any, Any]] = [
    ("timezone", "Europe/London", "Europe/London"),
    ("timezone", "America/New_York", "America/New_York"),
    ("timezone", "UTC", "UTC"),
    (
        "working_hours",
        {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
        {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
    ),
    # Days come back in week order, each once, in capitals; a one-digit hour gets its zero.
    (
        "working_hours",
        {"days": ["fr", "MO", "MO"], "start": "8:00", "end": "18:30"},
        {"days": ["MO", "FR"], "start": "08:00", "end": "18:30"},
    ),
    # No days: Monday to Friday, as the free-slot search has always read it.
    (
        "working_hours",
        {"start": "09:00", "end": "17:00"},
        {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
    ),
    ("lunch_hours", {"start": "12:00", "end": "13:00"}, {"start": "12:00", "end": "13:00"}),
    ("lunch_hours", {"start": "00:00", "end": "23:59"}, {"start": "00:00", "end": "23:59"}),
    (
        "gym_schedule",
        [{"day": "FR", "start": "18:00", "end": "19:30"}, {"day": "MO", "start": "7:00", "end": "08:00"}],
        [{"day": "MO", "start": "07:00", "end": "08:00"}, {"day": "FR", "start": "18:00", "end": "19:30"}],
    ),
    ("gym_schedule", [], []),
    (
        "writing_block",
        {"days": ["TU", "TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": True},
        {"days": ["TU", "TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": True},
    ),
    (
        "writing_block",
        {"days": ["TH", "TU"], "start": "09:00", "end": "11:00"},
        {"days": ["TU", "TH"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": False},
    ),
    ("work_calendar", "work", "work"),
    ("personal_calendar", "personal-2", "personal-2"),
    ("default_event_minutes", 60, 60),
    ("default_event_minutes", 5, 5),
    ("default_event_minutes", 720, 720),
    ("default_event_minutes", 45.0, 45),
    ("meeting_hours", {"earliest": "10:00"}, {"earliest": "10:00"}),
    ("meeting_hours", {"no_meeting_days": ["FR"]}, {"no_meeting_days": ["FR"]}),
    (
        "meeting_hours",
        {"earliest": "10:00", "latest": "17:00", "no_meeting_days": ["SU", "FR"]},
        {"earliest": "10:00", "latest": "17:00", "no_meeting_days": ["FR", "SU"]},
    ),
    ("meeting_hours", {"latest": "16:00", "no_meeting_days": []}, {"latest": "16:00"}),
    ("week_start", "MO", "MO"),
    ("week_start", "su", "SU"),
    (
        "day_parts",
        {
            "morning": {"start": "06:00", "end": "12:00"},
            "afternoon": {"start": "12:00", "end": "18:00"},
            "evening": {"start": "18:00", "end": "23:00"},
        },
        {
            "morning": {"start": "06:00", "end": "12:00"},
            "afternoon": {"start": "12:00", "end": "18:00"},
            "evening": {"start": "18:00", "end": "23:00"},
        },
    ),
    ("busy_visible_to", {"who": "Everyone"}, {"who": "everyone"}),
    ("busy_visible_to", {"who": "nobody", "people": []}, {"who": "nobody"}),
    (
        "busy_visible_to",
        {"who": "named", "people": ["Raj@Example.com", "ann@example.com", "raj@example.com"]},
        {"who": "named", "people": ["ann@example.com", "raj@example.com"]},
    ),
]

INVALID: list[tuple[str, Any, list[str]]] = [
    # The issue's own example: every field named, none of it stored.
    (
        "working_hours",
        {"days": ["XX"], "start": "25:00", "end": "banana"},
        [
            f"working_hours.days[0]: 'XX' is not a day; {DAY}",
            f"working_hours.start: '25:00' is not a time; {TIME}",
            f"working_hours.end: 'banana' is not a time; {TIME}",
        ],
    ),
    (
        "working_hours",
        {"days": ["MO"], "start": "09:00", "end": "08:00"},
        [
            "working_hours.end: '08:00' is not after the start '09:00'; the end must be later than the "
            "start on the same day"
        ],
    ),
    (
        "working_hours",
        {"days": ["MO"], "start": "09:00", "end": "09:00"},
        [
            "working_hours.end: '09:00' is not after the start '09:00'; the end must be later than the "
            "start on the same day"
        ],
    ),
    ("working_hours", {"days": ["MO"], "start": "09:00"}, [f"working_hours.end: missing; {TIME}"]),
    (
        "working_hours",
        {"days": [], "start": "09:00", "end": "17:00"},
        ["working_hours.days: no days given; use a list of days from MO, TU, WE, TH, FR, SA, SU"],
    ),
    (
        "working_hours",
        {"days": "MO", "start": "09:00", "end": "17:00"},
        [f"working_hours.days: 'MO' is not a list of days; {DAYS}"],
    ),
    (
        "working_hours",
        {"start": "09:00", "end": "17:00", "hours": 8},
        ["working_hours.hours: not a field here; use days, start, end"],
    ),
    (
        "working_hours",
        "9 to 5",
        [
            "working_hours: '9 to 5' is not an object; use "
            '{"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"}'
        ],
    ),
    (
        "lunch_hours",
        {"start": "12:60", "end": "13:00"},
        [f"lunch_hours.start: '12:60' is not a time; {TIME}"],
    ),
    # YAML 1.1 reads an unquoted 12:00 as the number 720.
    ("lunch_hours", {"start": 720, "end": "13:00"}, [f"lunch_hours.start: 720 is not a time; {TIME}"]),
    (
        "lunch_hours",
        {"start": "noon", "end": "1pm"},
        [
            f"lunch_hours.start: 'noon' is not a time; {TIME}",
            f"lunch_hours.end: '1pm' is not a time; {TIME}",
        ],
    ),
    (
        "gym_schedule",
        [{"day": "MO", "start": "18:00", "end": "17:00"}, {"day": "XX", "start": "07:00", "end": "08:00"}],
        [
            "gym_schedule[0].end: '17:00' is not after the start '18:00'; the end must be later than the "
            "start on the same day",
            f"gym_schedule[1].day: 'XX' is not a day; {DAY}",
        ],
    ),
    (
        "gym_schedule",
        [{"day": "MO", "start": "18:00", "end": "19:00"}, {"day": "MO", "start": "07:00", "end": "08:00"}],
        ["gym_schedule: Monday appears twice; keep one session a day"],
    ),
    ("gym_schedule", [{"day": "MO", "start": "18:00"}], [f"gym_schedule[0].end: missing; {TIME}"]),
    (
        "gym_schedule",
        {"day": "MO", "start": "18:00", "end": "19:00"},
        [
            'gym_schedule: {"day": "MO", "start": "18:00", "end": "19:00"} is not a list of sessions; '
            'use [{"day": "MO", "start": "18:00", ...}]'
        ],
    ),
    (
        "writing_block",
        {"days": ["TU"], "start": "09:00", "end": "11:00", "allow_exceptions_with_approval": "yes"},
        ["writing_block.allow_exceptions_with_approval: 'yes' is not true or false; use true or false"],
    ),
    (
        "writing_block",
        {"start": "09:00", "end": "11:00"},
        ["writing_block.days: missing; use a list of days from MO, TU, WE, TH, FR, SA, SU"],
    ),
    (
        "timezone",
        "Mars/Olympus",
        [
            "timezone: 'Mars/Olympus' is not a known time zone; use an IANA time zone name such as "
            "Europe/London or America/New_York"
        ],
    ),
    (
        "timezone",
        "localtime",
        [
            "timezone: 'localtime' is not a known time zone; use an IANA time zone name such as "
            "Europe/London or America/New_York"
        ],
    ),
    (
        "timezone",
        5,
        [f"timezone: 5 is not a known time zone; {ZONE}"],
    ),
    (
        "work_calendar",
        "",
        [f"work_calendar: '' is not a calendar key; {CALENDAR}"],
    ),
    (
        "personal_calendar",
        "my calendar",
        [
            "personal_calendar: 'my calendar' is not a calendar key; use the key of one of your calendars, "
            "e.g. 'work' or 'personal'"
        ],
    ),
    (
        "default_event_minutes",
        0,
        ["default_event_minutes: 0 minutes is out of range; use a whole number of minutes from 5 to 720"],
    ),
    (
        "default_event_minutes",
        1440,
        ["default_event_minutes: 1440 minutes is out of range; use a whole number of minutes from 5 to 720"],
    ),
    (
        "default_event_minutes",
        "45",
        [f"default_event_minutes: '45' is not a whole number of minutes; {MINUTES}"],
    ),
    (
        "default_event_minutes",
        True,
        [f"default_event_minutes: true is not a whole number of minutes; {MINUTES}"],
    ),
    (
        "default_event_minutes",
        30.5,
        [f"default_event_minutes: 30.5 is not a whole number of minutes; {MINUTES}"],
    ),
    (
        "meeting_hours",
        {"earliest": "10:00", "latest": "09:00"},
        [
            "meeting_hours.latest: '09:00' is not after the earliest '10:00'; the latest must be later than "
            "the earliest on the same day"
        ],
    ),
    (
        "meeting_hours",
        {},
        [
            'meeting_hours: nothing set; use {"earliest": "10:00", "latest": "17:00", "no_meeting_days": '
            '["FR"]} (any of the three)'
        ],
    ),
    (
        "meeting_hours",
        {"no_meeting_days": ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]},
        ["meeting_hours.no_meeting_days: every day is a day without meetings; leave at least one day"],
    ),
    ("meeting_hours", {"earliest": "25:00"}, [f"meeting_hours.earliest: '25:00' is not a time; {TIME}"]),
    (
        "meeting_hours",
        {"no_meeting_days": ["Friday"]},
        [f"meeting_hours.no_meeting_days[0]: 'Friday' is not a day; {DAY}"],
    ),
    ("week_start", "Sunday", [f"week_start: 'Sunday' is not a day; {DAY}"]),
    ("week_start", None, [f"week_start: null is not a day; {DAY}"]),
    (
        "day_parts",
        {
            "morning": {"start": "06:00", "end": "12:00"},
            "afternoon": {"start": "11:00", "end": "17:00"},
            "evening": {"start": "17:00", "end": "16:00"},
        },
        [
            "day_parts.afternoon: starts at '11:00', before the morning ends ('12:00'); the parts must "
            "follow each other",
            "day_parts.evening.end: '16:00' is not after the start '17:00'; the end must be later than the "
            "start on the same day",
        ],
    ),
    (
        "day_parts",
        {"morning": {"start": "06:00", "end": "12:00"}},
        ["day_parts.afternoon: missing; use {start, end}", "day_parts.evening: missing; use {start, end}"],
    ),
    (
        "busy_visible_to",
        {"who": "named"},
        [
            "busy_visible_to.people: nobody named; use an email address such as ann@example.com, or choose "
            "nobody"
        ],
    ),
    (
        "busy_visible_to",
        {"who": "nobody", "people": ["ann@example.com"]},
        ["busy_visible_to.people: people are named only with who: named, not with who: nobody"],
    ),
    (
        "busy_visible_to",
        {"who": "friends"},
        ["busy_visible_to.who: 'friends' is not a choice; use everyone, named or nobody"],
    ),
    (
        "busy_visible_to",
        {"who": "named", "people": ["ann"]},
        [
            "busy_visible_to.people[0]: 'ann' is not an email address; use an email address such as "
            "ann@example.com"
        ],
    ),
]


@pytest.mark.parametrize(("key", "value", "canonical"), VALID)
def test_a_valid_value_is_kept_in_canonical_form(key: str, value: Any, canonical: Any) -> None:
    assert validate_preference(key, value) == canonical


@pytest.mark.parametrize(("key", "value", "messages"), INVALID)
def test_an_invalid_value_is_refused_naming_each_field(key: str, value: Any, messages: list[str]) -> None:
    with pytest.raises(PreferenceError) as refused:
        validate_preference(key, value)
    assert refused.value.messages == messages
    assert str(refused.value) == "; ".join(messages)


def test_every_key_is_tested_both_ways() -> None:
    assert {key for key, _, _ in VALID} == set(KEYS)
    assert {key for key, _, _ in INVALID} == set(KEYS)


@pytest.mark.parametrize("key", list(KEYS))
def test_each_keys_example_is_valid(key: str) -> None:
    assert validate_preference(key, KEYS[key].example) == KEYS[key].example


def test_an_unknown_key_is_refused_with_the_known_ones() -> None:
    with pytest.raises(PreferenceError) as refused:
        validate_preference("notifications", True)
    message = str(refused.value)
    assert message.startswith("'notifications' is not a preference; use one of timezone, working_hours")
    assert "day_parts" in message


def test_the_scenarios_canonical_shapes_are_stored_unchanged() -> None:
    """The shapes ../shared/scenarios/README.md defines, which skills and the judge read."""
    shapes = {
        "working_hours": {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "09:00", "end": "17:00"},
        "lunch_hours": {"start": "12:00", "end": "13:00"},
        "gym_schedule": [{"day": "MO", "start": "18:00", "end": "19:30"}],
        "writing_block": {
            "days": ["TU", "TH"],
            "start": "09:00",
            "end": "11:00",
            "allow_exceptions_with_approval": True,
        },
        "work_calendar": "work",
        "personal_calendar": "personal",
        "default_event_minutes": 60,
        "timezone": "Europe/London",
    }
    for key, value in shapes.items():
        assert validate_preference(key, value) == value


def test_day_part_bounds_default_to_the_products_and_follow_the_users() -> None:
    from datetime import time

    assert day_part_bounds({}) == {
        "morning": (time(5), time(12)),
        "afternoon": (time(12), time(17)),
        "evening": (time(17), time(21)),
        "night": (time(21), time(5)),
    }
    mine = validate_preference(
        "day_parts",
        {
            "morning": {"start": "06:30", "end": "11:00"},
            "afternoon": {"start": "11:00", "end": "18:00"},
            "evening": {"start": "18:00", "end": "22:00"},
        },
    )
    bounds = day_part_bounds({"day_parts": mine})
    assert bounds["morning"] == (time(6, 30), time(11))
    assert bounds["night"] == (time(22), time(6, 30))
