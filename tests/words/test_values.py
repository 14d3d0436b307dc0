"""The values a request says (words/values.py), read by code for the grammar: levels, the
size and way of a change, whites and colours, in en/ko/id; times are not levels."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from botpsy_agent.words.checks import Quantity
from botpsy_agent.words.grounding import Request
from botpsy_agent.words.phrasing import join_particles
from botpsy_agent.words.values import said_values, says_setting, says_value

NOW = datetime(2026, 12, 1, 10, 17, tzinfo=ZoneInfo("Europe/Berlin"))


def _said(text: str, language: str = "en") -> object:
    return said_values(Request(text, language), NOW)


@pytest.mark.parametrize(
    ("text", "language", "levels"),
    [
        ("set the living room to 22 degrees", "en", (22.0,)),
        ("kitchen light at 40%", "en", (40.0,)),
        ("volume to fifty please", "en", (50.0,)),
        ("거실 온도 23도로 맞춰", "ko", (23.0,)),
        ("atur lampu dapur ke 30 persen", "id", (30.0,)),
        ("set it to 21.5", "en", (21.5,)),
        ("put the living room thermostat on twenty-two degrees", "en", (22.0,)),
        ("dim it down to twenty five percent", "en", (25.0,)),
        ("the fan at seventeen", "en", (17.0,)),
    ],
)
def test_levels_are_the_numbers_said(text: str, language: str, levels: tuple[float, ...]) -> None:
    assert _said(text, language).levels == levels  # type: ignore[attr-defined]


def test_a_time_or_a_day_is_no_level() -> None:
    said = _said("book the dentist tomorrow at 9:30 for 45 minutes")
    assert 9.0 not in said.levels and 30.0 not in said.levels  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("turn the kids room down by 2 degrees", (2.0,)),
        ("drop the temperature by a degree", (1.0,)),
        ("turn the volume up by ten", (10.0,)),
        ("turn it down 2 degrees", (2.0,)),  # a direction said: a size (or a level)
    ],
)
def test_sizes_of_a_change(text: str, steps: tuple[float, ...]) -> None:
    assert _said(text).steps == steps  # type: ignore[attr-defined]


def test_a_way_said_of_a_level_asks_for_no_step() -> None:
    # dev, reworded multi-bedroom-blue-dim: the 0.5B stepped down by 20 instead
    said = _said("make the bedroom light blue and dim it down to twenty percent")
    assert said.toward_level and said.levels == (20.0,)  # type: ignore[attr-defined]
    # The way of another clause is its own: the hall still dims by a step.
    mixed = _said("dim the hall light and set the kitchen light to 40%")
    assert not mixed.toward_level  # type: ignore[attr-defined]
    assert not _said("dim the hall light").toward_level  # type: ignore[attr-defined]


def test_a_mode_said_as_a_way_to_move_is_no_mode() -> None:
    # dev, reworded cooler-living-room: the 0.5B set the heating to cool
    assert not says_value(Request("could you cool the living room down", "en"), "cool")
    assert says_value(Request("set the living room to cool", "en"), "cool")
    assert not says_value(Request("heat up the kids room", "en"), "heat")


def test_a_number_after_to_is_a_level_only() -> None:
    said = _said("turn the heating up to 23")
    assert said.levels == (23.0,) and said.steps == ()  # type: ignore[attr-defined]


def test_the_way_and_the_smallness_of_a_change() -> None:
    said = _said("dim the kitchen a little")
    assert said.directions == {Quantity.BRIGHTNESS: -1}  # type: ignore[attr-defined]
    assert said.small  # type: ignore[attr-defined]
    assert not _said("dim the kitchen").small  # type: ignore[attr-defined]


def test_a_split_particle_is_read_as_its_verb() -> None:
    # "turn the kids speaker down" says "turn down" as much as "turn down the kids speaker"
    assert join_particles("turn the kids speaker down a bit", "en") == (
        "turn down the kids speaker a bit"
    )
    assert _said("turn the telly up a bit").directions == {Quantity.ANY: 1}  # type: ignore[attr-defined]
    assert join_particles("turn up the heat", "en") == "turn up the heat"


@pytest.mark.parametrize(
    ("text", "language", "whites", "colours"),
    [
        ("set the kitchen light to warm white", "en", (2700,), ("white", "warmwhite")),
        ("make the lamp blue", "en", (), ("blue",)),
        ("daylight in the office please", "en", (6500,), ()),
        ("거실 조명 파란색으로", "ko", (), ("blue",)),
        ("lampu kamar warna merah", "id", (), ("red",)),
    ],
)
def test_whites_and_colours(
    text: str, language: str, whites: tuple[int, ...], colours: tuple[str, ...]
) -> None:
    said = _said(text, language)
    assert said.whites == whites  # type: ignore[attr-defined]
    assert said.colours == colours  # type: ignore[attr-defined]


def test_a_negated_value_is_not_said() -> None:
    said = _said("dim the lights but not to 10 percent")
    assert 10.0 not in said.levels  # type: ignore[attr-defined]


def test_a_setting_must_be_spoken_of() -> None:
    assert says_setting(Request("mute the telly", "en"), "mute")
    assert says_setting(Request("unmute it", "en"), "mute")
    assert not says_setting(Request("turn the telly up", "en"), "mute")
    assert says_setting(Request("거실 TV 음소거 해줘", "ko"), "mute")


def test_where_an_event_may_start_is_each_reading_of_a_time_said_with_its_day() -> None:
    """Dev, reworded calendar-create-*: the 0.5B wrote the present moment as the start of
    "a haircut tomorrow at 11am", and today for "an all day entry on Friday"."""
    said = said_values(Request("I've got a haircut tomorrow at 11am, add it please", "en"), NOW)
    assert said.starts == ("2026-12-02T11:00",)  # type: ignore[attr-defined]
    friday = said_values(
        Request("make an all day entry on Friday for grandma's birthday", "en"), NOW
    )
    assert friday.dates == ("2026-12-04",)  # type: ignore[attr-defined]
    assert friday.starts == ()  # type: ignore[attr-defined]
    at_three = said_values(Request("move it to Friday at 3", "en"), NOW)
    # its likeliest reading only: offered 04:00 too, the 0.5B moved the dentist to 04:00
    # (dev recover-move-event)
    assert at_three.starts == ("2026-12-04T15:00",)  # type: ignore[attr-defined]
    assert said_values(Request("add it at 3 pm", "en"), NOW).starts == ()  # type: ignore[attr-defined]
