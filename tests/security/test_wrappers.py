"""Issue 18, finding 9: the policy judged the wrapper, not what it controls. A principal
allowed scenes and scripts but not the living room's lights ran a scene that switched them,
and a script whose targets HA does not say; and a result's `changed` showed states of
entities the principal may not read. On the real HA test home (`ha_bridge`).

Issue 25, finding 6: limit and confirm rules still stopped at the wrapper: a child's
brightness limit on its lamp did not hold for the light group holding it, and a scene
with a heater whose control needs a yes ran without one."""

from __future__ import annotations

from collections.abc import AsyncIterator
import json
from pathlib import Path
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.agent.protocol import Status
from botpsy_agent.home.model import Entity
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from botpsy_agent.policy import Principal, may_read, parse_policy, readable_result
from tests.agent.support import ScriptedPlanner, ask, call, make_agent, states
from tests.ha_bridge import HaBridge, wait_until

WRAPPER_POLICY = """
version: 1
mqtt:
  scene-panel:
    rules:
      - allow: [read, control]
        domains: [scene, script]
      - allow: [read, control]
        areas: [kitchen]
"""


def calling(raw: RawCall) -> ScriptedPlanner:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        if any(m.get("role") == "tool" for m in request.messages):
            return "Done."
        return [raw]

    return ScriptedPlanner(choose)


PANEL = Principal.mqtt("scene-panel")


@pytest.fixture
async def script_exposed(hass: HomeAssistant, ha_bridge: HaBridge) -> AsyncIterator[None]:
    """HA exposes no script to Assist by default; this home's owner exposed good night."""
    async_expose_entity(hass, "conversation", "script.good_night", True)
    await wait_until(lambda: ha_bridge.index.home.entities["script.good_night"].exposed, 10)
    yield


async def test_a_scene_that_switches_lights_the_principal_may_not_control_is_refused(
    ha_bridge: HaBridge,
) -> None:
    """Reproduced on the old code: movie night ran and switched the living room lights."""
    agent = make_agent(
        ha_bridge,
        calling(call("activate_scene", entity_id=["scene.movie_night"])),
        policy=parse_policy(WRAPPER_POLICY, "wrappers.yaml"),
    )
    before = states(ha_bridge)
    answer = await agent.handle(ask("movie night please", PANEL))
    assert answer.status is Status.REFUSED, answer
    (action,) = answer.actions
    assert action.decision == "deny"
    assert "light.living_room_rgbww_lights" in (action.error.message if action.error else "")
    assert states(ha_bridge) == before


@pytest.mark.usefixtures("script_exposed")
async def test_a_script_whose_targets_ha_does_not_say_needs_a_yes(ha_bridge: HaBridge) -> None:
    """Reproduced on the old code: good night ran at once (bedroom light, kitchen light,
    night mode) though the panel may control only the kitchen."""
    agent = make_agent(
        ha_bridge,
        calling(call("run_script", entity_id=["script.good_night"])),
        policy=parse_policy(WRAPPER_POLICY, "wrappers.yaml"),
    )
    before = states(ha_bridge)
    answer = await agent.handle(ask("run good night", PANEL))
    assert answer.status is Status.NEEDS_CONFIRMATION, answer
    assert answer.actions[0].rule == "confirm.scripts"
    assert states(ha_bridge) == before


SWITCH_ONLY = """
version: 1
mqtt:
  scene-panel:
    rules:
      - allow: [read, control]
        domains: [scene]
      - allow: [control]
        areas: [living_room]
"""


def test_changed_states_are_only_those_the_principal_may_read(ha_bridge: HaBridge) -> None:
    """A panel that may switch the living room's lights but not read them: a result whose
    `changed` holds their new states (HA reports every state its call's context changed,
    a light group's members for one) keeps only what the panel may read. Constructed
    result: on the test home, HA runs a scene's and a script's own actions in contexts of
    their own, so their members never showed up in `changed` there."""
    policy = parse_policy(SWITCH_ONLY, "switch-only.yaml")
    home = ha_bridge.index.home
    now = dt_util.now()

    def readable(entity_id: str) -> bool:
        entity = home.entities.get(entity_id) or Entity(entity_id, entity_id)
        return may_read(policy, PANEL, entity, now)

    light = {"entity_id": "light.ceiling_lights", "state": "off", "attributes": {}}
    scene = {"entity_id": "scene.movie_night", "state": "2026-12-01", "attributes": {}}
    result = {"status": "done", "actions": [{"status": "done", "changed": [scene, light]}]}
    assert readable_result(result, readable)["actions"][0]["changed"] == [scene]
    only_light = {"status": "done", "actions": [{"status": "done", "changed": [light]}]}
    assert "changed" not in readable_result(only_light, readable)["actions"][0]


async def test_a_scene_run_reports_nothing_the_principal_may_not_read(
    ha_bridge: HaBridge,
) -> None:
    agent = make_agent(
        ha_bridge,
        calling(call("activate_scene", entity_id=["scene.movie_night"])),
        policy=parse_policy(SWITCH_ONLY, "switch-only.yaml"),
    )
    done = await agent.handle(ask("movie night please", PANEL))
    assert done.status is Status.DONE, done  # it may switch every member
    (action,) = done.actions
    changed = [s for o in action.result["actions"] for s in o.get("changed", [])]
    assert {s["entity_id"] for s in changed} <= {"scene.movie_night"}, changed


# --- issue 25, finding 6: limit and confirm rules reach a wrapper's members ---------------

CHILD_RULES = """
version: 1
users:
  - id: {child}
    name: Min-ji
    inherit: false
    rules:
      - allow: [read, control]
      - id: kids-lamp-dim
        limit:
          brightness_pct: {{max: 30}}
        entities: [light.bed_light]
      - id: heater-asks
        confirm: control
        entities: [climate.heatpump]
"""


def child(bridge: HaBridge) -> Principal:
    return Principal.user(bridge.home.users["Min-ji"], "Min-ji")


async def light_group(hass: HomeAssistant, bridge: HaBridge, members: list[str]) -> str:
    """A light group made as HA's helper UI makes it (a `group` config entry)."""
    entry = MockConfigEntry(
        domain="group",
        title="Upstairs lights",
        options={
            "group_type": "light",
            "name": "Upstairs lights",
            "entities": members,
            "hide_members": False,
            "all": False,
        },
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    group = "light.upstairs_lights"

    def ready() -> bool:  # its members in its state, and exposed as HA exposes new lights
        home = bridge.index.home
        known = group in home.entities and home.entities[group].exposed
        return known and home.state_of(group).attributes.get("entity_id") == members

    await wait_until(ready, 10)
    return group


async def scene_of(
    hass: HomeAssistant, bridge: HaBridge, name: str, entities: dict[str, Any]
) -> str:
    """A scene added as its owner adds one: written into the configuration, then
    `scene.reload` (a scene with an id is registered, and so exposed like any scene)."""
    config = Path(hass.config.path("configuration.yaml"))
    scene = {"id": name, "name": name.replace("_", " ").capitalize(), "entities": entities}
    text = json.dumps({"scene": [scene]})  # JSON is YAML
    await hass.async_add_executor_job(config.write_text, text)
    await hass.services.async_call("scene", "reload", blocking=True)
    entity_id = f"scene.{name}"
    await wait_until(
        lambda: (
            entity_id in bridge.index.home.entities
            and bridge.index.home.entities[entity_id].exposed
        ),
        10,
    )
    return entity_id


async def test_a_limit_on_a_lamp_holds_for_the_group_holding_it(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Reproduced on the old code: the group went to 80 % and with it the child's lamp,
    whose own rule says at most 30 %."""
    group = await light_group(hass, ha_bridge, ["light.bed_light", "light.office_rgbw_lights"])
    agent = make_agent(
        ha_bridge,
        calling(call("set_light", entity_id=[group], brightness_pct=80)),
        policy=parse_policy(CHILD_RULES.format(child=ha_bridge.home.users["Min-ji"]), "kid.yaml"),
    )
    before = hass.states.get("light.bed_light")
    answer = await agent.handle(ask("set the upstairs lights to 80 percent", child(ha_bridge)))
    assert answer.status is Status.REFUSED, answer
    (action,) = answer.actions
    assert action.rule == "kids-lamp-dim"
    assert action.error is not None and action.error.code == "out_of_bounds"
    assert "light.bed_light" in action.error.message
    assert hass.states.get("light.bed_light") == before


async def test_a_scene_holding_a_heater_that_needs_a_yes_asks(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Reproduced on the old code: the scene ran and set the heat pump at once, though
    the child's rule asks before anything controls it."""
    scene = await scene_of(
        hass,
        ha_bridge,
        "warm_evening",
        {"climate.heatpump": {"state": "heat", "temperature": 24}, "light.ceiling_lights": "on"},
    )
    agent = make_agent(
        ha_bridge,
        calling(call("activate_scene", entity_id=[scene])),
        policy=parse_policy(CHILD_RULES.format(child=ha_bridge.home.users["Min-ji"]), "kid.yaml"),
    )
    before = states(ha_bridge)
    answer = await agent.handle(ask("warm evening scene please", child(ha_bridge)))
    assert answer.status is Status.NEEDS_CONFIRMATION, answer
    assert answer.actions[0].rule == "heater-asks"
    assert states(ha_bridge) == before


async def test_a_scene_that_sets_a_limited_lamp_asks(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """A scene's levels are not in HA's state, so a member under a limit rule makes it ask.
    Reproduced on the old code: the child's lamp went to full brightness at once."""
    scene = await scene_of(
        hass, ha_bridge, "bright_night", {"light.bed_light": {"state": "on", "brightness": 255}}
    )
    agent = make_agent(
        ha_bridge,
        calling(call("activate_scene", entity_id=[scene])),
        policy=parse_policy(CHILD_RULES.format(child=ha_bridge.home.users["Min-ji"]), "kid.yaml"),
    )
    before = states(ha_bridge)
    answer = await agent.handle(ask("bright night scene please", child(ha_bridge)))
    assert answer.status is Status.NEEDS_CONFIRMATION, answer
    assert answer.actions[0].rule == "kids-lamp-dim"
    assert states(ha_bridge) == before
