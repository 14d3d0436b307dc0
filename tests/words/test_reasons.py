"""A reason said before a request (bench dev part, round 5): only a statement is read apart."""

from __future__ import annotations

import pytest

from botpsy_agent.words.reasons import after_a_reason, naming, points_back


@pytest.mark.parametrize(
    ("text", "reason", "asked"),
    [
        (
            "it's stuffy in here, can you turn on the fan",
            "it's stuffy in here",
            "can you turn on the fan",
        ),
        ("I'm done with the TV, turn it off", "I'm done with the TV", "turn it off"),
        ("oh, the fan is too loud, drop it to 10%", "the fan is too loud", "drop it to 10%"),
        ("I think it's cold, turn on the heater", "I think it's cold", "turn on the heater"),
        # reworded todo-list~r6: the 1.5B added "shopping list" to the list
        ("before I go out, what's on the list?", "before I go out", "what's on the list?"),
    ],
)
def test_a_statement_before_a_comma_is_a_reason(text: str, reason: str, asked: str) -> None:
    assert after_a_reason(text, "en") == (reason, asked)


@pytest.mark.parametrize(
    "text",
    [
        "turn everything off, switch on the hall light",  # a command of its own
        "let some light in, open the blinds",
        "it's stuffy in here",  # nothing after it
        "if it gets cold, turn on the heater",  # later, not now
        "when I'm home, open the garage",
    ],
)
def test_no_reason_where_the_lead_could_be_a_command(text: str) -> None:
    assert after_a_reason(text, "en") is None


def test_only_english_reasons_are_read_apart() -> None:
    assert after_a_reason("it's stuffy in here, can you turn on the fan", "ko") is None


def test_a_request_pointing_back_into_the_reason_is_not_read_alone() -> None:
    assert points_back("put them on the list", "en")  # "we're out of coffee beans, …"
    assert points_back("turn that one off", "en")
    assert not points_back("turn off the kitchen light", "en")


def test_it_is_the_thing_the_reason_named() -> None:
    assert naming("turn it off", "Living room TV", "en") == "turn the Living room TV off"
    assert naming("turn off the lamp", "Living room TV", "en") is None
