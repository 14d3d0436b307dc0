"""A real test home inside the test's `hass`, for every test that needs HA with a home in it.

`await setup_test_home(hass)` sets up, in HA itself:

* HA's `demo` integration with a chosen set of its platforms (real HA entities): lights,
  switches, fans, climate, humidifiers, covers, media players, vacuums, numbers, a select,
  a notify entity and sensors;
* helpers from YAML: `input_boolean`, `timer`, a `template` sensor and lock, a `scene` and a
  `script`;
* `local_calendar` ("Family") and `local_todo` ("Shopping list") config entries;
* two legacy notify services registered by `PhoneAppStandIn`, which stands in for the HA
  Companion app (`mobile_app`, which needs a phone), with the phone's device as mobile_app
  registers it;
* two floors, seven areas, two labels, aliases and area assignments through HA's registries
  (some entities get their area from their device), one entity explicitly hidden from Assist,
  and two HA users besides the test's admin.

It returns a `HaHome` with the ids. Everything here is stable: other tests (agent, fast path,
end to end) rely on these names, areas and ids, so add to it rather than change it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest.mock import patch

from homeassistant.components import demo
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant, ServiceCall
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
    label_registry as lr,
)
from homeassistant.helpers.service import async_set_service_schema
from homeassistant.setup import async_setup_component
from homeassistant.util import slugify
from homeassistant.util.yaml import parse_yaml
from pytest_homeassistant_custom_component.common import MockConfigEntry

from botpsy_agent.home.model import Home

DEMO_PLATFORMS = [
    Platform.LIGHT,
    Platform.SWITCH,
    Platform.FAN,
    Platform.CLIMATE,
    Platform.HUMIDIFIER,
    Platform.COVER,
    Platform.MEDIA_PLAYER,
    Platform.VACUUM,
    Platform.NUMBER,
    Platform.SELECT,
    Platform.NOTIFY,
    Platform.SENSOR,
]
"""Demo's lock waits 2 s per action, so the home's lock is a template lock instead."""

HELPERS_YAML = """
input_boolean:
  guest_mode:
    name: Guest mode
  night_mode:
    name: Night mode
  back_door_bolt:
    name: Back door bolt
timer:
  laundry:
    name: Laundry timer
    duration: "00:45:00"
template:
  - sensor:
      - name: Fridge temperature
        unique_id: fridge_temperature
        device_class: temperature
        unit_of_measurement: "°C"
        state: "4.5"
  - lock:
      - name: Back door
        unique_id: back_door_lock
        state: "{{ 'locked' if is_state('input_boolean.back_door_bolt', 'on') else 'unlocked' }}"
        lock:
          - action: input_boolean.turn_on
            target:
              entity_id: input_boolean.back_door_bolt
        unlock:
          - action: input_boolean.turn_off
            target:
              entity_id: input_boolean.back_door_bolt
scene:
  - id: movie_night
    name: Movie night
    entities:
      light.living_room_rgbww_lights:
        state: "on"
        brightness: 60
      light.ceiling_lights: "off"
script:
  good_night:
    alias: Good night
    sequence:
      - action: light.turn_off
        target:
          entity_id:
            - light.bed_light
            - light.kitchen_lights
      - action: input_boolean.turn_on
        target:
          entity_id: input_boolean.night_mode
"""

FLOORS = {  # floor_id: (name, level, aliases)
    "ground_floor": ("Ground floor", 0, {"downstairs"}),
    "upstairs": ("Upstairs", 1, {"first floor"}),
}
AREAS = {  # area_id: (name, floor_id, aliases)
    "kitchen": ("Kitchen", "ground_floor", set()),
    "living_room": ("Living room", "ground_floor", {"lounge"}),
    "hall": ("Hall", "ground_floor", {"hallway"}),
    "garage": ("Garage", "ground_floor", set()),
    "bedroom": ("Bedroom", "upstairs", {"master bedroom"}),
    "office": ("Office", "upstairs", {"study"}),
    "kids_room": ("Kids room", "upstairs", {"Sam's room"}),
}
LABELS = {"night": "Night", "grown_ups": "Grown-ups"}

ENTITY_AREAS = {
    "light.kitchen_lights": "kitchen",
    "cover.kitchen_window": "kitchen",
    "lock.back_door": "kitchen",
    "sensor.fridge_temperature": "kitchen",
    "todo.shopping_list": "kitchen",
    "notify.notifier": "kitchen",
    "light.living_room_rgbww_lights": "living_room",
    "cover.living_room_window": "living_room",
    "fan.living_room_fan": "living_room",
    "switch.decorative_lights": "living_room",
    "scene.movie_night": "living_room",
    "light.entrance_color_white_lights": "hall",
    "cover.hall_window": "hall",
    "cover.garage_door": "garage",
    "vacuum.demo_vacuum_0_ground_floor": "garage",
    "switch.ac": "garage",
    "timer.laundry": "garage",
    "light.bed_light": "bedroom",
    "fan.ceiling_fan": "bedroom",
    "light.office_rgbw_lights": "office",
    "sensor.carbon_dioxide": "office",
    "number.volume": "office",
    "fan.percentage_full_fan": "kids_room",
    "select.speed": "kids_room",
}
DEVICE_AREAS = {  # these entities get their area from their device
    "light.ceiling_lights": "living_room",
    "climate.heatpump": "living_room",
    "climate.ecobee": "bedroom",
    "climate.hvac": "office",
}
ALIASES = {
    "light.kitchen_lights": ["kitchen lamp"],
    "light.bed_light": ["bedside lamp"],
    "light.office_rgbw_lights": ["desk lamp"],
    "light.entrance_color_white_lights": ["porch light"],
    "switch.decorative_lights": ["fairy lights"],
    "notify.notifier": ["kitchen display"],
}
NAMES = {  # registry name overrides
    "vacuum.demo_vacuum_0_ground_floor": "Robot vacuum",
    "fan.percentage_full_fan": "Sam's fan",
}
ENTITY_LABELS = {
    "switch.decorative_lights": {"night"},
    "light.bed_light": {"night"},
    "light.office_rgbw_lights": {"grown_ups"},
    "lock.back_door": {"grown_ups"},
}
HIDDEN_FROM_ASSIST = ("sensor.power_consumption",)
PHONES = ("Min-ji's phone", "Daniel's phone")
USERS = {"Min-ji": False, "Daniel": True}  # name: is admin
CALENDAR = "calendar.family"
TODO = "todo.shopping_list"


class PhoneAppStandIn:
    """Stands in for the HA Companion app on one phone (`mobile_app`, which needs a real
    phone): registers the phone's device and its legacy notify service
    `notify.mobile_app_<slug of the device name>` in HA, and keeps every message HA
    delivers to it."""

    def __init__(self, hass: HomeAssistant, device_name: str) -> None:
        self.hass = hass
        self.device_name = device_name
        self.service = f"mobile_app_{slugify(device_name)}"
        self.received: list[dict[str, Any]] = []

    @property
    def recipient(self) -> str:
        return f"notify.{self.service}"

    def register(self) -> None:
        entry = MockConfigEntry(domain="mobile_app", title=self.device_name)
        entry.add_to_hass(self.hass)
        dr.async_get(self.hass).async_get_or_create(
            config_entry_id=entry.entry_id,
            identifiers={("mobile_app", slugify(self.device_name))},
            name=self.device_name,
            manufacturer="PhoneAppStandIn",
            model="stand-in",
        )
        self.hass.services.async_register("notify", self.service, self._deliver)
        async_set_service_schema(
            self.hass,
            "notify",
            self.service,
            {"name": f"Send a notification via {self.service}", "fields": {}},
        )

    async def _deliver(self, call: ServiceCall) -> None:
        self.received.append(dict(call.data))


@dataclass(frozen=True)
class HaHome:
    """The ids of what `setup_test_home` built."""

    floors: Mapping[str, str]
    """floor_id: name"""
    areas: Mapping[str, str]
    """area_id: name"""
    labels: Mapping[str, str]
    """label_id: name"""
    users: Mapping[str, str]
    """name: HA user id"""
    phones: Mapping[str, PhoneAppStandIn]
    """device name: its stand-in"""
    entity_ids: tuple[str, ...] = field(default=())
    calendar: str = CALENDAR
    todo: str = TODO


async def setup_test_home(hass: HomeAssistant) -> HaHome:
    """Build the test home in `hass` (see the module docstring) and return its ids."""
    storage = Path(hass.config.path(".storage"))
    await hass.async_add_executor_job(lambda: storage.mkdir(exist_ok=True))
    config = parse_yaml(HELPERS_YAML)
    assert isinstance(config, dict)
    for component in ("homeassistant", "persistent_notification", "config"):
        assert await async_setup_component(hass, component, {})
    # Demo's config entry sets up the platforms in this list; unloading with the full
    # list later only skips the ones never loaded.
    with patch.object(demo, "COMPONENTS_WITH_CONFIG_ENTRY_DEMO_PLATFORM", DEMO_PLATFORMS):
        assert await async_setup_component(hass, "demo", {})
        await hass.async_block_till_done()
    for component in ("input_boolean", "timer", "template", "scene", "script"):
        assert await async_setup_component(hass, component, {component: config[component]})
    for domain, data in (
        ("local_calendar", {"calendar_name": "Family", "storage_key": "family"}),
        ("local_todo", {"todo_list_name": "Shopping list", "storage_key": "shopping_list"}),
    ):
        entry = MockConfigEntry(domain=domain, data=data, title=next(iter(data.values())))
        entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    phones = {name: PhoneAppStandIn(hass, name) for name in PHONES}
    for phone in phones.values():
        phone.register()

    floors = fr.async_get(hass)
    for floor_id, (name, level, aliases) in FLOORS.items():
        assert floors.async_create(name, level=level, aliases=aliases).floor_id == floor_id
    areas = ar.async_get(hass)
    for area_id, (name, floor_id, aliases) in AREAS.items():
        created = areas.async_create(name, floor_id=floor_id, aliases=aliases)
        assert created.id == area_id
    labels = lr.async_get(hass)
    for label_id, name in LABELS.items():
        assert labels.async_create(name).label_id == label_id

    entities, devices = er.async_get(hass), dr.async_get(hass)
    for entity_id, area_id in DEVICE_AREAS.items():
        device_id = entities.async_get(entity_id).device_id  # type: ignore[union-attr]
        assert device_id is not None
        devices.async_update_device(device_id, area_id=area_id)
    for entity_id in ENTITY_AREAS.keys() | ALIASES.keys() | NAMES.keys() | ENTITY_LABELS.keys():
        changes: dict[str, Any] = {}
        entry = entities.async_get(entity_id)
        assert entry is not None, entity_id
        if entity_id in ENTITY_AREAS:
            if (
                entry.device_id
                and entity_id not in NAMES
                and not er.async_get_unprefixed_name(hass, entry)
            ):
                # HA: an entity without a name of its own takes its device's area.
                devices.async_update_device(entry.device_id, area_id=ENTITY_AREAS[entity_id])
            else:
                changes["area_id"] = ENTITY_AREAS[entity_id]
        if entity_id in ALIASES:
            changes["aliases"] = [er.COMPUTED_NAME, *ALIASES[entity_id]]
        if entity_id in NAMES:
            changes["name"] = NAMES[entity_id]
        if entity_id in ENTITY_LABELS:
            changes["labels"] = ENTITY_LABELS[entity_id]
        entities.async_update_entity(entity_id, **changes)
    for entity_id in HIDDEN_FROM_ASSIST:
        async_expose_entity(hass, "conversation", entity_id, False)

    users = {}
    for name, is_admin in USERS.items():
        user = await hass.auth.async_create_user(
            name, group_ids=["system-admin" if is_admin else "system-users"]
        )
        users[name] = user.id
    await hass.async_block_till_done()

    return HaHome(
        floors={floor_id: spec[0] for floor_id, spec in FLOORS.items()},
        areas={area_id: spec[0] for area_id, spec in AREAS.items()},
        labels=dict(LABELS),
        users=users,
        phones=phones,
        entity_ids=tuple(sorted(hass.states.async_entity_ids())),
    )


def add_generated_home(hass: HomeAssistant, home: Home) -> list[str]:
    """Put a generated home (`devkit.homes.realistic_home`) into this HA beside what is
    there: its floors and areas (those of the same id already there are kept), its
    entities in HA's entity registry with their names, rooms, device classes and aliases,
    a state each, every one exposed to Assist; an id HA has already (the test home's
    `cover.garage_door`) is left as it is. The entities stand for devices no integration
    serves (HA ignores a call to them); the listing the app builds from them is what it
    would build for such a home. Returns the ids added."""
    floors = fr.async_get(hass)
    for floor in home.floors.values():
        if floors.async_get_floor(floor.floor_id) is None:
            made = floors.async_create(floor.name, level=floor.level, aliases=set(floor.aliases))
            assert made.floor_id == floor.floor_id, made
    areas = ar.async_get(hass)
    for area in home.areas.values():
        if areas.async_get_area(area.area_id) is None:
            made_area = areas.async_create(area.name, floor_id=area.floor_id)
            assert made_area.id == area.area_id, made_area
    entities = er.async_get(hass)
    added = []
    for entity in home.entities.values():
        if hass.states.get(entity.entity_id) is not None:
            continue
        domain, object_id = entity.entity_id.split(".", 1)
        entry = entities.async_get_or_create(
            domain,
            "botpsy_generated",
            entity.entity_id,
            suggested_object_id=object_id,
            original_name=entity.name,
            original_device_class=entity.device_class,
        )
        assert entry.entity_id == entity.entity_id, entry.entity_id
        entities.async_update_entity(
            entry.entity_id,
            area_id=entity.area_id,
            aliases=[er.COMPUTED_NAME, *entity.aliases],
        )
        hass.states.async_set(entry.entity_id, "off", {"friendly_name": entity.name})
        async_expose_entity(hass, "conversation", entry.entity_id, True)
        added.append(entry.entity_id)
    return added
