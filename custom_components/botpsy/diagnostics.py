"""Diagnostics: the entry, what the app reports, and the last exchanges, with the shared
secret and everything people said or were told redacted."""

from __future__ import annotations

from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.core import HomeAssistant

from . import BotPsyConfigEntry
from .const import CONF_SECRET

TO_REDACT = {
    CONF_SECRET,
    "sig",
    "text",
    "speech",
    "message",
    "arguments",
    "service_calls",
    "result",
    "conversation_id",
    "name",
}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: BotPsyConfigEntry
) -> dict[str, Any]:
    link = entry.runtime_data
    policy = link.policy_state or {}
    return async_redact_data(
        {
            "entry": {
                "title": entry.title,
                "unique_id": entry.unique_id,
                "version": f"{entry.version}.{entry.minor_version}",
                "data": dict(entry.data),
                "options": dict(entry.options),
            },
            "app": {
                "online": link.online,
                "info": None if link.info is None else dict(link.info.document),
                "policy": {
                    "valid": policy.get("valid"),
                    "people_with_rules": len(policy.get("users") or []),
                    "confirm": policy.get("confirm"),
                    "last_update": policy.get("last_update"),
                },
            },
            "recent": list(link.recent),
        },
        TO_REDACT,
    )
