"""Finding running BotPsy apps: their retained `botpsy/<instance>/status`."""

from __future__ import annotations

import asyncio

from homeassistant.components import mqtt
from homeassistant.core import HomeAssistant, callback

from .contract import INSTANCE_PATTERN, STATUS_WILDCARD
from .mqtt_util import async_subscribe_ready, json_object

DISCOVERY_SETTLE_S = 0.2
"""After the broker confirms a subscription, how long retained messages may take to arrive."""


def instance_of(topic: str) -> str | None:
    """`home` for `botpsy/home/info`; None for a topic no instance could have."""
    parts = topic.split("/")
    if len(parts) == 3 and INSTANCE_PATTERN.fullmatch(parts[1]):
        return parts[1]
    return None


async def async_online_instances(hass: HomeAssistant) -> list[str]:
    """The instances whose status on the broker says online, sorted. Empty when HA's MQTT
    client is not connected. Only a list to choose from: before pairing nothing the app
    signs can be checked, and pairing proves the app."""
    online: dict[str, bool] = {}

    @callback
    def status_received(message: mqtt.ReceiveMessage) -> None:
        if (instance := instance_of(message.topic)) is not None:
            status = json_object(message.payload)
            online[instance] = status is not None and status.get("state") == "online"

    try:
        unsubscribe = await async_subscribe_ready(hass, [(STATUS_WILDCARD, status_received)])
    except TimeoutError:
        return []
    await asyncio.sleep(DISCOVERY_SETTLE_S)
    for stop in unsubscribe:
        stop()
    return sorted(instance for instance, is_online in online.items() if is_online)
