"""The busy-times query of a free-time search uses the (calendar, start) index on SQLite, however many
calendars it reads: SQLite's planner would otherwise take ``series_id IS NULL`` for a selective equality
and walk the series index (every top-level event of the instance) from about five calendars on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from skills.models import Event
from skills.providers.local import LocalProvider
from skills.selectors import BusyIndex, _busy_rows_sql
from skills.services import calendar_create, event_create

pytestmark = pytest.mark.django_db

START, END = datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 30, tzinfo=UTC)


def plan(calendars: list[int]) -> list[str]:
    adapt = connection.ops.adapt_datetimefield_value
    params = [*calendars, "confirmed", "transparent", adapt(END), adapt(START), adapt(START)]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + _busy_rows_sql(connection.vendor, len(calendars)), params)
        return [str(row[-1]) for row in cursor.fetchall()]


@pytest.fixture
def calendars() -> list[int]:
    """Twenty people's calendars, a month of one-offs and a series each."""
    ids = []
    for n in range(20):
        user = get_user_model().objects.create_user(f"p{n}", f"p{n}@example.com")
        cal = calendar_create(owner=user, key="work", name="Work", timezone="UTC", is_default=True)
        for day in range(0, 28, 2):
            start = START + timedelta(days=day, hours=9 + n % 5)
            event_create(calendar=cal, summary="Busy", start=start, end=start + timedelta(hours=1))
        event_create(
            calendar=cal,
            summary="Standup",
            start=START,
            end=START + timedelta(minutes=15),
            rrule="FREQ=DAILY",
        )
        ids.append(cal.pk)
    return ids


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's planner only")
@pytest.mark.parametrize("count", [1, 2, 5, 20])
@pytest.mark.parametrize("analysed", [False, True])
def test_sqlite_reads_busy_rows_by_calendar_and_start(
    calendars: list[int], count: int, analysed: bool
) -> None:
    if analysed:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    steps = plan(calendars[:count])
    assert steps, steps
    assert all("event_calendar_start" in step for step in steps), steps
    assert not any("series" in step for step in steps), steps


def test_the_series_term_is_kept_out_of_index_choice_only_on_sqlite() -> None:
    sql = _busy_rows_sql(connection.vendor, 5)
    assert ('+"series_id" IS NULL' in sql) == (connection.vendor == "sqlite")
    assert '"series_id" IS NULL' in sql


def test_the_busy_rows_are_the_same(calendars: list[int]) -> None:
    """What the query returns does not depend on the index: every calendar's one-offs and series."""
    infos = [
        info
        for user in get_user_model().objects.filter(calendars__pk__in=calendars)
        for info in LocalProvider(user).list_calendars()
    ]
    spans = BusyIndex(calendars=infos, start=START, end=END).spans(START, END)
    one_offs = Event.objects.filter(calendar_id__in=calendars, rrule="").count()
    assert len(spans) == one_offs + 20 * 28  # and a daily standup each, for four weeks
