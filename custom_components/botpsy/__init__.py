"""The BotPsy integration: a local assistant for Assist, automations and MQTT.

It talks to the BotPsy app only through Home Assistant's own MQTT integration (the topic
API of the app), so it needs nothing else from the repository it ships in.
"""

from __future__ import annotations

from homeassistant.components import mqtt
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryNotReady
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.typing import ConfigType

from .const import CONF_INSTANCE, CONF_SECRET, DOMAIN
from .issues import AgentIssues
from .link import AgentLink
from .services import async_setup_services

PLATFORMS = (Platform.CONVERSATION,)
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)

type BotPsyConfigEntry = ConfigEntry[AgentLink]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    async_setup_services(hass)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: BotPsyConfigEntry) -> bool:
    """Follow the app and offer its agent. An app that is offline now still gets its entry:
    Assist then says so, and a repair issue appears if it stays away."""
    if not await mqtt.async_wait_for_mqtt_client(hass):
        raise ConfigEntryNotReady(translation_domain=DOMAIN, translation_key="mqtt_unavailable")
    link = AgentLink(hass, entry.data[CONF_INSTANCE], entry.data[CONF_SECRET], entry.entry_id)
    try:
        await link.async_start()
    except TimeoutError as err:
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN, translation_key="mqtt_unavailable"
        ) from err
    entry.runtime_data = link
    # A refused signature means the app lost (or replaced) our pairing: HA asks to re-pair.
    link.on_pairing_lost = lambda: entry.async_start_reauth(hass)
    issues = AgentIssues(hass, entry.entry_id, link)
    entry.async_on_unload(link.add_listener(issues.update))
    entry.async_on_unload(issues.close)
    issues.update()
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: BotPsyConfigEntry) -> bool:
    unloaded = await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
    if unloaded:
        await entry.runtime_data.async_stop()
    return unloaded
