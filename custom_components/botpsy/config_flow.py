"""Config flow: find a running app, share a signing secret with it, test it, done.

* **user**: pick an app online on the broker (retained `botpsy/+/status`) or type its
  instance name; it must be online.
* Every first setup also asks what voice satellites and automations without a user may do
  (Home Assistant's own principal: nothing, or read states), sent to the app's policy file;
  the options flow edits it later.
* **mqtt** / **mqtt_confirm**: HA's MQTT discovery of the same info topic (`manifest.json`
  `mqtt`) offers it; nothing is opened until the user confirms.
* **pair**: pairs at once (an admin chose the app): a one-time code made here is fetched by
  the app from HA over its admin connection (`pairing.py`), never shown to anyone; SPAKE2
  over MQTT turns it into the secret for both. Shown as a form only when pairing failed:
  submitting it tries again.
* **hassio** / **hassio_confirm**: under the Supervisor the app's discovery brings the
  secret itself, over a channel MQTT clients cannot read.
* **reconfigure**: pair again with the same instance (a new code); the app then forgets
  the old secret. The instance is the entry's identity: another app is another entry.
* **reauth** / **reauth_confirm**: the app refused our signature (it lost the pairing, e.g.
  after its data was reset): pair again, same instance.

Every way ends with a signed test request the app must accept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components import mqtt
from homeassistant.config_entries import (
    SOURCE_REAUTH,
    SOURCE_RECONFIGURE,
    ConfigFlow,
    ConfigFlowResult,
)
from homeassistant.core import callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.selector import (
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
)
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
from homeassistant.helpers.service_info.mqtt import MqttServiceInfo
import probatio

from . import BotPsyConfigEntry
from .const import (
    CONF_APP_SLUG,
    CONF_INSTANCE,
    CONF_SECRET,
    DOMAIN,
    LOGGER,
)
from .contract import HA_PRINCIPAL, INSTANCE_PATTERN
from .discovery import async_online_instances, instance_of
from .link import AgentLink
from .mqtt_util import json_object
from .options_flow import PermissionsFlow
from .pairing import PairingError, async_pair, async_probe, async_revoke
from .permissions import VOICE_DEFAULTS

MIN_SECRET_CHARS = 16
CONF_VOICE_ACCESS = "voice_access"
DEFAULT_VOICE_ACCESS = "read"
"""Reads only: a satellite answers "is the door locked?" but changes nothing, until the
user grants more (no rights at all made satellites useless out of the box)."""


class BotPsyConfigFlow(ConfigFlow, domain=DOMAIN):
    """Adds one BotPsy app instance."""

    VERSION = 1
    MINOR_VERSION = 1

    def __init__(self) -> None:
        self._instance = ""
        self._secret = ""
        self._app_slug: str | None = None
        self._voice_access = DEFAULT_VOICE_ACCESS

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: BotPsyConfigEntry) -> PermissionsFlow:
        return PermissionsFlow()

    # --- the user picks or names an instance -----------------------------------------------

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        if not await mqtt.async_wait_for_mqtt_client(self.hass):
            return self.async_abort(reason="mqtt_not_ready")
        return await self._async_choose_instance(user_input)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        self._instance = str(self._get_reconfigure_entry().data[CONF_INSTANCE])
        if user_input is None:
            return self.async_show_form(
                step_id="reconfigure", description_placeholders={"instance": self._instance}
            )
        return await self.async_step_pair()

    async def _async_choose_instance(self, user_input: dict[str, Any] | None) -> ConfigFlowResult:
        online = await async_online_instances(self.hass)
        errors: dict[str, str] = {}
        if user_input is not None:
            instance = str(user_input[CONF_INSTANCE]).strip().lower()
            self._voice_access = user_input.get(CONF_VOICE_ACCESS, self._voice_access)
            if not INSTANCE_PATTERN.fullmatch(instance):
                errors[CONF_INSTANCE] = "invalid_instance"
            else:
                # A discovery of the same app may be waiting: the user goes first.
                await self.async_set_unique_id(instance, raise_on_progress=False)
                self._abort_if_unique_id_configured()
                if instance in online:
                    self._instance = instance
                    return await self.async_step_pair()
                errors["base"] = "cannot_connect"
        default = online[0] if online else None
        field = (
            probatio.Required(CONF_INSTANCE, default=default)
            if default
            else probatio.Required(CONF_INSTANCE)
        )
        selector = SelectSelector(
            SelectSelectorConfig(
                options=[SelectOptionDict(value=name, label=name) for name in online],
                custom_value=True,
                mode=SelectSelectorMode.DROPDOWN,
            )
        )
        fields: dict[Any, Any] = {field: selector, **_voice_access_field()}
        return self.async_show_form(
            step_id="user",
            data_schema=probatio.Schema(fields),
            errors=errors,
            description_placeholders={"found": str(len(online))},
        )

    # --- the app lost the pairing ---------------------------------------------------------------

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:
        self._instance = str(entry_data[CONF_INSTANCE])
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        if user_input is None:
            return self.async_show_form(
                step_id="reauth_confirm", description_placeholders={"instance": self._instance}
            )
        return await self.async_step_pair()

    # --- discoveries ---------------------------------------------------------------------------

    async def async_step_mqtt(self, discovery_info: MqttServiceInfo) -> ConfigFlowResult:
        instance = instance_of(discovery_info.topic)
        info = json_object(discovery_info.payload) if discovery_info.payload else None
        if instance is None or info is None or info.get("instance") != instance:
            return self.async_abort(reason="invalid_discovery_info")
        await self.async_set_unique_id(instance)
        self._abort_if_unique_id_configured()
        self._instance = instance
        self.context["title_placeholders"] = {"instance": instance}
        return await self.async_step_mqtt_confirm()

    async def async_step_mqtt_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """A discovered app is only offered: the user decides to open a pairing window."""
        if user_input is not None:
            self._voice_access = user_input[CONF_VOICE_ACCESS]
            return await self.async_step_pair()
        return self.async_show_form(
            step_id="mqtt_confirm",
            data_schema=probatio.Schema(_voice_access_field()),
            description_placeholders={"instance": self._instance},
        )

    async def async_step_hassio(self, discovery_info: HassioServiceInfo) -> ConfigFlowResult:
        instance = discovery_info.config.get("instance")
        secret = discovery_info.config.get("secret")
        if not (
            isinstance(instance, str)
            and INSTANCE_PATTERN.fullmatch(instance)
            and isinstance(secret, str)
            and len(secret) >= MIN_SECRET_CHARS
        ):
            return self.async_abort(reason="invalid_discovery_info")
        # It brings the secret: it goes ahead of the same app's MQTT discovery.
        await self.async_set_unique_id(instance, raise_on_progress=False)
        self._abort_if_unique_id_configured(
            updates={CONF_SECRET: secret, CONF_APP_SLUG: discovery_info.slug}
        )
        self._close_other_discoveries(instance)
        self._instance, self._secret = instance, secret
        self._app_slug = discovery_info.slug
        self.context["title_placeholders"] = {"instance": instance}
        return await self.async_step_hassio_confirm()

    async def async_step_hassio_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        errors: dict[str, str] = {}
        if user_input is not None:
            self._voice_access = user_input[CONF_VOICE_ACCESS]
        if not await mqtt.async_wait_for_mqtt_client(self.hass):
            # Mosquitto and BotPsy are discovered together, and this card may be confirmed
            # first: the flow stays, and goes on once HA's MQTT integration is added.
            errors["base"] = "mqtt_not_ready"
        elif user_input is not None:
            try:
                return await self._async_test_and_finish(self._secret)
            except PairingError as err:
                errors["base"] = err.reason
        return self.async_show_form(
            step_id="hassio_confirm",
            data_schema=probatio.Schema(_voice_access_field(self._voice_access)),
            errors=errors,
            description_placeholders={"instance": self._instance},
        )

    def _close_other_discoveries(self, instance: str) -> None:
        """One card per app: its MQTT discovery (offered first, when MQTT was there before
        the Supervisor's discovery came) goes, since this one brings the secret."""
        for flow in self._async_in_progress(include_uninitialized=True):
            if flow["flow_id"] != self.flow_id and flow["context"].get("unique_id") == instance:
                self.hass.config_entries.flow.async_abort(flow["flow_id"])

    # --- pairing -------------------------------------------------------------------------------

    async def async_step_pair(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Pair now; on failure a form that says why, whose submit tries again."""
        try:
            secret = await async_pair(self.hass, self._instance)
            return await self._async_test_and_finish(secret)
        except PairingError as err:
            return self.async_show_form(
                step_id="pair",
                errors={"base": err.reason},
                description_placeholders={"instance": self._instance},
            )

    async def _async_test_and_finish(self, secret: str) -> ConfigFlowResult:
        """The entry, once a signed test request shows that the app accepts `secret`;
        `PairingError` when it does not."""
        await async_probe(self.hass, self._instance, secret, f"flow-{self.flow_id}")
        data = {CONF_INSTANCE: self._instance, CONF_SECRET: secret}
        if self._app_slug:
            data[CONF_APP_SLUG] = self._app_slug
        title = f"BotPsy ({self._instance})"
        if self.source == SOURCE_REAUTH:
            return self.async_update_reload_and_abort(
                self._get_reauth_entry(), data_updates={CONF_SECRET: secret}
            )
        if self.source == SOURCE_RECONFIGURE:
            entry = self._get_reconfigure_entry()
            old = entry.data
            if old[CONF_SECRET] != secret and old[CONF_INSTANCE] == self._instance:
                await async_revoke(self.hass, self._instance, old[CONF_SECRET], "self")
            if CONF_APP_SLUG in entry.data:
                data.setdefault(CONF_APP_SLUG, entry.data[CONF_APP_SLUG])
            return self.async_update_reload_and_abort(
                entry, unique_id=self._instance, title=title, data=data
            )
        await self._async_send_voice_access(secret)
        return self.async_create_entry(title=title, data=data)

    async def _async_send_voice_access(self, secret: str) -> None:
        """Home Assistant's own rules as chosen, signed like any permission update. It is
        retained: the app applies it when it reads it, which the new entry shows in the
        options flow; nothing here waits for the verdict (timeout 0)."""
        rules = [dict(rule) for rule in VOICE_DEFAULTS[self._voice_access]]
        link = AgentLink(self.hass, self._instance, secret, f"flow-{self.flow_id}")
        try:
            await link.async_publish_rules(HA_PRINCIPAL, {"principal": {"rules": rules}}, 0.0)
        except HomeAssistantError as err:  # MQTT went away since the test request
            LOGGER.warning(
                "Could not send the voice satellites' rules to the BotPsy app (%s); set them "
                "in the integration's options",
                err,
            )


def _voice_access_field(default: str = DEFAULT_VOICE_ACCESS) -> dict[Any, Any]:
    """The setup question: what may voice satellites and user-less automations do?"""
    return {
        probatio.Required(CONF_VOICE_ACCESS, default=default): SelectSelector(
            SelectSelectorConfig(
                options=list(VOICE_DEFAULTS),
                mode=SelectSelectorMode.LIST,
                translation_key=CONF_VOICE_ACCESS,
            )
        )
    }
