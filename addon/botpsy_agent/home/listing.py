"""The home as the model reads it: a compact, stable listing of ids and names.

Stable means sorted and free of states, so the prompt prefix (and its snapshot) changes only
when names, aliases, areas or the set of entities change, never when a light turns on.
Names and aliases come from the home's own registries: they are quoted data to the model.

Compact means every token earns its place, since the listing is paid for on every request
(a longer context makes each generated token dearer): entities are grouped under their area
instead of naming it on each line, and a name, area name or device class that only repeats
the words of the id is left out (HA derives ids from names, so most are). What remains is
about 6-9 tokens per entity with Qwen's tokenizer.
"""

from __future__ import annotations

from collections.abc import Iterable
import re

from botpsy_agent.home.model import Entity, Home

NO_AREA = "no area"
NO_FLOOR = "no floor"
_WORD = re.compile(r"[^\W_]+")
# Characters that structure the listing; in a name they would blur where an entry ends.
_STRUCTURE = str.maketrans(dict.fromkeys(",;=[]{}\\", " "))


def _clean(text: str) -> str:
    # One line per group: names cannot break the layout or fake another entry.
    return " ".join(text.translate(_STRUCTURE).split())[:80]


def _words(text: str) -> set[str]:
    # Plurals count as their singular: "Counter lights" says nothing light.kitchen_counter does not.
    return {w.removesuffix("s") if len(w) > 3 else w for w in _WORD.findall(text.casefold())}


def _named(item_id: str, name: str, aliases: Iterable[str]) -> str:
    """`id`, `id=Name` when the name says more than the id, then `[alias, …]`."""
    text = item_id
    if (cleaned := _clean(name)) and not _words(cleaned) <= _words(item_id):
        text += f"={cleaned}"
    if alias_text := ", ".join(a for a in (_clean(a) for a in aliases) if a):
        text += f" [{alias_text}]"
    return text


def _entity(entity: Entity) -> str:
    text = _named(entity.entity_id, entity.name, entity.aliases)
    if entity.device_class and not _words(entity.device_class) <= _words(text):
        text += f" {{{entity.device_class}}}"
    return text


def render_listing(home: Home, entity_ids: Iterable[str]) -> str:
    """Areas by floor, then entities by area (only those given), in a stable order."""
    ids = sorted(set(entity_ids) & home.entities.keys())
    by_area: dict[str, list[str]] = {}
    for entity_id in ids:
        area_id = home.entities[entity_id].area_id
        key = area_id if area_id is not None and area_id in home.areas else NO_AREA
        by_area.setdefault(key, []).append(entity_id)
    used_areas = sorted(a for a in by_area if a != NO_AREA)
    lines = []
    if used_areas:
        by_floor: dict[str, list[str]] = {}
        for area_id in used_areas:
            floor_id = home.areas[area_id].floor_id
            key = floor_id if floor_id is not None and floor_id in home.floors else NO_FLOOR
            by_floor.setdefault(key, []).append(area_id)
        if set(by_floor) == {NO_FLOOR}:
            lines.append("areas: " + _areas(home, used_areas))
        else:
            lines.append("areas by floor:")
            for floor_id in sorted(by_floor, key=lambda f: (f == NO_FLOOR, f)):
                label = NO_FLOOR
                if floor_id != NO_FLOOR:
                    floor = home.floors[floor_id]
                    label = _named(floor_id, floor.name, floor.aliases)
                lines.append(f"- {label}: {_areas(home, by_floor[floor_id])}")
    lines.append("entities by area:")
    for area_id in [*used_areas, NO_AREA]:
        if area_id in by_area:
            members = ", ".join(_entity(home.entities[e]) for e in by_area[area_id])
            lines.append(f"- {area_id}: {members}")
    return "\n".join(lines)


def _areas(home: Home, area_ids: list[str]) -> str:
    return ", ".join(_named(a, home.areas[a].name, home.areas[a].aliases) for a in area_ids)
