"""The BotPsy Assist agent: one conversation entity per app instance.

Each message goes to the app with the speaking HA user (signed), HA's conversation id, the
language, and where it was said (the device or satellite, and its area); the app's answer
comes back as speech (with the entities it acted on), an Assist error, or a question that
keeps the conversation open.
"""

from __future__ import annotations

from typing import Literal, override

from homeassistant.components import conversation
from homeassistant.core import Event, HomeAssistant, callback
from homeassistant.helpers import (
    device_registry as dr,
    entity_registry as er,
    intent,
    translation,
)
from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from . import BotPsyConfigEntry
from .answers import Answer, answer_for
from .assist_intents import async_carry_out, handed_intent
from .const import APP_DOCS_URL, CONF_APP_SLUG, DOMAIN
from .link import AgentUnavailable, Ask

VIA_ASSIST = "assist"
PARALLEL_UPDATES = 0
"""Nothing is polled, and the app queues requests itself (one model worker, D8)."""


async def async_setup_entry(
    hass: HomeAssistant,
    entry: BotPsyConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    async_add_entities([BotPsyConversationEntity(entry)])


class BotPsyConversationEntity(conversation.ConversationEntity):
    """Answers Assist through the BotPsy app."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

    def __init__(self, entry: BotPsyConfigEntry) -> None:
        self.entry = entry
        self._attr_unique_id = entry.entry_id
        self._attr_device_info = device_info(entry)

    @property
    @override
    def available(self) -> bool:
        """Unavailable while the app is offline (or has not said it is online yet)."""
        return self.entry.runtime_data.online is True

    @override
    async def async_added_to_hass(self) -> None:
        await super().async_added_to_hass()
        self.async_on_remove(self.entry.runtime_data.add_listener(self._app_changed))
        # The app's MQTT device may be discovered after this entity is added.
        self.async_on_remove(
            self.hass.bus.async_listen(dr.EVENT_DEVICE_REGISTRY_UPDATED, self._device_changed)
        )
        self._sync_device()

    @callback
    def _app_changed(self) -> None:
        self._sync_device()
        self.async_write_ha_state()

    @callback
    def _device_changed(self, _event: Event[dr.EventDeviceRegistryUpdatedData]) -> None:
        self._sync_device()

    @callback
    def _sync_device(self) -> None:
        """Keep the agent device's version the app's, and link it to the app's device."""
        # The registry may announce a change after the entry was unloaded.
        if self.device_entry is None or getattr(self.entry, "runtime_data", None) is None:
            return
        registry = dr.async_get(self.hass)
        device = registry.async_get(self.device_entry.id)
        if not isinstance(device, dr.DeviceEntry):
            return
        link = self.entry.runtime_data
        if link.version is not None and link.version != device.sw_version:
            registry.async_update_device(device.id, sw_version=link.version)
        app_devices = registry.async_get_devices(identifiers={("mqtt", link.topics.device_id)})
        app_device = next((d for d in app_devices if d.id != device.id), None)
        if app_device is not None and device.via_device_id != app_device.id:
            registry.async_update_device(device.id, via_device_id=app_device.id)

    @property
    @override
    def supported_languages(self) -> list[str] | Literal["*"]:
        return self.entry.runtime_data.languages

    @override
    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        device_id, area_id = speaker_location(self.hass, user_input)
        ask = Ask(
            text=user_input.text,
            language=user_input.language,
            user_id=user_input.context.user_id,
            conversation_id=chat_log.conversation_id,
            device_id=device_id,
            area_id=area_id,
        )
        try:
            response = await self.entry.runtime_data.async_request(
                ask, via=VIA_ASSIST, context=user_input.context
            )
        except AgentUnavailable as err:
            answer = Answer(
                "",
                intent.IntentResponseErrorCode.UNKNOWN,
                err.translation_key or "agent_offline",
            )
        else:
            answer = answer_for(response)
            if answer.error is None and (handed := handed_intent(response)) is not None:
                # The app authorised it; HA's own handler runs it for this voice device.
                outcome = await async_carry_out(self.hass, user_input, device_id, *handed)
                answer = Answer(outcome.speech, outcome.error, query=answer.query)
        speech = answer.speech
        if answer.translation_key is not None:
            speech = await translated(
                self.hass, user_input.language, answer.translation_key, answer.placeholders
            )
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
        )
        result = intent.IntentResponse(language=user_input.language)
        if answer.query:
            result.response_type = intent.IntentResponseType.QUERY_ANSWER
        if answer.error is not None:
            result.async_set_error(answer.error, speech)
        else:
            result.async_set_speech(speech)
            result.async_set_results(
                success_results=entity_targets(self.hass, answer.executed),
                failed_results=entity_targets(self.hass, answer.failed),
            )
        return conversation.ConversationResult(
            response=result,
            conversation_id=chat_log.conversation_id,
            continue_conversation=answer.continue_conversation,
        )


def device_info(entry: BotPsyConfigEntry) -> DeviceInfo:
    """The agent's device: one per app instance, linked (`via_device_id`, set once the app's
    MQTT device exists) to the app's own device with its health sensors (decisions D26)."""
    info = DeviceInfo(
        identifiers={(DOMAIN, entry.entry_id)},
        name=entry.title,
        manufacturer="BotPsy",
        model="BotPsy local assistant",
        entry_type=DeviceEntryType.SERVICE,
        configuration_url=configuration_url(entry),
    )
    if entry.runtime_data.version is not None:
        info["sw_version"] = entry.runtime_data.version
    return info


def configuration_url(entry: BotPsyConfigEntry) -> str:
    """The app's page under the Supervisor (its options, log and pairing code); elsewhere the
    app's documentation, which says where its options and policy file live."""
    slug = entry.data.get(CONF_APP_SLUG)
    return f"homeassistant://hassio/addon/{slug}/info" if slug else APP_DOCS_URL


def speaker_location(
    hass: HomeAssistant, user_input: conversation.ConversationInput
) -> tuple[str | None, str | None]:
    """The device the words were said at, and its area (a satellite's own area first)."""
    device_id, area_id = user_input.device_id, None
    if user_input.satellite_id is not None:
        satellite = er.async_get(hass).async_get(user_input.satellite_id)
        if satellite is not None:
            device_id = device_id or satellite.device_id
            area_id = satellite.area_id
    if area_id is None and device_id is not None:
        device = dr.async_get(hass).async_get(device_id)
        area_id = device.area_id if device is not None else None
    return device_id, area_id


def entity_targets(
    hass: HomeAssistant, entity_ids: tuple[str, ...]
) -> list[intent.IntentResponseTarget]:
    """Entities as Assist lists them in its answer (`data.success`, `data.failed`)."""
    targets = []
    for entity_id in entity_ids:
        state = hass.states.get(entity_id)
        targets.append(
            intent.IntentResponseTarget(
                name=state.name if state is not None else entity_id,
                type=intent.IntentResponseTargetType.ENTITY,
                id=entity_id,
            )
        )
    return targets


async def translated(
    hass: HomeAssistant, language: str, key: str, placeholders: dict[str, str]
) -> str:
    """This integration's message `key` in `language` (English when it has none)."""
    strings = await translation.async_get_translations(hass, language, "exceptions", [DOMAIN])
    text = strings.get(f"component.{DOMAIN}.exceptions.{key}.message", key)
    for name, value in placeholders.items():
        text = text.replace(f"{{{name}}}", value)
    return text
