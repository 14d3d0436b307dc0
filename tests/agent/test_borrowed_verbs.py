"""No borrowed verbs (issue 27): a request for something the app has no tool for (a new timer,
a title to play, a mode it doesn't know) never runs another device's start, pause, play or
set. On a bigger home the real 0.5B started the robot vacuum for "start a 1 hour timer",
resumed the TV for "play <a title>" and set the thermostat for "party mode on"; grounding
let them through, because the room or the verb was said.

A scripted planner makes exactly those calls; the agent, policy, executor and HA (the test
home) are real, and HA's states must not change.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.agent.protocol import Status
from botpsy_agent.llm.parse import RawCall
from tests.agent.support import (
    admin,
    ask,
    call,
    make_agent,
    once,
    refused_leaving_states,
)
from tests.ha_bridge import HaBridge, wait_until

VACUUM = "vacuum.demo_vacuum_0_ground_floor"  # "Robot vacuum", in the garage
KITCHEN_SPEAKER = "media_player.kitchen"  # named "Kitchen", like the room
LIVING_ROOM_PLAYER = "media_player.living_room"


async def pause(hass: HomeAssistant, ha_bridge: HaBridge, entity_id: str) -> None:
    await hass.services.async_call(
        "media_player", "media_pause", {"entity_id": entity_id}, blocking=True
    )
    await wait_until(lambda: ha_bridge.index.home.state_of(entity_id).state == "paused")


BORROWED = [
    (
        "start a 1 hour timer in the garage",
        call("control_vacuum", area_id=["garage"], action="start"),
    ),
    (
        "carry on with the kitchen timer",
        call("control_media", entity_id=[KITCHEN_SPEAKER], action="play"),
    ),
    (
        "play Bohemian Rhapsody on the living room player",
        call("control_media", entity_id=[LIVING_ROOM_PLAYER], action="play"),
    ),
    (
        "living room party mode on",
        call("set_climate", area_id=["living_room"], temperature=26),
    ),
]


@pytest.mark.parametrize(("text", "move"), BORROWED)
async def test_a_request_for_what_no_tool_does_borrows_no_devices_verb(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, move: RawCall
) -> None:
    await pause(hass, ha_bridge, KITCHEN_SPEAKER)
    await pause(hass, ha_bridge, LIVING_ROOM_PLAYER)
    agent = make_agent(ha_bridge, once(move))

    answer = await refused_leaving_states(hass, ha_bridge, agent, text, "borrowed_verb")
    assert answer.speech.startswith("Sorry, I can't help with that. I can control"), answer


ASKED_OF_THE_DEVICE = [
    ("start the robot vacuum", call("control_vacuum", entity_id=[VACUUM], action="start")),
    (
        "resume the kitchen speaker",
        call("control_media", entity_id=[KITCHEN_SPEAKER], action="play"),
    ),
    (
        "play the music in the kitchen again",
        call("control_media", entity_id=[KITCHEN_SPEAKER], action="play"),
    ),
]


@pytest.mark.parametrize(("text", "move"), ASKED_OF_THE_DEVICE)
async def test_the_same_verb_asked_of_that_device_runs(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, move: RawCall
) -> None:
    await pause(hass, ha_bridge, KITCHEN_SPEAKER)
    agent = make_agent(ha_bridge, once(move))

    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert answer.status is Status.DONE, answer
    entity = move.arguments["entity_id"][0]
    assert ha_bridge.index.home.state_of(entity).state in {"cleaning", "playing"}
