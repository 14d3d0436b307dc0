"""Assist with the BotPsy agent on real parts: HA's `conversation.process`, the integration,
HA's MQTT client, a real broker and the real app runtime acting on the real test home."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import Context, Event, HomeAssistant, callback
from homeassistant.helpers import area_registry as ar, device_registry as dr, entity_registry as er
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.mqtt.settings import ApiSettings
from custom_components.botpsy.const import EVENT_ACTION
from custom_components.botpsy.link import AgentLink
from tests.ha_home import HaHome
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, AppRunner, SetupEntry
from tool_schemas.base import Access
from tool_schemas.catalog import TOOLS

READ_TOOLS = frozenset(name for name, tool in TOOLS.items() if tool.access is Access.READ)

AGENT = "conversation.botpsy_test"


def state(hass: HomeAssistant, entity_id: str) -> str:
    current = hass.states.get(entity_id)
    assert current is not None, entity_id
    return current.state


async def process(
    hass: HomeAssistant,
    text: str,
    user_id: str | None,
    conversation_id: str | None = None,
    language: str = "en",
) -> dict[str, Any]:
    """HA's own `conversation.process` action with our agent, as a user would call it."""
    data = {"agent_id": AGENT, "text": text, "language": language}
    if conversation_id is not None:
        data["conversation_id"] = conversation_id
    result = await hass.services.async_call(
        "conversation",
        "process",
        data,
        blocking=True,
        return_response=True,
        context=Context(user_id=user_id),
    )
    assert isinstance(result, dict)
    return result


def speech(result: dict[str, Any]) -> str:
    return str(result["response"]["speech"]["plain"]["speech"])


def capture_actions(hass: HomeAssistant) -> list[Event]:
    events: list[Event] = []

    @callback
    def collect(event: Event) -> None:
        events.append(event)

    hass.bus.async_listen(EVENT_ACTION, collect)
    return events


async def test_assist_turns_on_a_light_on_the_fast_path(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    daniel = ha_home.users["Daniel"]
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": "light.kitchen_lights"}, blocking=True
    )
    actions = capture_actions(hass)
    result = await process(hass, "turn on the kitchen lights", daniel)
    assert result["response"]["response_type"] == "action_done", result
    assert speech(result) == "Turned on Kitchen Lights."
    assert result["continue_conversation"] is False
    # Assist lists what was acted on, as HA's own agents do.
    assert result["response"]["data"] == {
        "success": [{"name": "Kitchen Lights", "type": "entity", "id": "light.kitchen_lights"}],
        "failed": [],
    }
    await wait_for(lambda: state(hass, "light.kitchen_lights") == "on", "the light on")
    link: AgentLink = botpsy_entry.runtime_data
    assert link.recent[-1]["response"]["path"] == "fast_path"
    # The action is on HA's bus, with who asked and how, in the conversation's context.
    await wait_for(lambda: actions, "the action event")
    event = actions[0]
    assert event.data["via"] == "assist"
    assert event.data["user_id"] == daniel
    assert event.data["tool"] == "turn_on"
    assert event.data["entity_ids"] == ["light.kitchen_lights"]
    assert event.data["outcome"] == "executed"
    assert event.context.user_id == daniel
    entity = hass.states.get(AGENT)
    assert entity is not None and entity.state != "unknown"  # the last activity


async def test_a_request_beyond_the_fast_path_reaches_the_model(
    hass: HomeAssistant, app_runner: AppRunner, setup_entry: SetupEntry, ha_home: HaHome
) -> None:
    await app_runner.start(model=True)
    entry = await setup_entry()
    link: AgentLink = entry.runtime_data
    await wait_for(lambda: link.model is not None, "the model loaded", timeout_s=60)
    deadline = time.monotonic() + 90
    while True:  # `warming_up` (the prefix is being built) says: ask again soon
        result = await process(
            hass, "could you think about what the house needs tonight", ha_home.users["Min-ji"]
        )
        answer = link.recent[-1]["response"]
        if answer["status"] != "warming_up" or time.monotonic() > deadline:
            break
        await asyncio.sleep(1)
    assert answer["path"] == "model", answer
    assert answer["timings"]["model_ms"] > 0, answer  # the model ran, not only was chosen
    # Whatever the random model chose, the request named no action: none was executed
    # (grounding), and what is said comes from what happened.
    executed = [a for a in answer["actions"] if a["outcome"] == "executed"]
    assert all(a["tool"] in READ_TOOLS for a in executed), answer
    if answer["status"] == "done":
        assert executed, answer  # never "done" with nothing done
    assert speech(result)


async def test_a_user_outside_their_rules_is_refused_and_nothing_changes(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    user = await hass.auth.async_get_user(ha_home.users["Min-ji"])
    assert user is not None and not user.is_admin
    before = state(hass, "light.office_rgbw_lights")
    actions = capture_actions(hass)
    # Min-ji's own rule (written in the policy file): no control in the office.
    result = await process(hass, "turn off the desk lamp", ha_home.users["Min-ji"])
    assert result["response"]["response_type"] == "error", result
    assert result["response"]["data"]["code"] == "no_valid_targets"
    assert "not allowed" in speech(result)
    await wait_for(lambda: actions, "the refusal event")
    assert actions[0].data["outcome"] == "refused"
    assert state(hass, "light.office_rgbw_lights") == before


async def test_an_admin_unlock_asks_first_and_yes_unlocks(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    daniel = ha_home.users["Daniel"]
    await hass.services.async_call("lock", "lock", {"entity_id": "lock.back_door"}, blocking=True)
    await wait_for(lambda: state(hass, "lock.back_door") == "locked", "the door locked")
    asked = await process(hass, "unlock the back door", daniel)
    assert asked["continue_conversation"] is True
    assert speech(asked) == "Do you really want to unlock Back door?"
    assert state(hass, "lock.back_door") == "locked"
    done = await process(hass, "yes", daniel, conversation_id=asked["conversation_id"])
    assert done["response"]["response_type"] == "action_done", done
    assert done["continue_conversation"] is False
    await wait_for(lambda: state(hass, "lock.back_door") == "unlocked", "the door unlocked")


async def test_where_it_was_said_narrows_the_request(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    """A satellite in the kitchen, no user: the area goes with the request, and the app's
    policy for Home Assistant's own principal applies (kitchen only)."""
    devices = dr.async_get(hass)
    entry = MockConfigEntry(domain="assist_satellite_stand_in")
    entry.add_to_hass(hass)
    speaker = devices.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "kitchen-speaker")}
    )
    devices.async_update_device(speaker.id, area_id="kitchen")
    assert ar.async_get(hass).async_get_area("kitchen") is not None
    for light in ("light.kitchen_lights", "light.bed_light"):
        await hass.services.async_call("light", "turn_on", {"entity_id": light}, blocking=True)

    result = await conversation.async_converse(
        hass, "turn off the lights", None, Context(), "en", AGENT, device_id=speaker.id
    )
    assert result.response.response_type.value == "action_done", result.response.speech
    await wait_for(lambda: state(hass, "light.kitchen_lights") == "off", "the kitchen dark")
    assert state(hass, "light.bed_light") == "on"

    # A satellite entity of its own in the bedroom: its area counts, and the bedroom is
    # outside what the policy grants requests without a user.
    satellite = er.async_get(hass).async_get_or_create(
        "assist_satellite", "test", "bedroom-satellite", config_entry=entry
    )
    er.async_get(hass).async_update_entity(satellite.entity_id, area_id="bedroom")
    result = await conversation.async_converse(
        hass, "turn off the lights", None, Context(), "en", AGENT, satellite_id=satellite.entity_id
    )
    assert result.response.response_type.value == "error"
    assert state(hass, "light.bed_light") == "on"


async def test_the_agent_speaks_the_apps_languages(
    hass: HomeAssistant, app_runner: AppRunner, setup_entry: SetupEntry
) -> None:
    # Not the integration's fallback list (en, ko, id): the app's own, from its info topic.
    await app_runner.start(model=False, api=ApiSettings(instance=INSTANCE, languages=("ko", "en")))
    link: AgentLink = (await setup_entry()).runtime_data
    await wait_for(lambda: link.info is not None, "the app's info")
    agent = conversation.async_get_agent(hass, AGENT)
    assert agent is not None
    assert agent.supported_languages == ["ko", "en"]
