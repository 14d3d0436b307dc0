"""Simulated devices for the BotPsy demo: real HA entities whose "hardware" is memory.

HA core's own `demo` integration loads dozens of platforms (camera, TTS, the frontend…) that
need packages the demo does not install; this small integration gives exactly the home the
demo and the evaluation need, with names of our own, and a `demo_home.reset` action that puts
every device back as it started (the evaluation runs each case from the same home).
"""

from __future__ import annotations

import asyncio
import os

from homeassistant.core import HomeAssistant, ServiceCall
from homeassistant.helpers.discovery import async_load_platform
from homeassistant.helpers.typing import ConfigType

DOMAIN = "demo_home"
PLATFORMS = ("light", "switch", "cover", "lock", "fan", "climate", "media_player")
SLOW_START_ENV = "BOTPSY_DEMO_SLOW_START_S"
"""Tests set it to hold HA in its starting state, with no devices yet, for that long."""


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    if delay := os.environ.get(SLOW_START_ENV):
        await asyncio.sleep(float(delay))
    hass.data[DOMAIN] = []

    async def reset(call: ServiceCall) -> None:
        for entity in hass.data[DOMAIN]:
            entity.reset()
            entity.async_write_ha_state()

    hass.services.async_register(DOMAIN, "reset", reset)
    for platform in PLATFORMS:
        hass.async_create_task(async_load_platform(hass, platform, DOMAIN, {}, config))
    return True
