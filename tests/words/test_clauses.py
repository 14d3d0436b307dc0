"""A request cut into its parts (words/clauses.py): every join, nothing lost, and a time's
colon or a number's comma left alone."""

from __future__ import annotations

import pytest

from botpsy_agent.words.clauses import said_parts


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        (
            "start the coffee machine and tell Anna coffee is on its way",
            "en",
            ("start the coffee machine", "tell Anna coffee is on its way"),
        ),
        (
            "I'm working in the study tonight: heater on and the light at 70 percent",
            "en",
            ("I'm working in the study tonight", "heater on", "the light at 70 percent"),
        ),
        (
            "close the blinds, then switch on the reading lamp; and then lock up",
            "en",
            ("close the blinds", "switch on the reading lamp", "lock up"),
        ),
        ("wake me at 6:30, and set 1,000 lux", "en", ("wake me at 6:30", "set 1,000 lux")),
        ("Android on the landing then the kettle", "en", ("Android on the landing", "the kettle")),
        (
            "nyalakan lampu dapur lalu tutup tirai",
            "id",
            ("nyalakan lampu dapur", "tutup tirai"),
        ),
        ("turn on the kitchen light", "en", ("turn on the kitchen light",)),
        ("불 켜고 나서 커튼 닫아", "ko", ("불 켜고 나서 커튼 닫아",)),  # joined in the verb
        (" , and ", "en", (", and",)),  # nothing but joins: the text as said
    ],
)
def test_a_request_is_cut_at_its_joins(text: str, language: str, expected: tuple[str, ...]) -> None:
    assert said_parts(text, language) == expected


def test_a_word_holding_a_join_is_not_cut() -> None:
    assert said_parts("the android band then", "en") == ("the android band",)
    assert said_parts("open the sandbox thenceforth", "en") == ("open the sandbox thenceforth",)
