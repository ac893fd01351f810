"""The turn reader: the shipped models on turns written here (none is from the dataset they learnt
from), what the evaluation takes a prompt to have asked, and training that gives the same bytes twice."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from assistant.nlu import Slot, Span, read_turn, sgd
from assistant.nlu.acts import LinearLayer
from assistant.nlu.examples import Example
from assistant.nlu.reader import _unlinked
from assistant.nlu.sgd import asked_from_prompt
from assistant.nlu.shipped import ACTS_FILE, MODEL_DIR, SPANS_FILE, reader_from_files, shipped_reader
from assistant.nlu.spans import spans_from_tags, tags_from_spans
from assistant.nlu.tokens import tokenize
from assistant.nlu.training import train, train_acts


def test_a_title_keeps_its_words_and_case() -> None:
    text = "Name it Lunch with the Harringtons at Blue Fern Cafe."
    reading = read_turn(text, asked="title")
    title = reading.first("title")
    assert title is not None
    assert title.text == "Lunch with the Harringtons at Blue Fern Cafe"
    assert text[title.start : title.end] == title.text
    assert "INFORM" in reading.acts


def test_a_word_linking_two_names_belongs_to_neither() -> None:
    """Where the names tagger runs a title on into the "at" before the place ("Put *Movie at*
    Pruneyard Cinemas"), the title ends before the link; a link inside one name stays."""
    text = "Put Movie at Pruneyard Cinemas with Ann"
    title, place = Span("title", 4, 12, "Movie at"), Span("location", 13, 30, "Pruneyard Cinemas")
    assert _unlinked((title, place)) == (Span("title", 4, 9, "Movie"), place)
    whole = Span("title", 4, 30, text[4:30])
    assert _unlinked((whole, Span("person", 36, 39, "Ann"))) == (whole, Span("person", 36, 39, "Ann"))
    apart = (Span("title", 0, 12, "Put Movie at"), Span("location", 20, 30, "e Cinemas"))
    assert _unlinked(apart) == apart  # not side by side: two names, not one run on


def test_a_place_given_alone_after_where() -> None:
    reading = read_turn("Sure, it's 4410 Birchwood Lane.", asked="location")
    assert [(s.slot, s.text) for s in reading.spans] == [("location", "4410 Birchwood Lane")]
    assert reading.acts == {"INFORM"}


def test_title_and_place_in_one_turn() -> None:
    """Where a title ends before "at <a name>" is the learnt tagger's call (SMCalFlow's programs make
    "Dinner" the subject and "Osteria Lupa" the place): the title is read from its first word, and
    the address said apart is the place."""
    text = "Put Dinner at Osteria Lupa on my calendar. It is at 77 Quarry Hill Road."
    reading = read_turn(text)
    title = reading.first("title")
    assert title is not None
    assert title.text in ("Dinner", "Dinner at Osteria Lupa")
    assert text[title.start : title.end] == title.text
    assert "77 Quarry Hill Road" in [s.text for s in reading.spans if s.slot == "location"]


@pytest.mark.parametrize(
    ("text", "acts"),
    [
        ("Thanks for your help, that's all for today.", {"THANK_YOU", "GOODBYE"}),
        ("Nope, nothing more. Thanks!", {"NEGATE", "THANK_YOU"}),
    ],
)
def test_closing_turns(text: str, acts: set[str]) -> None:
    reading = read_turn(text)
    assert reading.acts == acts
    assert reading.intent is None
    assert reading.spans == ()


def test_a_yes_to_a_read_back_affirms() -> None:
    reading = read_turn("Yep, go for it.", asked="confirm")
    assert reading.acts == {"AFFIRM"}


def test_the_same_words_select_an_offer_and_affirm_a_read_back() -> None:
    assert "SELECT" in read_turn("That works for me.").acts
    assert "AFFIRM" in read_turn("That works for me.", asked="confirm").acts


def test_a_date_span_and_the_intent_it_comes_with() -> None:
    reading = read_turn("What's on my calendar on the 18th of this month?")
    assert reading.intent == "GetEvents"
    assert "INFORM_INTENT" in reading.acts
    date = reading.first("date")
    assert date is not None
    assert date.text == "18th of this month"


def test_free_time_is_an_intent_of_its_own() -> None:
    reading = read_turn("When am I free next Tuesday?")
    assert reading.intent == "GetAvailableTime"
    assert [(s.slot, s.text) for s in reading.spans] == [("date", "next Tuesday")]


def test_an_unknown_question_is_refused() -> None:
    with pytest.raises(ValueError, match="asked must be one of"):
        read_turn("Tuesday", asked="weather")  # type: ignore[arg-type]


def test_the_shipped_models_are_loaded_once() -> None:
    assert shipped_reader() is shipped_reader()


def test_tags_and_spans_are_two_views_of_the_same_thing() -> None:
    text = "Call it Team sync at 12 Oak Street"
    spans = (Span("title", 8, 17, "Team sync"), Span("location", 21, 34, "12 Oak Street"))
    tokens = tokenize(text)
    tags = tags_from_spans(tokens, spans)
    assert tags == ["O", "O", "B-title", "I-title", "O", "B-location", "I-location", "I-location"]
    assert spans_from_tags(text, tokens, tags) == spans


@pytest.mark.parametrize(
    ("prompt", "asked"),
    [
        ("Sure. Which day should I look at?", "date"),
        ("And what time does it start?", "time"),
        ("What should I call it?", "title"),
        ("Where is it happening?", "location"),
        ("Please confirm: Dentist on March 3rd at 2 pm at 12 Oak Street.", "confirm"),
        ("Is the location 12 Oak Street?", None),
        ("You're free from 9 am to noon on that day.", None),
        ("Your event has been added and confirmed.", None),
    ],
)
def test_what_a_prompt_of_the_dataset_asked(prompt: str, asked: str | None) -> None:
    assert asked_from_prompt(prompt) == asked


def _example(text: str, acts: set[str], intent: str | None = None, *spans: tuple[Slot, str]) -> Example:
    found = tuple(
        Span(slot, text.index(words), text.index(words) + len(words), words) for slot, words in spans
    )
    return Example("d", text, None, frozenset(acts), intent, found, tuple(s.text for s in found))


TINY = [
    _example("I want to add an event.", {"INFORM_INTENT"}, "AddEvent"),
    _example("Call it Piano lesson.", {"INFORM"}, None, ("title", "Piano lesson")),
    _example("It is at 12 Elm Road.", {"INFORM"}, None, ("location", "12 Elm Road")),
    _example("Thanks, that is all.", {"THANK_YOU", "GOODBYE"}),
    _example("What do I have on the 9th?", {"INFORM", "INFORM_INTENT"}, "GetEvents", ("date", "the 9th")),
    _example("Yes please.", {"AFFIRM"}),
    _example("Call it Chess club at 5 pm.", {"INFORM"}, None, ("title", "Chess club"), ("time", "5 pm")),
    _example("No, thanks.", {"NEGATE", "THANK_YOU"}),
]


def test_training_gives_the_same_bytes_twice() -> None:
    first, second = train(TINY), train(TINY)
    assert set(first) == {ACTS_FILE, SPANS_FILE}
    assert first == second
    reading = reader_from_files(first).read("Call it Piano lesson.")
    assert reading.first("title") == Span("title", 8, 20, "Piano lesson")


def test_training_on_a_single_announced_intent_still_announces_it() -> None:
    adding = [e for e in TINY if e.intent != "GetEvents"]
    adding.append(_example("Please add an event.", {"INFORM_INTENT"}, "AddEvent"))
    reader = reader_from_files(train(adding))
    assert reader.read("I want to add an event.").intent == "AddEvent"
    assert reader.read("No, thanks.").intent is None


def test_a_score_does_not_depend_on_the_order_of_the_features() -> None:
    # A turn's features are a set, whose order changes with the process's hash seed: summed in that
    # order, 0.1 + 0.2 + 0.3 and 0.3 + 0.2 + 0.1 differ in the last bit, and a turn at a threshold (or a
    # training example's "informs") read differently from one run to the next.
    layer = LinearLayer(labels=("x",), intercepts=(0.0,), weights={"a": (0.1,), "b": (0.2,), "c": (0.3,)})
    assert layer.scores(["a", "b", "c"]) == layer.scores(["c", "b", "a"]) == [0.6]


def test_the_shipped_act_classifier_is_what_training_makes_of_the_shared_turns() -> None:
    # The reading code's features and the committed model move together: a change to the features
    # the classifier sees without retraining it leaves the shipped weights reading features that are
    # no longer computed (acts.json lagged the day-part time mark until the retrain that added this).
    # The classifier is the one model quick to retrain (about a second); the taggers take a minute.
    shipped = json.loads((MODEL_DIR / ACTS_FILE).read_text(encoding="utf-8"))
    trained = train_acts(sgd.load(sgd.DEV_FILE))
    assert trained["acts"] == shipped["acts"]
    assert trained["intent"] == shipped["intent"]


@pytest.mark.slow
def test_the_shipped_models_are_what_train_turns_makes_of_the_shared_data(tmp_path: Path) -> None:
    """The taggers' features read the lexicon, so a lexicon or feature change without a retrain leaves
    the committed files reading features that are no longer computed (they lagged the lexicon for
    six sessions): the README's retrain command, run now, gives the committed bytes (about 90 s)."""
    call_command("train_turns", "--out", str(tmp_path), stdout=io.StringIO())
    trained = {f.name: f.read_bytes() for f in sorted(tmp_path.iterdir())}
    shipped = {name: (MODEL_DIR / name).read_bytes() for name in trained}
    assert sorted(trained) == sorted(f.name for f in MODEL_DIR.iterdir() if f.is_file())
    stale = [name for name in trained if trained[name] != shipped[name]]
    assert not stale, f"retrain with `python manage.py train_turns`: {stale} differ"
