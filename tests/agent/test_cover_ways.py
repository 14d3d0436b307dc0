"""A cover moved against the one way the request said is turned round, never run as
proposed. With the real 0.5B (`tests/realmodel`), "check whether the kitchen window is open
and close it if it is" opened the closed window, and "the hall window should not stay open"
asked whether to stop it.

A scripted planner makes exactly those calls; the agent, policy, executor and HA (the test
home's demo covers) are real, and HA's states are the judge.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant

from botpsy_agent.agent.protocol import AgentResponse, Outcome, Status
from tests.agent.support import admin, ask, call, make_agent, once
from tests.ha_bridge import HaBridge, wait_until

KITCHEN_WINDOW = "cover.kitchen_window"
HALL_WINDOW = "cover.hall_window"


async def _moved(ha_bridge: HaBridge, window: str, proposed: str, text: str) -> AgentResponse:
    """The answer to `text` when the model proposes `proposed` for `window`."""
    call_it = call("control_cover", entity_id=[window], action=proposed)
    return await make_agent(ha_bridge, once(call_it)).handle(ask(text, admin(ha_bridge)))


async def test_a_closed_window_the_request_closes_if_open_is_not_opened(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    assert hass.states.get(KITCHEN_WINDOW).state == "closed"  # type: ignore[union-attr]

    answer = await _moved(
        ha_bridge,
        KITCHEN_WINDOW,
        "open",
        "check whether the kitchen window is open and close it if it is",
    )
    await hass.async_block_till_done()

    assert answer.status is Status.DONE, answer
    (action,) = answer.actions
    assert (action.arguments["action"], action.outcome) == ("close", Outcome.EXECUTED)
    assert hass.states.get(KITCHEN_WINDOW).state == "closed"  # type: ignore[union-attr]


async def test_a_window_that_should_not_stay_open_is_closed_not_stopped(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    assert hass.states.get(HALL_WINDOW).state == "open"  # type: ignore[union-attr]

    answer = await _moved(ha_bridge, HALL_WINDOW, "stop", "the hall window should not stay open")

    assert answer.status is Status.DONE, answer
    await wait_until(
        lambda: ha_bridge.index.home.state_of(HALL_WINDOW).state in {"closing", "closed"}
    )
    assert "Hall Window" in answer.speech, answer.speech
    # The demo cover moves a step a second: stop it, or its timer outlives the test.
    await hass.services.async_call("cover", "stop_cover", {"entity_id": HALL_WINDOW}, blocking=True)
