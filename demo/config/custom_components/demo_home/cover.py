"""Blinds and a garage door that move at once to where they are sent."""

from __future__ import annotations

from typing import Any

from homeassistant.components.cover import (
    ATTR_POSITION,
    CoverDeviceClass,
    CoverEntity,
    CoverEntityFeature,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .base import DemoDevice, remember
from .home import COVERS


class DemoCover(DemoDevice, CoverEntity):
    _attr_supported_features = (
        CoverEntityFeature.OPEN
        | CoverEntityFeature.CLOSE
        | CoverEntityFeature.STOP
        | CoverEntityFeature.SET_POSITION
    )

    def __init__(self, entity_id: str, name: str, device_class: str, position: int) -> None:
        self._initial = position
        self._attr_device_class = CoverDeviceClass(device_class)
        super().__init__(entity_id, name)

    def reset(self) -> None:
        self._position = self._initial

    @property
    def current_cover_position(self) -> int:
        return self._position

    @property
    def is_closed(self) -> bool:
        return self._position == 0

    async def async_open_cover(self, **kwargs: Any) -> None:
        self._position = 100
        self.async_write_ha_state()

    async def async_close_cover(self, **kwargs: Any) -> None:
        self._position = 0
        self.async_write_ha_state()

    async def async_stop_cover(self, **kwargs: Any) -> None:
        self.async_write_ha_state()

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        self._position = int(kwargs[ATTR_POSITION])
        self.async_write_ha_state()


async def async_setup_platform(
    hass: HomeAssistant, config: Any, add: AddEntitiesCallback, discovery_info: Any = None
) -> None:
    covers = [DemoCover(eid, name, cls, pos) for eid, (name, _, cls, pos) in COVERS.items()]
    add(remember(hass, covers))
