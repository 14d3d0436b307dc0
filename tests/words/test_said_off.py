"""A device said to be off, then asked by "it" to get going, is switched on with what the
model switched on (dev multi-plug-then-tv: the real 1.5B turned on the TV, left the plug
off). The shape is read by `words/said_off.py`; the agent adds the call (`agent/core.py`),
checked like the model's own, on a real HA."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.agent.core import BotPsyAgent
from botpsy_agent.agent.protocol import Outcome, Status
from botpsy_agent.words import grounding, said_off_then_asked
from devkit.homes import family_home
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent
from tests.ha_bridge import HaBridge, wait_until


@pytest.mark.parametrize(
    ("text", "said_off"),
    [
        ("I want to watch the living room tv, the plug is off, get it going", {"switch.tv_plug"}),
        (
            "I'd like to watch the telly in the living room but the plug's switched off, "
            "can you get it working",
            {"switch.tv_plug"},
        ),
        ("the coffee machine is off, switch it on", {"switch.coffee_machine"}),
        # reworded multi-plug-then-tv~r9: "turn things on" (the 1.5B left the plug off)
        (
            "the living room TV's plug is off and I want to watch it, turn things on for me please",
            {"switch.tv_plug"},
        ),
        # reworded multi-plug-then-tv: "sort it out" asks for it too
        (
            "the TV plug is off and I want to watch the living room TV, sort it out",
            {"switch.tv_plug"},
        ),
        # "it" with no verb asking to get it going: only said.
        ("the TV plug is off, leave it and turn on the kitchen light", set()),
        # Negated: the added call is checked by permission only, so it must be asked for.
        ("the TV plug is off, don't turn it on, just the living room TV", set()),
        # No "it" after the state: what is off is only said, not asked for.
        ("the hall light is off, turn on the kitchen light", set()),
        ("is the plug off? turn it on", set()),
        # Two plugs named: "the plug" is either, and neither is guessed.
        ("the TV plug and the guest fan plug: the plug is off, get it going", set()),
        # Plural: every one so called.
        ("the kitchen lights are off, turn them on", {"light.kitchen", "light.kitchen_counter"}),
    ],
)
def test_what_is_said_off_and_then_asked_for(text: str, said_off: set[str]) -> None:
    assert said_off_then_asked(grounding.Request(text, "en"), family_home()) == said_off


async def _off(hass: HomeAssistant, ha_bridge: HaBridge, entity_id: str) -> None:
    await hass.services.async_call("switch", "turn_off", {"entity_id": entity_id}, blocking=True)
    await wait_until(lambda: ha_bridge.index.home.state_of(entity_id).state == "off")


def _turning_on_the_tv(ha_bridge: HaBridge) -> BotPsyAgent:
    """An agent whose model switches on the living room TV, and nothing else."""
    planner = ScriptedPlanner(
        lambda request: (
            [call("turn_on", entity_id=["media_player.living_room"])] if request.step == 0 else "ok"
        )
    )
    return make_agent(ha_bridge, planner)


async def test_the_device_said_off_is_switched_on_with_the_rest(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    await _off(hass, ha_bridge, "switch.ac")
    agent = _turning_on_the_tv(ha_bridge)
    text = "I want to watch the living room TV, the AC is off, get it going"
    answer = await agent.handle(ask(text, admin(ha_bridge)))
    ran = {(a.tool, tuple(a.entity_ids)) for a in answer.actions if a.outcome is Outcome.EXECUTED}
    assert ("turn_on", ("switch.ac",)) in ran, answer
    ac = hass.states.get("switch.ac")
    assert ac is not None and ac.state == "on"


async def test_a_device_only_said_to_be_off_stays_off(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    await _off(hass, ha_bridge, "switch.ac")
    agent = _turning_on_the_tv(ha_bridge)
    answer = await agent.handle(ask("the AC is off, turn on the living room TV", admin(ha_bridge)))
    assert not any("switch.ac" in a.entity_ids for a in answer.actions), answer
    ac = hass.states.get("switch.ac")
    assert ac is not None and ac.state == "off"


async def test_a_tv_played_to_be_watched_gets_what_was_said_off_first(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Reworded multi-plug-then-tv: both real models played the TV for "… sort it out", and
    the plug, switched on after it, was asked about. What powers it runs first."""
    await _off(hass, ha_bridge, "switch.ac")
    play = call("control_media", entity_id=["media_player.living_room"], action="play")
    agent = make_agent(ha_bridge, ScriptedPlanner(lambda r: [play] if r.step == 0 else "ok"))
    text = "the AC is off and I want to watch the living room TV, sort it out"
    answer = await agent.handle(ask(text, admin(ha_bridge)))
    assert answer.status is Status.DONE, answer
    ran = [(a.tool, tuple(a.entity_ids)) for a in answer.actions if a.outcome is Outcome.EXECUTED]
    assert ran == [("turn_on", ("switch.ac",)), ("control_media", ("media_player.living_room",))]
    ac = hass.states.get("switch.ac")
    assert ac is not None and ac.state == "on"
