"""Magnitude and direction checks before executing (issue 27; agent/checks.py): a call on the
named device that goes the wrong way or much too far is not run as proposed. The cases are
the evaluation's wrong actions: a fan to 100 % for "blowing too hard", volume 0 for "I can
barely hear", off for "get it going", 10 °C for "down a degree", full volume for "a bit
louder", 10 % for "a little" dimmer."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.home.model import Entity, EntityState, Home
from botpsy_agent.words.checks import check_call, corrected_call
from tool_schemas.base import Tool
from tool_schemas.catalog import parse_tool_call

NOW = datetime(2026, 12, 1, 10, 17, tzinfo=ZoneInfo("Asia/Seoul"))
HOME = Home.of(
    [
        Entity("light.kitchen", "Kitchen light"),
        Entity("climate.kids", "Kids room thermostat"),
        Entity("media_player.telly", "Telly"),
        Entity("fan.bedroom", "Bedroom fan"),
        Entity("fan.office", "Office fan"),
    ],
    states=[
        EntityState("light.kitchen", "on", {"brightness": 178}),  # 70 %
        EntityState("climate.kids", "heat", {"temperature": 21.0}),
        EntityState("media_player.telly", "playing", {"volume_level": 0.3}),
        EntityState("fan.bedroom", "on", {"percentage": 66}),
        EntityState("fan.office", "off", {"percentage": 0}),
    ],
)


def tool(name: str, **arguments: Any) -> Tool:
    return parse_tool_call(name, arguments)


def arguments_of(call: Tool | None) -> dict[str, Any]:
    assert call is not None
    return call.model_dump(exclude_none=True, mode="json")


@pytest.mark.parametrize(
    ("text", "call", "phrase", "corrected"),
    [
        (
            "the bedroom fan is blowing too hard",
            tool("set_fan", entity_id=["fan.bedroom"], percentage=100),
            "checks.speed_down",
            {"entity_id": ["fan.bedroom"], "percentage_step": -20},
        ),
        (
            "I can barely hear the telly",
            tool("set_media", entity_id=["media_player.telly"], volume_pct=0),
            "checks.volume_up",
            {"entity_id": ["media_player.telly"], "volume_step_pct": 10},
        ),
    ],
)
def test_a_wrong_way_call_on_the_named_device_is_never_run_as_proposed(
    text: str, call: Tool, phrase: str, corrected: dict[str, Any]
) -> None:
    problem = check_call(call, text, NOW, "en", HOME)
    assert problem is not None
    assert (problem.code, problem.phrase) == ("wrong_direction", phrase)
    assert arguments_of(corrected_call(call, problem)) == corrected


def test_switching_off_for_get_it_going_is_asked_about() -> None:
    off = tool("turn_off", entity_id=["fan.office"])
    problem = check_call(off, "the office fan stopped, get it going", NOW, "en", HOME)
    assert problem is not None
    assert (problem.code, problem.phrase, problem.settled) == (
        "wrong_direction",
        "checks.power_up",
        False,
    )
    assert corrected_call(off, problem) is None  # asked, never turned round
    on = tool("turn_on", entity_id=["fan.office"])
    assert check_call(on, "the office fan stopped, get it going", NOW, "en", HOME) is None


def test_a_playing_tv_is_running_so_switching_it_off_for_get_it_going_is_asked_about() -> None:
    """Dev multi-plug-then-tv: the real 1.5B turned off the living room TV (state idle,
    neither "on" nor "off", so the check let it pass) three times for "I want to watch …,
    get it going"."""
    off = tool("turn_off", entity_id=["media_player.telly"])
    problem = check_call(off, "I want to watch the telly, get it going", NOW, "en", HOME)
    assert problem is not None
    assert (problem.code, problem.phrase) == ("wrong_direction", "checks.power_up")
    on = tool("turn_on", entity_id=["media_player.telly"])
    assert check_call(on, "I want to watch the telly, get it going", NOW, "en", HOME) is None


@pytest.mark.parametrize(
    ("text", "call", "corrected"),
    [
        (
            "the kids room is too warm, turn it down a degree",
            tool("set_climate", entity_id=["climate.kids"], temperature=10),
            {"entity_id": ["climate.kids"], "temperature_step": -1.0},
        ),
        (
            "a bit louder on the telly",
            tool("set_media", entity_id=["media_player.telly"], volume_pct=100),
            {"entity_id": ["media_player.telly"], "volume_step_pct": 10},
        ),
        (
            "dim the kitchen light a little",
            tool("set_light", entity_id=["light.kitchen"], brightness_pct=10),
            {"entity_id": ["light.kitchen"], "brightness_step_pct": -20},
        ),
        (
            "make the bedroom fan slightly slower",
            tool("set_fan", entity_id=["fan.bedroom"], percentage_step=-60),
            {"entity_id": ["fan.bedroom"], "percentage_step": -20},
        ),
    ],
)
def test_a_call_much_larger_than_the_request_said_is_asked_about(
    text: str, call: Tool, corrected: dict[str, Any]
) -> None:
    problem = check_call(call, text, NOW, "en", HOME)
    assert problem is not None
    assert (problem.code, problem.phrase, problem.settled) == ("too_far", "checks.too_far", False)
    # A "yes" runs the small step the words asked for.
    assert arguments_of(corrected_call(call, problem)) == corrected


@pytest.mark.parametrize(
    ("text", "call"),
    [
        (
            "the kids room is too warm, turn it down a degree",
            tool("set_climate", entity_id=["climate.kids"], temperature=20),
        ),
        (
            "turn it down two degrees in the kids room",
            tool("set_climate", entity_id=["climate.kids"], temperature_step=-2),
        ),
        (
            "a bit louder on the telly",
            tool("set_media", entity_id=["media_player.telly"], volume_step_pct=10),
        ),
        (
            "a bit louder on the telly, to 60",
            tool("set_media", entity_id=["media_player.telly"], volume_pct=60),
        ),
        (
            "make the kitchen light much brighter",
            tool("set_light", entity_id=["light.kitchen"], brightness_pct=100),
        ),
        ("slow the bedroom fan down", tool("set_fan", entity_id=["fan.bedroom"], percentage=33)),
    ],
)
def test_a_call_of_the_size_asked_for_passes(text: str, call: Tool) -> None:
    assert check_call(call, text, NOW, "en", HOME) is None


@pytest.mark.parametrize("language", ["en", "ko", "id"])
def test_the_new_questions_are_in_every_language(language: str) -> None:
    phrases = Phrasebook()
    for key in ("speed_up", "speed_down", "power_up", "power_down", "too_far"):
        said = phrases.say(language, f"checks.{key}", targets="X", step="1 °")
        assert "X" in said and "{" not in said, (language, key, said)
        if language != "en":
            assert said != phrases.say("en", f"checks.{key}", targets="X", step="1 °")
