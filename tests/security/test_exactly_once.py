"""Issue 18, finding 4: the exactly-once memory is keyed by (principal, request id) in one
place. The dispatcher already was; the HA executor cached by the bare id, so a second
principal reusing an id (the events topic publishes them) got the first one's execution and
result, and nothing ran. Real executor, real HA core."""

from __future__ import annotations

from homeassistant.core import HomeAssistant

from botpsy_agent.agent.protocol import Outcome
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent, user
from tests.ha_bridge import HaBridge, wait_until

KITCHEN = "light.kitchen_lights"


def state(bridge: HaBridge) -> str:
    return bridge.index.home.state_of(KITCHEN).state


def doing(first: RawCall) -> ScriptedPlanner:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        if any(m.get("role") == "tool" for m in request.messages):
            return "Done."
        return [first]

    return ScriptedPlanner(choose)


OFF_TEXT = "the kitchen lights should be off by now"
ON_TEXT = "the kitchen lights should be on again"


async def test_a_second_principal_with_the_same_request_id_gets_its_own_execution(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    off = make_agent(ha_bridge, doing(call("turn_off", entity_id=[KITCHEN])))
    on = make_agent(ha_bridge, doing(call("turn_on", entity_id=[KITCHEN])))
    # Both use the bridge's one executor, as every request of one app does.
    before = state(ha_bridge)
    # (Texts the fast path does not know, naming what the scripted model then does.)
    first = await off.handle(ask(OFF_TEXT, admin(ha_bridge), request_id="req-shared"))
    assert [a.outcome for a in first.actions] == [Outcome.EXECUTED], (before, first)
    await wait_until(lambda: state(ha_bridge) == "off", 5)
    second = await on.handle(ask(ON_TEXT, user(ha_bridge), request_id="req-shared"))
    assert [a.outcome for a in second.actions] == [Outcome.EXECUTED]
    await wait_until(lambda: state(ha_bridge) == "on", 5)
    assert second.actions[0].result != first.actions[0].result  # not the other's data
    # The same principal repeating its id still gets the first execution (nothing twice).
    again = await off.handle(ask(OFF_TEXT, admin(ha_bridge), request_id="req-shared"))
    assert again.actions[0].result == first.actions[0].result
