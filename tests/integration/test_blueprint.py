"""The blueprint `blueprints/automation/botpsy/action_event.yaml` in a real HA: automations
made from it run when the real app acts through Assist, and only for what they filter on."""

from __future__ import annotations

from pathlib import Path
import shutil
from typing import Any

from homeassistant.components import automation
from homeassistant.core import Event, HomeAssistant, callback
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.ha_home import HaHome
from tests.ha_mqtt import wait_for
from tests.integration.test_conversation import process

ROOT = Path(__file__).resolve().parents[2]
BLUEPRINT = ROOT / "blueprints" / "automation" / "botpsy" / "action_event.yaml"


def install_blueprint(folder: Path) -> None:
    """As a user imports it: into blueprints/automation/botpsy/ of the config folder."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(BLUEPRINT, folder / BLUEPRINT.name)


def from_blueprint(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """An automation using the blueprint; its action fires `blueprint_ran` with its name."""
    return {
        "id": name,
        "alias": name,
        "use_blueprint": {
            "path": "botpsy/action_event.yaml",
            "input": {
                **inputs,
                "actions": [
                    {
                        "event": "blueprint_ran",
                        "event_data": {"name": name, "tool": "{{ trigger.event.data.tool }}"},
                    }
                ],
            },
        },
    }


async def test_automations_from_the_blueprint_follow_the_apps_actions(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    target = Path(hass.config.path("blueprints", "automation", "botpsy"))
    await hass.async_add_executor_job(install_blueprint, target)
    ran: list[Event] = []

    @callback
    def collect(event: Event) -> None:
        ran.append(event)

    hass.bus.async_listen("blueprint_ran", collect)
    assert await async_setup_component(
        hass,
        automation.DOMAIN,
        {
            automation.DOMAIN: [
                from_blueprint("any_executed", {}),
                from_blueprint("kitchen_light", {"entity": "light.kitchen_lights"}),
                from_blueprint("turn_off_only", {"tool": "turn_off"}),
                from_blueprint("refusals", {"outcome": "refused"}),
                from_blueprint("other_instance", {"instance": "elsewhere"}),
            ]
        },
    )
    await hass.async_block_till_done()
    for name in ("any_executed", "kitchen_light", "refusals"):
        state = hass.states.get(f"automation.{name}")
        assert state is not None and state.state == "on", name

    await hass.services.async_call(
        "light", "turn_off", {"entity_id": "light.kitchen_lights"}, blocking=True
    )
    result = await process(hass, "turn on the kitchen lights", ha_home.users["Daniel"])
    assert result["response"]["response_type"] == "action_done"

    await wait_for(lambda: len(ran) >= 2, "the automations")
    await hass.async_block_till_done()
    assert sorted(event.data["name"] for event in ran) == ["any_executed", "kitchen_light"]
    assert {event.data["tool"] for event in ran} == {"turn_on"}
