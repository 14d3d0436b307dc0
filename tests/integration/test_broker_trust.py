"""Issue 25, finding 3: without a broker ACL the broker is no trust boundary. Any login may
write every topic of the app and read every answer; on the old code an unsigned request on
`request/homeassistant` acted (and could confirm) as Home Assistant, a fake `offline` failed
every request, a fake `bad_signature` started a re-pair, a signed event replayed fired
`botpsy_action` twice, and answers showed what was said and done to every login.

On real parts: HA's MQTT integration on a real Mosquitto without an ACL (the attacker uses
the same broker), the real app runtime, the real integration."""

from __future__ import annotations

import json
from typing import Any

from homeassistant import config_entries
from homeassistant.components import mqtt
from homeassistant.core import HomeAssistant, callback
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.contract import sign_app_message
from custom_components.botpsy.contract import open_answer
from custom_components.botpsy.link import AgentLink, Ask
from custom_components.botpsy.mqtt_util import async_subscribe_ready
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, SECRET, AppRunner, app_status
from tests.integration.test_ask import ask
from tests.integration.test_conversation import capture_actions

ROOT = f"botpsy/{INSTANCE}"
KITCHEN = "light.kitchen_lights"


class Listener:
    """A login of the attacker's on the same broker: every message on some topics."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str]] = []

    @callback
    def received(self, message: mqtt.ReceiveMessage) -> None:
        self.messages.append((message.topic, str(message.payload)))

    def on(self, topic_prefix: str) -> list[dict[str, Any]]:
        return [json.loads(p) for t, p in self.messages if t.startswith(topic_prefix)]


async def listen(hass: HomeAssistant, *topics: str) -> tuple[Listener, list[Any]]:
    listener = Listener()
    stop = await async_subscribe_ready(hass, [(topic, listener.received) for topic in topics])
    return listener, stop


def light(hass: HomeAssistant) -> str:
    state = hass.states.get(KITCHEN)
    assert state is not None
    return state.state


async def test_an_unsigned_request_on_the_homeassistant_topic_is_not_home_assistant(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry
) -> None:
    assert light(hass) == "on"
    listener, stop = await listen(hass, f"{ROOT}/response/#")
    try:
        forged = {"id": "forged-1", "text": "turn off the kitchen lights"}
        await mqtt.async_publish(hass, f"{ROOT}/request/homeassistant", json.dumps(forged), 1)
        await wait_for(lambda: listener.on(f"{ROOT}/response/homeassistant"), "the refusal")
    finally:
        for unsubscribe in stop:
            unsubscribe()
    (answer,) = listener.on(f"{ROOT}/response/homeassistant")
    assert (answer["id"], answer["status"]) == ("forged-1", "refused")
    assert answer["error"]["code"] == "unauthenticated"
    assert light(hass) == "on"  # nothing ran

    # The integration signs as Home Assistant (an automation, no user): that acts.
    response = await ask(hass, text="turn off the kitchen lights")
    assert response["status"] == "done", response
    assert light(hass) == "off"


async def test_status_and_info_the_app_did_not_sign_are_not_believed(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, app_runner: AppRunner
) -> None:
    link: AgentLink = botpsy_entry.runtime_data
    assert link.online is True
    assert link.info is not None
    info = dict(link.info.document)
    status = f"{ROOT}/status"
    # Plain text, unsigned JSON, another secret's signature, an old signed `offline` of
    # another connection: none makes HA think the app is offline.
    for fake in (
        "offline",
        json.dumps({"state": "offline", "session": "s", "ts": 2**31, "sigs": {}}),
        app_status("offline", "s", secret="not-our-secret-0123456789abcdef"),
        json.dumps(
            sign_app_message({"state": "offline", "session": "old"}, [SECRET], now=1_000_000)
        ),
    ):
        await mqtt.async_publish(hass, status, fake, 1)
    forged_info = {**info, "languages": ["xx"], "model": None}
    await mqtt.async_publish(hass, f"{ROOT}/info", json.dumps(forged_info), 1)
    await mqtt.async_publish(hass, f"{ROOT}/events", "{}", 1)  # a message after them all
    await hass.async_block_till_done()
    assert link.online is True
    assert dict(link.info.document) == info
    response = await link.async_request(Ask("turn off the kitchen lights", "en"), via="test")
    assert response.status == "done"
    # The app's own `offline` (its stop) is believed.
    await app_runner.stop(app_runner.running[0])
    await wait_for(lambda: link.online is False, "the app's own offline")


async def test_a_fake_bad_signature_neither_fails_the_request_nor_asks_to_re_pair(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: Any
) -> None:
    @callback
    def refuse(message: mqtt.ReceiveMessage) -> None:
        request = json.loads(message.payload)
        fake = {
            "id": request["id"],
            "status": "refused",
            "speech": "the signature does not match",
            "error": {"code": "bad_signature", "message": "the signature does not match"},
            "actions": [],
        }
        hass.async_create_task(mqtt.async_publish(hass, request["reply_to"], json.dumps(fake), 1))

    stop = await async_subscribe_ready(hass, [(f"{ROOT}/request/#", refuse)])
    try:
        response = await ask(hass, ha_home.users["Daniel"], text="turn off the kitchen lights")
    finally:
        for unsubscribe in stop:
            unsubscribe()
    await hass.async_block_till_done()
    assert response["status"] == "done", response  # the app's own, signed answer
    assert light(hass) == "off"
    assert not list(botpsy_entry.async_get_active_flows(hass, {config_entries.SOURCE_REAUTH}))


async def test_a_replayed_event_fires_nothing(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry
) -> None:
    actions = capture_actions(hass)
    listener, stop = await listen(hass, f"{ROOT}/events")
    try:
        assert (await ask(hass, text="turn off the kitchen lights"))["status"] == "done"
        await wait_for(lambda: actions and listener.on(f"{ROOT}/events"), "the event")
        (event,) = [e for e in listener.on(f"{ROOT}/events") if e["type"] == "action"]
        await mqtt.async_publish(hass, f"{ROOT}/events", json.dumps(event), 1)
        await wait_for(lambda: len(listener.on(f"{ROOT}/events")) == 2, "the replay")
        await hass.async_block_till_done()
    finally:
        for unsubscribe in stop:
            unsubscribe()
    assert len(actions) == 1


async def test_answers_show_other_logins_no_words_and_no_actions(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: Any
) -> None:
    listener, stop = await listen(hass, f"{ROOT}/response/#")
    try:
        response = await ask(hass, ha_home.users["Daniel"], text="turn off the kitchen lights")
        await wait_for(lambda: listener.on(f"{ROOT}/response"), "the answer on the broker")
    finally:
        for unsubscribe in stop:
            unsubscribe()
    assert response["speech"] == "Turned off Kitchen Lights."
    assert response["actions"][0]["entity_ids"] == [KITCHEN]
    ((_, raw),) = listener.messages
    assert "Kitchen" not in raw and "kitchen" not in raw
    seen = json.loads(raw)
    assert "speech" not in seen and "actions" not in seen
    assert seen["status"] == "done"
    # Only our secret opens it.
    assert open_answer(seen, SECRET) is not None
    wrong = open_answer(seen, "not-our-secret-0123456789abcdef")
    assert wrong is None or wrong.get("speech") != response["speech"]
