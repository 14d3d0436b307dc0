"""The topic API over a real Mosquitto: round trips, bad input, announcements, events."""

from __future__ import annotations

import asyncio
import json
import logging

import paho.mqtt.client as mqtt
import pytest

from botpsy_agent import __version__
from botpsy_agent.agent.protocol import ActionReport, AgentRequest, AgentResponse, Outcome, Status
from botpsy_agent.mqtt import AnnouncedModel, ApiSettings, MqttService
from devkit.mosquitto import MosquittoBroker
from tests.mqtt.agents import ActingAgent, EchoAgent, FailingAgent
from tests.mqtt.client import ApiClient, subscribed_client
from tests.mqtt.conftest import INSTANCE, ROOT, StartService, plain_settings
from tests.mqtt.malformed import MALFORMED
from tool_schemas.catalog import catalog, catalog_version

REQUEST, RESPONSE = f"{ROOT}/request", f"{ROOT}/response"


async def test_round_trip_correlates_by_id_and_reply_to(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = EchoAgent()
    await start_service(agent, plain_settings(mosquitto))

    client.publish(
        REQUEST,
        {"id": "r1", "text": "hello", "reply_to": f"{RESPONSE}/app/7", "conversation_id": "c1"},
    )
    client.publish(REQUEST, {"id": "r2", "text": "no address", "language": "ko"})
    client.publish(f"{REQUEST}/kitchen-panel", {"id": "r3", "text": "from the panel"})

    first = await client.response(f"{RESPONSE}/app/7", "r1")
    assert first["status"] == "done"
    assert first["speech"] == "anonymous:anonymous said: hello"
    assert first["conversation_id"] == "c1"
    assert first["timings"]["total_ms"] > 0
    second = await client.response(RESPONSE, "r2")
    assert second["speech"] == "anonymous:anonymous said: no address"
    third = await client.response(f"{RESPONSE}/kitchen-panel", "r3")
    assert third["speech"] == "mqtt:kitchen-panel said: from the panel"
    assert [r.language for r in agent.requests] == ["en", "ko", "en"]
    assert all(not m.retain for m in client.received(RESPONSE))


async def test_mqtt5_response_topic_and_correlation_data_are_honoured(
    mosquitto: MosquittoBroker, start_service: StartService
) -> None:
    await start_service(EchoAgent(), plain_settings(mosquitto))
    async with subscribed_client(mosquitto, f"{RESPONSE}/#", protocol=mqtt.MQTTv5) as client:
        client.publish(
            REQUEST,
            {"id": "v5-1", "text": "hi"},
            response_topic=f"{RESPONSE}/v5-client",
            correlation_data=b"\x00corr-42",
        )
        answer = await client.expect(f"{RESPONSE}/v5-client")
        assert answer.json()["id"] == "v5-1"
        assert answer.correlation_data == b"\x00corr-42"
        # A forbidden response topic is answered (with its correlation) on the default one.
        client.publish(
            REQUEST,
            {"id": "v5-2", "text": "hi"},
            response_topic="elsewhere",
            correlation_data=b"c2",
        )
        refused = await client.expect(RESPONSE)
        assert (refused.json()["id"], refused.json()["error"]["code"]) == (
            "v5-2",
            "invalid_reply_to",
        )
        assert refused.correlation_data == b"c2"


async def test_every_malformed_kind_is_answered_with_its_code_and_a_log_line(
    mosquitto: MosquittoBroker,
    start_service: StartService,
    client: ApiClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    retained = [case for case in MALFORMED if case.retained]
    for case in retained:  # waiting on the broker before the service subscribes
        client.publish(REQUEST, case.payload, retain=True)
    await asyncio.sleep(0.1)
    agent = EchoAgent()
    await start_service(agent, plain_settings(mosquitto))
    seen = set()
    for case in [*retained, *(case for case in MALFORMED if not case.retained)]:
        if not case.retained:
            client.publish(REQUEST, case.payload)
        answer = json.loads((await client.expect(RESPONSE)).payload)
        assert answer["id"] == case.request_id, case.name
        assert answer["status"] == "error", case.name
        assert answer["error"]["code"] == case.code.value, case.name
        assert answer["error"]["message"], case.name
        log = [
            r
            for r in caplog.records
            if r.levelno == logging.WARNING and case.code in r.getMessage()
        ]
        assert log, f"no log line for {case.name}"
        seen.add(case.code)
    assert agent.requests == []  # none of them reached the agent
    assert len(seen) >= 15


async def test_a_bad_reply_address_is_answered_where_the_requester_may_read(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    agent = EchoAgent()
    await start_service(agent, plain_settings(mosquitto))
    client.publish(REQUEST, {"id": "w1", "text": "hi", "reply_to": f"{RESPONSE}/#"})
    client.publish(
        f"{REQUEST}/kitchen-panel",
        {"id": "w2", "text": "hi", "reply_to": f"{RESPONSE}/someone-else"},
    )
    wildcard = await client.response(RESPONSE, "w1")
    foreign = await client.response(f"{RESPONSE}/kitchen-panel", "w2")
    assert wildcard["error"]["code"] == foreign["error"]["code"] == "invalid_reply_to"
    assert client.received(f"{RESPONSE}/someone-else") == []
    assert agent.requests == []


async def test_a_failing_agent_still_answers_once(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    await start_service(FailingAgent(), plain_settings(mosquitto))
    client.publish(REQUEST, {"id": "f1", "text": "hi"})
    answer = await client.response(RESPONSE, "f1")
    assert (answer["status"], answer["error"]["code"]) == ("error", "internal_error")
    await asyncio.sleep(0.1)
    assert len(client.received(RESPONSE)) == 1


async def test_events_report_executed_planned_and_refused_actions(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    await client.subscribe(f"{ROOT}/events")
    agent = ActingAgent()
    await start_service(agent, plain_settings(mosquitto))
    client.publish(f"{REQUEST}/kitchen-panel", {"id": "e1", "text": "kitchen light on"})
    client.publish(REQUEST, {"id": "e2", "text": "kitchen light on", "dry_run": True})
    client.publish(REQUEST, {"id": "e3", "text": "hi", "user_id": "u1"})  # unsigned

    events = [(await client.expect(f"{ROOT}/events")).json() for _ in range(3)]
    by_request = {event["data"]["request_id"]: event for event in events}
    executed, planned, refused = by_request["e1"], by_request["e2"], by_request["e3"]
    assert executed["type"] == "action"
    assert executed["data"] | {"arguments": None} == {
        "request_id": "e1",
        "principal": "mqtt:kitchen-panel",
        "tool": "turn_on",
        "arguments": None,
        "entity_ids": ["light.kitchen"],
        "decision": "allow",
        "rule": "admins",
        "outcome": "executed",
        "error": None,
        "dry_run": False,
    }
    assert (planned["data"]["outcome"], planned["data"]["dry_run"]) == ("planned", True)
    assert refused["type"] == "request_refused"
    assert refused["data"]["code"] == "unauthenticated"
    assert refused["data"]["claimed_user_id"] == "u1"
    assert agent.executions == 1


async def test_status_info_tools_are_retained_and_stopping_says_offline(
    mosquitto: MosquittoBroker, start_service: StartService
) -> None:
    model = AnnouncedModel("BotPsy-0.8B-Q4_K_M.gguf", "Q4_K_M", "qwen35")
    service = await start_service(EchoAgent(), plain_settings(mosquitto), model=model)
    # This client subscribes after everything was announced.
    async with subscribed_client(
        mosquitto, f"{ROOT}/status", f"{ROOT}/info", f"{ROOT}/tools", f"{ROOT}/stats"
    ) as late:
        status = await late.expect(f"{ROOT}/status")
        assert (status.state, status.retain) == ("online", True)
        info = (await late.expect(f"{ROOT}/info")).json()
        assert info["version"] == __version__
        assert info["instance"] == INSTANCE
        assert info["model"] == {
            "file": "BotPsy-0.8B-Q4_K_M.gguf",
            "quant": "Q4_K_M",
            "architecture": "qwen35",
        }
        assert info["languages"] == ["en", "ko", "id"]
        assert info["tools_version"] == catalog_version()
        assert "signed_user_requests" in info["capabilities"]
        tools = (await late.expect(f"{ROOT}/tools")).json()
        assert tools == {"version": catalog_version(), "tools": catalog()}
        stats = (await late.expect(f"{ROOT}/stats")).json()
        assert stats["queue_length"] == 0

        await service.stop()
        offline = await late.expect(f"{ROOT}/status")
        assert offline.state == "offline"
    async with subscribed_client(mosquitto, f"{ROOT}/status") as again:
        assert (await again.expect(f"{ROOT}/status")).state == "offline"  # retained


async def test_ha_coming_online_makes_the_app_announce_again(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    discovery = f"homeassistant/device/botpsy_{INSTANCE}/config"
    await client.subscribe(discovery)
    service = await start_service(EchoAgent(), plain_settings(mosquitto))
    on_connect = await client.expect(discovery)
    assert not on_connect.retain  # HA asks again when it comes online: no ghosts
    client.publish("homeassistant/status", "online")
    config = (await client.expect(discovery)).json()
    assert config == on_connect.json()
    assert config["device"]["name"] == f"BotPsy agent ({INSTANCE})"
    assert set(config["components"]) == {
        "status",
        "model",
        "last_latency",
        "requests_per_minute",
        "queue_length",
        "model_state",
        "busy",
        "health",
        "reload_model",
        "open_pairing",
    }
    # The old button is announced as removed (a platform alone), so HA drops it.
    assert config["components"].pop("open_pairing") == {"platform": "button"}
    for key, component in config["components"].items():
        assert component["unique_id"] == f"botpsy_{INSTANCE}_{key}"
        assert component["default_entity_id"] == f"{component['platform']}.botpsy_{INSTANCE}_{key}"
        assert "object_id" not in component
    client.publish("homeassistant/status", "offline")  # HA going away asks for nothing
    await asyncio.sleep(0.2)
    assert len(client.received(discovery)) == 2
    assert service.announcements == 2


async def test_the_reload_button_calls_back_and_republishes_info(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    presses: list[str] = []
    service: list[MqttService] = []

    async def reload_model() -> None:  # what the app's model loader will do
        presses.append("pressed")
        service[0].set_model(AnnouncedModel("reloaded.gguf", "Q8_0", "qwen35"))

    started = await start_service(
        EchoAgent(),
        plain_settings(mosquitto),
        ApiSettings(instance=INSTANCE),
        on_reload_model=reload_model,
    )
    service.append(started)
    await client.subscribe(f"{ROOT}/info")
    await client.expect(f"{ROOT}/info")  # the retained one
    client.publish(f"{ROOT}/command/reload_model", "PRESS")
    info = (await client.expect(f"{ROOT}/info")).json()
    assert info["model"]["file"] == "reloaded.gguf"
    assert presses == ["pressed"]


class MessagingAgent:
    """Sends one message for every request (the body is what must not leak)."""

    async def handle(self, request: AgentRequest) -> AgentResponse:
        action = ActionReport(
            tool="send_message",
            arguments={"recipient": "notify.mobile_app_anna", "message": SPARE_KEY},
            entity_ids=["notify.mobile_app_anna"],
            outcome=Outcome.EXECUTED,
        )
        return AgentResponse(request.id, Status.DONE, speech="Sent.", actions=[action])


SPARE_KEY = "The spare key is under the blue flower pot"


@pytest.mark.parametrize("bodies", [False, True])
async def test_events_carry_message_bodies_only_when_the_option_says_so(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient, bodies: bool
) -> None:
    """Issue 18, finding 5: the audit log redacted arguments, the events topic (and HA's
    `botpsy_action` bus event made from it, kept by HA's recorder) carried them in full."""
    await client.subscribe(f"{ROOT}/events")
    await start_service(MessagingAgent(), plain_settings(mosquitto), message_bodies=bodies)
    client.publish(f"{REQUEST}/kitchen-panel", {"id": "m1", "text": "tell Anna"})
    event = (await client.expect(f"{ROOT}/events")).json()
    arguments = event["data"]["arguments"]
    assert arguments["recipient"] == "notify.mobile_app_anna"  # who, always
    assert arguments["message"] == (SPARE_KEY if bodies else f"<{len(SPARE_KEY)} chars>")


async def test_reload_presses_run_one_at_a_time_and_a_retained_one_is_ignored(
    mosquitto: MosquittoBroker, start_service: StartService, client: ApiClient
) -> None:
    """Issue 18, finding 7: five presses started five reloads at once; a retained press was
    obeyed at every start."""
    client.publish(f"{ROOT}/command/reload_model", "PRESS", retain=True)
    running, presses = asyncio.Event(), []
    release = asyncio.Event()

    async def reload_model() -> None:
        presses.append("pressed")
        running.set()
        await release.wait()

    await start_service(
        EchoAgent(),
        plain_settings(mosquitto),
        ApiSettings(instance=INSTANCE),
        on_reload_model=reload_model,
    )
    await asyncio.sleep(0.3)
    assert presses == []  # the retained press did nothing
    client.publish(f"{ROOT}/command/reload_model", b"", retain=True)
    for _ in range(5):
        client.publish(f"{ROOT}/command/reload_model", "PRESS")
    await asyncio.wait_for(running.wait(), 5)
    await asyncio.sleep(0.3)
    assert presses == ["pressed"]
    release.set()
    await asyncio.sleep(0.1)
    client.publish(f"{ROOT}/command/reload_model", "PRESS")  # once done, a press reloads
    async with asyncio.timeout(5):
        while len(presses) < 2:  # noqa: ASYNC110 - the callback is the only signal
            await asyncio.sleep(0.02)
