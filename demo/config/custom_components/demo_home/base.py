"""What every simulated device shares: a fixed entity id, no polling, a reset."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity import Entity

DOMAIN = "demo_home"


class DemoDevice(Entity):
    _attr_should_poll = False

    def __init__(self, entity_id: str, name: str) -> None:
        self.entity_id = entity_id
        self._attr_unique_id = f"demo_home_{entity_id.replace('.', '_')}"
        self._attr_name = name
        self.reset()

    def reset(self) -> None:
        """Back to how the device starts."""
        raise NotImplementedError


def remember(hass: HomeAssistant, entities: list[DemoDevice]) -> list[DemoDevice]:
    hass.data.setdefault(DOMAIN, []).extend(entities)
    return entities
