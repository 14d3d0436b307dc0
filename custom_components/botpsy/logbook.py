"""Logbook entries for the actions BotPsy carried out (or refused, or planned)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from homeassistant.components.logbook.const import (
    LOGBOOK_ENTRY_ENTITY_ID,
    LOGBOOK_ENTRY_MESSAGE,
    LOGBOOK_ENTRY_NAME,
)
from homeassistant.core import Event, HomeAssistant, callback

from .const import DOMAIN, EVENT_ACTION

VIA = {"assist": "Assist", "action": "the botpsy.ask action", "mqtt": "MQTT"}


@callback
def async_describe_events(
    hass: HomeAssistant,
    async_describe_event: Callable[[str, str, Callable[[Event], dict[str, Any]]], None],
) -> None:
    @callback
    def describe(event: Event) -> dict[str, Any]:
        data = event.data
        entities = data.get("entity_ids") or []
        targets = f" on {', '.join(entities)}" if entities else ""
        via = VIA.get(str(data.get("via")), str(data.get("via")))
        entry: dict[str, Any] = {
            LOGBOOK_ENTRY_NAME: "BotPsy",
            LOGBOOK_ENTRY_MESSAGE: f"{data.get('outcome')} {data.get('tool')}{targets} via {via}",
        }
        if entities:
            entry[LOGBOOK_ENTRY_ENTITY_ID] = entities[0]
        return entry

    async_describe_event(DOMAIN, EVENT_ACTION, describe)
