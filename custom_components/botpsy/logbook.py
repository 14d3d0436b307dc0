"""Logbook entries for the actions BotPsy carried out (or refused, or planned), in Home
Assistant's language.

HA has no translation category for logbook text, and describing an event cannot wait for
a file: the sentences are kept with the integration's other messages (`exceptions`,
`logbook_*` keys) and loaded when the integration is set up (`async_load_texts`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from homeassistant.components.logbook.const import (
    LOGBOOK_ENTRY_ENTITY_ID,
    LOGBOOK_ENTRY_MESSAGE,
    LOGBOOK_ENTRY_NAME,
)
from homeassistant.core import Event, HomeAssistant, callback
from homeassistant.helpers import translation

from .const import DOMAIN, EVENT_ACTION

CATEGORY = "exceptions"
OUTCOMES = ("executed", "planned", "refused", "pending_confirmation", "failed")
VIAS = ("assist", "action", "mqtt")


async def async_load_texts(hass: HomeAssistant) -> None:
    """Have the sentences of HA's language at hand for `describe`."""
    await translation.async_get_translations(hass, hass.config.language, CATEGORY, [DOMAIN])


def _text(hass: HomeAssistant, key: str, fallback: str) -> str:
    cached = translation.async_get_cached_translations(hass, hass.config.language, CATEGORY, DOMAIN)
    return cached.get(f"component.{DOMAIN}.{CATEGORY}.logbook_{key}.message", fallback)


def describe_action(hass: HomeAssistant, data: dict[str, Any]) -> str:
    """ "executed control_light on light.kitchen via Assist", in HA's language; a value
    the translations do not know (a newer app's) is shown as it is."""
    outcome, via = str(data.get("outcome")), str(data.get("via"))
    entities = ", ".join(data.get("entity_ids") or [])
    template = _text(
        hass,
        "action_on" if entities else "action",
        "{outcome} {tool} on {targets} via {via}" if entities else "{outcome} {tool} via {via}",
    )
    values = {
        "outcome": _text(hass, outcome, outcome) if outcome in OUTCOMES else outcome,
        "via": _text(hass, f"via_{via}", via) if via in VIAS else via,
        "tool": str(data.get("tool")),
        "targets": entities,
    }
    for name, value in values.items():
        template = template.replace(f"{{{name}}}", value)
    return template


@callback
def async_describe_events(
    hass: HomeAssistant,
    async_describe_event: Callable[[str, str, Callable[[Event], dict[str, Any]]], None],
) -> None:
    @callback
    def describe(event: Event) -> dict[str, Any]:
        data = event.data
        entities = data.get("entity_ids") or []
        entry: dict[str, Any] = {
            LOGBOOK_ENTRY_NAME: "BotPsy",
            LOGBOOK_ENTRY_MESSAGE: describe_action(hass, dict(data)),
        }
        if entities:
            entry[LOGBOOK_ENTRY_ENTITY_ID] = entities[0]
        return entry

    async_describe_event(DOMAIN, EVENT_ACTION, describe)
