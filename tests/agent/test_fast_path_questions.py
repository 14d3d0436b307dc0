"""State questions as wide as HA's own agent (issue 29), on the real HA test home with a few
sensors added in HA's registries: by device class ("do I have any unlocked doors?", "is any
gas detected in the kitchen?"), sensor values with their units, a thermostat's temperature
(not its mode), and answers that say the state and name what was read."""

from __future__ import annotations

from dataclasses import dataclass

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
import pytest

from botpsy_agent.agent.protocol import AgentResponse, Path, Status
from botpsy_agent.policy import Principal
from tests.agent.support import admin, ask, make_agent
from tests.ha_bridge import HaBridge, wait_until


@dataclass(frozen=True)
class Sensor:
    entity_id: str
    name: str
    device_class: str
    area_id: str
    state: str
    unit: str | None = None


SENSORS = (
    Sensor("binary_sensor.kitchen_gas", "Kitchen gas", "gas", "kitchen", "on"),
    Sensor("binary_sensor.hall_motion", "Hall motion", "motion", "hall", "off"),
    Sensor("binary_sensor.bedroom_window", "Bedroom window", "window", "bedroom", "on"),
    Sensor("sensor.light_sensor", "Light sensor", "illuminance", "living_room", "320", "lx"),
)


@pytest.fixture
async def sensed(hass: HomeAssistant, ha_bridge: HaBridge) -> HaBridge:
    """The test home with gas, motion, window and light-level sensors in HA's registries,
    exposed to Assist, and the office's thermostat also called "furnace"."""
    registry = er.async_get(hass)
    for sensor in SENSORS:
        domain, object_id = sensor.entity_id.split(".")
        entry = registry.async_get_or_create(
            domain,
            "botpsy_test",
            object_id,
            suggested_object_id=object_id,
            original_name=sensor.name,
            original_device_class=sensor.device_class,
        )
        assert entry.entity_id == sensor.entity_id
        registry.async_update_entity(sensor.entity_id, area_id=sensor.area_id)
        attributes = {"friendly_name": sensor.name, "device_class": sensor.device_class}
        if sensor.unit:
            attributes["unit_of_measurement"] = sensor.unit
        hass.states.async_set(sensor.entity_id, sensor.state, attributes)
        async_expose_entity(hass, "conversation", sensor.entity_id, True)
    registry.async_update_entity("climate.hvac", aliases=[er.COMPUTED_NAME, "furnace"])

    def indexed() -> bool:
        home = ha_bridge.index.home
        return (
            all(
                s.entity_id in home.entities
                and home.entities[s.entity_id].area_id == s.area_id
                and home.state_of(s.entity_id).state == s.state
                for s in SENSORS
            )
            and "furnace" in home.entities["climate.hvac"].aliases
        )

    await wait_until(indexed, 5)
    return ha_bridge


async def answer(bridge: HaBridge, text: str, who: Principal | None = None) -> AgentResponse:
    agent = make_agent(bridge, planner=None)
    response = await agent.handle(ask(text, who or admin(bridge)))
    assert response.path is Path.FAST_PATH, (text, response)
    return response


def read(response: AgentResponse) -> list[str]:
    return [e for a in response.actions for e in a.entity_ids]


async def test_any_unlocked_doors_names_the_door(sensed: HaBridge) -> None:
    assert sensed.index.home.state_of("lock.back_door").state == "unlocked"
    response = await answer(sensed, "do I have any unlocked doors?")
    assert response.status is Status.DONE, response
    assert [a.tool for a in response.actions] == ["get_state"]
    assert read(response) == ["lock.back_door"]
    assert response.speech == "Yes: Back door is unlocked."


async def test_gas_in_the_kitchen_reads_the_kitchen_gas_sensor(sensed: HaBridge) -> None:
    response = await answer(sensed, "is any gas detected in the kitchen?")
    assert response.status is Status.DONE, response
    assert read(response) == ["binary_sensor.kitchen_gas"]
    assert response.speech == "Yes: Kitchen gas is detected."


async def test_motion_across_the_home(sensed: HaBridge) -> None:
    response = await answer(sensed, "is motion detected?")
    assert response.status is Status.DONE, response
    assert read(response) == ["binary_sensor.hall_motion"]
    assert response.speech == "No."


async def test_which_windows_are_open_counts_window_sensors_too(sensed: HaBridge) -> None:
    # The demo's covers carry no device class: the bedroom's contact sensor is the window.
    response = await answer(sensed, "which windows are open?")
    assert response.status is Status.DONE, response
    assert read(response) == ["binary_sensor.bedroom_window"]
    assert response.speech == "Bedroom window is open."


async def test_a_sensor_value_is_said_with_its_unit(sensed: HaBridge) -> None:
    response = await answer(sensed, "what is the living room illuminance?")
    assert response.status is Status.DONE, response
    assert read(response) == ["sensor.light_sensor"]
    assert response.speech == "Light sensor: 320 lx."


async def test_the_temperature_in_a_room_is_its_thermostats_temperature_not_its_mode(
    hass: HomeAssistant, sensed: HaBridge
) -> None:
    heatpump = hass.states.get("climate.heatpump")
    assert heatpump is not None and heatpump.state == "heat"
    response = await answer(sensed, "what is the temperature in the living room?")
    assert response.status is Status.DONE, response
    assert read(response) == ["climate.heatpump"]
    current = heatpump.attributes["current_temperature"]
    assert response.speech == f"{heatpump.name}: {current} °C."


async def test_a_room_without_a_thermostat_answers_from_its_temperature_sensor(
    sensed: HaBridge,
) -> None:
    response = await answer(sensed, "what is the temperature in the kitchen?")
    assert response.status is Status.DONE, response
    assert read(response) == ["sensor.fridge_temperature"]
    assert response.speech == "Fridge temperature: 4.5 °C."


async def test_a_thermostat_by_name_says_its_temperature(
    hass: HomeAssistant, sensed: HaBridge
) -> None:
    hvac = hass.states.get("climate.hvac")
    assert hvac is not None
    response = await answer(sensed, "what is the furnace temperature?")
    assert response.status is Status.DONE, response
    assert read(response) == ["climate.hvac"]
    assert response.speech == f"{hvac.name}: {hvac.attributes['current_temperature']} °C."


async def test_the_status_of_a_device(sensed: HaBridge) -> None:
    response = await answer(sensed, "tell me the status of the garage door")
    assert response.status is Status.DONE, response
    assert read(response) == ["cover.garage_door"]
    state = sensed.index.home.state_of("cover.garage_door").state
    assert response.speech == f"Garage Door: {state}."


async def test_state_questions_pass_the_read_permission(sensed: HaBridge) -> None:
    # The kids' tablet may read the kids' room only: not the kitchen's gas sensor.
    response = await answer(
        sensed, "is any gas detected in the kitchen?", Principal.mqtt("kids-tablet")
    )
    assert response.status is not Status.DONE, response
    assert "Kitchen gas" not in response.speech
    assert not response.speech.startswith("Yes")
