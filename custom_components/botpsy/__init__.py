"""The BotPsy integration: a local assistant for Assist, automations and MQTT.

It talks to the BotPsy app only through Home Assistant's own MQTT integration (the topic
API of the app), so it needs nothing else from the repository it ships in.
"""

from __future__ import annotations

import logging

from homeassistant.components import mqtt
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryNotReady, HomeAssistantError
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.typing import ConfigType

from .const import CONF_INSTANCE, CONF_SECRET, DOMAIN
from .contract import STARTUP_PROBLEM_EVENT
from .issues import AgentIssues, PairingIssues
from .link import AgentLink
from .local_handling import LocalHandlingIssues
from .logbook import async_load_texts
from .pairing import async_revoke
from .services import async_setup_services

_LOGGER = logging.getLogger(__name__)
PLATFORMS = (Platform.CONVERSATION,)
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)

type BotPsyConfigEntry = ConfigEntry[AgentLink]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    async_setup_services(hass)
    await async_load_texts(hass)
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
    entry.async_on_unload(hass.bus.async_listen(STARTUP_PROBLEM_EVENT, issues.startup_problem))
    issues.update()
    pairings = PairingIssues(hass, entry, link)
    entry.async_on_unload(link.add_listener(pairings.update))
    entry.async_on_unload(pairings.close)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    LocalHandlingIssues(hass, entry).start()  # once the agent entity has its id
    return True


async def async_unload_entry(hass: HomeAssistant, entry: BotPsyConfigEntry) -> bool:
    unloaded = await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
    if unloaded:
        await entry.runtime_data.async_stop()
    return unloaded


async def async_remove_entry(hass: HomeAssistant, entry: BotPsyConfigEntry) -> None:
    """Removing the integration revokes its secret in the app: a copy of HA's config (a
    backup) must not sign requests after the user has let the app go."""
    try:
        await async_revoke(hass, entry.data[CONF_INSTANCE], entry.data[CONF_SECRET], "self")
    except HomeAssistantError as err:
        _LOGGER.warning(
            "Could not ask the BotPsy app to revoke this entry's secret (%s); delete its line "
            "from the app's integration_secrets file",
            err,
        )
