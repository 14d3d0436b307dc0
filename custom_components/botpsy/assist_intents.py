"""HA's own intents the app hands back to Assist: a voice satellite's timers and broadcasts.

The app recognised the words and authorised the call for the speaking user (a timer is a
read, a broadcast a message); only HA can carry it out, because a satellite's timers live in
HA's intent timer manager, keyed by the device that heard them. This runs HA's own intent
handler for that device and says HA's own response, in the request's language, as HA's
default agent would.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import logging
from typing import Any, Final

from home_assistant_intents import get_intents
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, template

from .const import DOMAIN
from .contract import AppResponse

_LOGGER = logging.getLogger(__name__)

HANDED_INTENTS: Final = frozenset(
    {
        "HassStartTimer",
        "HassCancelTimer",
        "HassCancelAllTimers",
        "HassTimerStatus",
        "HassPauseTimer",
        "HassUnpauseTimer",
        "HassIncreaseTimer",
        "HassDecreaseTimer",
        "HassBroadcast",
    }
)
"""What the app may hand back; anything else it sends is refused here (the app never asks
HA to run a command for it, such as a timer's `conversation_command`)."""
SLOTS: Final = frozenset(
    {
        "hours",
        "minutes",
        "seconds",
        "start_hours",
        "start_minutes",
        "start_seconds",
        "name",
        "area",
        "message",
    }
)


@dataclass(frozen=True)
class AssistOutcome:
    speech: str
    error: intent.IntentResponseErrorCode | None = None


def handed_intent(response: AppResponse) -> tuple[str, dict[str, Any]] | None:
    """The intent and slots the app's answer hands to Assist, if it is one we run."""
    handoff = response.document.get("handoff")
    if not isinstance(handoff, dict) or handoff.get("type") != "assist_intent":
        return None
    name, slots = handoff.get("intent"), handoff.get("slots")
    if name not in HANDED_INTENTS or not isinstance(slots, dict):
        return None
    if not all(k in SLOTS and isinstance(v, str | int) for k, v in slots.items()):
        return None
    return str(name), dict(slots)


async def async_carry_out(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    device_id: str | None,
    name: str,
    slots: Mapping[str, Any],
) -> AssistOutcome:
    """Run HA's handler of `name` for the voice device, and say HA's own response."""
    language = user_input.language
    try:
        response = await intent.async_handle(
            hass,
            DOMAIN,
            name,
            {key: {"value": value, "text": str(value)} for key, value in slots.items()},
            text_input=user_input.text,
            context=user_input.context,
            language=language,
            assistant=conversation.DOMAIN,
            device_id=device_id,
            satellite_id=user_input.satellite_id,
            conversation_agent_id=user_input.agent_id,
        )
    except intent.IntentHandleError as err:
        _LOGGER.debug("%s for %s failed: %s", name, device_id, err)
        text = await _error_text(hass, language, err.response_key or "handle_error")
        return AssistOutcome(text, intent.IntentResponseErrorCode.FAILED_TO_HANDLE)
    except intent.IntentError as err:
        _LOGGER.debug("%s for %s failed: %s", name, device_id, err)
        text = await _error_text(hass, language, "handle_error")
        return AssistOutcome(text, intent.IntentResponseErrorCode.UNKNOWN)
    speech = response.speech.get("plain", {}).get("speech", "")
    if not speech:
        speech = await _response_text(hass, language, name, slots, response.speech_slots)
    return AssistOutcome(speech)


async def _responses(hass: HomeAssistant, language: str) -> dict[str, Any]:
    data = await hass.async_add_executor_job(
        get_intents, language.split("-", maxsplit=1)[0].lower()
    )
    responses = (data or {}).get("responses", {})
    return responses if isinstance(responses, dict) else {}


async def _response_text(
    hass: HomeAssistant,
    language: str,
    name: str,
    slots: Mapping[str, Any],
    speech_slots: Mapping[str, Any],
) -> str:
    """HA's response template for the intent, rendered as its default agent renders it."""
    responses = await _responses(hass, language)
    source = responses.get("intents", {}).get(name, {}).get("default")
    if not isinstance(source, str) or not source.strip():
        return ""
    spoken = {key: str(value) for key, value in slots.items()} | dict(speech_slots)
    rendered = template.Template(source, hass).async_render(
        {"slots": spoken, "state": None, "query": {"matched": [], "unmatched": []}},
        parse_result=False,
    )
    return " ".join(str(rendered).split())


async def _error_text(hass: HomeAssistant, language: str, key: str) -> str:
    responses = await _responses(hass, language)
    errors = responses.get("errors", {})
    source = errors.get(key) or errors.get("handle_error") or errors.get("no_intent") or ""
    rendered = template.Template(str(source), hass).async_render({}, parse_result=False)
    return " ".join(str(rendered).split())
