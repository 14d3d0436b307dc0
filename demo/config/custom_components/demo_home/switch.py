"""Switches and smart plugs."""

from __future__ import annotations

from typing import Any

from homeassistant.components.switch import SwitchEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .base import DemoDevice, remember
from .home import SWITCHES


class DemoSwitch(DemoDevice, SwitchEntity):
    def __init__(self, entity_id: str, name: str, initial: bool) -> None:
        self._initial = initial
        super().__init__(entity_id, name)

    def reset(self) -> None:
        self._attr_is_on = self._initial

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._attr_is_on = True
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._attr_is_on = False
        self.async_write_ha_state()


async def async_setup_platform(
    hass: HomeAssistant, config: Any, add: AddEntitiesCallback, discovery_info: Any = None
) -> None:
    add(remember(hass, [DemoSwitch(eid, name, on) for eid, (name, _, on) in SWITCHES.items()]))
