"""A request that reaches the model while it builds its prompt prefix is answered
`warming_up`, in the speaker's language, with the progress and the estimate the worker gave
(tests/llm/test_prefix_build.py shows the real worker giving it); the fast path still acts.

`WarmingPlanner` stands in for the model worker's answer only: everything after it is the
agent's own code on the real HA test home."""

from __future__ import annotations

import pytest

from botpsy_agent.agent.protocol import Path, Status
from botpsy_agent.llm.planning import Offer, PlanError, PlanFailure, PlannerTurn, PlanRequest
from tests.agent.support import admin, ask, make_agent, states
from tests.ha_bridge import HaBridge


class WarmingPlanner:
    """The planner's answer while a prefix build outlasts the request's wait for it."""

    async def plan(self, request: PlanRequest) -> PlannerTurn:
        raise PlanError(PlanFailure.WARMING_UP, "warming up", percent=40, eta_s=31.4)

    def prepare(self, offer: Offer) -> None:
        pass


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "I'm still getting the language model ready (40 %, about 31 s left)"),
        ("ko", "아직 언어 모델을 준비하고 있어요 (40 %, 약 31초 남음)"),
        ("id", "Saya masih menyiapkan model bahasa (40 %, sekitar 31 detik lagi)"),
    ],
)
async def test_a_model_request_during_a_build_is_answered_warming_up(
    ha_bridge: HaBridge, language: str, words: str
) -> None:
    agent = make_agent(ha_bridge, WarmingPlanner())
    before = states(ha_bridge)
    response = await agent.handle(
        ask("make it cosy for movie night in here", admin(ha_bridge), language=language)
    )
    assert (response.status, response.path) == (Status.WARMING_UP, Path.MODEL)
    assert response.error is not None and response.error.code == "warming_up"
    assert words in response.speech
    assert response.actions == []
    assert states(ha_bridge) == before


async def test_the_fast_path_acts_while_the_model_warms_up(ha_bridge: HaBridge) -> None:
    agent = make_agent(ha_bridge, WarmingPlanner())
    response = await agent.handle(ask("turn on the kitchen light", admin(ha_bridge)))
    assert (response.status, response.path) == (Status.DONE, Path.FAST_PATH)
