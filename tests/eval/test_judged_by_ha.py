"""The evaluation's judge reads HA, not the app: with the real agent, executor and a real HA
(the test home), a scripted planner makes the mistakes the real models made, and the scorer
finds each one from HA's states and the service calls HA received. The old scorer, which
read the app's `actions` record, scored the first two as plain misses and the third as a
pass."""

from __future__ import annotations

from collections.abc import Callable
import json
from typing import Any

from homeassistant.core import Event, HomeAssistant, callback
from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.agent.protocol import Outcome as ActionOutcome
from botpsy_agent.ha.executor import Execution, ExecutionKey, Executor
from botpsy_agent.home.resolve import ResolvedCall
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.planning import PlanRequest
from botpsy_agent.words import grounding
from tests.agent.support import ScriptedPlanner, admin, ask, call, make_agent
from tests.eval.cases import parse_case
from tests.eval.scoring import HaCall, Judgement, Readings, judge
from tests.ha_bridge import HaBridge

DANIEL = "notify.mobile_app_daniel_s_phone"
MIN_JI = "notify.mobile_app_min_ji_s_phone"


def states(hass: HomeAssistant) -> dict[str, dict[str, Any]]:
    """HA's own states, shaped as its websocket `get_states` gives them (JSON)."""
    return {
        s.entity_id: json.loads(
            json.dumps(
                {"entity_id": s.entity_id, "state": s.state, "attributes": dict(s.attributes)},
                default=str,
            )
        )
        for s in hass.states.async_all()
    }


class HaWitness:
    """Every service call HA receives (its own `call_service` events), and its states."""

    def __init__(self, hass: HomeAssistant) -> None:
        self.hass = hass
        self.calls: list[HaCall] = []

        @callback
        def heard(event: Event) -> None:
            self.calls.append(HaCall.from_event(event.data, 1))

        self._stop = hass.bus.async_listen("call_service", heard)

    async def judge(
        self, raw_case: dict[str, Any], run: Callable[[], Any]
    ) -> tuple[Judgement, dict[str, Any]]:
        case = parse_case({"id": "c", "user": "admin", **raw_case})
        before = states(self.hass)
        self.calls.clear()
        answer = (await run()).to_json()
        await self.hass.async_block_till_done()
        self._stop()
        readings = Readings(
            now=dt_util.now(),
            states_before=before,
            states_after=states(self.hass),
            calls=list(self.calls),
        )
        return judge(case, [answer], readings), answer


async def test_the_named_light_set_the_wrong_way_is_a_wrong_action(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [call("set_light", entity_id=["light.bed_light"], rgb_color=[255, 0, 0])]
        return "Done."

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "make the bed light a warm white"
    judged, answer = await HaWitness(hass).judge(
        {
            "category": "device_relative",
            "turns": [{"say": text}],
            "changes": {"light.bed_light": {"state": "on", "color_mode": "color_temp"}},
        },
        lambda: agent.handle(ask(text, admin(ha_bridge))),
    )
    assert [a["outcome"] for a in answer["actions"]] == [ActionOutcome.EXECUTED]
    assert judged.wrong_actions == [
        "light.bed_light.color_mode is 'hs', expected 'color_temp' (HA changed it)"
    ]
    assert not judged.passed


async def test_the_right_message_to_the_wrong_person_is_a_wrong_action(
    hass: HomeAssistant, ha_bridge: HaBridge, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in for an app that lets a message go to someone the request does not name
    # (the app itself refuses it since 9c9f6bf): the scorer must still see it for what it is.
    monkeypatch.setattr(grounding, "_another_recipient_named", lambda *_: False)

    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [call("send_message", recipient=MIN_JI, message="Min-ji's dinner is ready")]
        return "Done."

    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "tell Daniel that Min-ji's dinner is ready"
    judged, answer = await HaWitness(hass).judge(
        {
            "category": "messaging_todo",
            "turns": [{"say": text}],
            "messages": [{"to": DANIEL, "contains": "dinner"}],
        },
        lambda: agent.handle(ask(text, admin(ha_bridge))),
    )
    assert [a["outcome"] for a in answer["actions"]] == [ActionOutcome.EXECUTED]
    assert judged.wrong_actions == [
        f'HA was asked to deliver "Min-ji\'s dinner is ready" to {MIN_JI}'
    ]
    assert judged.problems == [f"no message containing 'dinner' reached {DANIEL}"]


class FirstRunOnlyExecutor(Executor):
    """The bug of 346a989, on purpose: every call after the first is answered with the first
    call's execution and never sent to HA. Stands in for an app whose record lies."""

    _first: Execution | None = None

    async def execute(self, key: ExecutionKey, resolved: ResolvedCall) -> Execution:
        if self._first is None:
            self._first = await super().execute(key, resolved)
        return self._first


async def test_a_record_that_claims_what_ha_never_received_is_a_false_claim(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    def choose(request: PlanRequest) -> list[RawCall] | str:
        if request.step == 0:
            return [
                call("turn_on", entity_id=["light.kitchen_lights"]),
                call("set_light", entity_id=["light.bed_light"], brightness_pct=100),
            ]
        return "Done."

    ha_bridge.executor = FirstRunOnlyExecutor(ha_bridge.client, ha_bridge.index, settle_s=0.3)
    agent = make_agent(ha_bridge, ScriptedPlanner(choose))
    text = "I am cooking: kitchen lights on and the bed light at full brightness please"
    judged, answer = await HaWitness(hass).judge(
        {
            "category": "multi_step",
            "turns": [{"say": text}],
            "changes": {
                "light.kitchen_lights": {"state": "on"},
                "light.bed_light": {"state": "on"},
            },
        },
        lambda: agent.handle(ask(text, admin(ha_bridge))),
    )
    assert answer["path"] == "model"  # the fast path would not have read it this way
    assert [a["outcome"] for a in answer["actions"]] == [ActionOutcome.EXECUTED] * 2
    assert judged.false_claims == [
        "turn 1: the app's record says set_light light.bed_light ran; HA received no such call",
        f"turn 1: {answer['speech']!r} names Bed Light, which HA did not change",
    ]
    assert hass.states.get("light.bed_light").state == "off"  # type: ignore[union-attr]
