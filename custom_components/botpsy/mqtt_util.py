"""Small helpers over Home Assistant's own MQTT client."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
import json
from typing import Any

from homeassistant.components import mqtt
from homeassistant.core import CALLBACK_TYPE, HomeAssistant

SUBSCRIBE_TIMEOUT_S = 10.0
QOS = 1

type Handler = Callable[[mqtt.ReceiveMessage], None]


async def async_subscribe_ready(
    hass: HomeAssistant,
    subscriptions: Sequence[tuple[str, Handler]],
    timeout_s: float | None = None,
) -> list[CALLBACK_TYPE]:
    """Subscribe to every topic and return once the broker confirmed them all, so nothing
    published afterwards can be missed; the unsubscribe callbacks. Raises TimeoutError
    (nothing left subscribed) when the broker does not confirm in time."""
    unsubscribe: list[CALLBACK_TYPE] = []
    watchers: list[CALLBACK_TYPE] = []
    confirmed: list[asyncio.Event] = []
    try:
        for topic, handler in subscriptions:
            unsubscribe.append(await mqtt.async_subscribe(hass, topic, handler, QOS))
            done = asyncio.Event()
            confirmed.append(done)
            watchers.append(mqtt.async_on_subscribe_done(hass, topic, QOS, done.set))
        async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S if timeout_s is None else timeout_s):
            for done in confirmed:
                await done.wait()
    except BaseException:
        for callback in unsubscribe:
            callback()
        raise
    finally:
        for stop_watching in watchers:
            stop_watching()
    return unsubscribe


async def async_publish_json(
    hass: HomeAssistant, topic: str, document: dict[str, Any], *, retain: bool = False
) -> None:
    payload = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    await mqtt.async_publish(hass, topic, payload, qos=QOS, retain=retain)


def json_object(payload: str | bytes | bytearray) -> dict[str, Any] | None:
    """The payload as a JSON object, or None when it is anything else."""
    try:
        value = json.loads(payload)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
