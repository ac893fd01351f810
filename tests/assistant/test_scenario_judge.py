"""The scenario judge is independent of the product: it reads store rows, expands recurrence with
dateutil, and takes preferences and people's busy times from the scenario, so a product bug in any of
those cannot judge itself correct."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from assistant.scenarios import load_scenario, run_scenario
from assistant.scenarios.judge import store_snapshot
from assistant.scenarios.spec import ScenarioFormatError
from skills import change_skills, freetime
from skills.providers.base import EventData, Scope
from skills.providers.local import LocalProvider
from skills.services import event_create
from tests.factories import user_with_calendar

NY = ZoneInfo("America/New_York")

# Tuesday morning's only free hour inside working hours is the lunch block (11:00-12:00), so moving
# the review there "to tomorrow morning" must find nothing, and leave it where it was, conflict-free.
LUNCH_SCENARIO = """\
name: judge-lunch-mutation
now: "2026-03-02T09:00"
timezone: America/New_York
preferences:
  lunch_hours: {start: "11:00", end: "12:00"}
  working_hours: {days: [MO, TU, WE, TH, FR], start: "09:00", end: "17:00"}
calendars:
  - key: work
    name: Work
    default: true
    events:
      - {id: review, summary: Budget review, start: "2026-03-02T15:00", end: "2026-03-02T16:00"}
      - {summary: Workshop, start: "2026-03-03T09:00", end: "2026-03-03T11:00"}
      - {summary: Offsite, start: "2026-03-03T13:00", end: "2026-03-03T17:00"}
turns:
  - user: "Move the budget review to tomorrow morning"
    expect: {kind: [answer, clarify, choose, confirm, done, error]}
final:
  - {event: review, conflicts: none}
"""

# Ann is busy at 10:00; the user insists, so the event is made, and the judge must see the clash.
PEOPLE_SCENARIO = """\
name: judge-people-busy
now: "2026-03-02T09:00"
timezone: America/New_York
calendars:
  - {key: work, name: Work, default: true}
people:
  ann@example.com:
    name: Ann Lee
    events:
      - {summary: Dentist, start: "2026-03-03T10:00", end: "2026-03-03T11:00"}
turns:
  - user: "Schedule a call with Ann tomorrow at 10am"
    expect: {kind: [confirm, done]}
  - user: "yes"
    expect: {kind: [done, answer]}
final:
  - {created: {summary_contains: "Ann"}, conflicts: none}
"""


def _write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.django_db
def test_lunch_scenario_passes_with_the_product_as_it_is(tmp_path: Path) -> None:
    result = run_scenario(_write(tmp_path, LUNCH_SCENARIO))
    assert result.passed, result.failures


@pytest.mark.django_db
def test_judge_fails_when_the_products_preference_blocks_are_mutated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the product blind to lunch, it moves the review into lunch; the judge must say so."""
    monkeypatch.setattr(freetime, "preference_blocks", lambda *a, **k: [])
    monkeypatch.setattr(freetime, "named_blocks", lambda *a, **k: [])
    monkeypatch.setattr(change_skills, "named_blocks", lambda *a, **k: [])
    result = run_scenario(_write(tmp_path, LUNCH_SCENARIO))
    assert not result.passed
    assert any("breaks the lunch block 11:00-12:00" in f for f in result.failures), result.failures


@pytest.mark.django_db
def test_judge_reads_peoples_busy_times_from_the_scenario_not_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(LocalProvider, "free_busy", lambda self, **kwargs: {})
    result = run_scenario(_write(tmp_path, PEOPLE_SCENARIO))
    assert any("ann@example.com is busy then" in f for f in result.failures), result.failures


@pytest.mark.django_db
def test_store_snapshot_expands_series_with_exdates_overrides_and_dst() -> None:
    """Weekly Monday 14:00 in New York across the March 8 DST change: wall time kept, one occurrence
    cancelled, one moved; the judge's own expansion must agree with the hand-made expectation."""
    user, calendar = user_with_calendar("judge-rrule")
    event = event_create(
        calendar=calendar,
        summary="Calculus",
        start=datetime(2026, 3, 2, 14, 0, tzinfo=NY),
        end=datetime(2026, 3, 2, 15, 15, tzinfo=NY),
        timezone="America/New_York",
        rrule="FREQ=WEEKLY;BYDAY=MO;COUNT=4",
    )
    provider = LocalProvider(user)
    provider.delete_event(
        event_id=str(event.pk), recurrence_id=datetime(2026, 3, 9, 14, 0, tzinfo=NY), scope=Scope.OCCURRENCE
    )
    moved = datetime(2026, 3, 17, 9, 0, tzinfo=NY)
    provider.update_event(
        event_id=str(event.pk),
        recurrence_id=datetime(2026, 3, 16, 14, 0, tzinfo=NY),
        data=EventData(start=moved, end=moved + timedelta(minutes=75)),
        scope=Scope.OCCURRENCE,
    )
    snap = store_snapshot(user, datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC))
    starts = sorted((o.start.astimezone(NY).strftime("%m-%d %H:%M"), o.summary) for o in snap.values())
    assert starts == [
        ("03-02 14:00", "Calculus"),
        ("03-17 09:00", "Calculus"),
        ("03-23 14:00", "Calculus"),
    ]
    moved_occ = next(o for o in snap.values() if o.start.astimezone(NY).day == 17)
    assert moved_occ.recurrence_id == datetime(2026, 3, 16, 14, 0, tzinfo=NY)


def _format_error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ScenarioFormatError) as caught:
        load_scenario(_write(tmp_path, text, "bad.yaml"))
    return str(caught.value)


def test_unknown_check_key_names_file_and_line(tmp_path: Path) -> None:
    text = LUNCH_SCENARIO.replace("{event: review, conflicts: none}", "{event: review, conflict: none}")
    message = _format_error(tmp_path, text)
    assert "bad.yaml:19:" in message
    assert "conflict" in message


def test_unknown_check_kind_is_an_error(tmp_path: Path) -> None:
    message = _format_error(tmp_path, LUNCH_SCENARIO.replace("{event: review,", "{evnt: review,"))
    assert "bad.yaml:19:" in message
    assert "a final check names one of" in message


def test_unknown_turn_key_names_file_and_line(tmp_path: Path) -> None:
    text = LUNCH_SCENARIO.replace("    expect: {kind:", "    expectt: {kind:")
    message = _format_error(tmp_path, text)
    assert "bad.yaml:17:" in message
    assert "expectt" in message


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        ('start: "2026-03-03T09:00"', 'start: "2026-03-33T09:00"', 13, "day is out of range"),
        ("{event: review, conflicts: none}", '{event: review, start: "25:00"}', 19, "not a time of day"),
        ("{event: review, conflicts: none}", "{event: review, start: 10:30}", 19, "quoted"),
        ("{event: review, conflicts: none}", "{event: review, conflicts: some}", 19, "'none'"),
        ("kind: [answer,", "kind: [anwser,", 17, "unknown reply kind"),
        ("timezone: America/New_York", "timezone: America/Nowhere", 3, "IANA"),
    ],
)
def test_malformed_values_name_file_and_line(
    tmp_path: Path, old: str, new: str, line: int, words: str
) -> None:
    assert old in LUNCH_SCENARIO
    message = _format_error(tmp_path, LUNCH_SCENARIO.replace(old, new))
    assert f"bad.yaml:{line}:" in message, message
    assert words in message, message
