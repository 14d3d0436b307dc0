"""Finding running BotPsy apps: their retained `botpsy/<instance>/info` and `status`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from homeassistant.components import mqtt
from homeassistant.core import HomeAssistant, callback

from .const import INSTANCE_PATTERN
from .mqtt_util import async_subscribe_ready, json_object
from .topics import INFO_WILDCARD, STATUS_WILDCARD

DISCOVERY_SETTLE_S = 0.2
"""After the broker confirms a subscription, how long retained messages may take to arrive."""


@dataclass(frozen=True)
class FoundAgent:
    """An app instance the broker knows of."""

    instance: str
    online: bool
    info: dict[str, Any] | None


def instance_of(topic: str) -> str | None:
    """`home` for `botpsy/home/info`; None for a topic no instance could have."""
    parts = topic.split("/")
    if len(parts) == 3 and INSTANCE_PATTERN.fullmatch(parts[1]):
        return parts[1]
    return None


async def async_find_agents(hass: HomeAssistant) -> dict[str, FoundAgent]:
    """Every instance with a retained info or status on the broker, by instance name.
    Empty when HA's MQTT client is not connected."""
    infos: dict[str, dict[str, Any]] = {}
    statuses: dict[str, bool] = {}

    @callback
    def info_received(message: mqtt.ReceiveMessage) -> None:
        instance, info = instance_of(message.topic), json_object(message.payload)
        if instance is not None and info is not None:
            infos[instance] = info

    @callback
    def status_received(message: mqtt.ReceiveMessage) -> None:
        if (instance := instance_of(message.topic)) is not None:
            statuses[instance] = message.payload == "online"

    try:
        unsubscribe = await async_subscribe_ready(
            hass, [(INFO_WILDCARD, info_received), (STATUS_WILDCARD, status_received)]
        )
    except TimeoutError:
        return {}
    await asyncio.sleep(DISCOVERY_SETTLE_S)
    for stop in unsubscribe:
        stop()
    return {
        instance: FoundAgent(instance, statuses.get(instance, False), infos.get(instance))
        for instance in sorted(infos.keys() | statuses.keys())
    }
