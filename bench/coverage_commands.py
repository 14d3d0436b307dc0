"""The commands of the fast-path coverage evaluation, built from the demo home's device tables
(demo_home/home.py) and a table of names: the same phrasings with the original names and,
for the second pass, with every entity and area renamed.

Each command says what a right answer acts on or reads: the tool, the entities (exactly),
and the parameters that must be in the call. The phrasings are ours (no public command set
ships as a package we may install), written the way people talk to Assist.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from demo.paths import load_devices

devices = load_devices()


@dataclass(frozen=True)
class Command:
    text: str
    tool: str
    """The tool a right answer calls (`None`-like "" when no mapped tool exists: the intent
    stays with the model and counts against coverage of both agents alike)."""
    entities: frozenset[str]
    params: Mapping[str, Any] = field(default_factory=dict)
    group: str = ""


@dataclass(frozen=True)
class Names:
    """What everything is called in one pass: entity id -> name, area id -> name."""

    entities: Mapping[str, str]
    areas: Mapping[str, str]


def original_names() -> Names:
    entities = {entity_id: name for entity_id, (name, _) in devices.placed_devices().items()}
    return Names(entities, {a: spec[0] for a, spec in devices.AREAS.items()})


# New names avoid ending in "light" or "lamp": HA's templates read "the Stove light" as a
# device "Stove" plus the word light, which would measure a naming trap, not coverage.
RENAMED = Names(
    entities={
        "light.kitchen": "Stove spot",
        "light.kitchen_counter": "Worktop strip",
        "light.living_room": "Corner glow",
        "light.reading_lamp": "Armchair reader",
        "light.hall": "Entry beam",
        "light.bedroom": "Night glow",
        "light.kids_room": "Star projector",
        "light.office": "Desk beam",
        "light.garage": "Workshop beam",
        "switch.coffee_machine": "Espresso maker",
        "switch.tv_plug": "Media socket",
        "switch.fairy_lights": "Garland",
        "switch.office_heater": "Space heater",
        "cover.living_room_blinds": "Patio blinds",
        "cover.bedroom_blinds": "Sleeping room blinds",
        "cover.garage_door": "Carport door",
        "lock.front_door": "Main entrance",
        "lock.back_door": "Garden door",
        "fan.bedroom": "Tower fan",
        "fan.kids_room": "Nursery fan",
        "climate.living_room": "Main thermostat",
        "climate.kids_room": "Nursery thermostat",
        "media_player.living_room_tv": "Big screen",
        "media_player.kids_speaker": "Toy speaker",
    },
    areas={
        "kitchen": "Galley",
        "living_room": "Family room",
        "hall": "Foyer",
        "garage": "Carport",
        "bedroom": "Sleeping room",
        "kids_room": "Nursery",
        "office": "Den",
    },
)

PERCENTS = (10, 25, 40, 60, 75, 90)
ITEMS = ("milk", "eggs", "bread", "apples", "coffee", "rice")


def _in(domain: str, area: str | None = None, device_class: str | None = None) -> frozenset[str]:
    found = set()
    for table, dom in (
        (devices.LIGHTS, "light"),
        (devices.SWITCHES, "switch"),
        (devices.COVERS, "cover"),
        (devices.LOCKS, "lock"),
        (devices.FANS, "fan"),
        (devices.CLIMATES, "climate"),
        (devices.MEDIA_PLAYERS, "media_player"),
    ):
        if dom != domain:
            continue
        for entity_id, spec in table.items():
            if area is not None and spec[1] != area:
                continue
            if device_class is not None and (dom != "cover" or spec[2] != device_class):
                continue
            found.add(entity_id)
    return frozenset(found)


def commands(names: Names) -> list[Command]:  # noqa: PLR0912, PLR0915 - one table, read top to bottom
    """Every command of one pass, in a stable order."""
    out: list[Command] = []

    def add(text: str, tool: str, entities: frozenset[str] | set[str], group: str, **params: Any):
        out.append(Command(text, tool, frozenset(entities), params, group))

    n, areas = names.entities, names.areas
    floor_of = {a: spec[1] for a, spec in devices.AREAS.items()}

    for entity_id, (_, area, attributes) in devices.LIGHTS.items():
        name, where, one = n[entity_id], areas[area], {entity_id}
        add(f"turn on the {name}", "turn_on", one, "light")
        add(f"turn off the {name}", "turn_off", one, "light")
        add(f"switch on the {name}", "turn_on", one, "light")
        add(f"switch the {name} off", "turn_off", one, "light")
        add(f"turn the {name} on please", "turn_on", one, "light")
        add(f"please turn off the {name}", "turn_off", one, "light")
        add(f"can you turn on the {name}", "turn_on", one, "light")
        add(f"{name} off", "turn_off", one, "light")
        add(f"{name} on", "turn_on", one, "light")
        add(f"turn {name} on", "turn_on", one, "light")
        add(f"turn {name} off", "turn_off", one, "light")
        add(f"could you switch off the {name}", "turn_off", one, "light")
        add(f"turn on {name} please", "turn_on", one, "light")
        add(f"turn the {name} to 50%", "set_light", one, "light", brightness_pct=50)
        for pct in (15, 85):
            add(
                f"set the {name} brightness to {pct}%",
                "set_light",
                one,
                "light",
                brightness_pct=pct,
            )
        add(f"turn on the {name} in the {where}", "turn_on", one, "name+area")
        add(f"turn off the {where} {name}", "turn_off", one, "name+area")
        for pct in PERCENTS:
            add(f"set the {name} to {pct}%", "set_light", one, "light", brightness_pct=pct)
        add(
            f"set the {name} brightness to 60 percent", "set_light", one, "light", brightness_pct=60
        )
        add(f"dim the {name} to 20%", "set_light", one, "light", brightness_pct=20)
        if attributes.get("color"):
            add(f"make the {name} red", "set_light", one, "light", color_name="red")
            add(f"set the {name} to blue", "set_light", one, "light", color_name="blue")
            add(f"turn the {name} green", "set_light", one, "light", color_name="green")
        add(f"is the {name} on?", "get_state", one, "question")
        add(f"is the {name} off", "get_state", one, "question")
        add(f"what is the state of the {name}", "get_state", one, "question")

    for entity_id, (_, area, _on) in devices.SWITCHES.items():
        name, where, one = n[entity_id], areas[area], {entity_id}
        add(f"turn on the {name}", "turn_on", one, "switch")
        add(f"turn off the {name}", "turn_off", one, "switch")
        add(f"switch on the {name}", "turn_on", one, "switch")
        add(f"turn the {name} off", "turn_off", one, "switch")
        add(f"please switch off the {name}", "turn_off", one, "switch")
        add(f"turn {name} on", "turn_on", one, "switch")
        add(f"{name} off", "turn_off", one, "switch")
        add(f"can you turn on the {name}", "turn_on", one, "switch")
        add(f"turn off the {name} in the {where}", "turn_off", one, "name+area")
        add(f"is the {name} on", "get_state", one, "question")
        add(f"is the {name} off?", "get_state", one, "question")

    for entity_id, (_, area, _cls, _pos) in devices.COVERS.items():
        name, where, one = n[entity_id], areas[area], {entity_id}
        add(f"open the {name}", "control_cover", one, "cover", action="open")
        add(f"close the {name}", "control_cover", one, "cover", action="close")
        add(f"please open the {name}", "control_cover", one, "cover", action="open")
        add(f"shut the {name}", "control_cover", one, "cover", action="close")
        add(f"open {name}", "control_cover", one, "cover", action="open")
        add(f"close {name} please", "control_cover", one, "cover", action="close")
        add(f"close the {name} in the {where}", "control_cover", one, "name+area", action="close")
        for pct in (30, 50):
            add(
                f"set the {name} to {pct}%",
                "control_cover",
                one,
                "cover",
                action="set_position",
                position=pct,
            )
        add(f"is the {name} open?", "get_state", one, "question")
        add(f"is the {name} closed", "get_state", one, "question")

    for entity_id, (_, area, _locked) in devices.LOCKS.items():
        name, where, one = n[entity_id], areas[area], {entity_id}
        add(f"lock the {name}", "control_lock", one, "lock", action="lock")
        add(f"unlock the {name}", "control_lock", one, "lock", action="unlock")
        add(f"please lock the {name}", "control_lock", one, "lock", action="lock")
        add(f"lock the {name} please", "control_lock", one, "lock", action="lock")
        add(f"can you unlock the {name}", "control_lock", one, "lock", action="unlock")
        add(f"lock the {name} in the {where}", "control_lock", one, "name+area", action="lock")
        add(f"is the {name} locked?", "get_state", one, "question")
        add(f"is the {name} unlocked", "get_state", one, "question")

    for entity_id, (_, area) in devices.FANS.items():
        name, where, one = n[entity_id], areas[area], {entity_id}
        add(f"turn on the {name}", "turn_on", one, "fan")
        add(f"turn off the {name}", "turn_off", one, "fan")
        add(f"switch the {name} on", "turn_on", one, "fan")
        add(f"turn {name} off", "turn_off", one, "fan")
        add(f"please turn on the {name}", "turn_on", one, "fan")
        add(f"turn off the {name} in the {where}", "turn_off", one, "name+area")
        for pct in PERCENTS:
            add(f"set the {name} to {pct}%", "set_fan", one, "fan", percentage=pct)
        add(f"set the {name} speed to 50%", "set_fan", one, "fan", percentage=50)
        add(f"is the {name} on?", "get_state", one, "question")

    for entity_id, (_, area, _target, _current) in devices.CLIMATES.items():
        name, where, one = n[entity_id], areas[area], {entity_id}
        for degrees in (17, 18, 19.5, 20, 22, 23, 24):
            add(
                f"set the {name} to {degrees} degrees",
                "set_climate",
                one,
                "climate",
                temperature=degrees,
            )
        add(f"set the {name} to 21", "set_climate", one, "climate", temperature=21)
        add(
            f"set the temperature of the {name} to 19",
            "set_climate",
            one,
            "climate",
            temperature=19,
        )
        add(f"set the {where} temperature to 22", "set_climate", one, "climate", temperature=22)
        add(f"what is the temperature in the {where}", "get_state", one, "question")
        add(f"turn off the {name}", "turn_off", one, "climate")

    for entity_id in devices.MEDIA_PLAYERS:
        name, one = n[entity_id], {entity_id}
        add(f"pause the {name}", "control_media", one, "media", action="pause")
        add(f"resume the {name}", "control_media", one, "media", action="play")
        add(f"unpause the {name}", "control_media", one, "media", action="play")
        add(f"next track on the {name}", "control_media", one, "media", action="next")
        add(f"skip the song on the {name}", "control_media", one, "media", action="next")
        add(f"previous track on the {name}", "control_media", one, "media", action="previous")
        add(f"mute the {name}", "set_media", one, "media", mute=True)
        add(f"unmute the {name}", "set_media", one, "media", mute=False)
        for pct in (20, 50):
            add(f"set the {name} volume to {pct}%", "set_media", one, "volume", volume_pct=pct)
        add(f"set the volume of the {name} to 35", "set_media", one, "volume", volume_pct=35)
        add(f"turn up the {name} volume", "set_media", one, "volume", volume_step_pct=10)
        add(f"turn on the {name}", "turn_on", one, "media")
        add(f"pause {name}", "control_media", one, "media", action="pause")
        add(f"set {name} volume to 60", "set_media", one, "volume", volume_pct=60)
        add(f"decrease the volume on the {name}", "set_media", one, "volume", volume_step_pct=-10)
        add(f"play the next song on the {name}", "control_media", one, "media", action="next")
        add(f"turn off the {name}", "turn_off", one, "media")

    for area, where in areas.items():
        lights = _in("light", area)
        if lights:
            add(f"turn on the lights in the {where}", "turn_on", lights, "area")
            add(f"turn off the {where} lights", "turn_off", lights, "area")
            add(f"turn off all the lights in the {where}", "turn_off", lights, "area")
            add(f"switch on the {where} lights", "turn_on", lights, "area")
            add(f"set the {where} lights to 50%", "set_light", lights, "area", brightness_pct=50)
            add(f"are the lights on in the {where}?", "get_state", lights, "question")
            add(f"which lights are on in the {where}", "get_state", lights, "question")
            add(f"lights off in the {where}", "turn_off", lights, "area")
            add(f"turn on the {where} lights please", "turn_on", lights, "area")
            add(f"dim the {where} lights to 30%", "set_light", lights, "area", brightness_pct=30)
            add(f"turn off the lights in the {where} please", "turn_off", lights, "area")
            add(f"are all the lights off in the {where}", "get_state", lights, "question")
            add(f"how many lights are on in the {where}", "get_state", lights, "question")
        blinds = _in("cover", area, "blind")
        if blinds:
            add(f"close the blinds in the {where}", "control_cover", blinds, "area", action="close")
            add(f"open the {where} blinds", "control_cover", blinds, "area", action="open")
        fans = _in("fan", area)
        if fans:
            add(f"turn off the fans in the {where}", "turn_off", fans, "area")

    upstairs = _in("light", None) & {
        e for e, spec in devices.LIGHTS.items() if floor_of[spec[1]] == "upstairs"
    }
    downstairs = _in("light") - upstairs
    add("turn off the lights upstairs", "turn_off", upstairs, "floor")
    add("turn on the lights upstairs", "turn_on", upstairs, "floor")
    add("turn off the lights downstairs", "turn_off", downstairs, "floor")
    add("turn on the lights on the first floor", "turn_on", upstairs, "floor")

    lights, switches, fans = _in("light"), _in("switch"), _in("fan")
    blinds, locks = _in("cover", None, "blind"), _in("lock")
    add("turn off all the lights", "turn_off", lights, "whole home")
    add("turn on all the lights", "turn_on", lights, "whole home")
    add("turn off all lights in the house", "turn_off", lights, "whole home")
    add("turn off the lights everywhere", "turn_off", lights, "whole home")
    add("which lights are on?", "get_state", lights, "whole home")
    add("which lights are off", "get_state", lights, "whole home")
    add("are all the lights off?", "get_state", lights, "whole home")
    add("are any lights on", "get_state", lights, "whole home")
    add("how many lights are on?", "get_state", lights, "whole home")
    add("which switches are on?", "get_state", switches, "whole home")
    add("are all switches on?", "get_state", switches, "whole home")
    add("are any switches on", "get_state", switches, "whole home")
    add("which fans are on", "get_state", fans, "whole home")
    add("which blinds are open?", "get_state", blinds, "whole home")
    add("are all the blinds closed", "get_state", blinds, "whole home")
    add("are all the doors locked?", "get_state", locks, "whole home")
    add("which doors are unlocked", "get_state", locks, "whole home")

    # Misspelt names and filler words: what HA's fallback matcher is for (issue 14, item 7).
    for entity_id in (*devices.LIGHTS, *devices.SWITCHES, *devices.FANS):
        name, one = n[entity_id], {entity_id}
        typo = misspelt(name)
        if typo == name:
            continue
        add(f"turn on the {typo}", "turn_on", one, "misspelt")
        add(f"turn off the {typo} please thanks", "turn_off", one, "misspelt")
        add(f"hey just turn on the {name} for me", "turn_on", one, "misspelt")

    for item in ITEMS:
        todo = {"todo.shopping_list"}
        add(f"add {item} to my shopping list", "add_todo_item", todo, "todo", item=item)
        add(f"add {item} to the shopping list", "add_todo_item", todo, "todo", item=item)
        add(f"put {item} on my shopping list", "add_todo_item", todo, "todo", item=item)
        add(f"check off {item} on the shopping list", "complete_todo_item", todo, "todo", item=item)
        add(f"remove {item} from my shopping list", "remove_todo_item", todo, "todo", item=item)
    add("activate movie night", "activate_scene", {"scene.movie_night"}, "scene")
    add("turn on movie night", "activate_scene", {"scene.movie_night"}, "scene")
    add("run good night", "run_script", {"script.good_night"}, "scene")
    for text in (
        "what time is it",
        "what's the date today",
        "what is the weather like",
        "set a timer for 5 minutes",
        "cancel my timer",
        "broadcast dinner is ready",
        "play some jazz in the kitchen",
    ):
        add(text, "", set(), "unmapped")
    return out


def misspelt(name: str) -> str:
    """The name with one letter dropped from the middle of its longest word ("kitchn light"),
    the kind of slip speech-to-text and typing make; names too short to mend stay as they are."""
    words = name.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    word = words[longest]
    if len(word) < 6:
        return name
    middle = len(word) // 2
    words[longest] = word[:middle] + word[middle + 1 :]
    return " ".join(words)
