"""HA's own MQTT integration in this test's `hass`, on a real broker, and waiting for what
HA does with the messages that arrive."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from homeassistant.components import mqtt
from homeassistant.core import CALLBACK_TYPE, HomeAssistant
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from devkit.mosquitto import MosquittoBroker


async def set_up_ha_mqtt(hass: HomeAssistant, broker: MosquittoBroker) -> MockConfigEntry:
    """HA's MQTT integration set up and connected to `broker`; its config entry."""
    assert await async_setup_component(hass, "homeassistant", {})
    entry = MockConfigEntry(domain="mqtt", data={"broker": broker.host, "port": broker.port})
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert await mqtt.async_wait_for_mqtt_client(hass)
    return entry


async def ha_subscribe(
    hass: HomeAssistant, topic: str, on_message: Callable[[mqtt.ReceiveMessage], None]
) -> CALLBACK_TYPE:
    """Subscribe through HA's MQTT client and wait for the broker's SUBACK, so nothing
    published afterwards is missed; returns the unsubscribe callback."""
    unsubscribe = await mqtt.async_subscribe(hass, topic, on_message, qos=1)
    subscribed = asyncio.Event()
    mqtt.async_on_subscribe_done(hass, topic, 1, subscribed.set)
    await asyncio.wait_for(subscribed.wait(), 10)
    return unsubscribe


async def wait_for(check: Callable[[], object], what: str, timeout_s: float = 10.0) -> None:
    """Poll `check` until it is true; fails the test, naming `what`, after `timeout_s`."""
    try:
        async with asyncio.timeout(timeout_s):
            while not check():  # noqa: ASYNC110 - HA state follows the broker
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None
