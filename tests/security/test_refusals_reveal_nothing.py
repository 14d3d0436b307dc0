"""Issue 18, finding 11: service calls were computed (from the entity's current state)
before `authorize`, and a refused answer carried them: a refused "speaker volume up"
returned `volume_level: 0.47`. A refused answer carries no service data. Real HA core."""

from __future__ import annotations

import json

from botpsy_agent.agent.protocol import Status
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from botpsy_agent.policy import Principal
from tests.agent.support import ScriptedPlanner, ask, call, make_agent
from tests.ha_bridge import HaBridge


async def test_a_refused_volume_change_reveals_no_volume(ha_bridge: HaBridge) -> None:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        if any(m.get("role") == "tool" for m in request.messages):
            return "Sorry."
        return [call("set_media", entity_id=["media_player.kitchen"], volume_step_pct=10)]

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    refused = await agent.handle(ask("a bit louder over there", Principal.mqtt("kids-tablet")))
    assert refused.status is Status.REFUSED, refused
    (action,) = refused.actions
    assert action.decision == "deny"
    assert action.service_calls == []
    assert "volume_level" not in json.dumps(refused.to_json()), refused.to_json()
