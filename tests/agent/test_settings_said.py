"""A setting is said back with what the executed call set, in the request's language, from
the phrasebook: never a raw value it has no words for."""

from __future__ import annotations

from datetime import datetime

import pytest

from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.home import Entity, Home
from tool_schemas.devices import SetClimate, SetFan, SetLight, SetMedia

LIGHT = Entity("light.kids_room", "Kids room light")
THERMOSTAT = Entity("climate.kids_room", "Kids room thermostat")
NOW = datetime(2026, 12, 7, 12)


def said(language: str, call: SetLight | SetClimate | SetFan | SetMedia, target: Entity) -> str:
    home = Home(entities={target.entity_id: target})
    return Replies(Phrasebook()).done(language, call, (target,), home, NOW)


@pytest.mark.parametrize(
    ("language", "call", "target", "sentence"),
    [
        (
            "en",
            SetLight(entity_id=[LIGHT.entity_id], color_name="red", brightness_pct=40),
            LIGHT,
            "Set Kids room light: brightness 40%, red.",
        ),
        (
            "en",
            SetClimate(entity_id=[THERMOSTAT.entity_id], temperature=21.0, hvac_mode="heat"),
            THERMOSTAT,
            "Set Kids room thermostat: 21 °C, heat.",
        ),
        (
            "en",
            SetClimate(entity_id=[THERMOSTAT.entity_id], temperature_step=1),
            THERMOSTAT,
            "Set Kids room thermostat: 1° warmer.",
        ),
        (
            "en",
            SetMedia(entity_id=["media_player.tv"], volume_step_pct=-10, mute=False),
            Entity("media_player.tv", "TV"),
            "Set TV: volume down 10%, unmuted.",
        ),
        (
            "en",
            SetFan(entity_id=["fan.kids_room"], oscillating=True),
            Entity("fan.kids_room", "Kids room fan"),
            "Set Kids room fan: oscillating.",
        ),
        (
            "ko",
            SetLight(entity_id=[LIGHT.entity_id], color_name="red"),
            LIGHT,
            "Kids room light를 설정했어요 (빨강).",
        ),
        (
            "ko",
            SetClimate(entity_id=[THERMOSTAT.entity_id], hvac_mode="heat"),
            THERMOSTAT,
            "Kids room thermostat를 설정했어요 (난방).",
        ),
        (
            "id",
            SetLight(entity_id=[LIGHT.entity_id], brightness_step_pct=-20),
            LIGHT,
            "Kids room light sudah diatur (kecerahan turun 20%).",
        ),
    ],
)
def test_a_setting_is_said_with_what_was_set(
    language: str, call: SetLight | SetClimate | SetFan | SetMedia, target: Entity, sentence: str
) -> None:
    assert said(language, call, target) == sentence


def test_a_colour_given_as_numbers_is_not_read_out() -> None:
    call = SetLight(entity_id=[LIGHT.entity_id], rgb_color=[255, 120, 0])
    assert said("en", call, LIGHT) == "Set Kids room light."
