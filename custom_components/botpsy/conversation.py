"""The BotPsy Assist agent: one conversation entity per app instance.

Each message goes to the app with the speaking HA user (signed), HA's conversation id, the
language, and where it was said (the device or satellite, and its area); the app's answer
comes back as speech (with the entities it acted on), an Assist error, or a question that
keeps the conversation open.
"""

from __future__ import annotations

from typing import Literal, override

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant, callback
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
from .const import DOMAIN
from .link import AgentUnavailable, Ask

VIA_ASSIST = "assist"


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
        self._attr_device_info = DeviceInfo(
            identifiers={(DOMAIN, entry.entry_id)},
            name=entry.title,
            manufacturer="BotPsy",
            model="BotPsy local assistant",
            entry_type=DeviceEntryType.SERVICE,
        )

    @override
    async def async_added_to_hass(self) -> None:
        await super().async_added_to_hass()
        self.async_on_remove(self.entry.runtime_data.add_listener(self._app_changed))

    @callback
    def _app_changed(self) -> None:
        self.async_write_ha_state()

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
        speech = answer.speech
        if answer.translation_key is not None:
            speech = await translated(
                self.hass, user_input.language, answer.translation_key, answer.placeholders
            )
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
        )
        result = intent.IntentResponse(language=user_input.language)
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
