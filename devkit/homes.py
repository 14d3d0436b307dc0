"""Homes for tests and benchmarks: a small named family home and generated large ones."""

from __future__ import annotations

import random

from botpsy_agent.home.model import Area, Entity, EntityState, Floor, Home

FLOORS = (Floor("ground", "Ground floor", 0), Floor("upstairs", "Upstairs", 1))
AREAS = (
    Area("kitchen", "Kitchen", "ground"),
    Area("living_room", "Living room", "ground", ("lounge",)),
    Area("hall", "Hall", "ground", ("hallway",)),
    Area("garage", "Garage", "ground"),
    Area("bedroom", "Bedroom", "upstairs"),
    Area("kids_room", "Kids room", "upstairs", ("Sam's room",)),
    Area("guest_room", "Guest room", "upstairs"),
    Area("office", "Office", "upstairs"),
)
_FLOOR_OF = {a.area_id: a.floor_id for a in AREAS}


def _e(entity_id: str, name: str, area: str | None, **extra: object) -> Entity:
    return Entity(
        entity_id=entity_id,
        name=name,
        area_id=area,
        floor_id=_FLOOR_OF.get(area) if area else None,
        **extra,  # type: ignore[arg-type]
    )


def family_home() -> Home:
    """A family home: 38 entities in 8 areas on 2 floors, with labels and hidden ones."""
    entities = [
        _e("light.kitchen", "Kitchen light", "kitchen", aliases=("kitchen lamp",)),
        _e("light.kitchen_counter", "Counter lights", "kitchen"),
        _e("light.living_room", "Living room light", "living_room"),
        _e("light.reading_lamp", "Reading lamp", "living_room"),
        _e("light.hall", "Hall light", "hall"),
        _e("light.bedroom", "Bedroom light", "bedroom"),
        _e("light.kids_room", "Kids room light", "kids_room", aliases=("Sam's light",)),
        _e("light.guest_room", "Guest room light", "guest_room"),
        _e("light.office", "Office light", "office", labels=frozenset({"grown_ups"})),
        _e("switch.coffee_machine", "Coffee machine", "kitchen"),
        _e("switch.tv_plug", "TV plug", "living_room"),
        _e("switch.guest_fan_plug", "Guest fan plug", "guest_room"),
        _e("fan.bedroom", "Bedroom fan", "bedroom"),
        _e("fan.kids_room", "Kids room fan", "kids_room"),
        _e("climate.living_room", "Living room thermostat", "living_room"),
        _e("climate.kids_room", "Kids room thermostat", "kids_room"),
        _e("climate.guest_room", "Guest room thermostat", "guest_room"),
        _e("cover.living_room_blinds", "Living room blinds", "living_room", device_class="blind"),
        _e("cover.kids_room_blinds", "Kids room blinds", "kids_room", device_class="blind"),
        _e("cover.garage_door", "Garage door", "garage", device_class="garage"),
        _e("cover.front_gate", "Front gate", "hall", device_class="gate"),
        _e("lock.front_door", "Front door", "hall"),
        _e("lock.back_door", "Back door", "kitchen"),
        _e("media_player.living_room", "Living room TV", "living_room"),
        _e("media_player.kids_room", "Kids room speaker", "kids_room"),
        _e("vacuum.robot", "Robot vacuum", "living_room"),
        _e("scene.movie_night", "Movie night", "living_room"),
        _e("script.good_night", "Good night", None),
        _e(
            "sensor.living_room_temperature",
            "Living room temperature",
            "living_room",
            device_class="temperature",
        ),
        _e(
            "sensor.office_secret",
            "Office safe status",
            "office",
            labels=frozenset({"grown_ups"}),
            exposed=False,
        ),
        _e("humidifier.bedroom", "Bedroom humidifier", "bedroom"),
        _e("number.kids_night_light_minutes", "Night light minutes", "kids_room"),
        _e("select.vacuum_mode", "Vacuum mode", "living_room"),
        _e("timer.pasta", "Pasta timer", "kitchen"),
        _e("calendar.family", "Family calendar", None),
        _e("todo.shopping_list", "Shopping list", "kitchen"),
        _e("notify.mobile_app_anna", "Anna's phone", None, is_service=True),
        _e("notify.plumber", "Plumber", None),
    ]
    states = [
        EntityState("light.living_room", "on", {"brightness": 128}),
        EntityState("climate.living_room", "heat", {"temperature": 21.0}),
        EntityState("climate.kids_room", "heat", {"temperature": 20.0}),
        EntityState("media_player.living_room", "playing", {"volume_level": 0.3}),
        EntityState("media_player.kids_room", "idle", {"volume_level": 0.2}),
    ]
    return Home.of(entities, AREAS, FLOORS, states)


DOMAINS = (
    "light",
    "switch",
    "fan",
    "climate",
    "cover",
    "lock",
    "media_player",
    "sensor",
    "binary_sensor",
    "scene",
)


def generated_home(n_entities: int, seed: int = 0, n_areas: int = 25) -> Home:
    """A home of `n_entities` spread over `n_areas` areas on 3 floors, with labels."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    floors = [Floor(f"floor_{i}", f"Floor {i}", i) for i in range(3)]
    areas = [Area(f"area_{i}", f"Area {i}", floors[i % 3].floor_id) for i in range(n_areas)]
    labels = [f"label_{i}" for i in range(8)]
    entities = []
    for i in range(n_entities):
        domain = DOMAINS[i % len(DOMAINS)]
        area = rng.choice(areas)
        device_class = (
            rng.choice(("blind", "garage", "door", "shade")) if domain == "cover" else None
        )
        entities.append(
            Entity(
                entity_id=f"{domain}.thing_{i}",
                name=f"Thing {i}",
                area_id=area.area_id,
                floor_id=area.floor_id,
                device_id=f"device_{i // 3}",
                labels=frozenset(rng.sample(labels, rng.randint(0, 2))),
                device_class=device_class,
                exposed=rng.random() > 0.1,
            )
        )
    return Home.of(entities, areas, floors)
