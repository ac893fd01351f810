"""iCalendar import and export of the local calendar: round trips, re-imports and other clients' files."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from skills import services
from skills.ics import calendar_export_ics, calendar_import_ics
from skills.models import Calendar, Event
from skills.providers.base import EventData, Occurrence
from skills.providers.local import LocalProvider

NY = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
SPRING = (datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 5, 1, tzinfo=NY))
MAR_4 = datetime(2026, 3, 4, 19, 0, tzinfo=UTC)

OTHER_CLIENT = b"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Other//Client//EN
BEGIN:VEVENT
UID:yoga@other.example
DTSTAMP:20260101T000000Z
DTSTART;TZID=Europe/Berlin:20260302T070000
DURATION:PT1H
RRULE:FREQ=DAILY;COUNT=4
EXDATE;TZID=Europe/Berlin:20260303T070000
SUMMARY:Yoga
CLASS:CONFIDENTIAL
TRANSP:TRANSPARENT
ATTENDEE;CN=Ann:MAILTO:Ann@Example.com
END:VEVENT
BEGIN:VEVENT
UID:yoga@other.example
DTSTAMP:20260101T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20260304T070000
DTSTART;TZID=Europe/Berlin:20260304T080000
DTEND;TZID=Europe/Berlin:20260304T090000
SUMMARY:Yoga (late)
END:VEVENT
END:VCALENDAR
"""


@pytest.fixture
def user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("sam", "sam@example.com")


@pytest.fixture
def school(user: Any) -> Calendar:
    return services.calendar_create(owner=user, key="school", name="School", timezone="America/New_York")


@pytest.fixture
def imported(user: Any) -> Calendar:
    return services.calendar_create(owner=user, key="imported", name="Imported", timezone="America/New_York")


def _listed(user: Any, calendar: Calendar) -> list[tuple[Any, ...]]:
    occurrences: list[Occurrence] = LocalProvider(user).list_occurrences(
        start=SPRING[0], end=SPRING[1], calendar_ids=[str(calendar.pk)]
    )
    return [
        (o.summary, o.start, o.end, o.all_day, o.recurrence_id, o.attendees, o.visibility, o.transparency)
        for o in occurrences
    ]


@pytest.fixture
def term(user: Any, school: Calendar) -> Calendar:
    """A calendar with a series (one occurrence cancelled, one moved), an all-day event and a meeting."""
    calc = services.event_create(
        calendar=school,
        summary="Calculus II Lecture",
        start=datetime(2026, 3, 2, 14, 0, tzinfo=NY),
        end=datetime(2026, 3, 2, 15, 15, tzinfo=NY),
        rrule="FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260430T235959Z",
    )
    provider = LocalProvider(user)
    provider.delete_event(event_id=str(calc.pk), recurrence_id=datetime(2026, 3, 9, 18, 0, tzinfo=UTC))
    provider.update_event(
        event_id=str(calc.pk),
        recurrence_id=MAR_4,
        data=EventData(start=datetime(2026, 3, 5, 9, 0, tzinfo=NY), summary="Calculus (moved)"),
    )
    services.event_create(
        calendar=school, summary="Spring break", start=date(2026, 3, 16), end=None, all_day=True
    )
    services.event_create(
        calendar=school,
        summary="Office hours",
        start=datetime(2026, 3, 10, 16, 0, tzinfo=NY),
        end=datetime(2026, 3, 10, 16, 30, tzinfo=NY),
        attendees=["ann@example.com"],
        visibility="private",
        transparency="transparent",
    )
    return school


@pytest.mark.django_db
def test_round_trip_preserves_every_occurrence(user: Any, term: Calendar, imported: Calendar) -> None:
    count = calendar_import_ics(calendar=imported, data=calendar_export_ics(calendar=term))

    assert count == 4
    assert _listed(user, imported) == _listed(user, term)
    assert len(_listed(user, imported)) == 19


@pytest.mark.django_db
def test_export_writes_zoned_times_dates_and_overrides(term: Calendar) -> None:
    text = calendar_export_ics(calendar=term).decode()

    assert "DTSTART;TZID=America/New_York:20260302T140000" in text
    assert "RRULE:FREQ=WEEKLY;UNTIL=20260430T235959Z;BYDAY=MO,WE" in text
    assert "EXDATE;TZID=America/New_York:20260309T140000" in text
    assert "RECURRENCE-ID;TZID=America/New_York:20260304T140000" in text
    assert "DTSTART;VALUE=DATE:20260316" in text
    assert "ATTENDEE:mailto:ann@example.com" in text
    assert "CLASS:PRIVATE" in text
    assert "TRANSP:TRANSPARENT" in text
    assert "BEGIN:VTIMEZONE" in text


@pytest.mark.django_db
def test_reimport_updates_instead_of_duplicating(user: Any, term: Calendar, imported: Calendar) -> None:
    exported = calendar_export_ics(calendar=term)
    calendar_import_ics(calendar=imported, data=exported)
    rows = Event.objects.filter(calendar=imported).count()

    calendar_import_ics(
        calendar=imported, data=exported.replace(b"SUMMARY:Office hours", b"SUMMARY:Office hour")
    )

    assert Event.objects.filter(calendar=imported).count() == rows
    assert "Office hour" in {row[0] for row in _listed(user, imported)}
    assert "Office hours" not in {row[0] for row in _listed(user, imported)}


@pytest.mark.django_db
def test_import_reads_another_clients_series(user: Any, imported: Calendar) -> None:
    calendar_import_ics(calendar=imported, data=OTHER_CLIENT)

    listed = LocalProvider(user).list_occurrences(start=SPRING[0], end=SPRING[1])

    assert [(o.summary, o.start.astimezone(BERLIN).hour) for o in listed] == [
        ("Yoga", 7),
        ("Yoga (late)", 8),
        ("Yoga", 7),
    ]
    yoga = listed[0]
    assert yoga.timezone == "Europe/Berlin"
    assert yoga.attendees == ("ann@example.com",)
    assert (yoga.visibility, yoga.transparency) == ("private", "transparent")
    assert listed[1].recurrence_id == datetime(2026, 3, 4, 6, 0, tzinfo=UTC)


def test_import_of_text_that_is_not_icalendar_fails() -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the parser's message varies between versions
        calendar_import_ics(calendar=Calendar(), data="hello")
