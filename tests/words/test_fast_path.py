"""The fast path on a real HA home: HA's own sentence templates, the home's own names, the
same typed calls as the model path, and no model at all."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from botpsy_agent.agent.protocol import Path, Status
from botpsy_agent.home.model import Home
from botpsy_agent.words import recognizer
from botpsy_agent.words.recognizer import FastPath
from tests.agent.support import admin, ask, make_agent, states
from tests.ha_bridge import HaBridge

L = "light."
# (sentence, tool, arguments) — 64 commands across the device tools.
COMMANDS: list[tuple[str, str, dict[str, Any]]] = [
    ("turn on the kitchen lights", "turn_on", {"entity_id": [L + "kitchen_lights"]}),
    ("turn off the kitchen lamp", "turn_off", {"entity_id": [L + "kitchen_lights"]}),
    ("switch on the bedside lamp", "turn_on", {"entity_id": [L + "bed_light"]}),
    ("turn off the bed light", "turn_off", {"entity_id": [L + "bed_light"]}),
    ("turn on the porch light", "turn_on", {"entity_id": [L + "entrance_color_white_lights"]}),
    ("switch off the porch light", "turn_off", {"entity_id": [L + "entrance_color_white_lights"]}),
    ("turn off the desk lamp", "turn_off", {"entity_id": [L + "office_rgbw_lights"]}),
    ("turn on the ceiling lights", "turn_on", {"entity_id": [L + "ceiling_lights"]}),
    (
        "turn off the lights in the kitchen",
        "turn_off",
        {"area_id": ["kitchen"], "domain": ["light"]},
    ),
    (
        "turn on the lights in the living room",
        "turn_on",
        {"area_id": ["living_room"], "domain": ["light"]},
    ),
    ("turn off the lights upstairs", "turn_off", {"floor_id": ["upstairs"], "domain": ["light"]}),
    (
        "turn on the lights downstairs",
        "turn_on",
        {"floor_id": ["ground_floor"], "domain": ["light"]},
    ),
    (
        "turn off all the lights in the lounge",
        "turn_off",
        {"area_id": ["living_room"], "domain": ["light"]},
    ),
    (
        "turn off the lights on the first floor",
        "turn_off",
        {"floor_id": ["upstairs"], "domain": ["light"]},
    ),
    ("turn on the hallway lights", "turn_on", {"area_id": ["hall"], "domain": ["light"]}),
    ("turn off the study lights", "turn_off", {"area_id": ["office"], "domain": ["light"]}),
    ("turn on the fairy lights", "turn_on", {"entity_id": ["switch.decorative_lights"]}),
    ("turn off the decorative lights", "turn_off", {"entity_id": ["switch.decorative_lights"]}),
    ("turn on the AC", "turn_on", {"entity_id": ["switch.ac"]}),
    ("turn off the ac", "turn_off", {"entity_id": ["switch.ac"]}),
    (
        "set the kitchen lights to 40%",
        "set_light",
        {"entity_id": [L + "kitchen_lights"], "brightness_pct": 40},
    ),
    (
        "set the bed light brightness to 10 percent",
        "set_light",
        {"entity_id": [L + "bed_light"], "brightness_pct": 10},
    ),
    (
        "set the kitchen lamp to 100%",
        "set_light",
        {"entity_id": [L + "kitchen_lights"], "brightness_pct": 100},
    ),
    (
        "set the desk lamp to 75%",
        "set_light",
        {"entity_id": [L + "office_rgbw_lights"], "brightness_pct": 75},
    ),
    (
        "set the office rgbw lights to red",
        "set_light",
        {"entity_id": [L + "office_rgbw_lights"], "color_name": "red"},
    ),
    (
        "make the desk lamp blue",
        "set_light",
        {"entity_id": [L + "office_rgbw_lights"], "color_name": "blue"},
    ),
    (
        "set the porch light to green",
        "set_light",
        {"entity_id": [L + "entrance_color_white_lights"], "color_name": "green"},
    ),
    ("turn on the living room fan", "turn_on", {"entity_id": ["fan.living_room_fan"]}),
    ("turn off the ceiling fan", "turn_off", {"entity_id": ["fan.ceiling_fan"]}),
    (
        "set the living room fan to 50%",
        "set_fan",
        {"entity_id": ["fan.living_room_fan"], "percentage": 50},
    ),
    (
        "set sam's fan to 30%",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 30},
    ),
    ("set the ceiling fan to 25%", "set_fan", {"entity_id": ["fan.ceiling_fan"], "percentage": 25}),
    (
        "set the heatpump to 21 degrees",
        "set_climate",
        {"entity_id": ["climate.heatpump"], "temperature": 21.0},
    ),
    ("set the ecobee to 19", "set_climate", {"entity_id": ["climate.ecobee"], "temperature": 19.0}),
    (
        "what is the temperature in the bedroom",
        "get_state",
        {"area_id": ["bedroom"], "domain": ["climate"]},
    ),
    (
        "open the kitchen window",
        "control_cover",
        {"entity_id": ["cover.kitchen_window"], "action": "open"},
    ),
    (
        "close the hall window",
        "control_cover",
        {"entity_id": ["cover.hall_window"], "action": "close"},
    ),
    (
        "open the living room window",
        "control_cover",
        {"entity_id": ["cover.living_room_window"], "action": "open"},
    ),
    (
        "close the kitchen window",
        "control_cover",
        {"entity_id": ["cover.kitchen_window"], "action": "close"},
    ),
    (
        "open the garage door",
        "control_cover",
        {"entity_id": ["cover.garage_door"], "action": "open"},
    ),
    (
        "close the garage door",
        "control_cover",
        {"entity_id": ["cover.garage_door"], "action": "close"},
    ),
    (
        "set the living room window to 50%",
        "control_cover",
        {"entity_id": ["cover.living_room_window"], "action": "set_position", "position": 50},
    ),
    (
        "open the windows in the kitchen",
        "control_cover",
        {"area_id": ["kitchen"], "action": "open", "device_class": ["window"]},
    ),
    ("lock the back door", "control_lock", {"entity_id": ["lock.back_door"], "action": "lock"}),
    ("unlock the back door", "control_lock", {"entity_id": ["lock.back_door"], "action": "unlock"}),
    (
        "pause the walkman",
        "control_media",
        {"entity_id": ["media_player.walkman"], "action": "pause"},
    ),
    (
        "pause the bedroom",
        "control_media",
        {"entity_id": ["media_player.bedroom"], "action": "pause"},
    ),
    (
        "resume the kitchen",
        "control_media",
        {"entity_id": ["media_player.kitchen"], "action": "play"},
    ),
    (
        "next track on the bedroom",
        "control_media",
        {"entity_id": ["media_player.bedroom"], "action": "next"},
    ),
    (
        "previous track on the walkman",
        "control_media",
        {"entity_id": ["media_player.walkman"], "action": "previous"},
    ),
    (
        "skip the song on the living room",
        "control_media",
        {"entity_id": ["media_player.living_room"], "action": "next"},
    ),
    ("mute the walkman", "set_media", {"entity_id": ["media_player.walkman"], "mute": True}),
    ("unmute the walkman", "set_media", {"entity_id": ["media_player.walkman"], "mute": False}),
    (
        "start the robot vacuum",
        "control_vacuum",
        {"entity_id": ["vacuum.demo_vacuum_0_ground_floor"], "action": "start"},
    ),
    ("activate movie night", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    ("turn on movie night", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    (
        "add milk to my shopping list",
        "add_todo_item",
        {"list_id": "todo.shopping_list", "item": "milk"},
    ),
    (
        "add eggs to the shopping list",
        "add_todo_item",
        {"list_id": "todo.shopping_list", "item": "eggs"},
    ),
    (
        "check off milk on the shopping list",
        "complete_todo_item",
        {"list_id": "todo.shopping_list", "item": "milk"},
    ),
    ("is the garage door open", "get_state", {"entity_id": ["cover.garage_door"]}),
    ("what is the fridge temperature", "get_state", {"entity_id": ["sensor.fridge_temperature"]}),
    ("is the kitchen window closed", "get_state", {"entity_id": ["cover.kitchen_window"]}),
    ("turn on the fairy lights please", "turn_on", {"entity_id": ["switch.decorative_lights"]}),
    ("turn the kitchen lights off", "turn_off", {"entity_id": [L + "kitchen_lights"]}),
]
NOT_RECOGNISED = ["what is the meaning of life", "tell me a joke", "book me a flight to Seoul"]


@pytest.fixture
def home(ha_bridge: HaBridge) -> Home:
    return ha_bridge.index.home


def test_sixty_commands_become_the_expected_calls(home: Home) -> None:
    assert len(COMMANDS) >= 60
    fast = FastPath()
    wrong = []
    for sentence, tool, arguments in COMMANDS:
        recognized = fast.recognize(sentence, "en", home)
        got = (
            [(c.name, c.model_dump(exclude_none=True, mode="json")) for c in recognized.calls]
            if recognized
            else None
        )
        if got != [(tool, arguments)]:
            wrong.append((sentence, got))
    assert not wrong, wrong
    covered = {tool for _, tool, _ in COMMANDS}
    assert covered >= {
        "turn_on",
        "turn_off",
        "set_light",
        "set_fan",
        "set_climate",
        "control_cover",
        "control_lock",
        "control_media",
        "set_media",
        "control_vacuum",
        "activate_scene",
        "add_todo_item",
        "complete_todo_item",
        "get_state",
    }


def test_anything_else_goes_to_the_model(home: Home) -> None:
    fast = FastPath()
    for sentence in NOT_RECOGNISED:
        assert fast.recognize(sentence, "en", home) is None, sentence


@pytest.mark.parametrize(
    ("sentence", "language", "tool"),
    [
        ("주방 조명 켜줘", "ko", "turn_on"),
        ("주방 조명 꺼줘", "ko", "turn_off"),
        ("nyalakan lampu dapur", "id", "turn_on"),
        ("matikan lampu dapur", "id", "turn_off"),
    ],
)
def test_korean_and_indonesian_commands(
    home: Home, sentence: str, language: str, tool: str
) -> None:
    # The home's names in those languages, as a Korean or Indonesian household would alias them.
    entities = dict(home.entities)
    kitchen = entities["light.kitchen_lights"]
    entities[kitchen.entity_id] = replace(
        kitchen, aliases=(*kitchen.aliases, "주방 조명", "lampu dapur")
    )
    localized = Home(entities, home.areas, home.floors, home.states)
    recognized = FastPath().recognize(sentence, language, localized)
    assert recognized is not None
    assert [(c.name, c.model_dump(exclude_none=True)) for c in recognized.calls] == [
        (tool, {"entity_id": ["light.kitchen_lights"]})
    ]


async def test_fast_path_commands_change_the_real_home_without_a_model(ha_bridge: HaBridge) -> None:
    agent = make_agent(ha_bridge, planner=None)  # no model at all
    before = states(ha_bridge)
    response = await agent.handle(ask("turn off the kitchen lights", admin(ha_bridge)))
    assert response.status is Status.DONE, response
    assert response.path is Path.FAST_PATH
    assert response.speech == "Turned off Kitchen Lights."
    assert ha_bridge.index.home.state_of("light.kitchen_lights").state == "off"

    response = await agent.handle(ask("set the heatpump to 21 degrees", admin(ha_bridge)))
    assert response.status is Status.DONE
    assert ha_bridge.index.home.state_of("climate.heatpump").attributes["temperature"] == 21
    after = states(ha_bridge)
    changed = {e for e in after if after[e] != before.get(e)}
    assert changed <= {"light.kitchen_lights", "climate.heatpump"}, changed

    response = await agent.handle(ask("what is the fridge temperature", admin(ha_bridge)))
    assert response.status is Status.DONE
    assert response.speech == "Fridge temperature: 4.5 °C."

    response = await agent.handle(ask("tell me a joke", admin(ha_bridge)))
    assert response.status is Status.ERROR
    assert response.error is not None and response.error.code == "model_unavailable"


def test_a_prepared_fast_path_builds_nothing_while_answering(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`prepare` loads the languages' intents and builds the home's name lists; answering
    after it builds none (the app prepares at start and on every change of names, so the
    first request after either does not pay for it: issue 29's first-request outliers)."""
    fast = FastPath()
    fast.prepare(home, ["en", "ko"])
    built: list[Home] = []
    lists = recognizer._slot_lists
    monkeypatch.setattr(recognizer, "_slot_lists", lambda h: built.append(h) or lists(h))
    assert fast.recognize("turn on the kitchen lights", "en", home) is not None
    assert built == []
    renamed = replace(home, entities={**home.entities})  # another snapshot, same names
    assert fast.recognize("turn off the kitchen lights", "en", renamed) is not None
    assert built == []
