"""Events on Home Assistant's bus for the app's actions, for the logbook and automations.

The app publishes every action it executed, planned (dry run), refused, or holds for a
confirmation on `botpsy/<instance>/events`; each becomes one `botpsy_action` event with who
asked, what it did, and the way the request came (`assist`, `action` or `mqtt`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from homeassistant.core import Context, HomeAssistant

from .const import ATTR_VIA, EVENT_ACTION

VIA_MQTT = "mqtt"
USER_PRINCIPAL = "user:"


@dataclass(frozen=True)
class Origin:
    """Where a request the integration sent came from."""

    via: str
    """`assist` (a conversation) or `action` (`botpsy.ask`)."""
    context: Context | None


def fire_action_event(
    hass: HomeAssistant, instance: str, data: dict[str, Any], origin: Origin | None
) -> None:
    """Fire `botpsy_action` for one action event of the app."""
    principal = data.get("principal")
    user_id = (
        principal.removeprefix(USER_PRINCIPAL)
        if isinstance(principal, str) and principal.startswith(USER_PRINCIPAL)
        else None
    )
    event = {
        "instance": instance,
        "request_id": data.get("request_id"),
        "user_id": user_id,
        "principal": principal,
        "tool": data.get("tool"),
        "arguments": data.get("arguments"),
        "entity_ids": data.get("entity_ids") or [],
        "decision": data.get("decision"),
        "rule": data.get("rule"),
        "outcome": data.get("outcome"),
        "error": data.get("error"),
        "dry_run": bool(data.get("dry_run")),
        ATTR_VIA: origin.via if origin is not None else VIA_MQTT,
    }
    if origin is not None and origin.context is not None:
        context = origin.context
    else:
        context = Context(user_id=user_id)
    hass.bus.async_fire(EVENT_ACTION, event, context=context)
