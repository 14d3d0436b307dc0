"""The demo home's devices: what exists, where, and how it starts each time.

Areas and floors are assigned by the demo launcher through HA's registries (as a person
would in the UI); the ids here are the entity ids HA gives these devices.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# entity id: (name, area id, initial attributes)
LIGHTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "light.kitchen": ("Kitchen light", "kitchen", {"on": False, "brightness": 200, "color": True}),
    "light.kitchen_counter": ("Counter lights", "kitchen", {"on": True, "brightness": 120}),
    "light.living_room": (
        "Living room lamp",
        "living_room",
        {"on": True, "brightness": 150, "color": True},
    ),
    "light.reading_lamp": ("Reading lamp", "living_room", {"on": False, "brightness": 255}),
    "light.hall": ("Hall light", "hall", {"on": False, "brightness": 180}),
    "light.bedroom": ("Bedroom light", "bedroom", {"on": False, "brightness": 100, "color": True}),
    "light.kids_room": (
        "Kids room light",
        "kids_room",
        {"on": True, "brightness": 90, "color": True},
    ),
    "light.office": ("Office light", "office", {"on": False, "brightness": 255}),
    "light.garage": ("Garage light", "garage", {"on": False, "brightness": 255}),
}
SWITCHES: dict[str, tuple[str, str, bool]] = {
    "switch.coffee_machine": ("Coffee machine", "kitchen", False),
    "switch.tv_plug": ("TV plug", "living_room", True),
    "switch.fairy_lights": ("Fairy lights", "kids_room", False),
    "switch.office_heater": ("Office heater", "office", False),
}
COVERS: dict[str, tuple[str, str, str, int]] = {  # name, area, device class, position
    "cover.living_room_blinds": ("Living room blinds", "living_room", "blind", 100),
    "cover.bedroom_blinds": ("Bedroom blinds", "bedroom", "blind", 0),
    "cover.garage_door": ("Garage door", "garage", "garage", 0),
}
LOCKS: dict[str, tuple[str, str, bool]] = {  # name, area, locked
    "lock.front_door": ("Front door", "hall", True),
    "lock.back_door": ("Back door", "kitchen", True),
}
FANS: dict[str, tuple[str, str]] = {
    "fan.bedroom": ("Bedroom fan", "bedroom"),
    "fan.kids_room": ("Kids room fan", "kids_room"),
}
CLIMATES: dict[str, tuple[str, str, float, float]] = {  # name, area, target, current
    "climate.living_room": ("Living room thermostat", "living_room", 21.0, 20.5),
    "climate.kids_room": ("Kids room thermostat", "kids_room", 20.0, 19.0),
}
MEDIA_PLAYERS: dict[str, tuple[str, str, list[str]]] = {
    "media_player.living_room_tv": ("Living room TV", "living_room", ["HDMI 1", "HDMI 2", "TV"]),
    "media_player.kids_speaker": ("Kids speaker", "kids_room", ["Radio", "Bluetooth"]),
}
AREAS: dict[str, tuple[str, str, list[str]]] = {  # name, floor, aliases
    "kitchen": ("Kitchen", "ground_floor", []),
    "living_room": ("Living room", "ground_floor", ["lounge"]),
    "hall": ("Hall", "ground_floor", ["hallway", "entrance"]),
    "garage": ("Garage", "ground_floor", []),
    "bedroom": ("Bedroom", "upstairs", []),
    "kids_room": ("Kids room", "upstairs", ["Sam's room"]),
    "office": ("Office", "upstairs", ["study"]),
}
FLOORS: dict[str, tuple[str, int, list[str]]] = {  # ids are what HA makes of the names
    "ground_floor": ("Ground floor", 0, ["downstairs"]),
    "upstairs": ("Upstairs", 1, ["first floor"]),
}
ALIASES: dict[str, list[str]] = {
    "light.living_room": ["big lamp"],
    "light.kids_room": ["Sam's light"],
    "media_player.living_room_tv": ["telly"],
}

DEVICE_TABLES: tuple[Mapping[str, tuple[Any, ...]], ...] = (
    LIGHTS,
    SWITCHES,
    COVERS,
    LOCKS,
    FANS,
    CLIMATES,
    MEDIA_PLAYERS,
)
"""Every device table; each row starts with the device's name and its area id."""


def placed_devices() -> dict[str, tuple[str, str]]:
    """Every device: entity id -> (name, area id)."""
    return {
        entity_id: (spec[0], spec[1])
        for table in DEVICE_TABLES
        for entity_id, spec in table.items()
    }
