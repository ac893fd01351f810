"""Edits of what an event is (its name, place, people) by chat, previewed or applied, and undone."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.test.utils import override_settings

from assistant.models import Conversation
from assistant.services import chat_turn, conversation_create
from preferences.models import Preference
from skills.models import Event
from skills.services import event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # a Monday


@pytest.fixture
def calendar() -> tuple[Any, Conversation]:
    """A weekly standup with Kai, a design review with Bo on Thursday, and Lee in the directory."""
    user, cal = user_with_calendar("editor", timezone="Europe/Berlin")
    for email, first in (("kai@example.com", "Kai"), ("bo@example.com", "Bo"), ("lee@example.com", "Lee")):
        get_user_model().objects.create_user(first.casefold(), email, first_name=first)
    event_create(
        calendar=cal,
        summary="Standup",
        start=datetime(2026, 3, 2, 9, 30, tzinfo=BERLIN),
        end=datetime(2026, 3, 2, 9, 45, tzinfo=BERLIN),
        timezone="Europe/Berlin",
        rrule="FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10",
        attendees=["kai@example.com"],
    )
    event_create(
        calendar=cal,
        summary="Design review",
        start=datetime(2026, 3, 5, 14, 0, tzinfo=BERLIN),
        end=datetime(2026, 3, 5, 15, 0, tzinfo=BERLIN),
        timezone="Europe/Berlin",
        attendees=["bo@example.com"],
    )
    return user, conversation_create(user=user)


def say(user: Any, conversation: Conversation, text: str) -> Any:
    reply = chat_turn(user=user, conversation=conversation, text=text)
    assert reply is not None
    return reply


def test_rename_of_a_recurring_event_without_a_day_renames_the_series(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "Rename the standup to Daily check-in")
        # A whole series changes: the preview says so and asks before anything is written.
        assert asked.kind == "confirm"
        assert "(every occurrence)" in asked.text
        assert Event.objects.filter(calendar__owner=user, summary="Standup").exists()
        reply = say(user, conversation, "yes")
    assert reply.kind == "done"
    master = Event.objects.get(calendar__owner=user, series__isnull=True, rrule__contains="WEEKLY")
    assert master.summary == "Daily check-in"
    assert not Event.objects.filter(calendar__owner=user, summary="Standup").exists()


def test_a_place_for_it_goes_to_the_event_just_shown(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "When is the design review?")
        reply = say(user, conversation, "put it in room 4B")
    assert reply.kind == "done"
    assert Event.objects.get(summary="Design review").location == "room 4B"


def test_put_with_a_time_is_a_move_not_a_place(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "When is the design review?")
        say(user, conversation, "put it at 4pm")
    review = Event.objects.get(summary="Design review")
    assert review.location == ""
    assert review.start.astimezone(BERLIN).hour in (14, 16)  # moved, or waiting for approval: never a place


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_inviting_asks_first_and_tells_only_the_person_invited(calendar: Any) -> None:
    user, conversation = calendar
    mail.outbox = []
    with time_machine.travel(NOW, tick=False):
        ask = say(user, conversation, "Invite Lee to the design review and let him know")
        assert ask.kind == "confirm"
        assert "invite Lee" in ask.text
        assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]
        done = say(user, conversation, "yes")
    assert done.kind == "done"
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com", "lee@example.com"]
    assert [m.to for m in mail.outbox] == [["lee@example.com"]]
    assert "invited to Design review" in mail.outbox[0].body


def test_taking_someone_off_and_undoing_it_puts_them_back(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        assert say(user, conversation, "Take Bo off the design review").kind == "confirm"
        say(user, conversation, "yes")
        assert Event.objects.get(summary="Design review").attendees == []
        undone = say(user, conversation, "undo that")
    assert undone.kind == "done"
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


def test_an_unknown_person_is_asked_about_and_nothing_changes(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Add Zed to the design review")
    assert reply.kind == "clarify"
    assert "Zed" in reply.text
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


def test_adding_something_to_the_calendar_is_a_new_event_not_an_invite(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Add lunch to my calendar on Friday at 1pm")
    assert reply.kind == "done"
    assert Event.objects.filter(calendar__owner=user, summary__icontains="lunch").count() == 1


def test_a_new_length_keeps_the_start(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Shorten the design review on Thursday to 25 minutes")
        # Bo attends it: its end moves in his calendar too, so it is shown first
        assert reply.kind == "confirm", reply.text
        assert Event.objects.get(summary="Design review").end == datetime(2026, 3, 5, 15, 0, tzinfo=BERLIN)
        say(user, conversation, "yes")
    review = Event.objects.get(summary="Design review")
    assert review.start == datetime(2026, 3, 5, 14, 0, tzinfo=BERLIN)
    assert (review.end - review.start).total_seconds() == 25 * 60


def test_a_length_for_a_weeks_events_asks_first_and_changes_each(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        ask = say(user, conversation, "Make all my events this week 30 minutes")
        assert ask.kind == "confirm"
        say(user, conversation, "yes")
    review = Event.objects.get(summary="Design review")
    assert (review.end - review.start).total_seconds() == 30 * 60


def test_a_title_that_contains_a_category_word_names_the_event_whoever_attends(calendar: Any) -> None:
    """ "the team sync" is found by its title even with nobody else on it ("sync" made it a meeting)."""
    user, conversation = calendar
    cal = Event.objects.get(summary="Design review").calendar
    event_create(
        calendar=cal,
        summary="Team sync",
        start=datetime(2026, 3, 4, 10, 0, tzinfo=BERLIN),
        end=datetime(2026, 3, 4, 11, 0, tzinfo=BERLIN),
        timezone="Europe/Berlin",
    )
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "push the team sync to 11")
    assert reply.kind == "done"
    assert Event.objects.get(summary="Team sync").start == datetime(2026, 3, 4, 11, 0, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        ("Set my timezone to Europe/London", "done", "timezone"),
        ("change my lunch to 12:30-1:30", "done", "lunch_hours"),
        ("update my working hours", "clarify", None),  # to what? asked, nothing stored
    ],
)
def test_words_about_settings_change_the_setting_never_an_event(
    calendar: Any, text: str, kind: str, key: str | None
) -> None:
    user, conversation = calendar
    before = Event.objects.filter(calendar__owner=user).count()
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == kind, reply.text
    assert Event.objects.filter(calendar__owner=user).count() == before
    stored = set(Preference.objects.filter(user=user).values_list("key", flat=True))
    assert (key in stored) if key else not stored - {"timezone"}


def test_time_blocked_for_a_purpose_is_named_for_it(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "block 9-11 tomorrow for deep work")
    assert reply.kind == "done"
    block = Event.objects.get(calendar__owner=user, summary="Deep work")
    assert block.start == datetime(2026, 3, 3, 9, 0, tzinfo=BERLIN)
    assert block.attendees == []


def _approved(user: Any, conversation: Conversation, text: str) -> Any:
    """The reply to ``text``, approved first when it asks (a meeting's edit may)."""
    reply = say(user, conversation, text)
    return say(user, conversation, "yes") if reply.kind == "confirm" else reply


def test_a_note_goes_below_the_notes_it_had_and_undo_puts_them_back(calendar: Any) -> None:
    """ "Add a note" never drops what the notes said; "Who is a note?" was the invite frame's reading."""
    user, conversation = calendar
    Event.objects.filter(summary="Design review").update(description="Agenda: mocks")
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "add a note to the design review: bring the prototype")
        assert "notes: 'Agenda: mocks / bring the prototype'" in reply.text
        if reply.kind == "confirm":
            assert Event.objects.get(summary="Design review").description == "Agenda: mocks"
            reply = say(user, conversation, "yes")
        assert reply.kind == "done"
        review = Event.objects.get(summary="Design review")
        assert review.description == "Agenda: mocks\nbring the prototype"
        assert review.start == datetime(2026, 3, 5, 14, 0, tzinfo=BERLIN)
        assert review.attendees == ["bo@example.com"]
        assert say(user, conversation, "undo that").kind == "done"
    assert Event.objects.get(summary="Design review").description == "Agenda: mocks"


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_a_note_that_says_tell_someone_is_all_note(calendar: Any) -> None:
    user, conversation = calendar
    mail.outbox = []
    with time_machine.travel(NOW, tick=False):
        reply = _approved(
            user, conversation, "add a note to the design review saying tell Bo about the budget"
        )
    assert reply.kind == "done"
    assert Event.objects.get(summary="Design review").description == "tell Bo about the budget"
    assert mail.outbox == []


def test_notes_set_replace_what_they_said_and_remove_empties_them(calendar: Any) -> None:
    user, conversation = calendar
    Event.objects.filter(summary="Design review").update(description="old agenda")
    with time_machine.travel(NOW, tick=False):
        set_reply = _approved(user, conversation, "set the description of the design review to Bring laptops")
        assert set_reply.kind == "done"
        assert Event.objects.get(summary="Design review").description == "Bring laptops"
        removed = say(user, conversation, "remove the notes from the design review")
        assert "no notes" in removed.text
        if removed.kind == "confirm":
            removed = say(user, conversation, "yes")
        assert removed.kind == "done"
        assert Event.objects.get(summary="Design review").description == ""
        again = say(user, conversation, "remove the notes from the design review")
    assert again.kind == "answer"
    assert "it has no notes" in again.text


def test_the_place_removed_empties_it_and_never_deletes_the_event(calendar: Any) -> None:
    # "clear the location of the design review" previewed deleting the review; "remove the location
    # from ..." answered that the location was not invited
    user, conversation = calendar
    Event.objects.filter(summary="Design review").update(location="Room 5")
    with time_machine.travel(NOW, tick=False):
        removed = _approved(user, conversation, "clear the location of the design review")
        assert removed.kind == "done", removed.text
        review = Event.objects.get(summary="Design review")
        assert review.location == ""
        again = say(user, conversation, "remove the location from the design review")
    assert again.kind == "answer"
    assert "it has no place" in again.text
    assert Event.objects.filter(summary="Design review").count() == 1


def test_a_note_on_a_series_asks_first_and_undo_restores_every_occurrence(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "standup notes: post blockers in the channel")
        assert asked.kind == "confirm"
        assert "(every occurrence)" in asked.text
        say(user, conversation, "yes")
        master = Event.objects.get(calendar__owner=user, series__isnull=True, summary="Standup")
        assert master.description == "post blockers in the channel"
        assert say(user, conversation, "undo that").kind == "done"
    assert Event.objects.get(calendar__owner=user, series__isnull=True, summary="Standup").description == ""


@pytest.mark.parametrize("text", ["end the design review at 1pm", "the design review should end at 2"])
def test_an_end_at_or_before_the_start_is_refused_and_nothing_changes(calendar: Any, text: str) -> None:
    """The review is 2-3 pm: "end at 2" is 2 am or 2 pm, neither after its start."""
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "error", reply.text
    assert "starts at 2:00 PM" in reply.text
    review = Event.objects.get(summary="Design review")
    assert (review.start, review.end) == (
        datetime(2026, 3, 5, 14, 0, tzinfo=BERLIN),
        datetime(2026, 3, 5, 15, 0, tzinfo=BERLIN),
    )


def test_an_end_without_am_or_pm_is_read_after_the_start(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = _approved(user, conversation, "make the design review end at 3:30")
    assert reply.kind == "done"
    review = Event.objects.get(summary="Design review")
    assert review.start == datetime(2026, 3, 5, 14, 0, tzinfo=BERLIN)
    assert review.end == datetime(2026, 3, 5, 15, 30, tzinfo=BERLIN)


def test_a_new_name_in_quotes_is_the_name_without_them(calendar: Any) -> None:
    """'rename the design review to "Arch review"' named it '"Arch review"', quotes and all."""
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, 'rename the design review to "Arch review"')
        say(user, conversation, "yes")  # if it asked first
    assert Event.objects.filter(calendar__owner=user, summary="Arch review").exists()


def _about_the_review(calendar: Any, text: str) -> Any:
    """``text`` said right after the design review was shown."""
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "When is the design review?")
        return say(user, conversation, text)


def test_a_new_name_said_in_other_words_is_read_by_the_models_and_previewed(calendar: Any) -> None:
    # No rule says "to be called": the operation model reads an edit and the edit tagger, learnt from
    # SMCalFlow's edits, the new title; the models' reading is previewed, never written at once.
    asked = _about_the_review(calendar, "I need it to be called Design crit though")
    assert asked.kind == "confirm", asked.text
    assert "rename to 'Design crit'" in asked.text
    assert Event.objects.filter(summary="Design review").exists()
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        assert say(user, conversation, "yes").kind == "done"
    assert Event.objects.filter(summary="Design crit").count() == 1


def test_someone_coming_instead_is_invited_and_the_words_not_read_are_shown(calendar: Any) -> None:
    asked = _about_the_review(calendar, "Bo can't make it, Lee is coming instead")
    assert asked.kind == "confirm", asked.text
    assert "invite Lee" in asked.text
    assert 'I did not use "bo can\'t"' in asked.text  # Bo stays invited unless the user says so
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


@pytest.mark.parametrize(
    "text", ["Can you add Lee to that as well?", "Add Lee to that meeting", "change the title to Design crit"]
)
def test_that_meeting_and_the_title_are_the_event_talked_about(calendar: Any, text: str) -> None:
    reply = _about_the_review(calendar, text)
    assert reply.kind in ("confirm", "done"), reply.text
    assert "Change 'Design review'" in reply.text


def test_add_it_to_my_calendar_after_a_look_up_invites_nobody(calendar: Any) -> None:
    reply = _about_the_review(calendar, "Please add it to my calendar")
    assert "Who is it?" not in reply.text
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


def test_taking_off_someone_nobody_knows_says_they_are_not_invited(calendar: Any) -> None:
    # neither the directory nor the review's guest list knows Zed: nothing to take off, said why
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "Take Zed off the design review")
    assert reply.kind == "answer"
    assert reply.text == "I found nothing to change (Design review: Zed is not invited)."
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


@pytest.mark.parametrize(
    ("text", "until"),
    [("it should be 45 minutes long", "2:45 PM"), ("add an hour to that meeting", "4:00 PM")],
)
def test_a_length_said_or_added_is_read_by_the_models_and_previewed(
    calendar: Any, text: str, until: str
) -> None:
    # "add an hour" is no invite of "an hour": the rules' invite comes to nothing and the models read
    # a length added; "should be 45 minutes long" a length set
    asked = _about_the_review(calendar, text)
    assert asked.kind == "confirm", asked.text
    assert f"now 2:00 PM – {until}" in asked.text
    review = Event.objects.get(summary="Design review")
    assert (review.end - review.start).total_seconds() == 3600


def test_that_meeting_after_a_list_of_several_is_not_the_first_of_them(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "What do I have this week?")
        reply = say(user, conversation, "Add Lee to that meeting")
    assert reply.kind != "done"
    assert "Change 'Standup'" not in reply.text
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


@pytest.mark.parametrize(
    ("text", "change"),
    [("Add Lee to the meeting on Thursday", "invite Lee"), ("Take Bo off Thursday's meeting", "take off Bo")],
)
def test_someone_added_to_or_taken_off_a_day_s_meeting_changes_that_meeting(
    calendar: Any, text: str, change: str
) -> None:
    # no title said: the day and "meeting" name the design review, not a new event called Meeting
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "confirm", reply.text
    assert f"Change 'Design review': {change}" in reply.text
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


@pytest.mark.parametrize(
    ("text", "until"),
    [
        ("Let's change it to end at 3:30.", "3:30 PM"),
        ("Change the ending time to 3:15 PM", "3:15 PM"),
        ("Let's make it until 4.", "4:00 PM"),
        ("Can you reschedule the design review to end at 4 pm?", "4:00 PM"),
    ],
)
def test_a_new_end_said_with_the_verb_of_a_move_keeps_the_start(calendar: Any, text: str, until: str) -> None:
    # "let's" tells nobody: it was read as "let <someone> know" and the rest as nothing
    reply = _about_the_review(calendar, text)
    assert reply.kind in ("confirm", "done"), reply.text
    assert f"now 2:00 PM – {until}" in reply.text


@pytest.mark.parametrize("text", ["remove Bo from my 2pm on Thursday", "take Bo off my 2pm on Thursday"])
def test_someone_taken_off_an_event_said_by_its_hour_is_no_cancellation(calendar: Any, text: str) -> None:
    # "my 2pm" names the event at that hour as "the meeting" does; read by title alone, the edit came
    # to nothing and the turn was read as cancelling the 2pm
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert "Cancel" not in reply.text, reply.text
    assert "Delete" not in reply.text, reply.text
    assert "Change 'Design review'" in reply.text, reply.text
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]  # previewed


def test_the_answer_to_who_someone_is_carries_out_the_edit_asked_about(calendar: Any) -> None:
    # "Who is Zed? ... I'll add them" once forgot the edit: the address given next was not understood
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "invite Zed to the design review")
        assert asked.text == "Who is Zed? Give me their email address and I'll add them."
        shown = say(user, conversation, "lee@example.com")
        assert shown.kind == "confirm", shown.text
        assert "Change 'Design review': invite Lee" in shown.text
        say(user, conversation, "yes")
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com", "lee@example.com"]


def test_him_is_asked_about_by_name_and_the_name_given_takes_him_off(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "remove him from my 2pm on Thursday")
        assert asked.text.startswith("Who do you mean by 'him'?"), asked.text
        shown = say(user, conversation, "Bo")
        assert "Change 'Design review': take off Bo" in shown.text, shown.text
        say(user, conversation, "yes")
    assert Event.objects.get(summary="Design review").attendees == []


def test_a_turn_that_names_nobody_after_who_is_read_as_its_own(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "invite Zed to the design review")
        reply = say(user, conversation, "what's on Thursday?")
    assert reply.kind == "answer"
    assert "Design review" in reply.text
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com"]


def test_someone_said_to_be_needed_at_the_event_shown_is_asked_about_then_invited(calendar: Any) -> None:
    # Only the models read "Kim needs to be there as well" as an invite; the event is the one shown,
    # though no word points at it ("there"): once "I didn't understand that"
    asked = _about_the_review(calendar, "Kim needs to be there as well")
    assert asked.text == "Who is Kim? Give me their email address and I'll add them."
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        shown = say(user, conversation, "kim@example.com")
        assert shown.kind == "confirm", shown.text
        assert "Change 'Design review': invite Kim" in shown.text
        say(user, conversation, "yes")
    assert Event.objects.get(summary="Design review").attendees == ["bo@example.com", "kim@example.com"]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("change the location of the board meeting to room 5", "the board meeting"),
        ("I need to change my board meeting location to the large meeting room.", "my board meeting"),
        ("Change my lunch with Becky to 2 hours.", "my lunch with Becky"),
    ],
)
def test_a_place_or_length_asked_for_an_event_not_found_asks_which(
    calendar: Any, text: str, named: str
) -> None:
    # once "Where should it go?" (read as a move) and 'Is "2 hours" a place or a time?'
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "clarify"
    assert reply.text == f'I couldn\'t tell which event "{named}" is. Name it as your calendar does.'


def test_the_place_of_an_event_found_by_name_is_changed(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "change the location of the design review to room 5")
    assert "Change 'Design review'" in reply.text, reply.text
    assert "room 5" in reply.text


def test_a_length_the_event_has_already_is_said_so_not_previewed(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "make the design review 60 minutes long")
    assert reply.kind == "answer", reply.text  # once a preview of "Change 'Design review': no change"
    assert reply.text == "I found nothing to change (Design review: it is 60 minutes long already)."


@pytest.mark.parametrize(
    ("text", "to"),
    [
        ("can we do the design review an hour earlier?", "1:00 PM – 2:00 PM"),
        ("could the design review be 30 minutes later?", "2:30 PM – 3:30 PM"),
    ],
)
def test_an_offset_asked_for_without_a_verb_of_moving_is_a_move(calendar: Any, text: str, to: str) -> None:
    # once read as a question about the review, answered with its time
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply.kind == "confirm", reply.text
    assert f"→ Thursday, March 5 {to}" in reply.text


def test_pushing_an_event_back_an_hour_moves_it_and_keeps_its_length(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "push the design review back an hour")
    # once the models' "an hour" as its new length, previewed as no change
    assert "Thursday, March 5 2:00 PM – 3:00 PM → Thursday, March 5 3:00 PM – 4:00 PM" in reply.text, (
        reply.text
    )


def test_a_rename_and_an_invite_in_one_sentence_are_one_change(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "rename the design review to Design crit and invite Lee")
        # once written at once as 'Design crit and invite Lee'
        assert reply.kind == "confirm", reply.text
        assert "rename to 'Design crit'; invite Lee" in reply.text
        say(user, conversation, "yes")
    review = Event.objects.get(summary="Design crit")
    assert review.attendees == ["bo@example.com", "lee@example.com"]


@pytest.mark.parametrize("length", ["an hour and a half", "half an hour"])
def test_a_length_in_words_is_a_length(calendar: Any, length: str) -> None:
    # "make it 90 minutes" was read, "make it an hour and a half" asked which event was meant
    reply = _about_the_review(calendar, f"make it {length}")
    until = "3:30 PM" if "and" in length else "2:30 PM"
    assert f"Change 'Design review': now 2:00 PM – {until}" in reply.text, reply.text


@pytest.mark.parametrize("answer", ["to Friday at 11", "Friday at 11"])
def test_the_answer_to_where_it_should_go_moves_the_event_asked_about(calendar: Any, answer: str) -> None:
    # the answer was read as a question about Friday at 11 ("You have no events ...")
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, "move the design review")
        assert asked.text.startswith("Where should it go?"), asked.text
        reply = say(user, conversation, answer)
    assert reply.kind == "confirm", reply.text
    assert (
        "Move 'Design review': Thursday, March 5 2:00 PM – 3:00 PM → Friday, March 6 11:00 AM" in reply.text
    )


def test_a_question_after_where_it_should_go_is_a_question(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        say(user, conversation, "move the design review")
        reply = say(user, conversation, "what's on Thursday?")
    assert reply.kind == "answer"
    assert "Design review" in reply.text


def test_taking_someone_off_it_after_a_look_up_takes_them_off_the_event_shown(calendar: Any) -> None:
    # the people tagger does not read "Bo" as a person here, and the turn was answered "Great!"
    reply = _about_the_review(calendar, "take Bo off it")
    assert reply.kind == "confirm", reply.text
    assert "Change 'Design review': take off Bo" in reply.text


def test_taking_someone_off_it_with_nothing_talked_about_asks_which_event(calendar: Any) -> None:
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "take Bo off it")
    assert reply.text == 'Which event do you mean? Name it, e.g. "take Bo off the design review".'


def _offsite(calendar: Any, attendees: list[str]) -> Any:
    """An offsite on Friday with ``attendees``, whom the user's directory does not know."""
    user, _ = calendar
    cal = user.calendars.get()
    return event_create(
        calendar=cal,
        summary="Offsite",
        start=datetime(2026, 3, 6, 10, 0, tzinfo=BERLIN),
        end=datetime(2026, 3, 6, 15, 0, tzinfo=BERLIN),
        timezone="Europe/Berlin",
        attendees=attendees,
    )


@pytest.mark.parametrize(
    "text",
    [
        # "Who is Zoe?" was asked although the event's guest list says who she is
        "take Zoe off the offsite",
        # it previewed deleting the offsite for everyone
        "Zoe can't make it to the offsite",
    ],
)
def test_a_guest_the_directory_does_not_know_is_taken_off_by_the_name_the_guest_list_has(
    calendar: Any, text: str
) -> None:
    offsite = _offsite(calendar, ["zoe.quinn@example.org", "max@example.org"])
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        asked = say(user, conversation, text)
        assert asked.kind == "confirm", asked.text  # a guest found by name is shown first
        assert "Change 'Offsite': take off Zoe" in asked.text
        assert "Delete" not in asked.text
        assert Event.objects.get(pk=offsite.pk).attendees == ["zoe.quinn@example.org", "max@example.org"]
        done = say(user, conversation, "yes")
    assert done.kind == "done", done.text
    assert Event.objects.get(pk=offsite.pk).attendees == ["max@example.org"]


@pytest.mark.parametrize(
    ("text", "reply_says"),
    [
        # the user's own absence: the event is off for them, shown first as before
        ("I can't make it to the offsite", "Delete 'Offsite'"),
        ("he can't come to the offsite", "Who do you mean by 'he'?"),
        # to be told, a guest needs an address: the name on the guest list is not one
        ("take Zoe off the offsite and let her know", "Who is Zoe? Give me their email address"),
        ("Ann can't make it to the offsite", "(Offsite: Ann is not invited)"),
    ],
)
def test_who_cannot_come_decides_what_is_changed(calendar: Any, text: str, reply_says: str) -> None:
    offsite = _offsite(calendar, ["zoe.quinn@example.org"])
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, text)
    assert reply_says in reply.text
    assert Event.objects.get(pk=offsite.pk).attendees == ["zoe.quinn@example.org"]


def test_a_name_two_guests_answer_to_is_asked_about_and_nothing_is_changed(calendar: Any) -> None:
    offsite = _offsite(calendar, ["zoe.quinn@example.org", "zoe@example.com"])
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = say(user, conversation, "take Zoe off the offsite")
    assert "zoe.quinn@example.org and zoe@example.com are all invited to 'Offsite'" in reply.text
    assert "Nothing was changed" in reply.text
    assert Event.objects.get(pk=offsite.pk).attendees == ["zoe.quinn@example.org", "zoe@example.com"]


@pytest.mark.parametrize(
    ("said", "note"),
    [
        ("add the zoom link to the design review: zoom.us/j/123", "Zoom link: zoom.us/j/123"),
        ("attach the agenda to the design review: intro, mocks", "Agenda: intro, mocks"),
    ],
)
def test_a_link_or_agenda_added_to_an_event_goes_to_its_notes_saying_what_it_is(
    calendar: Any, said: str, note: str
) -> None:
    """ "Who is a zoom link?" was the invite frame's reading of what is no person."""
    user, conversation = calendar
    with time_machine.travel(NOW, tick=False):
        reply = _approved(user, conversation, said)
    assert reply.kind == "done"
    assert Event.objects.get(summary="Design review").description == note
