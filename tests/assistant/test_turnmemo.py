"""Work done once per chat turn: within one turn a function marked per_turn runs once per text; outside
a turn, and in the next one, it runs again."""

from __future__ import annotations

from assistant.turnmemo import one_turn, per_turn


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
