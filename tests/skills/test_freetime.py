"""The free-time search on its own: chunked reading, spans joined across chunks, wrapping windows."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from skills.freetime import Span, search, within_working_hours

NY = ZoneInfo("America/New_York")
START = datetime(2026, 3, 2, tzinfo=NY)  # a Monday; daylight saving starts on Sunday March 8


def hours(*pairs: tuple[datetime, datetime]) -> list[Span]:
    return [(a.timestamp(), b.timestamp()) for a, b in pairs]


def local(spans: list[Span]) -> list[tuple[str, str]]:
    fmt = "%m-%d %H:%M"
    return [
        (datetime.fromtimestamp(a, NY).strftime(fmt), datetime.fromtimestamp(b, NY).strftime(fmt))
        for a, b in spans
    ]


def test_only_the_chunks_needed_are_read() -> None:
    asked: list[tuple[datetime, datetime]] = []

    def busy(lo: datetime, hi: datetime) -> list[Span]:
        asked.append((lo, hi))
        return []

    found = search(
        start=START,
        end=START + timedelta(days=365),
        tz=NY,
        min_minutes=60,
        busy_between=busy,
        daily_window=(time(9), time(17)),
        limit=3,
    )
    assert local(found) == [
        ("03-02 09:00", "03-02 17:00"),
        ("03-03 09:00", "03-03 17:00"),
        ("03-04 09:00", "03-04 17:00"),
    ]
    assert asked == [(START, datetime(2026, 3, 16, tzinfo=NY))]


def test_later_chunks_are_read_until_enough_is_found() -> None:
    asked: list[datetime] = []
    blocked_until = datetime(2026, 4, 20, tzinfo=NY)

    def busy(lo: datetime, hi: datetime) -> list[Span]:
        asked.append(hi)
        return hours((lo, min(hi, blocked_until)))

    found = search(
        start=START, end=START + timedelta(days=365), tz=NY, min_minutes=60, busy_between=busy, limit=1
    )
    assert local(found)[0][0] == "04-20 00:00"
    # Horizons double from two weeks: March 16, March 30, April 27 (which holds April 20).
    assert asked == [
        datetime(2026, 3, 16, tzinfo=NY),
        datetime(2026, 3, 30, tzinfo=NY),
        datetime(2026, 4, 27, tzinfo=NY),
    ]


def test_a_free_span_across_a_chunk_end_is_measured_whole() -> None:
    # Busy everywhere but 23:00 on March 15 to 01:00 on March 16: the first chunk ends at midnight.
    gap = (datetime(2026, 3, 15, 23, tzinfo=NY), datetime(2026, 3, 16, 1, tzinfo=NY))

    def busy(lo: datetime, hi: datetime) -> list[Span]:
        return hours((lo, max(lo, min(hi, gap[0]))), (min(hi, max(lo, gap[1])), hi))

    found = search(
        start=START, end=START + timedelta(days=30), tz=NY, min_minutes=90, busy_between=busy, limit=1
    )
    assert local(found) == [("03-15 23:00", "03-16 01:00")]


def test_a_window_past_midnight_keeps_its_early_hours_in_the_next_chunk() -> None:
    found = search(
        start=START,
        end=START + timedelta(days=20),
        tz=NY,
        min_minutes=60,
        busy_between=lambda lo, hi: [],
        daily_window=(time(22), time(2)),
        limit=30,
    )
    spans = local(found)
    # The night of March 15 to 16 straddles the first chunk's end and is still one four-hour span.
    assert ("03-15 22:00", "03-16 02:00") in spans
    assert spans[0] == ("03-02 00:00", "03-02 02:00")  # the tail of Sunday night's window
    # Wall time holds across the change to daylight saving time on March 8.
    assert ("03-08 22:00", "03-09 02:00") in spans


def test_working_hours_narrow_a_named_window_only_where_they_overlap() -> None:
    prefs = {"working_hours": {"days": ["MO", "TU", "WE", "TH", "FR"], "start": "08:00", "end": "17:00"}}
    weekdays = frozenset(range(5))
    assert within_working_hours(prefs, None, None) == ((time(8), time(17)), weekdays)
    assert within_working_hours(prefs, (time(5), time(12)), None) == ((time(8), time(12)), weekdays)
    # Named parts of the day wholly outside working hours are the user's words: kept, on every day.
    assert within_working_hours(prefs, (time(17), time(21)), None) == ((time(17), time(21)), None)
    assert within_working_hours(prefs, (time(21), time(5)), None) == ((time(21), time(5)), None)
    assert within_working_hours({}, (time(21), time(5)), None) == ((time(21), time(5)), None)
