"""A real HA, with its own MQTT integration on the same real broker, finds the BotPsy agent
device through discovery; its entities follow the app, and its button reaches the app."""

from __future__ import annotations

import asyncio
import json

from homeassistant.components import mqtt
from homeassistant.components.mqtt import client as mqtt_client
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import device_registry as dr, entity_registry as er
import pytest

from botpsy_agent.mqtt import AnnouncedModel
from devkit.mosquitto import MosquittoBroker
from tests.ha_mqtt import ha_subscribe, set_up_ha_mqtt, wait_for
from tests.mqtt.agents import EchoAgent
from tests.mqtt.conftest import INSTANCE, ROOT, StartService, plain_settings

DEVICE = f"botpsy_{INSTANCE}"
ENTITIES = {
    "status": "sensor",
    "model": "sensor",
    "last_latency": "sensor",
    "requests_per_minute": "sensor",
    "queue_length": "sensor",
    "busy": "binary_sensor",
    "health": "sensor",
    "reload_model": "button",
}


def _state(hass: HomeAssistant, key: str) -> str | None:
    state = hass.states.get(f"{ENTITIES[key]}.{DEVICE}_{key}")
    return None if state is None else state.state


async def test_ha_discovers_the_agent_device_and_its_entities_follow_the_app(
    hass: HomeAssistant,
    mosquitto: MosquittoBroker,
    start_service: StartService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # HA waits for 5 s of discovery silence before its birth message; a shorter quiet time
    # changes nothing else and keeps the test quick.
    monkeypatch.setattr(mqtt_client, "DISCOVERY_COOLDOWN", 0.2)
    presses: list[bool] = []

    async def reload_model() -> None:
        presses.append(True)

    entry = await set_up_ha_mqtt(hass, mosquitto)
    service = await start_service(
        EchoAgent(),
        plain_settings(mosquitto),
        model=AnnouncedModel("BotPsy-0.8B-Q4_K_M.gguf", "Q4_K_M", "qwen35"),
        on_reload_model=reload_model,
    )
    devices = dr.async_get(hass)

    def device() -> dr.DeviceEntry | None:
        return devices.async_get_device_by_identifier(("mqtt", DEVICE), entry.entry_id)

    await wait_for(lambda: device() is not None, "the device")
    agent_device = device()
    assert agent_device is not None
    assert agent_device.name == f"BotPsy agent ({INSTANCE})"  # one name per instance
    assert agent_device.manufacturer == "BotPsy"
    entities = er.async_get(hass)
    await wait_for(
        lambda: all(_state(hass, key) not in {None, "unavailable"} for key in ENTITIES),
        "every entity",
    )
    for key, platform in ENTITIES.items():
        entity_id = entities.async_get_entity_id(platform, "mqtt", f"{DEVICE}_{key}")
        assert entity_id == f"{platform}.{DEVICE}_{key}"  # default_entity_id was honoured
        registered = entities.async_get(entity_id)
        assert registered is not None and registered.device_id == agent_device.id
    # Issue 25: every HA user may press a button; pairing is no button's any more.
    assert entities.async_get_entity_id("button", "mqtt", f"{DEVICE}_open_pairing") is None
    # HA restarting announces itself online: the app announces everything again.
    announced = service.announcements
    await mqtt.async_publish(hass, "homeassistant/status", "online", qos=1, retain=False)
    await wait_for(lambda: service.announcements == announced + 1, "another announcement")

    assert _state(hass, "status") == "online"
    assert _state(hass, "model") == "BotPsy-0.8B-Q4_K_M.gguf"
    assert _state(hass, "queue_length") == "0"
    assert _state(hass, "busy") == "off"
    assert _state(hass, "health") == "ok"
    service.set_health(["model: restarting the model"])
    await wait_for(lambda: _state(hass, "health") == "degraded", "health degraded")
    problems = hass.states.get(f"sensor.{DEVICE}_health").attributes["problems"]  # type: ignore[union-attr]
    assert problems == ["model: restarting the model"]
    service.set_health([])
    await wait_for(lambda: _state(hass, "health") == "ok", "health ok again")

    # A request through HA's own MQTT client (as the integration will send it).
    answers: asyncio.Queue[dict[str, object]] = asyncio.Queue()

    @callback
    def on_answer(message: mqtt.ReceiveMessage) -> None:
        answers.put_nowait(json.loads(message.payload))

    reply_to = f"{ROOT}/response/ha"
    unsubscribe = await ha_subscribe(hass, reply_to, on_answer)
    request = {"id": "ha-1", "text": "hello from HA", "reply_to": reply_to}
    await mqtt.async_publish(hass, f"{ROOT}/request", json.dumps(request), qos=1, retain=False)
    answer = await asyncio.wait_for(answers.get(), 10)
    assert (answer["id"], answer["status"]) == ("ha-1", "done")
    await wait_for(lambda: _state(hass, "requests_per_minute") == "1", "the request rate")
    await wait_for(lambda: _state(hass, "last_latency") not in {"unknown"}, "a latency")
    latency = _state(hass, "last_latency")
    assert latency is not None and float(latency) > 0
    unsubscribe()

    # HA's button reaches the app.
    await hass.services.async_call(
        "button", "press", {"entity_id": f"button.{DEVICE}_reload_model"}, blocking=True
    )
    await wait_for(lambda: presses == [True], "the reload callback")

    # The app stops: HA shows it offline and the rest unavailable.
    await service.stop()
    await wait_for(lambda: _state(hass, "status") == "offline", "status offline")
    assert _state(hass, "queue_length") == "unavailable"
    assert await hass.config_entries.async_unload(entry.entry_id)
