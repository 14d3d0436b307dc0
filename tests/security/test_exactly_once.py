"""Issue 18, finding 4: the exactly-once memory is keyed by (principal, request id) in one
place. The dispatcher already was; the HA executor cached by the bare id, so a second
principal reusing an id (the events topic publishes them) got the first one's execution and
result, and nothing ran. Real executor, real HA core.

Issue 25, finding 7: the key named the step, not the call. A retry after `busy` that the
model planned differently got the first attempt's execution for another call: it said
"Turned off the fairy lights." while HA had only sent a message, and then sent the message
again."""

from __future__ import annotations

import json

from homeassistant.core import HomeAssistant

from botpsy_agent.agent.protocol import Outcome, Status
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanError, PlanFailure, PlannerTurn, PlanRequest
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


FAIRY = "switch.decorative_lights"
RETRY_TEXT = "tell Min-ji dinner is ready and turn off the fairy lights"


async def test_a_retry_planned_in_another_order_runs_each_call_once(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """First attempt: the message is sent, then the model is `busy`. The retry (same id)
    is planned fairy lights first, message second. Reproduced on the old code: the fairy
    lights step was answered with the message's run (they stayed on, the answer said they
    were turned off) and the message went out a second time."""
    phone = ha_bridge.home.phones["Min-ji's phone"]
    message = call("send_message", recipient=phone.recipient, message="dinner is ready")
    fairy_off = call("turn_off", entity_id=[FAIRY])
    attempts: list[int] = []

    def choose(request: PlanRequest) -> PlannerTurn | list[RawCall] | str:
        if request.step == 0:
            attempts.append(1)
        if len(attempts) == 1:  # the first attempt: one call, then the model is busy
            if request.step == 0:
                return [message]
            raise PlanError(PlanFailure.BUSY, "the model is busy")
        return {0: [fairy_off], 1: [message]}.get(request.step, "Done.")

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    await wait_until(lambda: ha_bridge.index.home.state_of(FAIRY).state == "on", 5)
    first = await agent.handle(ask(RETRY_TEXT, admin(ha_bridge), request_id="req-retry"))
    assert first.status is Status.BUSY, first
    assert len(phone.received) == 1

    retry = await agent.handle(ask(RETRY_TEXT, admin(ha_bridge), request_id="req-retry"))
    assert len(attempts) == 2
    by_tool = {a.tool: a for a in retry.actions}
    assert by_tool["turn_off"].outcome is Outcome.EXECUTED, retry
    await wait_until(lambda: ha_bridge.index.home.state_of(FAIRY).state == "off", 5)
    (run,) = by_tool["turn_off"].result["actions"]
    assert FAIRY in json.dumps(run["action"]) and "notify" not in json.dumps(run["action"])
    assert len(phone.received) == 1, phone.received  # the message, once
