"""Recurrence expansion of the local calendar: wall time across DST, rule edges, and the cache."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from skills import recurrence, services
from skills.models import Calendar, Event
from skills.providers.local import LocalProvider
from skills.selectors import calendar_info

NY = ZoneInfo("America/New_York")
CALC_RULE = "FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260430T235959Z"
MARCH = (datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 4, 1, tzinfo=NY))
SPRING = (datetime(2026, 3, 1, tzinfo=NY), datetime(2026, 5, 1, tzinfo=NY))


@pytest.fixture
def user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("sam", "sam@example.com", first_name="Sam")


@pytest.fixture
def school(user: Any) -> Calendar:
    return services.calendar_create(
        owner=user, key="school", name="School", timezone="America/New_York", is_default=True
    )


def _calc(calendar: Calendar, rule: str = CALC_RULE) -> Event:
    return services.event_create(
        calendar=calendar,
        summary="Calculus II Lecture",
        start=datetime(2026, 3, 2, 14, 0, tzinfo=NY),
        end=datetime(2026, 3, 2, 15, 15, tzinfo=NY),
        timezone="America/New_York",
        rrule=rule,
    )


@pytest.mark.django_db
def test_weekly_series_keeps_wall_time_across_dst(user: Any, school: Calendar) -> None:
    _calc(school)

    occurrences = LocalProvider(user).list_occurrences(start=SPRING[0], end=SPRING[1])

    assert len(occurrences) == 18
    assert {(o.start.astimezone(NY).hour, o.start.astimezone(NY).minute) for o in occurrences} == {(14, 0)}
    assert {o.end - o.start for o in occurrences} == {timedelta(minutes=75)}
    before, after = occurrences[1], occurrences[2]
    assert (before.start.date(), before.start.astimezone(UTC).hour) == (date(2026, 3, 4), 19)
    assert (after.start.date(), after.start.astimezone(UTC).hour) == (date(2026, 3, 9), 18)


@pytest.mark.django_db
def test_until_in_utc_keeps_the_last_day(user: Any, school: Calendar) -> None:
    _calc(school)

    last = LocalProvider(user).list_occurrences(start=SPRING[0], end=SPRING[1])[-1]

    assert last.start == datetime(2026, 4, 29, 14, 0, tzinfo=NY)


@pytest.mark.django_db
def test_recurrence_ids_are_original_starts_in_utc(user: Any, school: Calendar) -> None:
    _calc(school)

    first = LocalProvider(user).list_occurrences(start=MARCH[0], end=MARCH[1])[0]

    assert first.recurrence_id == datetime(2026, 3, 2, 19, 0, tzinfo=UTC)
    assert first.recurrence_id.tzinfo is UTC
    assert first.is_recurring


@pytest.mark.django_db
def test_exdate_removes_one_occurrence(user: Any, school: Calendar) -> None:
    calc = _calc(school)
    calc.exdates = [datetime(2026, 3, 4, 19, 0, tzinfo=UTC).isoformat()]
    services.event_save(event=calc)

    starts = [o.start.date() for o in LocalProvider(user).list_occurrences(start=MARCH[0], end=MARCH[1])]

    assert date(2026, 3, 4) not in starts
    assert date(2026, 3, 2) in starts
    assert len(starts) == 8


@pytest.mark.django_db
def test_finite_series_has_its_last_end_and_endless_one_none(school: Calendar) -> None:
    finite = _calc(school)
    endless = _calc(school, rule="FREQ=WEEKLY;BYDAY=FR")

    assert finite.series_end == datetime(2026, 4, 29, 15, 15, tzinfo=NY)
    assert endless.series_end is None


@pytest.mark.django_db
def test_finished_series_is_not_expanded_for_a_later_window(
    user: Any, school: Calendar, monkeypatch: pytest.MonkeyPatch
) -> None:
    _calc(school)
    recurrence.clear_cache()

    def refuse(*args: object) -> None:
        raise AssertionError("a series that ended in April was expanded for June")

    monkeypatch.setattr(recurrence, "_expand", refuse)

    june = LocalProvider(user).list_occurrences(
        start=datetime(2026, 6, 1, tzinfo=NY), end=datetime(2026, 7, 1, tzinfo=NY)
    )

    assert june == []


@pytest.mark.django_db
def test_endless_series_reaches_windows_far_ahead(user: Any, school: Calendar) -> None:
    _calc(school, rule="FREQ=WEEKLY;BYDAY=FR")
    provider = LocalProvider(user)
    provider.list_occurrences(start=MARCH[0], end=MARCH[1])

    later = provider.list_occurrences(
        start=datetime(2030, 1, 1, tzinfo=NY), end=datetime(2030, 1, 15, tzinfo=NY)
    )

    assert [o.start for o in later] == [
        datetime(2030, 1, 4, 14, 0, tzinfo=NY),
        datetime(2030, 1, 11, 14, 0, tzinfo=NY),
    ]


@pytest.mark.django_db
def test_occurrence_overlapping_the_window_start_is_listed(user: Any, school: Calendar) -> None:
    _calc(school)

    during = LocalProvider(user).list_occurrences(
        start=datetime(2026, 3, 2, 15, 0, tzinfo=NY), end=datetime(2026, 3, 2, 16, 0, tzinfo=NY)
    )
    after = LocalProvider(user).list_occurrences(
        start=datetime(2026, 3, 2, 15, 15, tzinfo=NY), end=datetime(2026, 3, 2, 16, 0, tzinfo=NY)
    )

    assert [o.start for o in during] == [datetime(2026, 3, 2, 14, 0, tzinfo=NY)]
    assert after == []


@pytest.mark.django_db
def test_all_day_series_gives_local_midnights(user: Any, school: Calendar) -> None:
    services.event_create(
        calendar=school,
        summary="Spring break",
        start=date(2026, 3, 7),
        end=date(2026, 3, 8),
        all_day=True,
        rrule="FREQ=DAILY;COUNT=3",
    )

    days = LocalProvider(user).list_occurrences(start=MARCH[0], end=MARCH[1])

    assert [(o.start, o.end) for o in days] == [
        (datetime(2026, 3, 7, tzinfo=NY), datetime(2026, 3, 8, tzinfo=NY)),
        (datetime(2026, 3, 8, tzinfo=NY), datetime(2026, 3, 9, tzinfo=NY)),
        (datetime(2026, 3, 9, tzinfo=NY), datetime(2026, 3, 10, tzinfo=NY)),
    ]
    assert all(o.all_day and not o.busy for o in days)


@pytest.mark.django_db
def test_expansion_is_cached_until_the_event_changes(school: Calendar) -> None:
    calc = _calc(school)
    info = calendar_info(school)
    until = datetime(2026, 5, 1, tzinfo=UTC)

    first = recurrence.expansion(calc, info, until=until)
    again = recurrence.expansion(calc, info, until=until)
    calc.summary = "Calculus II"
    services.event_save(event=calc)
    changed = recurrence.expansion(calc, info, until=until)

    assert again is first
    assert changed is not first
    assert changed.occurrences[0].summary == "Calculus II"


@pytest.mark.django_db
def test_instance_etag_survives_a_change_to_another_occurrence(school: Calendar) -> None:
    calc = _calc(school)
    info = calendar_info(school)
    until = datetime(2026, 5, 1, tzinfo=UTC)
    before = recurrence.expansion(calc, info, until=until).occurrences[5].etag

    services.occurrence_cancel(master=calc, recurrence_id=datetime(2026, 3, 2, 19, 0, tzinfo=UTC))
    after = recurrence.expansion(calc, info, until=until).occurrences[4].etag

    assert after == before


def test_floating_until_is_read_in_the_event_zone() -> None:
    rule = recurrence.normalise_rule(
        "RRULE:freq=daily;until=20260310T120000",
        zone=NY,
        all_day=False,
        dtstart=datetime(2026, 3, 2, 9, 0, tzinfo=NY),
    )

    assert rule == "FREQ=DAILY;UNTIL=20260310T160000Z"


def test_all_day_until_is_written_as_a_date() -> None:
    rule = recurrence.normalise_rule(
        "FREQ=DAILY;UNTIL=20260310T235959Z", zone=NY, all_day=True, dtstart=datetime(2026, 3, 2, tzinfo=NY)
    )

    assert rule == "FREQ=DAILY;UNTIL=20260310"


@pytest.mark.parametrize("rule", ["BYDAY=MO", "FREQ=WEEKLY;BYDAY=XX", "FREQ=DAILY;COUNT=2;UNTIL=20260101"])
def test_unreadable_rules_are_refused(rule: str) -> None:
    with pytest.raises(ValueError, match="rule"):
        recurrence.normalise_rule(rule, zone=NY, all_day=False, dtstart=datetime(2026, 3, 2, tzinfo=NY))


def test_shifting_a_rule_rotates_weekdays_and_moves_until() -> None:
    shifted = recurrence.shift_rule(
        CALC_RULE, zone=NY, all_day=False, delta=timedelta(days=1, hours=-4), days=1
    )

    assert shifted == "FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260501T195959Z"


def test_shifting_a_date_pinned_rule_by_days_is_refused() -> None:
    with pytest.raises(ValueError, match="pinned"):
        recurrence.shift_rule(
            "FREQ=MONTHLY;BYMONTHDAY=15", zone=NY, all_day=False, delta=timedelta(1), days=1
        )


def test_truncating_a_counted_rule_ends_it_before_the_occurrence() -> None:
    rule = recurrence.truncate_rule(
        "FREQ=DAILY;COUNT=10", zone=NY, all_day=False, before=datetime(2026, 3, 5, 14, 0, tzinfo=NY)
    )

    assert rule == "FREQ=DAILY;UNTIL=20260305T185959Z"
