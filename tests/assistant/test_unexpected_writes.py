"""The judge counts unexpected writes: what a conversation wrote that its checks forbid or cannot explain.

Each case builds a scenario's world, makes the write a product bug would make (straight to the store,
so the test does not depend on how the assistant reads a sentence), and asks the judge; the last ones
play whole conversations through the chat path.
"""

from __future__ import annotations

import json
from datetime import datetime
from io import StringIO
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml
from django.core import mail
from django.core.management import call_command

from assistant.scenarios import run_scenario
from assistant.scenarios.checks import run_check
from assistant.scenarios.judge import continuations
from assistant.scenarios.spec import Scenario
from assistant.scenarios.world import ScenarioWorld, build_world, snapshot
from assistant.scenarios.writes import audit_writes
from preferences.services import preference_set
from skills.models import Calendar
from skills.providers.base import EventData, Scope
from skills.providers.local import LocalProvider
from skills.services import event_create

SEOUL = ZoneInfo("Asia/Seoul")

WORLD = """\
name: judge-writes
now: "2026-05-04T09:00"
timezone: Asia/Seoul
calendars:
  - key: work
    name: Work
    default: true
    events:
      - {id: review, summary: Design review, start: "2026-05-06T10:00", end: "2026-05-06T11:00",
         attendees: [ann@example.com]}
      - {id: crit, summary: Design crit, start: "2026-05-06T14:00", end: "2026-05-06T15:00"}
      - {id: loose, summary: Inbox zero, start: "2026-05-07T16:00", end: "2026-05-07T16:30"}
      - {id: yoga, summary: Yoga, start: "2026-05-05T18:00", end: "2026-05-05T19:00",
         rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=10"}
people:
  ann@example.com:
    name: Ann Lee
    events: [{summary: Focus, start: "2026-05-06T09:00", end: "2026-05-06T10:00"}]
preferences:
  lunch_hours: {start: "12:00", end: "13:00"}
turns:
  - {user: hello, expect: {kind: answer}}
final:
"""
CHECKS = [
    '{created: {summary_contains: "Lunch with Sam"}, date: "2026-05-05", start: "13:00"}',
    '{event: review, start: "15:00"}',
    "{event: crit, unchanged: true}",
    "{outbox: {to_include: [ann@example.com]}}",
    '{event: yoga, occurrence: "2026-05-05", unchanged: true}',
]


def _scenario(checks: list[str]) -> Scenario:
    return Scenario.model_validate(yaml.safe_load(WORLD + "".join(f"  - {c}\n" for c in checks)))


def _world(checks: list[str] = CHECKS) -> tuple[Scenario, ScenarioWorld]:
    scenario = _scenario(checks)
    mail.outbox = []
    return scenario, build_world(scenario, run_tag="judge")


def _at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 5, day, hour, minute, tzinfo=SEOUL)


def _audit(scenario: Scenario, world: ScenarioWorld) -> tuple[list[str], list[str]]:
    final = snapshot(world)
    world.continued = continuations(world.initial, final)
    writes = audit_writes(world, final, scenario.final)
    return writes.unexpected, writes.unchecked


def _create(world: ScenarioWorld, summary: str, start: datetime, end: datetime) -> None:
    calendar = Calendar.objects.get(owner=world.user, key="work")
    event_create(calendar=calendar, summary=summary, start=start, end=end, timezone="Asia/Seoul")


def _move(world: ScenarioWorld, handle: str, start: datetime, end: datetime) -> None:
    LocalProvider(world.user).update_event(
        event_id=world.handles[handle], data=EventData(start=start, end=end)
    )


def _as_asked(world: ScenarioWorld) -> None:
    """What the checks ask for: lunch with Sam made, the review moved, Ann told."""
    _create(world, "Lunch with Sam", _at(5, 13), _at(5, 14))
    _move(world, "review", _at(6, 15), _at(6, 16))
    mail.send_mail("Moved", "Design review moved", "me@example.com", ["ann@example.com"])


@pytest.mark.django_db
def test_the_writes_the_checks_ask_for_are_not_unexpected() -> None:
    scenario, world = _world()
    _as_asked(world)
    assert _audit(scenario, world) == ([], [])


@pytest.mark.django_db
def test_a_wrong_title_is_an_unexpected_write_named_by_its_title() -> None:
    scenario, world = _world()
    _as_asked(world)
    _create(world, "Call know with Bo and Let Him", _at(6, 11), _at(6, 12))
    unexpected, _ = _audit(scenario, world)
    assert unexpected == ["created 'Call know with Bo and Let Him' (work) Wed 2026-05-06 11:00"]


@pytest.mark.django_db
def test_a_second_event_moved_is_an_unexpected_write_when_checked_unchanged() -> None:
    scenario, world = _world()
    _as_asked(world)
    _move(world, "crit", _at(6, 16), _at(6, 17))
    unexpected, _ = _audit(scenario, world)
    assert unexpected == [
        "'Design crit' (work) Wed 2026-05-06 14:00: now Wed 2026-05-06 16:00-17:00 (checked unchanged)"
    ]


@pytest.mark.django_db
def test_mail_to_an_extra_person_is_an_unexpected_write() -> None:
    scenario, world = _world()
    _as_asked(world)
    mail.send_mail("Moved", "Design review moved", "me@example.com", ["kai@example.com"])
    unexpected, _ = _audit(scenario, world)
    assert unexpected == ["mail to kai@example.com"]


@pytest.mark.django_db
def test_a_preference_no_check_names_is_an_unexpected_write() -> None:
    scenario, world = _world()
    _as_asked(world)
    preference_set(user=world.user, key="lunch_hours", value={"start": "12:30", "end": "13:30"})
    unexpected, _ = _audit(scenario, world)
    assert unexpected == [
        'preference lunch_hours changed from {"end": "13:00", "start": "12:00"} to '
        '{"end": "13:30", "start": "12:30"}'
    ]
    named = _scenario([*CHECKS, '{preference: lunch_hours, equals: {start: "12:30", end: "13:30"}}'])
    assert _audit(named, world)[0] == []


@pytest.mark.django_db
def test_a_write_to_another_users_calendar_is_unexpected() -> None:
    scenario, world = _world()
    _as_asked(world)
    calendar = Calendar.objects.get(owner=world.people["ann@example.com"])
    event_create(calendar=calendar, summary="Planted", start=_at(7, 9), end=_at(7, 10), timezone="Asia/Seoul")
    assert _audit(scenario, world)[0] == ["wrote to the calendar of ann@example.com, another user"]


@pytest.mark.django_db
def test_a_created_event_that_a_check_expects_none_of_is_forbidden() -> None:
    scenario, world = _world([*CHECKS, '{created: {summary_contains: "Dinner"}, count: 0}'])
    _as_asked(world)
    _create(world, "Dinner 32", _at(1, 19), _at(1, 20))
    assert _audit(scenario, world)[0] == [
        "created 'Dinner 32' (work) Fri 2026-05-01 19:00 (a check expects none)"
    ]


@pytest.mark.django_db
def test_a_write_no_check_names_is_listed_apart_and_does_not_fail() -> None:
    scenario, world = _world()
    _as_asked(world)
    _move(world, "loose", _at(7, 17), _at(7, 17, 30))
    unexpected, unchecked = _audit(scenario, world)
    assert unexpected == []
    assert unchecked == ["'Inbox zero' (work) Thu 2026-05-07 16:00: now Thu 2026-05-07 17:00-17:30"]


def _split(world: ScenarioWorld, start: datetime, end: datetime, rrule: str | None = None) -> None:
    """Change the yoga series from its May 19 occurrence on (a split: the rest becomes a new series)."""
    LocalProvider(world.user).update_event(
        event_id=world.handles["yoga"],
        recurrence_id=_at(19, 18),
        data=EventData(start=start, end=end, rrule=rrule),
        scope=Scope.FOLLOWING,
    )


@pytest.mark.django_db
def test_a_split_series_is_followed_to_the_series_that_continues_it() -> None:
    """'Yoga at 7pm from May 19 on': the checks address the occurrences by the original handle and
    their original dates, which now belong to another event."""
    scenario, world = _world(
        [
            '{event: yoga, occurrence: "2026-05-12", unchanged: true}',
            '{event: yoga, occurrence: "2026-05-19", start: "19:00", duration: 60}',
            '{event: yoga, occurrence: "2026-06-30", start: "19:00"}',
        ]
    )
    _split(world, _at(19, 19), _at(19, 20))
    final = snapshot(world)
    assert len({o.event_id for o in final.values() if o.summary == "Yoga"}) == 2  # really split
    # the occurrences the checks name are followed; the others moved too, which no check says
    assert _audit(scenario, world) == (
        [],
        ["'Yoga' (work) Tue 2026-05-26 18:00: now Tue 2026-05-26 19:00-20:00 (and 5 more occurrences of it)"],
    )
    assert [run_check(world, final, check) for check in scenario.final] == [None, None, None]


@pytest.mark.django_db
def test_a_split_series_moved_to_another_weekday_pairs_occurrences_in_order() -> None:
    scenario, world = _world(['{event: yoga, occurrence: "2026-05-19", date: "2026-05-21", start: "18:00"}'])
    _split(world, _at(21, 18), _at(21, 19), rrule="FREQ=WEEKLY;BYDAY=TH;COUNT=7")
    final = snapshot(world)
    world.continued = continuations(world.initial, final)
    assert run_check(world, final, scenario.final[0]) is None
    assert world.continued  # without following the split it "no longer exists"
    world.continued = {}
    assert run_check(world, final, scenario.final[0]) == "yoga@2026-05-19 no longer exists"


# -- whole conversations --------------------------------------------------------------------------------

CONVERSATION = """\
name: judge-conversation
now: "2026-05-04T09:00"
timezone: Asia/Seoul
calendars:
  - key: personal
    name: Personal
    default: true
    events:
      - {id: yoga, summary: Yoga, start: "2026-05-05T18:00", end: "2026-05-05T19:00",
         rrule: "FREQ=WEEKLY;BYDAY=TU"}
      - {id: dentist, summary: Dentist, start: "2026-05-07T15:00", end: "2026-05-07T16:00"}
turns:
  - user: "TURN"
    expect: {kind: [done, confirm]}
  - user: "yes"
    expect: {kind: [done, answer]}
final:
  - {event: dentist, unchanged: true}
  - {event: yoga, occurrence: "2026-05-05", unchanged: true}
"""


def _conversation(tmp_path: Path, turn: str, *checks: str) -> Path:
    path = tmp_path / "conversation.yaml"
    path.write_text(CONVERSATION.replace("TURN", turn) + "".join(f"  - {c}\n" for c in checks))
    return path


LUNCH = '{created: {summary_contains: "Lunch with Sam"}, date: "2026-05-05", start: "13:00"}'


@pytest.mark.django_db
def test_a_conversation_that_writes_a_wrong_title_fails_with_the_write_named(tmp_path: Path) -> None:
    assert run_scenario(_conversation(tmp_path, "add lunch with Sam tomorrow at 1pm", LUNCH)).passed
    result = run_scenario(_conversation(tmp_path, "add dinner with Sam tomorrow at 1pm", LUNCH))
    assert not result.passed
    assert result.unexpected_writes == ["created 'Dinner with Sam' (personal) Tue 2026-05-05 13:00"]


@pytest.mark.django_db
def test_a_correct_split_series_passes_through_the_chat(tmp_path: Path) -> None:
    """'From next week' splits the series; the checks address the moved occurrences by the original
    handle and their original dates."""
    path = _conversation(
        tmp_path,
        "move yoga to 7pm from next week",
        '{event: yoga, occurrence: "2026-05-12", start: "19:00", duration: 60}',
        '{event: yoga, occurrence: "2026-06-09", start: "19:00"}',
    )
    result = run_scenario(path)
    assert result.passed, (result.failures, result.unexpected_writes, result.replies)


@pytest.mark.django_db
def test_run_scenarios_lists_unexpected_writes_in_json_and_in_the_table(tmp_path: Path) -> None:
    _conversation(tmp_path, "add dinner with Sam tomorrow at 1pm", LUNCH)
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("run_scenarios", str(tmp_path), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["unexpected_writes"] == 1
    row = report["scenarios"][0]
    assert row["passed"] is False
    assert row["unexpected_writes"] == ["created 'Dinner with Sam' (personal) Tue 2026-05-05 13:00"]
    assert row["unchecked_writes"] == []
    table = StringIO()
    with pytest.raises(SystemExit):
        call_command("run_scenarios", str(tmp_path), stdout=table)
    assert "unexpected write: created 'Dinner with Sam'" in table.getvalue()
    assert "0/1 scenarios passed; 1 unexpected writes" in table.getvalue()
