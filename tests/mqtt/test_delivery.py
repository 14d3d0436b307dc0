"""Exactly one answer per request: retries, back-pressure, broker restarts, stopping."""

from __future__ import annotations

import asyncio
from collections import Counter

from homeassistant.core import HomeAssistant

from botpsy_agent.mqtt import ApiSettings
from botpsy_agent.policy import parse_policy
from devkit.mosquitto import MosquittoBroker
from tests.agent.support import make_agent
from tests.ha_bridge import HaBridge, wait_until
from tests.mqtt.agents import ActingAgent, GatedAgent
from tests.mqtt.client import ApiClient
from tests.mqtt.conftest import INSTANCE, ROOT, StartService, plain_settings

REQUEST, RESPONSE = f"{ROOT}/request", f"{ROOT}/response"


def answers_per_id(client: ApiClient, topic: str = RESPONSE) -> Counter[str]:
    return Counter(message.json()["id"] for message in client.received(topic))


async def test_a_repeated_id_is_answered_again_with_the_first_outcome_and_runs_once(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = ActingAgent()
    await start_service(agent, plain_settings(mosquitto))
    request = {"id": "d1", "text": "kitchen light on"}
    client.publish(f"{REQUEST}/kitchen-panel", request)
    first = await client.response(f"{RESPONSE}/kitchen-panel", "d1")
    client.publish(f"{REQUEST}/kitchen-panel", request)  # the client's retry
    second = await client.response(f"{RESPONSE}/kitchen-panel", "d1")
    assert first == second
    assert agent.executions == 1

    # Another principal's id space is its own.
    client.publish(f"{REQUEST}/hallway-panel", request)
    await client.response(f"{RESPONSE}/hallway-panel", "d1")
    assert agent.executions == 2

    # The same id for a different request is a client bug, said so, and not run.
    client.publish(f"{REQUEST}/kitchen-panel", {"id": "d1", "text": "open the garage"})
    reused = await client.response(f"{RESPONSE}/kitchen-panel", "d1")
    assert (reused["status"], reused["error"]["code"]) == ("error", "id_reused")
    assert agent.executions == 2


async def test_a_retry_while_the_first_still_runs_waits_for_it(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = GatedAgent()
    await start_service(agent, plain_settings(mosquitto))
    request = {"id": "w1", "text": "slow: plan my evening"}
    client.publish(REQUEST, request)
    await agent.wait_for_waiting(1)
    client.publish(REQUEST, request)
    client.publish(REQUEST, request)
    await asyncio.sleep(0.2)
    assert agent.waiting == 1  # the retries did not start a second run
    assert client.received(RESPONSE) == []
    agent.release()
    answers = [await client.response(RESPONSE, "w1") for _ in range(3)]
    assert answers[0] == answers[1] == answers[2]
    assert agent.executions == 1


async def test_beyond_the_queue_requests_are_answered_busy_at_once(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = GatedAgent()
    api = ApiSettings(instance=INSTANCE, queue_capacity=2)
    service = await start_service(agent, plain_settings(mosquitto), api)
    client.publish(REQUEST, {"id": "q1", "text": "slow one"})
    client.publish(REQUEST, {"id": "q2", "text": "slow two"})
    await agent.wait_for_waiting(2)
    client.publish(REQUEST, {"id": "q3", "text": "fast three"})
    busy = await client.response(RESPONSE, "q3")  # while both are still running
    assert (busy["status"], busy["error"]["code"]) == ("busy", "busy")
    assert service.dispatcher.stats.in_flight == 2

    agent.release()
    assert (await client.response(RESPONSE, "q1"))["status"] == "done"
    assert (await client.response(RESPONSE, "q2"))["status"] == "done"
    client.publish(REQUEST, {"id": "q3", "text": "fast three"})  # busy is not remembered
    assert (await client.response(RESPONSE, "q3"))["status"] == "done"
    assert agent.executions == 3


async def test_one_principal_cannot_take_the_whole_queue(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    """Issue 18, finding 6 (found by the soak's attacker): a principal within its rate limit
    filled the queue, and an HA user's next request was answered `busy`. Now one principal
    holds at most three quarters of it."""
    agent = GatedAgent()
    api = ApiSettings(instance=INSTANCE, queue_capacity=4)
    await start_service(agent, plain_settings(mosquitto), api)
    greedy = f"{REQUEST}/greedy"
    for n in range(4):
        client.publish(greedy, {"id": f"g{n}", "text": "slow"})
    await agent.wait_for_waiting(3)
    refused = await client.response(f"{RESPONSE}/greedy", "g3")
    assert (refused["status"], refused["error"]["code"]) == ("busy", "busy")
    assert "this principal" in refused["error"]["message"]
    client.publish(f"{REQUEST}/other", {"id": "o1", "text": "slow"})
    await agent.wait_for_waiting(4)  # another principal still gets in
    agent.release()
    assert (await client.response(f"{RESPONSE}/other", "o1"))["status"] == "done"


async def test_a_fast_request_is_not_stuck_behind_model_work(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = GatedAgent()
    await start_service(agent, plain_settings(mosquitto))
    client.publish(REQUEST, {"id": "m1", "text": "slow: write a poem"})
    client.publish(REQUEST, {"id": "m2", "text": "slow: and another"})
    await agent.wait_for_waiting(2)
    client.publish(REQUEST, {"id": "f1", "text": "fast: kitchen light on"})
    fast = await client.response(RESPONSE, "f1")
    assert fast["path"] == "fast_path"
    assert agent.waiting == 2  # the model work is still going on
    agent.release()
    for request_id in ("m1", "m2"):
        assert (await client.response(RESPONSE, request_id))["path"] == "model"


async def test_a_broker_restart_loses_no_request_and_answers_none_twice(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    await client.subscribe(f"{ROOT}/status")
    agent = GatedAgent()
    service = await start_service(agent, plain_settings(mosquitto))
    assert (await client.expect(f"{ROOT}/status")).state == "online"
    client.publish(REQUEST, {"id": "k1", "text": "slow: started before the restart"})
    client.publish(REQUEST, {"id": "k2", "text": "slow: this one too"})
    client.publish(REQUEST, {"id": "k0", "text": "fast: answered before it"})
    await client.response(RESPONSE, "k0")
    await agent.wait_for_waiting(2)

    await asyncio.to_thread(mosquitto.restart)
    client.patience_s = 15  # reconnect backoff starts at one second
    await client.reconnected()
    # The broker kept nothing (no persistence; while stopping it may even have published the
    # app's will): "online" comes back because the app reconnected and said it again.
    await client.expect(f"{ROOT}/status", lambda message: message.state == "online")
    assert service.connection.connections == 2

    agent.release()
    client.publish(REQUEST, {"id": "k3", "text": "fast: sent after the restart"})
    for request_id in ("k1", "k2", "k3"):
        assert (await client.response(RESPONSE, request_id))["status"] == "done"
    await asyncio.sleep(0.3)
    assert answers_per_id(client) == {"k0": 1, "k1": 1, "k2": 1, "k3": 1}
    assert agent.executions == 4


async def test_stopping_answers_what_still_runs_and_says_offline(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    await client.subscribe(f"{ROOT}/status")
    agent = GatedAgent()
    api = ApiSettings(instance=INSTANCE, shutdown_grace_s=0.2)
    service = await start_service(agent, plain_settings(mosquitto), api)
    await client.expect(f"{ROOT}/status")
    client.publish(REQUEST, {"id": "x1", "text": "slow: never finishes"})
    await agent.wait_for_waiting(1)
    client.publish(REQUEST, {"id": "x1", "text": "slow: never finishes"})  # a waiting retry
    await asyncio.sleep(0.1)

    await service.stop()
    answers = [await client.response(RESPONSE, "x1") for _ in range(2)]
    assert all(a["status"] == "busy" and a["error"]["code"] == "shutting_down" for a in answers)
    assert (await client.expect(f"{ROOT}/status")).state == "offline"
    assert agent.executions == 0


PANELS_POLICY = """
version: 1
mqtt:
  kitchen-panel:
    rules:
      - allow: [read, control]
        areas: [kitchen]
  hallway-panel:
    rules:
      - allow: [read, control]
        areas: [kitchen]
"""


async def test_another_principals_id_space_is_its_own_down_to_ha(
    hass: HomeAssistant,
    ha_bridge: HaBridge,
    mosquitto: MosquittoBroker,
    start_service: StartService,
    client: ApiClient,
) -> None:
    """The same id from two principals runs twice in HA: the real agent and executor, not
    a counting double (the executor once cached by the bare id)."""
    policy = parse_policy(PANELS_POLICY, "panels.yaml")
    await start_service(make_agent(ha_bridge, policy=policy), plain_settings(mosquitto))
    kitchen = "light.kitchen_lights"

    client.publish(f"{REQUEST}/kitchen-panel", {"id": "d1", "text": "turn off the kitchen lights"})
    first = await client.response(f"{RESPONSE}/kitchen-panel", "d1")
    assert [a["outcome"] for a in first["actions"]] == ["executed"], first
    await wait_until(lambda: ha_bridge.index.home.state_of(kitchen).state == "off", 5)

    client.publish(f"{REQUEST}/hallway-panel", {"id": "d1", "text": "turn on the kitchen lights"})
    second = await client.response(f"{RESPONSE}/hallway-panel", "d1")
    assert [a["outcome"] for a in second["actions"]] == ["executed"], second
    await wait_until(lambda: ha_bridge.index.home.state_of(kitchen).state == "on", 5)
