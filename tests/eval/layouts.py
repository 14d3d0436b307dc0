"""The homes the held-out set is said in: the demo home renamed (`demo`), a small flat and a
large house. Each is the demo home's devices (tests/eval's cases name them by entity id),
arranged in HA's registries as a person would in the UI (other names, rooms and floors), and,
for the house, many more entities of its own from YAML (distractors that share verbs with
what the cases ask: timers, scenes, modes, lights and sockets in other rooms).

The cases' expectations are by entity id, so they follow a device wherever the home puts it
and whatever it calls it; a case's words follow it through `RenamedHome.say`. A case whose
request means nothing in a home (floors in a one-floor flat) is skipped there, with why.
Every distractor starts off (or idle), so no case that turns things off or asks what is on
has to name it; none is in the rooms the cases name as rooms, nor in the child's rooms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
import re

from tests.eval.cases import Case
from tests.eval.heldout import (
    FOLDER,
    RENAMED_HOME,
    RenamedHome,
    heldout_cases,
    load_paraphrases,
    no_tool_cases,
    variants,
)

DEMO_AREAS: Mapping[str, str] = {
    "kitchen": "Kitchen",
    "living_room": "Living room",
    "hall": "Hall",
    "garage": "Garage",
    "bedroom": "Bedroom",
    "kids_room": "Kids room",
    "office": "Office",
}
DEMO_FLOORS: Mapping[str, tuple[str, int]] = {
    "ground_floor": ("Ground floor", 0),
    "upstairs": ("Upstairs", 1),
}
DEMO_AREA_FLOORS: Mapping[str, str] = {
    "kitchen": "ground_floor",
    "living_room": "ground_floor",
    "hall": "ground_floor",
    "garage": "ground_floor",
    "bedroom": "upstairs",
    "kids_room": "upstairs",
    "office": "upstairs",
}
"""As demo/config/custom_components/demo_home/home.py places them (test_layouts checks)."""
RESTORE_SERVICES: Mapping[str, str] = {
    "light": "turn_off",
    "switch": "turn_off",
    "fan": "turn_off",
    "timer": "cancel",
    "input_select": "select_first",
}
"""How a distractor is put back as it starts, before each case (all start off or idle)."""


@dataclass(frozen=True)
class Layout:
    """A home for the held-out set: the demo devices' names and rooms, its floors and rooms,
    and entities of its own."""

    name: str
    floors: Mapping[str, tuple[str, int]]
    """floor id -> (name, level); ids are what HA makes of the names"""
    areas: Mapping[str, tuple[str, str]]
    """area id -> (name, floor id); ids are what HA makes of the names"""
    devices: Mapping[str, tuple[str, str | None]]
    """demo entity id -> (its name here, its area id here; None: no area)"""
    said_areas: Mapping[str, str] = field(default_factory=dict)
    """demo area id -> how a request names it here (default: the area's name here)"""
    extra_yaml: str = ""
    """HA configuration for the home's own entities, appended to configuration.yaml."""
    extras: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """entity id the YAML makes -> (its name, its area id)"""
    demo_no_tool: bool = True
    """Whether the demo home's no-tool requests (tests/eval/heldout/no_tool.yaml, said in
    this home's names) hold here: not where the home has timers and scenes of its own."""
    own_no_tool: Path | None = None
    """The home's own no-tool requests, in its own words."""
    skipped: Mapping[str, str] = field(default_factory=dict)
    """dev case id -> why its request means nothing in this home"""

    @property
    def renamed(self) -> RenamedHome:
        """The demo home's names -> this home's, for the cases' words."""
        from demo.paths import load_devices

        demo_names = {e: name for e, (name, _area) in load_devices().placed_devices().items()}
        return RenamedHome(
            entities={e: (demo_names[e], name) for e, (name, _area) in self.devices.items()},
            areas={
                area_id: (old, self.said_areas.get(area_id) or self.areas[area_id][0])
                for area_id, old in DEMO_AREAS.items()
            },
        )

    @property
    def settle(self) -> list[tuple[str, str, list[str]]]:
        """Calls that give the home's optimistic entities a state: they start `unknown`, and
        HA turns off only what is on; turned on once, `restore` then turns them off."""
        return [(d, "turn_on", ids) for d, service, ids in self.restore if service == "turn_off"]

    @property
    def restore(self) -> list[tuple[str, str, list[str]]]:
        """(domain, service, entity ids) that put the home's own entities back as they start."""
        by_domain: dict[str, list[str]] = {}
        for entity_id in sorted(self.extras):
            domain = entity_id.split(".")[0]
            if domain in RESTORE_SERVICES:
                by_domain.setdefault(domain, []).append(entity_id)
        return [(d, RESTORE_SERVICES[d], ids) for d, ids in sorted(by_domain.items())]


def _demo_layout() -> Layout:
    """The demo home, every device and room renamed (`RENAMED_HOME`), nothing moved."""
    from demo.paths import load_devices

    placed = load_devices().placed_devices()
    return Layout(
        name="demo",
        floors=DEMO_FLOORS,
        areas={a: (RENAMED_HOME.areas[a][1], DEMO_AREA_FLOORS[a]) for a in DEMO_AREAS},
        devices={e: (new, placed[e][1]) for e, (_old, new) in RENAMED_HOME.entities.items()},
    )


FLAT = Layout(
    name="flat",
    floors={"flat": ("Flat", 0)},
    areas={
        "living_room": ("Sitting room", "flat"),
        "kitchen": ("Kitchenette", "flat"),
        "hall": ("Entryway", "flat"),
        "bedroom": ("Alcove", "flat"),
        "kids_room": ("Box room", "flat"),
        "office": ("Work nook", "flat"),
    },
    devices={
        "light.kitchen": ("Kitchenette spotlights", "kitchen"),
        "light.kitchen_counter": ("Under-cabinet lights", "kitchen"),
        "light.living_room": ("Arc lamp", "living_room"),
        "light.reading_lamp": ("Sofa lamp", "living_room"),
        "light.hall": ("Entry spotlight", "hall"),
        "light.bedroom": ("Alcove light", "bedroom"),
        "light.kids_room": ("Box room light", "kids_room"),
        "light.office": ("Desk light", "office"),
        "light.garage": ("Bike store light", None),
        "switch.coffee_machine": ("Bean-to-cup machine", "kitchen"),
        "switch.tv_plug": ("Telly socket", "living_room"),
        "switch.fairy_lights": ("Paper lanterns", "kids_room"),
        "switch.office_heater": ("Panel heater", "office"),
        "cover.living_room_blinds": ("Sitting room roller blind", "living_room"),
        "cover.bedroom_blinds": ("Alcove curtain", "bedroom"),
        "cover.garage_door": ("Bike store shutter", None),
        "lock.front_door": ("Flat door", "hall"),
        "lock.back_door": ("Balcony door", "living_room"),
        "fan.bedroom": ("Alcove fan", "bedroom"),
        "fan.kids_room": ("Box room fan", "kids_room"),
        "climate.living_room": ("Sitting room thermostat", "living_room"),
        "climate.kids_room": ("Box room thermostat", "kids_room"),
        "media_player.living_room_tv": ("Sitting room TV", "living_room"),
        "media_player.kids_speaker": ("Box room speaker", "kids_room"),
    },
    said_areas={"garage": "bike store"},
    own_no_tool=FOLDER / "no_tool_flat.yaml",
    skipped={
        "recover-good-night": "asks for the lights downstairs: the flat has one floor",
        "whats-on-upstairs": "asks what is on upstairs: the flat has one floor",
    },
)

HOUSE_ROOMS: Mapping[str, tuple[str, str, tuple[str, ...]]] = {
    # area id: (name, floor id, what is in it: "light:Name", "switch:Name", ...)
    "cellar": (
        "Cellar",
        "basement",
        (
            "light:Cellar light",
            "light:Cellar stair light",
            "switch:Chest freezer",
            "switch:Dehumidifier plug",
        ),
    ),
    "laundry_room": (
        "Laundry room",
        "basement",
        (
            "light:Laundry light",
            "switch:Washing machine",
            "switch:Tumble dryer",
            "switch:Iron socket",
            "timer:Laundry timer",
        ),
    ),
    "wine_store": (
        "Wine store",
        "basement",
        (
            "light:Wine rack light",
            "switch:Wine cooler",
        ),
    ),
    "gym": (
        "Gym",
        "basement",
        (
            "light:Gym spots",
            "light:Mirror wall lights",
            "switch:Treadmill",
            "switch:Rowing machine",
            "fan:Gym fan",
            "timer:Workout timer",
        ),
    ),
    "dining_room": (
        "Dining room",
        "ground_floor",
        (
            "light:Dining chandelier",
            "light:Sideboard lamp",
            "light:Display cabinet lights",
            "switch:Hostess trolley",
            "switch:Plate warmer",
        ),
    ),
    "conservatory": (
        "Conservatory",
        "ground_floor",
        (
            "light:Conservatory lights",
            "light:Palm uplighter",
            "fan:Conservatory fan",
            "switch:Plant heater",
            "switch:Water feature",
        ),
    ),
    "utility_room": (
        "Utility room",
        "ground_floor",
        (
            "light:Utility light",
            "switch:Boiler pump",
            "timer:Dough proving timer",
        ),
    ),
    "boot_room": (
        "Boot room",
        "ground_floor",
        (
            "light:Boot room light",
            "switch:Boot dryer",
        ),
    ),
    "porch": (
        "Porch",
        "ground_floor",
        (
            "light:Porch lantern",
            "light:House number light",
            "switch:Doorbell chime",
        ),
    ),
    "garden": (
        "Garden",
        "ground_floor",
        (
            "light:Path lights",
            "light:Pergola lights",
            "light:Tree uplighters",
            "switch:Pond pump",
            "switch:Garden sprinklers",
            "switch:Patio heater",
            "switch:Hot tub pump",
            "timer:Sprinkler timer",
        ),
    ),
    "landing": (
        "Landing",
        "upstairs",
        (
            "light:Landing light",
            "light:Banister lights",
        ),
    ),
    "bathroom": (
        "Bathroom",
        "upstairs",
        (
            "light:Mirror light",
            "light:Bathroom spots",
            "light:Shower light",
            "switch:Towel rail",
            "switch:Shaver socket",
            "fan:Extractor fan",
            "timer:Bath timer",
        ),
    ),
    "guest_room": (
        "Guest room",
        "upstairs",
        (
            "light:Guest bedside lamp",
            "light:Guest ceiling light",
            "light:Guest reading light",
            "switch:Guest electric blanket",
            "switch:Guest kettle",
            "fan:Guest fan",
        ),
    ),
    "dressing_room": (
        "Dressing room",
        "upstairs",
        (
            "light:Wardrobe light",
            "light:Vanity lights",
            "switch:Hair dryer socket",
        ),
    ),
    "attic_studio": (
        "Attic studio",
        "attic",
        (
            "light:Easel light",
            "light:Skylight strip",
            "switch:Kiln",
            "switch:Studio speaker socket",
            "fan:Studio fan",
            "timer:Kiln timer",
        ),
    ),
    "games_room": (
        "Games room",
        "attic",
        (
            "light:Pool table light",
            "light:Neon sign",
            "switch:Arcade cabinet",
            "switch:Games console",
            "switch:Popcorn maker",
            "fan:Games room fan",
            "timer:Game timer",
        ),
    ),
}
HOUSE_MODES: Mapping[str, tuple[str, str, tuple[str, ...]]] = {
    # input_select id: (name, area id, options; the first is where it starts)
    "input_select.boiler_mode": ("Boiler mode", "cellar", ("Auto", "Eco", "Boost")),
    "input_select.sprinkler_programme": (
        "Sprinkler programme",
        "garden",
        ("Off", "Dawn", "Dusk"),
    ),
}
HOUSE_SCENES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    # scene name: the home's own lights it turns on
    "Dinner for two": ("light.dining_chandelier", "light.sideboard_lamp"),
    "Garden evening": ("light.path_lights", "light.pergola_lights"),
    "Pool night": ("light.pool_table_light",),
}
HOUSE_SENSORS: Mapping[str, tuple[str, str, str, str]] = {
    # name: (area id, device class, unit, value)
    "Cellar temperature": ("cellar", "temperature", "°C", "12.5"),
    "Garden temperature": ("garden", "temperature", "°C", "6.0"),
    "Wine store temperature": ("wine_store", "temperature", "°C", "11.0"),
    "Freezer power": ("cellar", "power", "W", "85"),
    "Studio power": ("attic_studio", "power", "W", "0"),
    "Attic temperature": ("games_room", "temperature", "°C", "17.5"),
    "Pond temperature": ("garden", "temperature", "°C", "7.5"),
    "Gym power": ("gym", "power", "W", "0"),
}


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_")


def _house_yaml() -> tuple[str, dict[str, tuple[str, str]]]:
    """The house's own entities as HA YAML (optimistic template lights, switches and fans,
    timers, input_selects, scenes, template sensors) and where each goes."""
    extras: dict[str, tuple[str, str]] = {}
    template: dict[str, list[str]] = {"light": [], "switch": [], "fan": [], "sensor": []}
    timers: list[str] = []
    for area_id, (_room, _floor, things) in HOUSE_ROOMS.items():
        for thing in things:
            domain, name = thing.split(":", 1)
            extras[f"{domain}.{_slug(name)}"] = (name, area_id)
            if domain == "timer":
                timers.append(f"  {_slug(name)}:\n    name: {name}\n    duration: '00:20:00'")
            else:
                template[domain].append(_optimistic(domain, name))
    for name, (area_id, device_class, unit, value) in HOUSE_SENSORS.items():
        extras[f"sensor.{_slug(name)}"] = (name, area_id)
        template["sensor"].append(
            f"      - name: {name}\n        unique_id: eval_house_{_slug(name)}\n"
            f"        device_class: {device_class}\n        unit_of_measurement: '{unit}'\n"
            f"        state: '{value}'"
        )
    selects = []
    for entity_id, (name, area_id, options) in HOUSE_MODES.items():
        extras[entity_id] = (name, area_id)
        listed = ", ".join(options)
        selects.append(f"  {entity_id.split('.')[1]}:\n    name: {name}\n    options: [{listed}]")
    scenes = []
    for name, lights in HOUSE_SCENES.items():
        extras[f"scene.{_slug(name)}"] = (name, extras[lights[0]][1])
        on = "".join(f"\n      {light}: 'on'" for light in lights)
        scenes.append(f"  - name: {name}\n    id: eval_house_{_slug(name)}\n    entities:{on}")
    blocks = "".join(
        f"  - {domain}:\n" + "\n".join(entries) + "\n" for domain, entries in template.items()
    )
    text = (
        "# The evaluation's large house: its own entities (tests/eval/layouts.py).\n"
        f"template:\n{blocks}"
        "timer:\n" + "\n".join(timers) + "\n"
        "input_select:\n" + "\n".join(selects) + "\n"
        "scene house:\n" + "\n".join(scenes) + "\n"
    )
    return text, extras


def _optimistic(domain: str, name: str) -> str:
    """A template entity with no state of its own: HA keeps what it was last told."""
    actions = {
        "light": ("turn_on", "turn_off"),
        "switch": ("turn_on", "turn_off"),
        "fan": ("turn_on", "turn_off"),
    }[domain]
    does = "".join(f"\n        {action}: []" for action in actions)
    return (
        f"      - name: {name}\n        unique_id: eval_house_{_slug(name)}\n"
        f"        optimistic: true{does}"
    )


_HOUSE_YAML, _HOUSE_EXTRAS = _house_yaml()

HOUSE = Layout(
    name="house",
    floors={
        "basement": ("Basement", -1),
        "ground_floor": ("Ground floor", 0),
        "upstairs": ("Upstairs", 1),
        "attic": ("Attic", 2),
    },
    areas={
        "kitchen": ("Cookroom", "ground_floor"),
        "living_room": ("Drawing room", "ground_floor"),
        "hall": ("Vestibule", "ground_floor"),
        "garage": ("Carport", "ground_floor"),
        "bedroom": ("Master suite", "upstairs"),
        "kids_room": ("Playroom", "upstairs"),
        "office": ("Bureau", "attic"),
        **{area_id: (name, floor) for area_id, (name, floor, _) in HOUSE_ROOMS.items()},
    },
    devices={
        "light.kitchen": ("Cookroom pendants", "kitchen"),
        "light.kitchen_counter": ("Island lights", "kitchen"),
        "light.living_room": ("Standard lamp", "living_room"),
        "light.reading_lamp": ("Wingback lamp", "living_room"),
        "light.hall": ("Vestibule lantern", "hall"),
        "light.bedroom": ("Suite ceiling light", "bedroom"),
        "light.kids_room": ("Playroom light", "kids_room"),
        "light.office": ("Bureau lamp", "office"),
        "light.garage": ("Carport light", "garage"),
        "switch.coffee_machine": ("Barista machine", "kitchen"),
        "switch.tv_plug": ("AV socket", "living_room"),
        "switch.fairy_lights": ("Star lights", "kids_room"),
        "switch.office_heater": ("Bureau radiator", "office"),
        "cover.living_room_blinds": ("Drawing room curtains", "living_room"),
        "cover.bedroom_blinds": ("Suite shutters", "bedroom"),
        "cover.garage_door": ("Carport door", "garage"),
        "lock.front_door": ("Main entrance", "hall"),
        "lock.back_door": ("Mudroom door", "kitchen"),
        "fan.bedroom": ("Suite fan", "bedroom"),
        "fan.kids_room": ("Playroom fan", "kids_room"),
        "climate.living_room": ("Drawing room thermostat", "living_room"),
        "climate.kids_room": ("Playroom thermostat", "kids_room"),
        "media_player.living_room_tv": ("Drawing room TV", "living_room"),
        "media_player.kids_speaker": ("Playroom speaker", "kids_room"),
    },
    extra_yaml=_HOUSE_YAML,
    extras=_HOUSE_EXTRAS,
    skipped={
        # Its words are right in the house: turning the washing machine on is what is asked.
        "no-device-1": "asks for a washing machine, which the house has",
    },
    demo_no_tool=False,
    own_no_tool=FOLDER / "no_tool_house.yaml",
)

LAYOUTS: Mapping[str, Layout] = {"demo": _demo_layout(), "flat": FLAT, "house": HOUSE}
SAID_AS_WRITTEN = RenamedHome(entities={}, areas={})


def heldout_in(layout: Layout, dev: Sequence[Case], *, every: bool = False) -> list[Case]:
    """The held-out set in `layout`: the dev set's model-path cases in other words, said in
    its names (but those it skips), and the requests no tool fits there."""
    if layout.name == "demo":
        return heldout_cases(dev, every=every)
    kept = [c for c in dev if c.id not in layout.skipped]
    cases = variants(kept, load_paraphrases(), layout.renamed, every=every)
    if layout.demo_no_tool:
        cases += no_tool_cases(layout.renamed)
    if layout.own_no_tool is not None:
        cases += no_tool_cases(SAID_AS_WRITTEN, layout.own_no_tool)
    return cases
