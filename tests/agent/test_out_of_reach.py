"""A request for an action only on devices the requester may not control is refused by the
policy before the model is asked (agent/out_of_reach.py): the model, offered only what the
requester may use, chose something else (dev probe-model-heater: both real models set the
thermostat of the child's own room for "the office is cold, switch the heater on"; dev
probe-model-unlock: the 1.5B asked the child who should get "Front door").

The planner is scripted to make exactly that kind of other choice; the agent, the policy
(Min-ji may control only the kids room) and HA (the test home) are real.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant

from botpsy_agent.agent.protocol import Status
from botpsy_agent.llm.planning import PlanRequest
from botpsy_agent.policy import parse_policy
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent, user
from tests.ha_bridge import HaBridge
from tests.policy.policies import HOUSEHOLD_AND_ADMINS

AC = "switch.ac"  # "AC", in the garage
SAMS_FAN = "fan.percentage_full_fan"  # in the kids room
KIDS_ROOM_ONLY = parse_policy(
    "version: 1\n"
    + HOUSEHOLD_AND_ADMINS
    + """\
  users:
    rules:
      - allow: read
      - id: kids-room-only
        allow: control
        areas: [kids_room]
""",
    "kids-room-only.yaml",
)


def elsewhere() -> ScriptedPlanner:
    """A model that turns something on that the requester may use, in another room."""

    def choose(request: PlanRequest) -> list[object] | str:
        if request.step == 0:
            return [call("turn_on", entity_id=[SAMS_FAN])]
        return "Done."

    return ScriptedPlanner(choose)  # type: ignore[arg-type]


async def test_a_device_the_requester_may_not_control_is_refused_without_the_model(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    planner = elsewhere()
    agent = make_agent(ha_bridge, planner, KIDS_ROOM_ONLY)
    fan_before = hass.states.get(SAMS_FAN)

    answer = await agent.handle(ask("I'm so hot, switch the AC on", user(ha_bridge)))

    assert answer.status is Status.REFUSED, answer
    assert planner.requests == []  # the model was not asked
    assert "AC" in answer.speech, answer.speech
    assert [(a.tool, a.entity_ids) for a in answer.actions] == [("turn_on", [AC])]
    assert hass.states.get(AC).state == "off"  # type: ignore[union-attr]
    assert hass.states.get(SAMS_FAN) == fan_before


async def test_the_model_is_asked_where_the_requester_may_act(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    # A user's request with a part about something else ("and Sam's fan") is the model's,
    # part by part. (An admin's "I'm so hot, switch the AC on" is the fast path's since the
    # reason before a request is read apart: `test_an_admins_reasoned_request_…` below.)
    for principal, text in (
        (user(ha_bridge), "switch the AC on and Sam's fan too"),
        (user(ha_bridge), "I'm so hot, switch the AC on and my fan"),
    ):
        planner = elsewhere()
        await make_agent(ha_bridge, planner, KIDS_ROOM_ONLY).handle(ask(text, principal))
        assert planner.requests, text


async def test_an_admins_reasoned_request_is_carried_out_without_the_model(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    planner = elsewhere()
    answer = await make_agent(ha_bridge, planner, KIDS_ROOM_ONLY).handle(
        ask("I'm so hot, switch the AC on", admin(ha_bridge))
    )
    assert answer.status is Status.DONE, answer
    assert planner.requests == []
    assert hass.states.get(AC).state == "on"  # type: ignore[union-attr]
