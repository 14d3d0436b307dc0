"""Door locks that lock and unlock at once."""

from __future__ import annotations

from typing import Any

from homeassistant.components.lock import LockEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .base import DemoDevice, remember
from .home import LOCKS


class DemoLock(DemoDevice, LockEntity):
    def __init__(self, entity_id: str, name: str, locked: bool) -> None:
        self._initial = locked
        super().__init__(entity_id, name)

    def reset(self) -> None:
        self._attr_is_locked = self._initial

    async def async_lock(self, **kwargs: Any) -> None:
        self._attr_is_locked = True
        self.async_write_ha_state()

    async def async_unlock(self, **kwargs: Any) -> None:
        self._attr_is_locked = False
        self.async_write_ha_state()


async def async_setup_platform(
    hass: HomeAssistant, config: Any, add: AddEntitiesCallback, discovery_info: Any = None
) -> None:
    add(remember(hass, [DemoLock(eid, name, locked) for eid, (name, _, locked) in LOCKS.items()]))
