"""What the integration meets on a real broker besides a well-behaved app: junk on the app's
topics, no broker at all, no MQTT integration."""

from __future__ import annotations

import json

from homeassistant import config_entries
from homeassistant.components import mqtt
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.botpsy.const import CONF_INSTANCE, CONF_SECRET, DOMAIN
from custom_components.botpsy.link import AgentLink
from custom_components.botpsy.pairing import PairingError, async_pair
from devkit.mosquitto import MosquittoBroker
from tests.ha_home import HaHome
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, SECRET, SetupEntry
from tests.integration.test_ask import ask
from tests.integration.test_conversation import process, speech


async def test_junk_on_the_apps_topics_changes_nothing(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    link: AgentLink = botpsy_entry.runtime_data
    info, policy = link.info, link.policy_state
    root = f"botpsy/{INSTANCE}"
    for topic, payload in (
        (f"{root}/info", "not json"),
        (f"{root}/policy/state", "[1, 2]"),
        (f"{root}/events", json.dumps({"type": "request_refused", "data": {}})),
        (f"{root}/events", json.dumps({"type": "action", "data": "nothing"})),
        (f"{root}/response/homeassistant/{botpsy_entry.entry_id}", '{"id": "nobody"}'),
        (f"{root}/response/homeassistant/{botpsy_entry.entry_id}", "garbage"),
        ("botpsy/Not An Instance/status", "online"),
        ("botpsy/elsewhere/info", "not json"),
    ):
        await mqtt.async_publish(hass, topic, payload, qos=1, retain=False)
    response = await ask(hass, text="turn off the kitchen lights")  # after all of them
    assert response["status"] == "done"
    assert (link.info, link.policy_state) == (info, policy)
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["description_placeholders"] == {"found": "1"}


async def test_no_broker(
    hass: HomeAssistant,
    setup_entry: SetupEntry,
    mosquitto: MosquittoBroker,
    ha_home: HaHome,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await setup_entry(wait_online=False)
    monkeypatch.setattr("custom_components.botpsy.mqtt_util.SUBSCRIBE_TIMEOUT_S", 0.3)
    await hass.async_add_executor_job(mosquitto.stop)
    await wait_for(lambda: not mqtt.is_connected(hass), "HA disconnected")
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["description_placeholders"] == {"found": "0"}
    with pytest.raises(PairingError) as raised:
        await async_pair(hass, INSTANCE)
    assert raised.value.reason == "cannot_connect"
    # Assist and the action say what is wrong.
    result = await process(hass, "turn off the kitchen lights", ha_home.users["Daniel"])
    assert speech(result) == "Home Assistant's MQTT integration is not ready."
    with pytest.raises(HomeAssistantError) as raised:
        await ask(hass, text="turn off the kitchen lights")
    assert raised.value.translation_key == "mqtt_unavailable"
    entry = MockConfigEntry(
        domain=DOMAIN, unique_id="upstairs", data={CONF_INSTANCE: "upstairs", CONF_SECRET: SECRET}
    )
    entry.add_to_hass(hass)
    assert not await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.SETUP_RETRY


async def test_no_mqtt_integration(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    entry = MockConfigEntry(
        domain=DOMAIN, unique_id=INSTANCE, data={CONF_INSTANCE: INSTANCE, CONF_SECRET: SECRET}
    )
    entry.add_to_hass(hass)
    assert not await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.SETUP_RETRY
