"""Lights with brightness, and colour or white temperature where the home has them."""

from __future__ import annotations

from typing import Any

from homeassistant.components.light import (
    ATTR_BRIGHTNESS,
    ATTR_COLOR_TEMP_KELVIN,
    ATTR_HS_COLOR,
    ATTR_RGB_COLOR,
    ColorMode,
    LightEntity,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.util import color as color_util

from .base import DemoDevice, remember
from .home import LIGHTS


class DemoLight(DemoDevice, LightEntity):
    _attr_min_color_temp_kelvin = 2000
    _attr_max_color_temp_kelvin = 6500

    def __init__(self, entity_id: str, name: str, initial: dict[str, Any]) -> None:
        self._initial = initial
        coloured = bool(initial.get("color"))
        self._attr_supported_color_modes = (
            {ColorMode.HS, ColorMode.COLOR_TEMP} if coloured else {ColorMode.BRIGHTNESS}
        )
        super().__init__(entity_id, name)

    def reset(self) -> None:
        self._attr_is_on = bool(self._initial["on"])
        self._attr_brightness = int(self._initial["brightness"])
        coloured = bool(self._initial.get("color"))
        self._attr_color_mode = ColorMode.COLOR_TEMP if coloured else ColorMode.BRIGHTNESS
        self._attr_color_temp_kelvin = 3000 if coloured else None
        self._attr_hs_color = None

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._attr_is_on = True
        if ATTR_BRIGHTNESS in kwargs:
            self._attr_brightness = kwargs[ATTR_BRIGHTNESS]
        if ColorMode.HS in (self._attr_supported_color_modes or set()):
            if ATTR_HS_COLOR in kwargs:
                self._attr_hs_color = kwargs[ATTR_HS_COLOR]
                self._attr_color_mode = ColorMode.HS
            elif ATTR_RGB_COLOR in kwargs:
                self._attr_hs_color = color_util.color_RGB_to_hs(*kwargs[ATTR_RGB_COLOR])
                self._attr_color_mode = ColorMode.HS
            if ATTR_COLOR_TEMP_KELVIN in kwargs:
                self._attr_color_temp_kelvin = kwargs[ATTR_COLOR_TEMP_KELVIN]
                self._attr_color_mode = ColorMode.COLOR_TEMP
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._attr_is_on = False
        self.async_write_ha_state()


async def async_setup_platform(
    hass: HomeAssistant, config: Any, add: AddEntitiesCallback, discovery_info: Any = None
) -> None:
    add(
        remember(
            hass, [DemoLight(eid, name, initial) for eid, (name, _, initial) in LIGHTS.items()]
        )
    )
