"""The `botpsy.ask` action as automations call it: the whole structured response back, dry
runs that change nothing, acting on someone's behalf (admins only), and clear errors."""

from __future__ import annotations

from typing import Any

from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.mqtt.settings import ApiSettings
from custom_components.botpsy.const import CONF_INSTANCE, CONF_SECRET, DOMAIN
from custom_components.botpsy.link import AgentLink, Ask
from tests.ha_home import HaHome
from tests.ha_mqtt import wait_for
from tests.integration.conftest import INSTANCE, AppRunner, SetupEntry
from tests.integration.test_conversation import state


async def ask(hass: HomeAssistant, user_id: str | None = None, **data: Any) -> dict[str, Any]:
    response = await hass.services.async_call(
        DOMAIN, "ask", data, blocking=True, return_response=True, context=Context(user_id=user_id)
    )
    assert isinstance(response, dict)
    return response


async def test_ask_returns_the_structured_response(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    # As in an automation: no user in the context, the app's `homeassistant` principal.
    response = await ask(hass, text="turn off the kitchen lights")
    assert response["status"] == "done", response
    assert response["path"] == "fast_path"
    assert response["speech"] == "Turned off Kitchen Lights."
    (action,) = response["actions"]
    assert (action["tool"], action["entity_ids"], action["outcome"]) == (
        "turn_off",
        ["light.kitchen_lights"],
        "executed",
    )
    assert set(response["timings"]) >= {"total_ms", "fast_path_ms", "ha_ms"}
    await wait_for(lambda: state(hass, "light.kitchen_lights") == "off", "the light off")
    # A refusal is an answer (data), not an error: the automation can act on it.
    refused = await ask(hass, text="turn on the bed light")
    assert refused["status"] == "refused"
    assert state(hass, "light.bed_light") == "off"


async def test_a_dry_run_executes_nothing(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    before = state(hass, "light.kitchen_lights")
    response = await ask(
        hass, ha_home.users["Daniel"], text="turn off the kitchen lights", dry_run=True
    )
    assert response["status"] == "done", response
    assert [a["outcome"] for a in response["actions"]] == ["planned"]
    assert response["speech"].startswith("Would do:")
    assert state(hass, "light.kitchen_lights") == before


async def test_acting_on_someones_behalf(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    daniel, minji = ha_home.users["Daniel"], ha_home.users["Min-ji"]
    # An admin asks for Min-ji: her rules apply (no control in the office).
    response = await ask(hass, daniel, text="turn off the desk lamp", user=minji)
    assert response["status"] == "refused", response
    assert state(hass, "light.office_rgbw_lights") == "on"
    # Min-ji may not ask as Daniel.
    with pytest.raises(ServiceValidationError) as raised:
        await ask(hass, minji, text="turn off the desk lamp", user=daniel)
    assert raised.value.translation_key == "not_admin"
    # Naming herself is fine; naming nobody known is not.
    assert (await ask(hass, minji, text="turn off the desk lamp", user=minji))["status"] == (
        "refused"
    )
    with pytest.raises(ServiceValidationError) as raised:
        await ask(hass, daniel, text="hello", user="0" * 32)
    assert raised.value.translation_key == "unknown_user"
    # An automation (no user) may name anyone; Daniel may do it.
    response = await ask(hass, text="turn off the desk lamp", user=daniel)
    assert response["status"] == "done", response
    await wait_for(lambda: state(hass, "light.office_rgbw_lights") == "off", "the lamp off")


async def test_what_the_action_cannot_get_an_answer_for_is_an_error(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    with pytest.raises(ServiceValidationError) as raised:
        await ask(hass, text="hello", config_entry_id="nope")
    assert raised.value.translation_key == "unknown_entry"
    # A language the app does not speak: the app's front door refuses the request.
    with pytest.raises(HomeAssistantError) as raised:
        await ask(hass, text="mach das Licht aus", language="de")
    assert raised.value.translation_key == "agent_error"
    assert raised.value.translation_placeholders["code"] == "unknown_language"
    # An error the agent phrased itself (no model for what the fast path cannot do): Assist
    # says its words, the action fails with them.
    with pytest.raises(HomeAssistantError) as raised:
        await ask(hass, text="could you think about what the house needs tonight")
    assert raised.value.translation_key == "agent_error"
    assert raised.value.translation_placeholders["code"] == "model_unavailable"
    assert raised.value.translation_placeholders["message"]
    # Two apps: say which.
    second = MockConfigEntry(
        domain=DOMAIN, unique_id="upstairs", data={CONF_INSTANCE: "upstairs", CONF_SECRET: "x" * 20}
    )
    second.add_to_hass(hass)
    assert await hass.config_entries.async_setup(second.entry_id)
    with pytest.raises(ServiceValidationError) as raised:
        await ask(hass, text="hello")
    assert raised.value.translation_key == "choose_entry"
    response = await ask(
        hass, text="turn off the kitchen lights", config_entry_id=botpsy_entry.entry_id
    )
    assert response["status"] == "done"
    assert await hass.config_entries.async_unload(second.entry_id)
    await hass.config_entries.async_unload(botpsy_entry.entry_id)
    with pytest.raises(ServiceValidationError) as raised:
        await ask(hass, text="hello")
    assert raised.value.translation_key == "not_loaded"


async def test_a_secret_the_app_does_not_hold(
    hass: HomeAssistant,
    app_runner: AppRunner,
    setup_entry: SetupEntry,
    ha_home: HaHome,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("custom_components.botpsy.link.REQUEST_TIMEOUT_S", 1.0)
    await app_runner.start(model=False)
    entry = await setup_entry(secret="a-secret-the-app-never-saw-0000", wait_online=False)
    link: AgentLink = entry.runtime_data
    await hass.async_block_till_done()
    # Signed for secrets the app holds: neither its status nor its policy is believed.
    assert link.online is None
    assert link.policy_state is None
    daniel = ha_home.users["Daniel"]
    # The app's refusal cannot be signed for us: it is believed only when no signed answer
    # came in the request's time (issue 25, finding 3).
    with pytest.raises(HomeAssistantError) as raised:
        await ask(hass, daniel, text="turn off the kitchen lights")
    assert raised.value.translation_key == "not_authorized"
    assert raised.value.translation_placeholders == {"code": "bad_signature"}
    # Without a user the request is signed as Home Assistant: refused alike.
    response = await link.async_request(Ask("turn off the kitchen lights", "en"), via="test")
    assert response.error_code == "bad_signature"


async def test_a_busy_app(
    hass: HomeAssistant, app_runner: AppRunner, setup_entry: SetupEntry
) -> None:
    await app_runner.start(model=False, api=ApiSettings(instance=INSTANCE, rate_per_principal=1))
    entry = await setup_entry()
    # One request a minute for a principal: then busy.
    assert (await ask(hass, text="turn off the kitchen lights"))["status"] == "done"
    with pytest.raises(HomeAssistantError) as raised:
        await ask(hass, text="turn on the kitchen lights")
    assert raised.value.translation_key == "agent_busy"
    assert entry.runtime_data.online
