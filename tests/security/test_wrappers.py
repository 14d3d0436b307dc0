"""Issue 18, finding 9: the policy judged the wrapper, not what it controls. A principal
allowed scenes and scripts but not the living room's lights ran a scene that switched them,
and a script whose targets HA does not say; and a result's `changed` showed states of
entities the principal may not read. On the real HA test home (`ha_bridge`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
import pytest

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
