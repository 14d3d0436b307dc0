"""Thermostats with a target temperature and heat / off / auto modes."""

from __future__ import annotations

from typing import Any

from homeassistant.components.climate import (
    ATTR_HVAC_MODE,
    ClimateEntity,
    ClimateEntityFeature,
    HVACMode,
)
from homeassistant.const import ATTR_TEMPERATURE, UnitOfTemperature
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .base import DemoDevice, remember
from .home import CLIMATES


class DemoThermostat(DemoDevice, ClimateEntity):
    _attr_temperature_unit = UnitOfTemperature.CELSIUS
    _attr_hvac_modes = [HVACMode.OFF, HVACMode.HEAT, HVACMode.AUTO]  # noqa: RUF012 - HA's own attribute type
    _attr_min_temp = 5
    _attr_max_temp = 35
    _attr_target_temperature_step = 0.5
    _attr_supported_features = (
        ClimateEntityFeature.TARGET_TEMPERATURE
        | ClimateEntityFeature.TURN_ON
        | ClimateEntityFeature.TURN_OFF
    )

    def __init__(self, entity_id: str, name: str, target: float, current: float) -> None:
        self._initial = (target, current)
        super().__init__(entity_id, name)

    def reset(self) -> None:
        self._attr_target_temperature, self._attr_current_temperature = self._initial
        self._attr_hvac_mode = HVACMode.HEAT

    async def async_set_temperature(self, **kwargs: Any) -> None:
        if ATTR_TEMPERATURE in kwargs:
            self._attr_target_temperature = float(kwargs[ATTR_TEMPERATURE])
        if ATTR_HVAC_MODE in kwargs:
            self._attr_hvac_mode = HVACMode(kwargs[ATTR_HVAC_MODE])
        self.async_write_ha_state()

    async def async_set_hvac_mode(self, hvac_mode: HVACMode) -> None:
        self._attr_hvac_mode = hvac_mode
        self.async_write_ha_state()

    async def async_turn_on(self) -> None:
        await self.async_set_hvac_mode(HVACMode.HEAT)

    async def async_turn_off(self) -> None:
        await self.async_set_hvac_mode(HVACMode.OFF)


async def async_setup_platform(
    hass: HomeAssistant, config: Any, add: AddEntitiesCallback, discovery_info: Any = None
) -> None:
    entities = [DemoThermostat(eid, n, t, c) for eid, (n, _, t, c) in CLIMATES.items()]
    add(remember(hass, entities))
