"""A model turn's `timings` through the real agent (real HA test home; the planner only
chooses, and takes the time the test gives it): each step's figures are the turn's, and a
step the model could not answer is the model's time, not the agent's."""

from __future__ import annotations

import asyncio

from botpsy_agent.agent.protocol import Status
from botpsy_agent.llm.planning import (
    Offer,
    PlanError,
    PlanFailure,
    PlannerTurn,
    PlanRequest,
    StepTimings,
)
from tests.agent.support import admin, ask, call, make_agent
from tests.ha_bridge import HaBridge

FAILED_STEP_S = 0.5


class SlowPlanner:
    """Reads the bed light at once, then takes `FAILED_STEP_S` to fail as told."""

    def __init__(self, then: PlanFailure | None) -> None:
        self.then = then

    async def plan(self, request: PlanRequest) -> PlannerTurn:
        if request.step == 0:
            timings = StepTimings(0, sampled_tokens=3)
            return PlannerTurn(
                calls=(call("get_state", entity_id=["light.bed_light"]),), timings=timings
            )
        await asyncio.sleep(FAILED_STEP_S)
        if self.then is not None:
            raise PlanError(self.then, "too slow")
        return PlannerTurn(text="Done.", timings=StepTimings(1))

    def prepare(self, offer: Offer) -> None:
        return None


async def test_a_failed_step_counts_as_the_models_time(ha_bridge: HaBridge) -> None:
    agent = make_agent(ha_bridge, SlowPlanner(PlanFailure.TIMEOUT))
    text = "turn on the bed light if it is off"  # an action on offer: a step after the read
    response = await agent.handle(ask(text, admin(ha_bridge)))
    assert response.status is Status.ERROR and response.error is not None
    assert response.error.code == "timeout"
    timings = response.timings
    assert [s.step for s in timings.steps] == [0, 1]
    assert timings.steps[0].sampled_tokens == 3  # the planner's own figures, passed through
    assert timings.steps[1].total_ms >= FAILED_STEP_S * 1000  # the failed step's wait
    assert timings.model_ms == sum(s.total_ms for s in timings.steps)
    assert timings.checks_ms < FAILED_STEP_S * 1000, timings  # not the model's time
