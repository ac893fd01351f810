"""Work done once per chat turn: within one turn a function marked per_turn runs once per text, and a
shared value (the user's world) is made once; outside a turn, and in the next one, they are made again."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assistant.decomposer.entry import DecomposeRequest
from assistant.planning import decompose
from assistant.turnmemo import one_turn, per_turn, shared
from tests.factories import user_with_calendar


def test_a_per_turn_function_runs_once_per_text_within_a_turn_and_afresh_in_the_next() -> None:
    calls: list[str] = []

    @per_turn
    def shout(text: str) -> str:
        calls.append(text)
        return text.upper()

    with one_turn():
        assert shout("move it") == "MOVE IT"
        assert shout("move it") == "MOVE IT"
        with one_turn():  # a turn read inside another is that one
            assert shout("move it") == "MOVE IT"
        assert shout("cancel it") == "CANCEL IT"
    assert calls == ["move it", "cancel it"]
    with one_turn():
        shout("move it")
    shout("move it")
    assert calls == ["move it", "cancel it", "move it", "move it"]


def test_a_shared_value_is_made_once_within_a_turn_and_afresh_in_the_next() -> None:
    made: list[int] = []

    def make() -> int:
        made.append(len(made))
        return len(made)

    with one_turn():
        assert shared("world:1", make) == 1
        assert shared("world:1", make) == 1
        assert shared("world:2", make) == 2
    with one_turn():
        assert shared("world:1", make) == 3
    assert shared("world:1", make) == 4


@pytest.mark.django_db
def test_a_turn_lists_the_users_event_titles_once_though_the_gate_reads_them_too() -> None:
    user, _ = user_with_calendar("titles")
    request = DecomposeRequest(text="dinner with mom at 7 tonight", user=user, timezone="America/New_York")
    with time_machine.travel(datetime(2026, 3, 4, 9, 0, tzinfo=ZoneInfo("America/New_York")), tick=False):
        decompose(request)  # the first turn loads what any turn loads once per process
        with CaptureQueriesContext(connection) as queries:
            decision = decompose(request)
    assert decision.kind == "workflow"
    titles = [q["sql"] for q in queries.captured_queries if 'SELECT DISTINCT e."summary"' in q["sql"]]
    assert len(titles) == 1, titles


def test_the_learned_readers_time_marks_and_the_rules_times_are_one_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from assistant.nlu.timemarks import time_marks
    from assistant.nlu.tokens import tokenize
    from assistant.timeexpr import find_times, resolve

    walks: list[str] = []
    walk = resolve._find_times

    def counted(grammar: object, text: str, now: datetime, *, daytime: bool) -> object:
        walks.append(text)
        return walk(grammar, text, now, daytime=daytime)  # type: ignore[arg-type]

    monkeypatch.setattr(resolve, "_find_times", counted)
    now = datetime(2026, 3, 4, 9, 0, tzinfo=ZoneInfo("America/New_York"))
    text = "Move the dentist to Friday at 3"
    with one_turn():
        marks = time_marks(text, tokenize(text), now=now)
        found = find_times(text.lower(), now=now, daytime=True)
    assert [m.text for m in found] == ["friday at 3"]
    assert marks == ["O", "O", "O", "O", "date", "time", "time"]
    assert [w for w in walks if w.lower() == text.lower()] == [text]  # (the marks read 'at 3' alone too)


@pytest.mark.django_db
def test_a_turn_reads_its_clock_once_so_the_gate_parses_no_text_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The gate read the clock again, microseconds after the reading: its parse of the turn's words, kept
    by reference time, missed the reading's, and the whole turn was parsed twice."""
    from assistant.timeexpr import resolve

    user, _ = user_with_calendar("clock")
    request = DecomposeRequest(
        text="add lunch with Sam on Friday at 1", user=user, timezone="America/New_York"
    )
    parsed: list[tuple[str, datetime]] = []
    grammar = resolve._Reading.grammar

    def counted(self: object, norm: str, now: datetime) -> object:
        parsed.append((norm, now))
        return grammar(self, norm, now)  # type: ignore[arg-type]

    monkeypatch.setattr(resolve._Reading, "grammar", counted)
    # the clock ticks, as it does in the server
    with time_machine.travel(datetime(2026, 3, 4, 9, 0, tzinfo=ZoneInfo("America/New_York")), tick=True):
        decision = decompose(request)
    assert decision.kind == "workflow"
    whole = [now for norm, now in parsed if norm == "add lunch with sam on friday at 1"]
    # the turn's words, read by the reading and again by the gate, parsed once (at two clocks, twice)
    assert len(whole) == 1
