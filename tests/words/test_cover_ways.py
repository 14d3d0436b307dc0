"""Which way a request wants its covers to go, and a cover call going the other way
(words/cover_ways.py, words/checks.py). The cases are the real 0.5B's in `tests/realmodel`:
"check whether the kitchen window is open and close it if it is" opened the window, "the
hall window should not stay open" stopped it."""

from __future__ import annotations

from typing import Any

import pytest

from botpsy_agent.home.model import Entity, EntityState, Home
from botpsy_agent.words.checks import CallProblem, check_call, corrected_call
from botpsy_agent.words.cover_ways import CLOSED, OPEN, said_cover_way
from tests.words.test_checks import NOW
from tool_schemas.base import Tool
from tool_schemas.catalog import parse_tool_call

HOME = Home.of(
    [Entity("cover.kitchen_window", "Kitchen window"), Entity("cover.hall_window", "Hall window")],
    states=[
        EntityState("cover.kitchen_window", "closed"),
        EntityState("cover.hall_window", "open"),
    ],
)


def cover(**arguments: Any) -> Tool:
    return parse_tool_call("control_cover", {"entity_id": ["cover.kitchen_window"], **arguments})


@pytest.mark.parametrize(
    ("text", "language", "way"),
    [
        ("check whether the kitchen window is open and close it if it is", "en", CLOSED),
        ("the hall window should not stay open", "en", CLOSED),
        ("the hall window shouldn't be left open", "en", CLOSED),
        ("if it's open, shut the kitchen window", "en", CLOSED),
        ("the blinds must not stay closed", "en", OPEN),
        ("open the kitchen window", "en", OPEN),
        ("raise the blinds", "en", OPEN),
        ("창문이 열려 있으면 닫아줘", "ko", CLOSED),
        ("창문 열어줘", "ko", OPEN),
        ("tutup jendela dapur kalau terbuka", "id", CLOSED),
        ("buka jendela dapur", "id", OPEN),
    ],
)
def test_the_way_a_request_wants_its_covers(text: str, language: str, way: int) -> None:
    assert said_cover_way(text, language) == way


@pytest.mark.parametrize(
    "text",
    [
        "open the blinds and close the window",  # both ways: not for this check
        "is the kitchen window open?",  # how it is, nothing to do
        "the hall window is still open",
        "jendela dapur terbuka?",
        "set the blinds to half",
    ],
)
def test_no_one_way_is_said(text: str) -> None:
    language = "id" if "jendela" in text else "en"
    assert said_cover_way(text, language) is None


@pytest.mark.parametrize(
    ("text", "wrong", "action"),
    [
        ("check whether the kitchen window is open and close it if it is", cover(action="open"),
         "close"),
        ("the kitchen window should not stay open", cover(action="stop"), "close"),
        ("open the kitchen window", cover(action="set_position", position=0), "open"),
        ("창문이 열려 있으면 닫아줘", cover(action="open"), "close"),
    ],
)  # fmt: skip
def test_a_cover_moved_the_other_way_is_turned_round(text: str, wrong: Tool, action: str) -> None:
    language = "ko" if "창문" in text else "en"
    problem = check_call(wrong, text, NOW, language, HOME)
    assert problem == CallProblem(
        "wrong_direction",
        f"checks.cover_{'closed' if action == 'close' else 'open'}",
        {"targets": "Kitchen window"},
        settled=True,
        direction=OPEN if action == "open" else CLOSED,
    )
    fixed = corrected_call(wrong, problem)
    assert fixed is not None
    assert fixed.model_dump(exclude_none=True, mode="json") == {
        "entity_id": ["cover.kitchen_window"],
        "action": action,
    }


@pytest.mark.parametrize(
    ("text", "call"),
    [
        ("close the kitchen window if it is open", cover(action="close")),
        ("open the kitchen window", cover(action="set_position", position=100)),
        ("stop the kitchen window", cover(action="stop")),
        ("open the kitchen window halfway", cover(action="set_position", position=50)),
        ("open the blinds and close the kitchen window", cover(action="open")),
    ],
)
def test_a_cover_moved_the_way_said_or_a_way_not_settled_is_left_alone(
    text: str, call: Tool
) -> None:
    assert check_call(call, text, NOW, "en", HOME) is None
