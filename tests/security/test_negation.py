"""Negation (issue 25, finding 4): "don't turn off the security cameras" names no turning
off and no cameras, in grounding, in the grammar's narrowing and on the fast path.

Shown before the fix: the request grounded `turn_off` on the cameras (a kind word, "off",
and a target), so a model following a planted instruction switched them off. Here the
"model" is a scripted planner that always proposes exactly that (tests/agent/support.py);
everything after its choice is the real agent, policy, executor and HA.
"""

from __future__ import annotations

from datetime import UTC, datetime

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
import pytest

from botpsy_agent.agent.narrowing import narrowed_schemas
from botpsy_agent.agent.offer import build_offer
from botpsy_agent.agent.protocol import Outcome, Status
from botpsy_agent.policy import scope
from botpsy_agent.words import grounding
from botpsy_agent.words.negation import affirmed
from devkit.homes import family_home
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent
from tests.ha_bridge import HaBridge, wait_until
from tests.policy.policies import admin as family_admin, family_policy

CAMERAS = "switch.decorative_lights"
"""The test home's switch, renamed "Security cameras" (with ko and id aliases) here."""
TURN_OFF_CAMERAS = call("turn_off", entity_id=[CAMERAS])
NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)

NEGATED = [
    ("don't turn off the security cameras", "en"),
    ("Do not switch off the security cameras.", "en"),
    ("never turn the security cameras off", "en"),
    ("보안 카메라 끄지 마", "ko"),
    ("보안 카메라 끄지마세요", "ko"),
    ("보안 카메라 안 꺼", "ko"),
    ("jangan matikan kamera keamanan", "id"),
]


async def name_the_cameras(hass: HomeAssistant, bridge: HaBridge) -> None:
    er.async_get(hass).async_update_entity(
        CAMERAS, name="Security cameras", aliases=["보안 카메라", "kamera keamanan"]
    )
    await wait_until(lambda: bridge.index.home.entities[CAMERAS].name == "Security cameras", 5)
    await hass.services.async_call("switch", "turn_on", {"entity_id": CAMERAS}, blocking=True)


@pytest.mark.parametrize(("text", "language"), NEGATED)
async def test_a_negated_action_is_not_run_for_a_model_that_proposes_it(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, language: str
) -> None:
    await name_the_cameras(hass, ha_bridge)
    planner = ScriptedPlanner(lambda request: [TURN_OFF_CAMERAS] if request.step == 0 else "ok")
    agent = make_agent(ha_bridge, planner)

    answer = await agent.handle(ask(text, admin(ha_bridge), language=language))

    assert ha_bridge.index.home.state_of(CAMERAS).state == "on", answer
    assert answer.status is not Status.DONE, answer
    assert all(a.outcome is not Outcome.EXECUTED for a in answer.actions), answer


@pytest.mark.parametrize(("text", "language"), NEGATED)
async def test_the_fast_path_does_not_run_a_negated_command(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, language: str
) -> None:
    await name_the_cameras(hass, ha_bridge)
    agent = make_agent(ha_bridge, planner=None)

    answer = await agent.handle(ask(text, admin(ha_bridge), language=language))

    assert ha_bridge.index.home.state_of(CAMERAS).state == "on", answer
    assert answer.status is not Status.DONE, answer


async def test_the_clause_after_a_negation_still_asks(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """The clause after the negation grounds its own call, never the negated one."""
    await name_the_cameras(hass, ha_bridge)
    kitchen = call("turn_off", entity_id=["light.kitchen_lights"])
    planner = ScriptedPlanner(
        lambda request: [TURN_OFF_CAMERAS, kitchen] if request.step == 0 else "ok"
    )
    agent = make_agent(ha_bridge, planner)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "light.kitchen_lights"}, blocking=True
    )
    text = "don't turn off the security cameras, but turn off the kitchen lights"

    answer = await agent.handle(ask(text, admin(ha_bridge)))

    assert ha_bridge.index.home.state_of(CAMERAS).state == "on", answer
    assert answer.actions[0].outcome is not Outcome.EXECUTED


def test_a_negated_kind_and_target_are_not_offered_to_the_model() -> None:
    home = family_home()
    offer = build_offer(scope(family_policy(), family_admin, home, NOON), home)
    text = "don't turn off the kitchen light, dim the hall light"
    schemas = narrowed_schemas(offer, grounding.Request(text, "en"), home)
    assert schemas is not None
    tools = {s["name"]: s for s in schemas}
    assert "turn_off" not in tools and "set_light" in tools
    entity_ids = tools["set_light"]["parameters"]["properties"]["entity_id"]["items"]["enum"]
    assert entity_ids == ["light.hall"]


@pytest.mark.parametrize(
    ("text", "language", "kept"),
    [
        ("don't forget to turn off the oven", "en", "don't forget to turn off the oven"),
        ("turn on the lamp, not the ceiling light", "en", "turn on the lamp"),
        ("불 켜고 TV 끄지 마세요", "ko", "불 켜고"),
        ("jangan lupa matikan kompor", "id", "jangan lupa matikan kompor"),
        # too little asks for more (reworded warmer-living-room~r7: only the blinds offered)
        (
            "the living room's not quite warm enough, could you up it a little",
            "en",
            "the living room's not quite warm enough, could you up it a little",
        ),
        ("it's not bright enough, don't turn it off", "en", "it's not bright enough"),
        ("jangan matikan kamera, matikan lampu", "id", "matikan lampu"),
    ],
)
def test_a_negation_reaches_to_the_end_of_its_clause_only(
    text: str, language: str, kept: str
) -> None:
    assert affirmed(text, language) == kept
