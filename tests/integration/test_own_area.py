"""Voice satellites with "the satellite's own area" (issue 30, item 4), on real parts: HA's
`conversation` with our agent, the integration, a real broker and the real app. A satellite
nobody is signed in to acts as Home Assistant itself, placed in the satellite's area, which
HA signs: the kitchen's satellite switches the kitchen's lights, not the bedroom's; an
automation (no satellite, no area) gets nothing from the rule."""

from __future__ import annotations

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import device_registry as dr
from pytest_homeassistant_custom_component.common import MockConfigEntry
import yaml

from custom_components.botpsy.permissions import VOICE_DEFAULTS
from tests.ha_home import HaHome
from tests.integration.conftest import AppRunner, SetupEntry

AGENT = "conversation.botpsy_test"


def kitchen_satellite(hass: HomeAssistant) -> str:
    """A voice satellite's device in the kitchen (as ESPHome or Wyoming register one)."""
    entry = MockConfigEntry(domain="satellite_stand_in")
    entry.add_to_hass(hass)
    devices = dr.async_get(hass)
    device = devices.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "kitchen-satellite")}
    )
    devices.async_update_device(device.id, area_id="kitchen")
    return device.id


async def say(
    hass: HomeAssistant, text: str, device_id: str | None
) -> conversation.ConversationResult:
    """`text` heard with nobody signed in (Context without a user)."""
    return await conversation.async_converse(
        hass, text, None, Context(), "en", AGENT, device_id=device_id
    )


async def test_the_kitchens_satellite_controls_the_kitchen_only(
    hass: HomeAssistant, ha_home: HaHome, app_runner: AppRunner, setup_entry: SetupEntry
) -> None:
    rules = [dict(rule) for rule in VOICE_DEFAULTS["own_area"]]
    app_runner.folder.mkdir(parents=True, exist_ok=True)
    (app_runner.folder / "policy.yaml").write_text(
        yaml.safe_dump({"version": 1, "mqtt": {"homeassistant": {"rules": rules}}})
    )
    await app_runner.start(model=False)
    await setup_entry()
    satellite = kitchen_satellite(hass)
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": ["light.kitchen_lights", "light.bed_light"]}, True
    )

    done = await say(hass, "turn on the kitchen lights", satellite)
    assert done.response.response_type.value == "action_done", done.response.speech
    assert hass.states.get("light.kitchen_lights").state == "on"  # type: ignore[union-attr]

    refused = await say(hass, "turn on the bed light", satellite)
    assert refused.response.response_type.value != "action_done", refused.response.speech
    assert hass.states.get("light.bed_light").state == "off"  # type: ignore[union-attr]

    # No satellite (an automation's request): no area, so the rule gives nothing.
    await hass.services.async_call("light", "turn_off", {"entity_id": "light.kitchen_lights"}, True)
    nowhere = await say(hass, "turn on the kitchen lights", None)
    assert nowhere.response.response_type.value != "action_done", nowhere.response.speech
    assert hass.states.get("light.kitchen_lights").state == "off"  # type: ignore[union-attr]
