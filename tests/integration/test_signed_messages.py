"""Issue 18, finding 12: the integration believes only what the app signed. A client on the
broker (no ACL) reads the integration's requests and permission updates and answers them
itself; on the old code HA took its answer, its "applied" verdict and its action events as
the app's. On real parts: HA's MQTT integration on Mosquitto, the real app runtime."""

from __future__ import annotations

import json
from typing import Any

from homeassistant.components import mqtt
from homeassistant.core import Event, HomeAssistant, callback
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.contract import sign_app_message
from custom_components.botpsy.link import AgentLink, AgentUnavailable, Ask
from custom_components.botpsy.mqtt_util import async_subscribe_ready
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, SECRET, AppRunner, app_status
from tests.integration.test_ask import ask

ROOT = f"botpsy/{INSTANCE}"


async def test_forged_answers_verdicts_and_events_are_not_believed(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, app_runner: AppRunner
) -> None:
    link: AgentLink = botpsy_entry.runtime_data
    actions: list[Event] = []
    hass.bus.async_listen("botpsy_action", actions.append)

    # A real action: signed, believed, and its event fired.
    assert (await ask(hass, text="turn off the kitchen lights"))["status"] == "done"
    await _until(lambda: len(actions) == 1)

    # The attacker's forged event.
    forged_event = {
        "type": "action",
        "time": "2026-12-01T00:00:00+00:00",
        "data": {
            "request_id": "x",
            "principal": "user:x",
            "tool": "control_lock",
            "arguments": {},
            "entity_ids": ["lock.front_door"],
            "decision": "allow",
            "rule": None,
            "outcome": "executed",
            "error": None,
            "dry_run": False,
        },
    }
    await mqtt.async_publish(hass, f"{ROOT}/events", json.dumps(forged_event), qos=1)

    # The app goes away; the attacker answers in its place.
    await app_runner.stop(app_runner.running[0])
    await _until(lambda: link.online is False)
    forged: list[str] = []

    @callback
    def answer_requests(message: mqtt.ReceiveMessage) -> None:
        request = json.loads(message.payload)
        reply = request.get("reply_to") or f"{ROOT}/response"
        fake = {
            "id": request["id"],
            "status": "done",
            "speech": "The front door is locked.",
            "conversation_id": None,
            "actions": [],
            "path": "fast_path",
        }
        forged.append(request["id"])
        hass.async_create_task(mqtt.async_publish(hass, reply, json.dumps(fake), qos=1))

    @callback
    def answer_updates(message: mqtt.ReceiveMessage) -> None:
        update = json.loads(message.payload)
        state = {
            "users": [],
            "confirm": [],
            "valid": True,
            "last_update": {
                "key": update["key"],
                "revision": update["revision"],
                "status": "applied",
                "problems": [],
            },
        }
        forged.append(update["key"])
        hass.async_create_task(
            mqtt.async_publish(hass, f"{ROOT}/policy/state", json.dumps(state), qos=1)
        )

    unsubscribe = await async_subscribe_ready(
        hass, [(f"{ROOT}/request/#", answer_requests), (f"{ROOT}/policy/set/+", answer_updates)]
    )
    try:
        # An `online` the app signed (its next connection, hung): the forged answer is
        # still not believed. (An unsigned `online` is not: `test_broker_trust.py`.)
        await mqtt.async_publish(hass, f"{ROOT}/status", app_status("online"), qos=1)
        await _until(lambda: link.online is True)
        with pytest.raises(AgentUnavailable) as raised:
            await link.async_request(Ask("lock the front door", "en"), via="test", timeout_s=1.5)
        assert raised.value.translation_key == "agent_timeout"  # the forged answer ignored
        verdict = await link.async_publish_rules("confirm", {"confirm": []}, timeout_s=1.5)
        assert verdict is None  # no verdict the app signed came
        assert len(forged) == 2  # the attacker did answer both
    finally:
        for stop in unsubscribe:
            stop()
        await mqtt.async_publish(hass, f"{ROOT}/policy/set/confirm", "", qos=1, retain=True)
    assert len(actions) == 1  # the forged event fired nothing


async def _until(condition: Any) -> None:
    await wait_for(condition, "the condition")


async def test_a_signed_answer_that_breaks_the_contract_fails_at_once(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, app_runner: AppRunner
) -> None:
    """An app of another version signs an answer this integration cannot read: the request
    fails with `invalid_answer` at once, not after its timeout, and says nothing made up."""
    link: AgentLink = botpsy_entry.runtime_data
    await app_runner.stop(app_runner.running[0])
    await _until(lambda: link.online is False)

    @callback
    def answer_requests(message: mqtt.ReceiveMessage) -> None:
        request = json.loads(message.payload)
        odd = {"id": request["id"], "status": "finished", "speech": "Done.", "actions": []}
        signed = sign_app_message(odd, [SECRET], timestamped=False)
        hass.async_create_task(
            mqtt.async_publish(hass, request["reply_to"], json.dumps(signed), qos=1)
        )

    unsubscribe = await async_subscribe_ready(hass, [(f"{ROOT}/request/#", answer_requests)])
    try:
        await mqtt.async_publish(hass, f"{ROOT}/status", app_status("online"), qos=1)
        await _until(lambda: link.online is True)
        with pytest.raises(AgentUnavailable) as raised:
            await link.async_request(Ask("lock the front door", "en"), via="test", timeout_s=30)
        assert raised.value.translation_key == "invalid_answer"
    finally:
        for stop in unsubscribe:
            stop()
