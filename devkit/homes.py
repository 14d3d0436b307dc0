"""Homes for tests and benchmarks: a small named family home and generated large ones."""

from __future__ import annotations

from collections.abc import Iterable
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


# --- homes as people name them ---------------------------------------------------------------

type Kit = tuple[tuple[str, str, str | None], ...]
"""A room's devices: (domain, what it is, device class or None)."""

_LIVING: Kit = (
    ("light", "ceiling light", None),
    ("light", "floor lamp", None),
    ("light", "wall lights", None),
    ("switch", "TV plug", "outlet"),
    ("media_player", "TV", "tv"),
    ("media_player", "speaker", "speaker"),
    ("climate", "thermostat", None),
    ("cover", "blinds", "blind"),
    ("sensor", "temperature", "temperature"),
    ("sensor", "humidity", "humidity"),
    ("binary_sensor", "motion", "motion"),
    ("binary_sensor", "window", "window"),
    ("fan", "ceiling fan", None),
    ("scene", "movie time", None),
)
_KITCHEN: Kit = (
    ("light", "ceiling light", None),
    ("light", "under-cabinet lights", None),
    ("light", "pendant lights", None),
    ("switch", "coffee machine", "outlet"),
    ("switch", "kettle", "outlet"),
    ("sensor", "fridge power", "power"),
    ("sensor", "temperature", "temperature"),
    ("binary_sensor", "leak", "moisture"),
    ("binary_sensor", "motion", "motion"),
    ("binary_sensor", "smoke", "smoke"),
    ("cover", "blinds", "blind"),
    ("media_player", "speaker", "speaker"),
    ("scene", "cooking", None),
)
_BEDROOM: Kit = (
    ("light", "ceiling light", None),
    ("light", "bedside lamp", None),
    ("climate", "radiator", None),
    ("cover", "curtains", "curtain"),
    ("sensor", "temperature", "temperature"),
    ("sensor", "humidity", "humidity"),
    ("binary_sensor", "window", "window"),
    ("binary_sensor", "occupancy", "occupancy"),
    ("fan", "fan", None),
    ("switch", "electric blanket", "outlet"),
    ("media_player", "speaker", "speaker"),
    ("scene", "bedtime", None),
)
_BATHROOM: Kit = (
    ("light", "ceiling light", None),
    ("light", "mirror light", None),
    ("fan", "extractor fan", None),
    ("switch", "towel rail", "switch"),
    ("sensor", "humidity", "humidity"),
    ("sensor", "temperature", "temperature"),
    ("binary_sensor", "leak", "moisture"),
    ("binary_sensor", "motion", "motion"),
    ("binary_sensor", "window", "window"),
)
_OFFICE: Kit = (
    ("light", "desk lamp", None),
    ("light", "ceiling light", None),
    ("switch", "monitor plug", "outlet"),
    ("switch", "printer", "outlet"),
    ("climate", "radiator", None),
    ("sensor", "temperature", "temperature"),
    ("sensor", "CO2", "carbon_dioxide"),
    ("sensor", "desk power", "power"),
    ("binary_sensor", "occupancy", "occupancy"),
    ("cover", "blinds", "blind"),
    ("media_player", "speaker", "speaker"),
    ("script", "focus mode", None),
)
_HALL: Kit = (
    ("light", "ceiling light", None),
    ("light", "night light", None),
    ("binary_sensor", "motion", "motion"),
    ("binary_sensor", "door", "door"),
    ("lock", "door lock", None),
    ("sensor", "temperature", "temperature"),
    ("binary_sensor", "smoke", "smoke"),
)
_GARAGE: Kit = (
    ("light", "ceiling light", None),
    ("cover", "door", "garage"),
    ("switch", "charger", "outlet"),
    ("sensor", "charger power", "power"),
    ("sensor", "charger energy", "energy"),
    ("binary_sensor", "motion", "motion"),
    ("lock", "side door lock", None),
    ("switch", "freezer plug", "outlet"),
)
_UTILITY: Kit = (
    ("light", "light", None),
    ("switch", "washing machine", "outlet"),
    ("switch", "dryer", "outlet"),
    ("sensor", "washing machine power", "power"),
    ("binary_sensor", "leak", "moisture"),
    ("sensor", "boiler temperature", "temperature"),
    ("script", "laundry done", None),
)
_OUTSIDE: Kit = (
    ("light", "path lights", None),
    ("light", "wall lantern", None),
    ("switch", "sprinkler", "switch"),
    ("sensor", "temperature", "temperature"),
    ("sensor", "soil moisture", "moisture"),
    ("binary_sensor", "motion", "motion"),
    ("switch", "fountain pump", "outlet"),
    ("cover", "awning", "awning"),
    ("lock", "gate lock", None),
)
ROOM_KINDS: tuple[tuple[str, str, Kit], ...] = (
    ("Living room", "ground_floor", _LIVING),
    ("Kitchen", "ground_floor", _KITCHEN),
    ("Hallway", "ground_floor", _HALL),
    ("Bedroom", "first_floor", _BEDROOM),
    ("Bathroom", "first_floor", _BATHROOM),
    ("Office", "first_floor", _OFFICE),
    ("Dining room", "ground_floor", _LIVING[:6] + _LIVING[7:10]),
    ("Kids room", "first_floor", _BEDROOM),
    ("Garage", "ground_floor", _GARAGE),
    ("Utility room", "basement", _UTILITY),
    ("Guest room", "second_floor", _BEDROOM),
    ("Garden", "", _OUTSIDE),
    ("Playroom", "second_floor", _LIVING[:3] + _LIVING[4:12]),
    ("Shower room", "second_floor", _BATHROOM),
    ("Gym", "basement", _OFFICE[:2] + _LIVING[4:6] + _BATHROOM[2:5]),
    ("Study", "second_floor", _OFFICE),
    ("Cinema", "basement", _LIVING),
    ("Patio", "", _OUTSIDE[:5]),
    ("Attic", "attic", _HALL[:3] + _UTILITY[4:6]),
    ("Landing", "first_floor", _HALL),
)
"""Rooms in the order a growing home gets them; floor "" is none (outdoors)."""
REPEATED = ("Bedroom", "Bathroom", "Office", "Kids room", "Guest room", "Living room", "Hallway")
"""Rooms a larger home has more of, after one of each kind: numbered ("Bedroom 2")."""
HOME_FLOORS = (
    Floor("basement", "Basement", -1),
    Floor("ground_floor", "Ground floor", 0),
    Floor("first_floor", "First floor", 1),
    Floor("second_floor", "Second floor", 2),
    Floor("attic", "Attic", 3, ("loft",)),
)
WHOLE_HOUSE: Kit = (
    ("sensor", "electricity price", "monetary"),
    ("sensor", "solar power", "power"),
    ("sensor", "grid energy", "energy"),
    ("sensor", "outdoor temperature", "temperature"),
    ("script", "night routine", None),
    ("script", "leaving home", None),
    ("scene", "welcome home", None),
    ("switch", "party mode", "switch"),
)
"""Entities of no room."""
ALIASES = {"TV": "telly", "ceiling light": "big light", "blinds": "shades", "door lock": "lock"}


def _slug(text: str) -> str:
    return "_".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())


def realistic_home(n_entities: int, seed: int = 0, *, taken: Iterable[str] = ()) -> Home:
    """A home of exactly `n_entities` as people name theirs: rooms on up to five floors
    (and outdoors), each with the devices a room of its kind has, named "<Room> <thing>"
    with ids as HA derives them from names, device classes, a few aliases; all exposed
    to Assist. A room whose area id is in `taken` (another home's, beside which this one
    goes) is numbered on ("Kitchen 2"). The same arguments give the same home."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    entities: list[Entity] = []
    for domain, thing, device_class in WHOLE_HOUSE[: max(0, n_entities // 50)]:
        name = thing[0].upper() + thing[1:]
        entities.append(Entity(f"{domain}.{_slug(name)}", name, device_class=device_class))
    areas: list[Area] = []
    seen: dict[str, int] = {}
    taken = set(taken)
    again = tuple(k for k in ROOM_KINDS if k[0] in REPEATED)
    kinds = iter(ROOM_KINDS + again * (1 + n_entities // 50))
    while len(entities) < n_entities:
        kind, floor_id, kit = next(kinds)
        seen[kind] = seen.get(kind, 0) + 1
        room = kind if seen[kind] == 1 else f"{kind} {seen[kind]}"
        while _slug(room) in taken:
            seen[kind] += 1
            room = f"{kind} {seen[kind]}"
        area = Area(_slug(room), room, floor_id or None)
        areas.append(area)
        device = f"device_{len(areas)}"
        for domain, thing, device_class in kit:
            if len(entities) == n_entities:
                break
            name = f"{room} {thing}"
            aliased = thing in ALIASES and rng.random() < 0.3
            aliases = (f"{room} {ALIASES[thing]}",) if aliased else ()
            entities.append(
                Entity(
                    f"{domain}.{_slug(name)}",
                    name,
                    area_id=area.area_id,
                    floor_id=area.floor_id,
                    device_id=device,
                    device_class=device_class,
                    aliases=aliases,
                )
            )
    used = {a.floor_id for a in areas}
    return Home.of(entities, areas, [f for f in HOME_FLOORS if f.floor_id in used])
