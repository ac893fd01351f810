"""The free-time search on its own: chunked reading, spans joined across chunks, wrapping windows."""

from __future__ import annotations

import itertools
import random
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from skills.freetime import Span, gaps, merge, preference_blocks, search, within_working_hours

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


def _free_minutes(windows: list[tuple[int, int]], busy: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The free spans, minute by minute: what gaps() must find however its input is cut."""
    taken = {m for lo, hi in busy for m in range(lo, hi)}
    free: list[tuple[int, int]] = []
    for lo, hi in windows:
        for minute in range(lo, hi):
            if minute in taken:
                continue
            if free and free[-1][1] == minute and free[-1][0] >= lo:
                free[-1] = (free[-1][0], minute + 1)
            else:
                free.append((minute, minute + 1))
    return free


def test_gaps_take_busy_spans_sorted_but_overlapping() -> None:
    rng = random.Random(7)
    for _ in range(300):
        windows, cursor = [], 0
        for _ in range(rng.randrange(1, 6)):
            cursor += rng.randrange(0, 30)
            width = rng.randrange(1, 40)
            windows.append((cursor, cursor + width))
            cursor += width
        busy = []
        for _ in range(rng.randrange(0, 25)):
            start = rng.randrange(-20, cursor + 20)
            busy.append((start, start + rng.choice((1, 5, 30, 90))))
        found = gaps(
            [(float(a), float(b)) for a, b in windows], sorted((float(a), float(b)) for a, b in busy)
        )
        assert found == [(float(a), float(b)) for a, b in _free_minutes(windows, busy)], (windows, busy)
        union = merge((float(a), float(b)) for a, b in busy)
        assert all(a[1] < b[0] for a, b in itertools.pairwise(union))
        assert {m for a, b in union for m in range(int(a), int(b))} == {
            m for a, b in busy for m in range(a, b)
        }


def test_protected_blocks_follow_their_days_and_wall_times() -> None:
    prefs = {
        "lunch_hours": {"start": "12:00", "end": "13:00"},
        "gym_schedule": [{"day": "TU", "start": "18:00", "end": "19:30"}],
        "writing_block": {"days": ["MO", "SU"], "start": "09:00", "end": "11:00"},
    }
    blocks = preference_blocks(prefs, START + timedelta(days=5), START + timedelta(days=9), NY)
    fmt = "%a %H:%M"
    assert [(lo.strftime(fmt), hi.strftime(fmt)) for lo, hi in blocks] == [
        ("Sat 12:00", "Sat 13:00"),
        ("Sun 12:00", "Sun 13:00"),  # daylight saving starts this Sunday: still noon
        ("Sun 09:00", "Sun 11:00"),
        ("Mon 12:00", "Mon 13:00"),
        ("Mon 09:00", "Mon 11:00"),
        ("Tue 12:00", "Tue 13:00"),
        ("Tue 18:00", "Tue 19:30"),
        ("Wed 12:00", "Wed 13:00"),
    ]
    assert blocks[1][0].utcoffset() == timedelta(hours=-4)
    assert preference_blocks({}, START, START + timedelta(days=9), NY) == []
