"""The product's time conventions, checked against a fixed clock in an explicit zone.

The reference is Monday 2 March 2026, 09:00 in New York: the week before daylight saving starts
(Sunday 8 March), so "next Tuesday" falls on the other side of the change.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from assistant.timeexpr import DAY_PARTS, TimeMatch, find_durations, find_times, one_reading

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NEW_YORK)


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=NEW_YORK)


def only(text: str, now: datetime = NOW) -> TimeMatch:
    """The single time expression ``text`` must contain."""
    matches = find_times(text, now=now)
    assert len(matches) == 1, matches
    return matches[0]


def test_next_weekday_is_in_next_week_and_keeps_wall_time_across_dst() -> None:
    match = only("next Tuesday at 1pm")
    assert match.start == at(2026, 3, 10, 13)
    assert match.start.utcoffset() == timedelta(hours=-4)  # EDT: daylight saving began on March 8
    assert match.has_date
    assert match.has_time


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Friday", 6),
        ("on Friday", 6),
        ("this Friday", 6),
        ("next Friday", 13),
        ("Monday", 2),  # today is Monday: a bare weekday includes today
        ("next Monday", 9),
        ("last Friday", 27),
    ],
)
def test_weekdays(text: str, day: int) -> None:
    match = only(text)
    month = 2 if day > 20 and text.startswith("last") else 3
    assert match.start == at(2026, month, day)
    assert match.end == match.start + timedelta(days=1)
    assert match.grain == "day"


def test_this_friday_may_be_in_the_past() -> None:
    saturday = datetime(2026, 3, 7, 10, tzinfo=NEW_YORK)
    assert only("this Friday", now=saturday).start == at(2026, 3, 6)
    assert only("Friday", now=saturday).start == at(2026, 3, 13)


def test_this_month_runs_from_now_to_the_end_of_the_month() -> None:
    match = only("this month")
    assert (match.start, match.end) == (NOW, at(2026, 4, 1))
    assert match.is_interval


@pytest.mark.parametrize(
    "text", ["clear friday for travel all day", "friday all day", "block friday the whole day"]
)
def test_all_day_said_apart_from_its_day_is_the_whole_of_that_day(text: str) -> None:
    # it was today's whole day as well: the cancellation searched from Monday to Friday
    (found,) = find_times(text, now=NOW)
    assert found.text.casefold().startswith("friday")
    assert (found.start, found.end) == (at(2026, 3, 6), at(2026, 3, 7))


def test_all_day_alone_is_today() -> None:
    (found,) = find_times("I'm busy all day", now=NOW)
    assert (found.start, found.end) == (at(2026, 3, 2), at(2026, 3, 3))


def test_weeks_start_on_monday() -> None:
    assert (only("this week").start, only("this week").end) == (at(2026, 3, 2), at(2026, 3, 9))
    assert (only("next week").start, only("next week").end) == (at(2026, 3, 9), at(2026, 3, 16))


def test_next_days_and_the_next_month() -> None:
    days = only("next 3 days")
    assert (days.start, days.end) == (at(2026, 3, 3), at(2026, 3, 6))
    month = only("for the next month")
    assert (month.start, month.end) == (NOW, at(2026, 4, 2, 9))


def test_for_next_week_is_the_calendars_week_and_for_the_next_week_seven_days_from_now() -> None:
    assert (only("what's planned for next week").start, only("for next week").end) == (
        at(2026, 3, 9),
        at(2026, 3, 16),
    )
    assert (only("for next month").start, only("for next month").end) == (at(2026, 4, 1), at(2026, 5, 1))
    assert (only("for the next week").start, only("for the next week").end) == (NOW, at(2026, 3, 9, 9))
    assert only("for next 3 days").start == NOW


def test_impossible_dates_give_an_error_a_person_can_act_on() -> None:
    match = only("February 30th")
    assert match.start is None
    assert match.end is None
    assert match.error is not None
    assert "February" in match.error
    assert "30" in match.error
    assert only("april 31").error == "April has no 31st day."
    assert only("February 29, 2027").error == "February 2027 has no 29th day."


def test_day_of_month_is_the_next_one_that_exists() -> None:
    assert only("the 15th").start == at(2026, 3, 15)
    assert only("on the 1st").start == at(2026, 4, 1)
    april = datetime(2026, 4, 10, 9, tzinfo=NEW_YORK)
    assert only("the 31st", now=april).start == at(2026, 5, 31)


def test_day_parts() -> None:
    assert {
        "morning": (time(5), time(12)),
        "afternoon": (time(12), time(17)),
        "evening": (time(17), time(21)),
        "night": (time(21), time(5)),
    } == DAY_PARTS
    tonight = only("tonight")
    assert (tonight.start, tonight.end) == (at(2026, 3, 2, 17), at(2026, 3, 3, 5))
    afternoon = only("tomorrow afternoon")
    assert (afternoon.start, afternoon.end, afternoon.day_part) == (
        at(2026, 3, 3, 12),
        at(2026, 3, 3, 17),
        "afternoon",
    )
    assert afternoon.has_date
    assert afternoon.is_interval


@pytest.mark.parametrize(
    ("text", "start"),
    [("this morning's meeting", at(2026, 3, 2, 5)), ("tomorrow afternoon's call", at(2026, 3, 3, 12))],
)
def test_a_day_part_said_as_the_owner_of_an_event_is_that_part(text: str, start: datetime) -> None:
    found = find_times(text, now=NOW)
    assert found
    assert found[0].start == start
    assert found[0].day_part is not None


def test_o_clock_typed_with_a_quote_is_one_time() -> None:
    found = find_times('at 12 o"clock in the afternoon', now=NOW)
    assert len(found) == 1
    assert found[0].start == at(2026, 3, 2, 12)


def test_plural_day_parts_name_no_date() -> None:
    match = only("mornings")
    assert match.day_part == "morning"
    assert not match.has_date
    assert (match.start, match.end) == (at(2026, 3, 2, 5), at(2026, 3, 2, 12))
    classes = only("afternoon classes")
    assert classes.day_part == "afternoon"
    assert not classes.has_date


def test_recurring_weekdays() -> None:
    assert only("on Mondays").weekdays == frozenset({0})
    assert not only("on Mondays").has_date
    assert only("every Tuesday").weekdays == frozenset({1})
    assert only("weekdays").weekdays == frozenset(range(5))
    both = only("Monday mornings")
    assert (both.weekdays, both.day_part, both.has_date) == (frozenset({0}), "morning", False)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("3pm", (15, 0)),
        ("3 pm", (15, 0)),
        ("15:00", (15, 0)),
        ("3:30", (15, 30)),
        ("noon", (12, 0)),
        ("half past 2", (14, 30)),
        ("quarter to 5", (16, 45)),
        ("at 3", (15, 0)),  # 3 am has gone by: the next 3 o'clock
        ("12:30", (12, 30)),
    ],
)
def test_clock_times(text: str, start: tuple[int, int]) -> None:
    match = only(text)
    assert match.start == at(2026, 3, 2, *start)
    assert match.has_time
    assert not match.is_interval


def test_midnight_is_the_coming_one() -> None:
    assert only("midnight").start == at(2026, 3, 3, 0)


def test_time_with_date_and_day_part() -> None:
    assert only("9 tomorrow morning").start == at(2026, 3, 3, 9)
    assert only("tomorrow afternoon at 5").start == at(2026, 3, 3, 17)
    assert only("8 tonight").start == at(2026, 3, 2, 20)


def test_time_zone_named_in_the_text_is_converted() -> None:
    assert only("4pm PST").start == at(2026, 3, 2, 19)


def test_elapsed_durations_cross_dst_in_real_time() -> None:
    night = datetime(2026, 3, 8, 1, 0, tzinfo=NEW_YORK)
    assert only("in 3 hours", now=night).start == at(2026, 3, 8, 5)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("from 2 to 4pm", (2026, 3, 2, 14), (2026, 3, 2, 16)),
        ("between 9 and 11am", (2026, 3, 2, 9), (2026, 3, 2, 11)),
        ("8am - 1pm tomorrow", (2026, 3, 3, 8), (2026, 3, 3, 13)),
        ("Monday to Wednesday", (2026, 3, 2), (2026, 3, 5)),
        ("from 13 to 15 of July", (2026, 7, 13), (2026, 7, 16)),
        ("4pm for 30 mins", (2026, 3, 2, 16), (2026, 3, 2, 16, 30)),
        ("Thursday from 9:30 to 11:00", (2026, 3, 5, 9, 30), (2026, 3, 5, 11)),
        # hours of a part of the day, not September 11th (in 2029, a Tuesday)
        ("tuesday morning 9-11", (2026, 3, 3, 9), (2026, 3, 3, 11)),
        ("thursday afternoons 2-4", (2026, 3, 5, 14), (2026, 3, 5, 16)),
    ],
)
def test_ranges(text: str, start: tuple[int, ...], end: tuple[int, ...]) -> None:
    match = only(text)
    assert (match.start, match.end) == (at(*start), at(*end))
    assert match.is_interval


def test_open_intervals() -> None:
    since = only("since 2014")
    assert (since.start, since.end) == (at(2014, 1, 1), None)
    until = only("until 2pm")
    assert (until.start, until.end) == (NOW, at(2026, 3, 2, 14))


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("after 5pm tonight", (2026, 3, 2, 17), (2026, 3, 3)),
        ("after 3pm tomorrow", (2026, 3, 3, 15), (2026, 3, 4)),
        ("tomorrow after 3pm", (2026, 3, 3, 15), (2026, 3, 4)),
        ("friday anytime after 2pm", (2026, 3, 6, 14), (2026, 3, 7)),
    ],
)
def test_after_a_clock_time_on_a_day_is_the_rest_of_that_day(
    text: str, start: tuple[int, ...], end: tuple[int, ...]
) -> None:
    match = only(text)
    assert (match.start, match.end) == (at(*start), at(*end))
    assert match.rest_of_day  # no word said the end: a new event there takes its own length


def test_after_a_bare_hour_today_in_the_daytime_runs_from_the_afternoon_to_midnight() -> None:
    (match,) = find_times("after 5 today", now=NOW, daytime=True)
    assert (match.start, match.end) == (at(2026, 3, 2, 17), at(2026, 3, 3))


def test_after_a_clock_time_with_no_day_and_since_a_day_stay_open() -> None:
    assert only("after 5pm").end is None
    assert only("since monday at 9").end is None
    assert not only("from 2 to 3pm tomorrow").rest_of_day


def test_holidays() -> None:
    assert only("Thanksgiving").start == at(2026, 11, 26)
    assert only("Easter 2027").start == at(2027, 3, 28)
    assert only("last Christmas").start == at(2025, 12, 25)


def test_a_time_inside_a_sentence() -> None:
    match = only("What's the weather tomorrow?")
    assert match.text == "tomorrow"
    assert match.span == (19, 27)
    assert match.start == at(2026, 3, 3)


@pytest.mark.parametrize(
    ("text", "day"), [("moved to wed", 4), ("push it to sat", 7), ("from sun", 8), ("on sat", 7)]
)
def test_a_weekday_name_that_is_also_a_word_is_a_day_after_a_word_that_leads_one(text: str, day: int) -> None:
    assert only(text).start.date() == at(2026, 3, day).date()  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("all week next week", (2026, 3, 9), (2026, 3, 16)),
        ("the whole day tomorrow", (2026, 3, 3), (2026, 3, 4)),
        ("all day on friday", (2026, 3, 6), (2026, 3, 7)),
        ("all week", (2026, 3, 2), (2026, 3, 9)),  # alone: this week
    ],
)
def test_all_of_a_period_said_before_one_is_the_whole_of_that_one(
    text: str, start: tuple[int, int, int], end: tuple[int, int, int]
) -> None:
    match = only(text)
    assert (match.start, match.end) == (at(*start), at(*end))


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("from 8 to 4", (2026, 3, 2, 8), (2026, 3, 2, 16)),  # the working day, not 8 PM to 4 AM
        ("from 11 to 1", (2026, 3, 2, 11), (2026, 3, 2, 13)),
        ("from 7 to 11", (2026, 3, 2, 19), (2026, 3, 2, 23)),  # an evening stays one
        ("from 10pm to 2", (2026, 3, 2, 22), (2026, 3, 3, 2)),  # said overnight, kept
    ],
)
def test_a_range_of_bare_hours_reads_as_the_daytime_not_overnight(
    text: str, start: tuple[int, ...], end: tuple[int, ...]
) -> None:
    match = find_times(text, now=NOW, daytime=True)[0]
    assert (match.start, match.end) == (at(*start), at(*end))


def test_text_without_time_gives_nothing() -> None:
    for text in (
        "asdf qwer",
        "book 2 rooms for 3 people",
        "good morning",
        "may I help you",
        "I sat down with the sun behind me",
        "wed",
        "lunch with Bob",
        "where is the lunch with Omar",  # the event, once read as today's lunch hour
        "cancel the lunch with omar",
    ):
        assert find_times(text, now=NOW) == [], text


def test_lunch_after_a_word_of_time_is_still_the_lunch_hour() -> None:
    for text in ("am I free at lunch", "anything during the lunch hour", "what time is lunch tomorrow"):
        assert find_times(text, now=NOW, daytime=True), text


def test_results_use_the_reference_offset() -> None:
    fixed = datetime(2013, 2, 12, 4, 30, tzinfo=timezone(timedelta(hours=-2)))
    match = only("tomorrow at 5pm", now=fixed)
    assert match.start == datetime(2013, 2, 13, 17, tzinfo=fixed.tzinfo)
    assert match.start.utcoffset() == timedelta(hours=-2)


def test_naive_reference_is_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        find_times("tomorrow", now=datetime(2026, 3, 2, 9))


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("for an hour", 60),
        ("half an hour", 30),
        ("a half hour", 30),
        ("half-hour", 30),
        ("a half day", 720),
        ("90 minutes", 90),
        ("1.5 hours", 90),
        ("an hour and a half", 90),
        ("2h", 120),
        ("45 mins", 45),
        ("1 hour and 15 minutes", 75),
    ],
)
def test_durations(text: str, minutes: int) -> None:
    [match] = find_durations(text)
    assert match.minutes == minutes
    assert match.text == text


def test_duration_inside_a_time_is_still_a_duration() -> None:
    [match] = find_durations("4pm for 30 mins")
    assert (match.text, match.minutes) == ("for 30 mins", 30)


def test_offsets_are_not_durations() -> None:
    for text in ("in 3 days", "2 weeks ago", "the next 3 days", "every 2 weeks"):
        assert find_durations(text) == [], text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Thursday at 3", at(2026, 3, 5, 15)),
        ("Thursday at 12", at(2026, 3, 5, 12)),  # noon, not the midnight that begins Thursday
        ("tomorrow at 12:30", at(2026, 3, 3, 12, 30)),
        ("Friday at 12am", at(2026, 3, 6, 0)),
        ("at midnight on Friday", at(2026, 3, 6, 0)),
        ("Friday at 0:30", at(2026, 3, 6, 0, 30)),
        ("Thursday at 9", at(2026, 3, 5, 9)),
    ],
)
def test_the_calendars_reading_of_a_clock_time_without_am_or_pm(text: str, expected: datetime) -> None:
    """``daytime``: what people book; a 12 said alone is noon, an explicit am or midnight stays."""
    (match,) = find_times(text, now=NOW, daytime=True)
    assert match.start == expected


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("on Friday from 2 to 3", at(2026, 3, 6, 14), at(2026, 3, 6, 15)),
        ("tomorrow at 3 for 2 hours", at(2026, 3, 3, 15), at(2026, 3, 3, 17)),
        ("Thursday 10-11", at(2026, 3, 5, 10), at(2026, 3, 5, 11)),  # that day's hours, not October 11
        ("Friday 2-3", at(2026, 3, 6, 14), at(2026, 3, 6, 15)),
        ("6-7 on Sunday", at(2026, 3, 8, 18), at(2026, 3, 8, 19)),
        ("2-3 tomorrow", at(2026, 3, 3, 14), at(2026, 3, 3, 15)),
        ("Thursday 13-15", at(2026, 3, 5, 13), at(2026, 3, 5, 15)),
        ("from 12 to 2 tomorrow", at(2026, 3, 3, 12), at(2026, 3, 3, 14)),
        ("tomorrow from 10 to 2", at(2026, 3, 3, 10), at(2026, 3, 3, 14)),  # 10 am: not a small hour
        ("from 2am to 3am on Friday", at(2026, 3, 6, 2), at(2026, 3, 6, 3)),  # said: kept
        ("tomorrow 3pm for 2 hours", at(2026, 3, 3, 15), at(2026, 3, 3, 17)),
    ],
)
def test_daytime_reads_ranges_and_lengths_from_a_bare_small_hour_as_afternoon(
    text: str, start: datetime, end: datetime
) -> None:
    (match,) = find_times(text, now=NOW, daytime=True)
    assert (match.start, match.end) == (start, end)
    assert match.is_interval


@pytest.mark.parametrize(
    ("text", "day"),
    [("10-11", at(2026, 10, 11)), ("on 10-11", at(2026, 10, 11))],
)
def test_a_month_day_pair_with_no_day_beside_it_stays_a_date(text: str, day: datetime) -> None:
    (match,) = find_times(text, now=NOW, daytime=True)
    assert match.start == day
    assert not match.has_time


@pytest.mark.parametrize(
    ("text", "loose"),
    [
        ("Thursday at 8", True),
        ("Thursday from 7 to 9", True),
        ("Thursday at 8pm", False),
        ("Thursday at 8 in the evening", False),
        ("Thursday at 20:00", False),
        ("Thursday", False),
    ],
)
def test_loose_says_whether_the_clock_time_left_am_or_pm_open(text: str, loose: bool) -> None:
    (match,) = find_times(text, now=NOW, daytime=True)
    assert match.loose is loose


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("cancel the staff meeting for Friday one", "Friday"),  # "the Friday one": a pronoun
        ("delete tomorrow one please", "tomorrow"),
        ("Friday at one", "Friday at one"),
        ("Friday one pm", "Friday one pm"),
        ("between one and two", "between one and two"),
    ],
)
def test_one_after_a_day_is_a_time_only_when_said_as_one(text: str, said: str) -> None:
    assert [m.text for m in find_times(text, now=NOW)][:1] == [said]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("haircut sat 10", ["sat 10"]),  # a weekday's short name that is also a word, and an hour
        ("tea wed 4 with sam", ["wed 4"]),
        ("I sat 10 minutes in traffic", []),  # the number is a length's
        ("we sat down", []),
    ],
)
def test_a_short_weekday_that_is_a_word_is_a_day_before_an_hour(text: str, said: list[str]) -> None:
    assert [m.text for m in find_times(text, now=NOW)] == said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Seems nice. Now I want it named Movie show at 22:00", ["at 22:00"]),  # a new step, no time
        ("Now let's put it at 2pm", ["at 2pm"]),
        ("can we meet now?", ["now"]),
        ("now works", ["now"]),
    ],
)
def test_now_opening_a_sentence_with_its_subject_is_no_time(text: str, said: list[str]) -> None:
    assert [m.text for m in find_times(text, now=NOW)] == said


@pytest.mark.parametrize("ending", [".", "!", "?!", " . "])
def test_the_punctuation_that_ends_a_sentence_is_no_part_of_a_time(ending: str) -> None:
    fixed = datetime(2026, 3, 4, 9, tzinfo=ZoneInfo("UTC"))
    plain = [(m.text, m.start) for m in find_times("lunch at 5pm", now=fixed)]
    assert [(m.text, m.start) for m in find_times(f"lunch at 5pm{ending}", now=fixed)] == plain


def test_the_dot_of_pm_at_the_end_stays() -> None:
    fixed = datetime(2026, 3, 4, 9, tzinfo=ZoneInfo("UTC"))
    [match] = find_times("lunch at 5 p.m.", now=fixed)
    assert match.text == "at 5 p.m."
    assert match.start == datetime(2026, 3, 4, 17, tzinfo=ZoneInfo("UTC"))


def test_a_text_read_twice_in_one_reading_quotes_each_spelling_and_is_read_alike() -> None:
    with one_reading():
        first = find_times("Call FRIDAY at 1pm.", now=NOW)
        again = find_times("call friday at 1pm", now=NOW)
        daytime = find_times("call friday at 1", now=NOW, daytime=True)
        night = find_times("call friday at 1", now=NOW)
    assert [m.text for m in first] == ["FRIDAY at 1pm"]
    assert [m.text for m in again] == ["friday at 1pm"]
    assert first[0].start == again[0].start == at(2026, 3, 6, 13)
    assert daytime[0].start == at(2026, 3, 6, 13)  # "at 1" as the calendar reads it
    assert night[0].start == at(2026, 3, 6, 1)  # and as the evaluation does: not the same reading
    assert find_times("Call FRIDAY at 1pm.", now=NOW) == first  # the same outside a reading


@pytest.mark.parametrize(
    ("text", "start", "end", "part"),
    [
        ("in the late afternoon on Tuesday", at(2026, 3, 3, 15), at(2026, 3, 3, 17), "afternoon"),
        ("Tuesday late morning", at(2026, 3, 3, 10), at(2026, 3, 3, 12), "morning"),
        ("early afternoon on Tuesday", at(2026, 3, 3, 12), at(2026, 3, 3, 14), "afternoon"),
        ("Tuesday in the early evening", at(2026, 3, 3, 17), at(2026, 3, 3, 19), "evening"),
        ("at 4 in the late afternoon on Tuesday", at(2026, 3, 3, 16), at(2026, 3, 3, 17), "afternoon"),
        ("at 7 in the early evening on Tuesday", at(2026, 3, 3, 19), at(2026, 3, 3, 20), "evening"),
        ("skip standup for the rest of this week", NOW, at(2026, 3, 9), None),
    ],
)
def test_early_and_late_narrow_every_day_part(
    text: str, start: datetime, end: datetime, part: str | None
) -> None:
    """ "the late afternoon" was the whole afternoon (only "early morning" and "late evening" were
    narrowed), and "the rest of this week" was all of it."""
    match = only(text)
    assert (match.start, match.end, match.day_part) == (start, end, part)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        # "past" was read as the clock time alone: "any meetings past 4:30 pm on Friday?" asked about 4:30
        ("any meetings past 4:30 pm on Friday", (2026, 3, 6, 16, 30), (2026, 3, 7, 0, 0)),
        # "before" on a day is that day's hours before it, not every hour from now on
        ("anything before noon tomorrow", (2026, 3, 3, 0, 0), (2026, 3, 3, 12, 0)),
        ("meetings planned Tuesday before 10 AM", (2026, 3, 3, 0, 0), (2026, 3, 3, 10, 0)),
    ],
)
def test_an_open_side_on_a_day_keeps_to_that_day(
    text: str, start: tuple[int, ...], end: tuple[int, ...]
) -> None:
    [match] = find_times(text, now=NOW, daytime=True)
    assert (match.start, match.end) == (at(*start), at(*end))


def test_past_in_a_clock_time_is_still_the_clock_time() -> None:
    assert [m.start for m in find_times("half past 4", now=NOW, daytime=True)] == [at(2026, 3, 2, 16, 30)]


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("through friday", (2026, 3, 7)),  # Friday was left out
        ("what's on through the weekend", (2026, 3, 9)),  # the weekend was left out
        ("how many things do I have till the end of the week", (2026, 3, 9)),  # it ended on Thursday
        ("until friday", (2026, 3, 6)),  # stops where Friday begins
        ("through 2:00pm", (2026, 3, 2, 14, 0)),  # a clock time is where it stops
    ],
)
def test_through_a_day_or_to_the_end_of_a_period_takes_it_whole(text: str, end: tuple[int, ...]) -> None:
    [match] = find_times(text, now=NOW, daytime=True)
    assert match.end == at(*end)


def test_next_weekend_is_next_weeks_as_next_friday_is() -> None:
    """It was this week's, as 'this weekend' is (NOW is a Monday)."""
    [match] = find_times("next weekend", now=NOW)
    assert match.start is not None
    assert match.start.date() == at(2026, 3, 13).date()
    [this] = find_times("this weekend", now=NOW)
    assert this.start is not None
    assert this.start.date() == at(2026, 3, 6).date()


def test_a_us_zone_said_by_its_name_after_a_time_is_that_zone() -> None:
    """'9am Pacific' was read as 9 am here, the word left unused."""
    [match] = find_times("a call at 9am Pacific on Tuesday", now=NOW, daytime=True)
    assert match.start == at(2026, 3, 3, 12, 0)


@pytest.mark.parametrize("text", ["book the first one for a call", "take the second one", "the 3rd slot"])
def test_an_ordinal_picking_one_of_a_list_is_no_date(text: str) -> None:
    # "the first one" was April 1 at 1 pm, and "book the first one" after a list of free times made it
    assert find_times(text, now=NOW, daytime=True) == []


def test_an_ordinal_day_with_one_oclock_is_still_that_day_and_hour() -> None:
    match = only("lunch on the first at one")
    assert match.start is not None
    assert (match.start.month, match.start.day, match.start.hour) == (4, 1, 13)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        # "on the 2nd" + "Tuesday" + "of April" was the April 2 that is a Tuesday: in 2030
        ("on the 2nd tuesday of april", at(2026, 4, 14)),
        ("on the second tuesday of april at 6pm", at(2026, 4, 14, 18)),
        # the time said after the month was read with it and dropped
        ("the last friday of march at 2pm", at(2026, 3, 27, 14)),
        ("the first monday of may at 9am", at(2026, 5, 4, 9)),
        # a day of the month stays one
        ("on the 2nd of april", at(2026, 4, 2)),
    ],
)
def test_the_nth_weekday_of_a_month_with_its_time(text: str, start: datetime) -> None:
    match = only(text)
    assert match.text == text
    assert match.start == start


@pytest.mark.parametrize("text", ["it will last 2 hours", "and last 2 hours", "it'll last 2 hours"])
def test_last_as_the_verb_is_a_length_not_the_hours_before_now(text: str) -> None:
    assert [d.minutes for d in find_durations(text)] == [120]
    assert find_times(text, now=NOW) == []


def test_the_last_hours_are_still_the_hours_before_now() -> None:
    assert find_durations("what did I have in the last 2 hours") == []
    assert only("in the last 2 hours").end is not None
