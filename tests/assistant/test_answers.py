"""Typed answers to a waiting question map to the option they name, or are not answers at all."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from assistant.answers import ASK_AGAIN, DECLINE, NOT_AN_ANSWER, Amended, after_no, answer_for
from skills.change_skills import ALL

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=NY)
CONFIRM = {
    "kind": "confirm",
    "options": [
        {"label": "Approve", "value": {"approve": True, "digest": "abc"}},
        {"label": "Decline", "value": {"approve": False}},
    ],
}
CHOOSE = {
    "kind": "choose",
    "options": [
        {
            "label": "Cancel Check-in, Thursday, March 5 10:00 AM – 10:30 AM",
            "value": "a",
            "start": "2026-03-05T10:00:00-05:00",
        },
        {
            "label": "Cancel Check-in, Thursday, March 5 4:00 PM – 4:30 PM",
            "value": "b",
            "start": "2026-03-05T16:00:00-05:00",
        },
    ],
}


@pytest.mark.parametrize("text", ["yes", "ok", "sure, do it", "Go ahead", "yep"])
def test_approvals_carry_the_previews_digest(text: str) -> None:
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) == {"approve": True, "digest": "abc"}


@pytest.mark.parametrize(
    "text", ["no", "cancel", "nope", "no, it's fine", "No, that's fine thanks", "no, that's all"]
)
def test_refusals_decline(text: str) -> None:
    # "No, it's fine" agrees to nothing: it once approved a preview of three deletions.
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) is DECLINE
    assert after_no(text) == ""  # and asks nothing else


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("that would be fine but make it 9", "but make it 9"),
        ("that's perfect, but on Friday", "but on Friday"),
        ("yes but keep the standup", "but keep the standup"),
        ("ok, except the one with Ann.", "except the one with Ann"),
        ("sure, though at 9 instead", "though at 9 instead"),
    ],
)
def test_agreeing_with_a_change_asked_for_does_not_approve_the_preview(text: str, change: str) -> None:
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) == Amended(change)


@pytest.mark.parametrize("text", ["fine, it's important, do it", "yes please, go ahead", "sure, move it"])
def test_agreeing_with_more_words_that_change_nothing_approves(text: str) -> None:
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) == {"approve": True, "digest": "abc"}


# A new event on Thursday, March 5 at 8 AM, waiting for its yes.
MEETING = {
    **CONFIRM,
    "preview": [
        {
            "action": "create",
            "before": None,
            "after": {"start": "2026-03-05T08:00:00-05:00", "end": "2026-03-05T09:00:00-05:00"},
        }
    ],
}


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("yes, at 9", "at 9"),
        ("yes 9am", "9am"),
        ("sure, move it to 9", "move it to 9"),  # a bare hour no time expression takes
        ("yes please and invite Ann", "and invite Ann"),
        ("ok, on Friday", "on Friday"),
        ("sure, although keep it short", "although keep it short"),
        # a yes in words the agreement words lack is checked as well
        ("absolutely, at 9", "absolutely, at 9"),
        ("of course, on Friday", "of course, on Friday"),
        ("absolutely, but on Friday", "but on Friday"),
    ],
)
def test_a_yes_that_names_what_the_preview_lacks_is_a_change(text: str, change: str) -> None:
    assert answer_for(text, MEETING, tz=NY, now=NOW) == Amended(change)


@pytest.mark.parametrize(
    "text",
    [
        "yes, 8am is right",
        "yes, Thursday at 8 works",
        "yes, the 5th, go ahead",
        "absolutely",
        "of course, go for it",
    ],
)
def test_a_yes_that_repeats_the_previews_day_or_time_approves(text: str) -> None:
    assert answer_for(text, MEETING, tz=NY, now=NOW) == {"approve": True, "digest": "abc"}


def test_a_new_request_is_not_an_answer_to_a_confirmation() -> None:
    assert answer_for("What's my week look like?", CONFIRM, tz=NY, now=NOW) is NOT_AN_ANSWER


@pytest.mark.parametrize("text", ["Don't let anyone see when I'm busy", "do not move my standup"])
def test_a_request_that_starts_with_dont_is_not_a_no(text: str) -> None:
    # It used to decline the preview and run the rest, "let anyone see when I'm busy", the opposite.
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) is NOT_AN_ANSWER


@pytest.mark.parametrize(
    ("text", "rest"),
    [("don't", ""), ("Don't, thanks", ""), ("don't do it, find another time", "find another time")],
)
def test_dont_alone_or_about_the_preview_declines(text: str, rest: str) -> None:
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) is DECLINE
    assert after_no(text) == rest


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the 4pm one", "b"),
        ("the 10:00 one", "a"),
        ("the afternoon one", "b"),
        ("the first", "a"),
        ("second one", "b"),
        ("Cancel Check-in, Thursday, March 5 4:00 PM – 4:30 PM", "b"),
    ],
)
def test_a_choice_is_read_from_time_part_of_day_ordinal_or_label(text: str, value: str) -> None:
    assert answer_for(text, CHOOSE, tz=NY, now=NOW) == value


def test_a_choice_that_names_no_option_is_not_an_answer() -> None:
    assert answer_for("what about lunch tomorrow?", CHOOSE, tz=NY, now=NOW) is NOT_AN_ANSWER


@pytest.mark.parametrize(
    ("text", "value"), [("the last one", "b"), ("the later one", "b"), ("2", "b"), ("both", ALL)]
)
def test_a_place_in_the_list_is_among_the_events_never_all_of_them(text: str, value: str) -> None:
    """With "Cancel all 2 of them" as the last button, "the last one" is still the last event."""
    every = {**CHOOSE, "options": [*CHOOSE["options"], {"label": "Cancel all 2 of them", "value": ALL}]}
    assert answer_for(text, every, tz=NY, now=NOW) == value


@pytest.mark.parametrize("text", ["yes", "ok", "sure"])
def test_a_yes_that_picks_no_option_asks_again(text: str) -> None:
    assert answer_for(text, CHOOSE, tz=NY, now=NOW) is ASK_AGAIN
    assert answer_for(f"{text}, the 4pm one", CHOOSE, tz=NY, now=NOW) == "b"


def test_the_people_on_an_option_pick_it() -> None:
    labels = [
        "Move Team meeting, Thursday, March 5 10:00 AM – 11:00 AM (with Ana Lopez)",
        "Move Team meeting, Thursday, March 5 3:00 PM – 4:00 PM (with Bo)",
    ]
    payload = {
        "kind": "choose",
        "options": [{"label": label, "value": v} for label, v in zip(labels, "ab", strict=True)],
    }
    assert answer_for("the one with Bo", payload, tz=NY, now=NOW) == "b"
    assert answer_for("the one with ana", payload, tz=NY, now=NOW) == "a"


def test_an_attendee_address_reads_as_a_name() -> None:
    from skills.formatting import format_person

    assert format_person("ana.lopez@example.com") == "Ana Lopez"
    assert format_person("bo@demo.example") == "Bo"


@pytest.mark.parametrize(
    "text",
    [
        *("absolutely not", "of course not, keep it", "ok wait no", "okay, no", "ok actually no"),
        *("right, no", "okay hold on", "ok, one sec", "ok let me check first", "definitely not"),
        "alright, wait",
    ],
)
def test_an_agreeing_word_taken_back_by_the_rest_of_the_turn_declines(text: str) -> None:
    """Only the opening word was read: "absolutely not" and "ok wait no" applied the change."""
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) is DECLINE


@pytest.mark.parametrize(
    "text", ["okay so who is coming to it?", "right, and where is it?", "is that right?"]
)
def test_a_question_about_the_preview_is_no_answer_to_it(text: str) -> None:
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) is NOT_AN_ANSWER


@pytest.mark.parametrize(
    "text",
    [
        *("sure, no problem", "sure, why not", "ok no worries, go ahead", "yes, no need to notify"),
        *("yes please, I don't mind", "absolutely, not needed", "ok thanks, no further changes"),
        *("yes, I'm not going anymore", "yes, the overlap is not an issue", "yes?", "yes, is that ok?"),
    ],
)
def test_a_no_that_is_no_refusal_still_approves(text: str) -> None:
    assert answer_for(text, CONFIRM, tz=NY, now=NOW) == {"approve": True, "digest": "abc"}


@pytest.mark.parametrize(
    "text", ["none of them", "none of those", "neither", "I don't want any of them cancelled"]
)
def test_none_of_the_options_declines(text: str) -> None:
    """'none of them' shares words with the option 'all of them', which it picked: a whole series gone."""
    series = {
        **CHOOSE,
        "options": [
            *CHOOSE["options"],
            {"label": "Cancel all of them, from Thursday, March 5", "value": "ALL"},
        ],
    }
    assert answer_for(text, series, tz=NY, now=NOW) is DECLINE


def test_only_some_of_a_previews_rows_approves_it_without_the_others() -> None:
    """'only the hike' of a preview deleting the dentist and the hike asked what to do with 'Hike': it
    approves the preview without the dentist (which the change skill shows again before applying)."""
    dentist = {"summary": "Dentist", "action": "delete", "before": {"start": "2026-03-05T14:00:00-05:00"}}
    hike = {"summary": "Hike", "action": "delete", "before": {"start": "2026-03-07T09:00:00-05:00"}}
    preview = {**CONFIRM, "preview": [dentist, hike]}
    assert answer_for("only the hike", preview, tz=NY, now=NOW) == {
        "approve": True,
        "leave_out": [{"summary": "Dentist", "start": "2026-03-05T14:00:00-05:00"}],
    }
    assert answer_for("yes, but keep the hike", preview, tz=NY, now=NOW) == {
        "approve": True,
        "leave_out": [{"summary": "Hike", "start": "2026-03-07T09:00:00-05:00"}],
    }
    assert answer_for("only the standup", preview, tz=NY, now=NOW) is NOT_AN_ANSWER  # names no row
    assert answer_for("yes, not a problem", preview, tz=NY, now=NOW) == {"approve": True, "digest": "abc"}


@pytest.mark.parametrize("text", ["neither, just the 10 am one", "only the 4 pm one, none of the others"])
def test_an_option_named_beside_none_of_the_others_is_picked(text: str) -> None:
    """'none' anywhere declined: the option named with it was lost."""
    assert answer_for(text, CHOOSE, tz=NY, now=NOW) in ("a", "b")
