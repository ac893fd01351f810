"""A misreading never writes: each class of wrong write seen on real conversations, said in new words,
in several zones, gets a preview or a question, and the judge finds no write at all.

Every case is a whole conversation through the chat path (``run_scenario``): the judge compares the
calendars with how they began, so a created event, a moved or deleted one, a stored preference or a
mail that the case does not expect fails it by name.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from assistant.scenarios import Scenario, run_scenario
from skills.changes import Change
from skills.critic import Expectation, criticise

ZONES = ("America/Denver", "Europe/Berlin", "Asia/Singapore")
ASKS = ["confirm", "clarify", "choose", "answer"]  # anything but a write


def _scenario(zone: str, turns: list[dict[str, Any]], final: list[dict[str, Any]] | None = None) -> Scenario:
    return Scenario.model_validate(
        {
            "name": "gates",
            "now": "2026-05-11T09:00",  # a Monday
            "timezone": zone,
            "calendars": [
                {
                    "key": "personal",
                    "name": "Personal",
                    "default": True,
                    "events": [
                        {
                            "id": "physio",
                            "summary": "Physio",
                            "start": "2026-05-15T15:00",
                            "end": "2026-05-15T16:00",
                        },
                        {
                            "id": "yoga",
                            "summary": "Yoga",
                            "start": "2026-05-12T18:00",
                            "end": "2026-05-12T19:00",
                        },
                        {
                            "id": "sat1",
                            "summary": "Farmers market",
                            "start": "2026-05-16T10:00",
                            "end": "2026-05-16T11:00",
                        },
                        {
                            "id": "sat2",
                            "summary": "Bike ride",
                            "start": "2026-05-16T14:00",
                            "end": "2026-05-16T15:00",
                        },
                        {
                            "id": "sun",
                            "summary": "Brunch",
                            "start": "2026-05-17T11:00",
                            "end": "2026-05-17T12:00",
                        },
                        {
                            "id": "thu",
                            "summary": "Planning with Mia",
                            "start": "2026-05-14T13:00",
                            "end": "2026-05-14T14:00",
                            "attendees": ["mia@example.com"],
                        },
                        {
                            "id": "budget",
                            "summary": "Budget sync",
                            "start": "2026-05-14T09:00",
                            "end": "2026-05-14T10:00",
                            "attendees": ["ann@example.com"],
                        },
                        {
                            "id": "thu2",
                            "summary": "Retro with Mia",
                            "start": "2026-05-21T13:00",
                            "end": "2026-05-21T14:00",
                            "attendees": ["mia@example.com"],
                        },
                    ],
                }
            ],
            "people": {
                "mia@example.com": {"name": "Mia Park"},
                "ann@example.com": {
                    "name": "Ann Lee",
                    "events": [{"summary": "Busy", "start": "2026-05-15T08:00", "end": "2026-05-15T12:00"}],
                },
                "bo@example.com": {"name": "Bo Chen", "timezone": "Europe/London"},
            },
            "turns": turns,
            "final": final or [],
        }
    )


def _asks(user: str, **expect: Any) -> dict[str, Any]:
    return {"user": user, "expect": {"kind": ASKS, "changed": 0, **expect}}


def _play(scenario: Scenario) -> Any:
    result = run_scenario(scenario)
    assert result.passed, (result.failures, result.unexpected_writes, result.replies)
    return result


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize(
    ("sentence", "not_in_reply"),
    [
        # leftover words become the title
        ("Book a call with Mia on Thursday at 2 and tell her", ["Call tell", "with Mia and Tell"]),
        ("Hey Mia, drinks next Friday at 6 at The Owl? - Sam", []),
        # a move read as a create
        ("make my physio on Friday be at 4pm", []),
        ("make my Tuesday yoga on Wednesday instead", []),
        # a day that does not exist, or a number nobody can read
        ("add dinner on December 32 at 7pm", ["December 1"]),
        ("add lunch 99999999", []),
    ],
)
def test_a_misreading_is_previewed_or_asked_never_written(
    zone: str, sentence: str, not_in_reply: list[str]
) -> None:
    _play(_scenario(zone, [_asks(sentence, not_mentions=not_in_reply)]))


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
def test_a_title_with_words_left_over_shows_them_before_it_is_written(zone: str) -> None:
    """ "... and tell her": the call is 'Call with Mia' and the words it did not use are named."""
    result = _play(_scenario(zone, [_asks("Book a call with Mia on Thursday at 2 and tell her")]))
    reply = result.replies[0]["text"]
    assert result.replies[0]["kind"] in ("confirm", "clarify")
    if result.replies[0]["kind"] == "confirm":
        assert "'Call with Mia'" in reply
        assert '"tell her"' in reply


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
def test_the_name_and_place_said_outright_are_taken_as_said(zone: str) -> None:
    """ "the location is ..., use ... as the title": the name is the name, the address the place."""
    scenario = _scenario(
        zone,
        [
            _asks("the location is 12 Baker Street, use Quarterly sync as the title"),
            {
                "user": "Wednesday at 3pm",
                "expect": {"kind": "done", "mentions": ["Quarterly sync", "12 Baker Street"]},
            },
        ],
        [
            {
                "created": {"summary_contains": "Quarterly sync"},
                "date": "2026-05-13",
                "start": "15:00",
                "location_contains": "12 Baker Street",
            }
        ],
    )
    _play(scenario)


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
def test_a_day_is_that_day_never_a_range(zone: str) -> None:
    """ "remove an event from saturday" is one of Saturday's; "clear Thursday (the 14th)" is that
    Thursday only (its planning meeting and budget sync), and mail goes to the people of what was
    cleared."""
    scenario = _scenario(
        zone,
        [
            {
                "user": "please remove an event from saturday",
                "expect": {"kind": ["choose", "clarify"], "changed": 0, "not_mentions": ["Brunch"]},
            },
            {"user": "thanks", "expect": {"kind": ["answer"]}},
            {
                "user": "clear Thursday (the 14th) for travel and let anyone I had meetings with know",
                "expect": {
                    "kind": "confirm",
                    "changed": 0,
                    "mentions": ["Planning with Mia"],
                    "not_mentions": ["Retro with Mia", "Brunch"],
                },
            },
            {"user": "yes", "expect": {"kind": "done"}},
        ],
        [
            {"event": "thu", "deleted": True},
            {"event": "budget", "deleted": True},
            {"event": "thu2", "unchanged": True},
            {"event": "sat1", "unchanged": True},
            {"event": "sat2", "unchanged": True},
            {"created": {"summary_contains": "Travel"}, "date": "2026-05-14"},
            {"outbox": {"to_include": ["mia@example.com", "ann@example.com"]}},
        ],
    )
    _play(scenario)


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
def test_the_day_said_with_everyone_free_is_the_day_searched(zone: str) -> None:
    """ "an hour with Ann on Friday when we're both free": on Friday, after Ann's busy morning."""
    scenario = _scenario(
        zone,
        [
            {
                "user": "book an hour with Ann on Friday when we're both free",
                "expect": {"kind": ["done", "confirm"]},
            },
            {"user": "yes", "expect": {"kind": ["done", "answer"]}},
        ],
        [
            {
                "created": {"summary_contains": "Ann"},
                "date": "2026-05-15",
                "start_within": ["12:00", "21:00"],
                "attendees_include": ["ann@example.com"],
                "conflicts": "none",
            }
        ],
    )
    _play(scenario)


@pytest.mark.django_db
def test_a_time_said_in_an_attendees_zone_is_that_time_there() -> None:
    """ "9am his time (he's in London)" from Denver is 2 AM here; never 9 AM Denver."""
    scenario = _scenario(
        "America/Denver",
        [
            {
                "user": "set up a call with Bo at 9am his time on Wednesday (he's in London)",
                "expect": {"kind": ["done", "confirm"]},
            },
            {"user": "yes", "expect": {"kind": ["done", "answer"]}},
        ],
        [{"created": {"summary_contains": "Bo"}, "date": "2026-05-13", "start": "02:00"}],
    )
    _play(scenario)


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
def test_a_preference_keeps_the_exception_it_was_said_with(zone: str) -> None:
    scenario = _scenario(
        zone,
        [
            {
                "user": "Keep my writing block free of meetings, but I can approve exceptions when something "
                "is urgent",
                "expect": {"kind": "clarify"},
            },
            {"user": "Mondays and Wednesdays from 8 to 10am", "expect": {"kind": "done"}},
        ],
        [
            {
                "preference": "writing_block",
                "equals": {
                    "days": ["MO", "WE"],
                    "start": "08:00",
                    "end": "10:00",
                    "allow_exceptions_with_approval": True,
                },
            }
        ],
    )
    _play(scenario)


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
def test_a_plain_new_event_is_still_done_at_once(zone: str) -> None:
    scenario = _scenario(
        zone,
        [
            {
                "user": "add lunch with Sam tomorrow at 1",
                "expect": {"kind": "done", "mentions": ["Lunch with Sam"]},
            }
        ],
        [{"created": {"summary_contains": "Lunch with Sam"}, "date": "2026-05-12", "start": "13:00"}],
    )
    _play(scenario)


# -- the critic on its own ------------------------------------------------------------------------------

BERLIN = ZoneInfo("Europe/Berlin")


def _change(action: str, start: datetime, **more: Any) -> Change:
    timing = {"before_start": start, "before_end": start + timedelta(hours=1)} if action != "create" else {}
    moved = {"start": start, "end": start + timedelta(hours=1)} if action != "delete" else {}
    return Change(action=action, summary="x", event_id=start.isoformat(), **timing, **moved, **more)


SATURDAY = datetime(2026, 5, 16, 10, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("expect", "kept", "reason"),
    [
        (
            Expectation(actions=["delete"], days=[SATURDAY.date()]),
            0,
            "it is not on Saturday, May 16, which you named",
        ),
        (
            Expectation(actions=["delete"], exclude_dates=[SATURDAY.date()]),
            1,
            "you said to leave May 16 alone",
        ),
    ],
)
def test_the_critic_takes_out_a_change_off_the_days_said_and_says_why(
    expect: Expectation, kept: int, reason: str
) -> None:
    changes = [_change("delete", SATURDAY), _change("delete", SATURDAY + timedelta(days=1))]
    verdict = criticise(changes, expect, tz=BERLIN)
    assert [c.before_start for c in verdict.kept] == [changes[kept].before_start]
    assert [s.reason for s in verdict.dropped] == [reason]


def test_the_critic_never_lets_a_move_become_a_create_nor_a_busy_time_pass_for_a_free_one() -> None:
    at = datetime(2026, 5, 15, 9, tzinfo=BERLIN)
    busy = _change("update", at, busy=["Ann Lee"])
    busy.before_start = at - timedelta(days=1)
    verdict = criticise(
        [_change("create", at), busy], Expectation(actions=["update"], everyone_free=True), tz=BERLIN
    )
    assert verdict.kept == []
    assert [s.reason for s in verdict.dropped] == [
        "it would create an event, and you asked me to change",
        "Ann Lee is busy then, and you asked for a time when everyone is free",
    ]


def test_the_critic_asks_when_one_event_was_meant_and_several_match() -> None:
    sat = datetime(2026, 5, 16, 10, tzinfo=BERLIN)
    verdict = criticise(
        [_change("delete", sat), _change("delete", sat + timedelta(hours=4))],
        Expectation(actions=["delete"], one=True),
        tz=BERLIN,
    )
    assert verdict.kept == []
    assert verdict.question.startswith("You asked about one event, but 2 match")


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ZONES)
def test_a_time_for_everyone_never_proposes_a_busy_one(zone: str) -> None:
    """ "whenever everyone's free": Ann is busy all Friday morning; the preview and the move keep to a
    time she is free, and the judge checks her busy times from the scenario, not the product's."""
    scenario = _scenario(
        zone,
        [
            {
                "user": "move the budget sync to whenever everyone's free on Friday",
                "expect": {"kind": ["confirm", "done"], "not_mentions": ["is busy then"]},
            },
            {"user": "yes", "expect": {"kind": ["done", "answer"]}},
        ],
        [{"event": "budget", "date": "2026-05-15", "start_within": ["12:00", "21:00"], "conflicts": "none"}],
    )
    _play(scenario)
