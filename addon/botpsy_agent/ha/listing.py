"""The entity listing in the model's prompt, and a fingerprint of what it is made from.

The listing holds no states and is sorted, so it changes only when names, aliases, areas or
the set of entities change: the prompt prefix (and its saved llama.cpp state) stays valid
while lights go on and off.

Format (one line each; fields absent when empty)::

    floors:
    upstairs: Upstairs (aliases: first floor)
    areas:
    bedroom: Bedroom (floor: upstairs; aliases: master bedroom)
    entities:
    light.bed_light: Bed Light (area: bedroom; aliases: bedside lamp)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import hashlib
import json

from botpsy_agent.home.model import Area, Entity, Floor, Home


def render_listing(home: Home, entity_ids: Iterable[str]) -> str:
    """The listed entities (unknown ids skipped) and the areas and floors they are in."""
    entities = [home.entities[eid] for eid in sorted(set(entity_ids)) if eid in home.entities]
    area_ids = sorted({e.area_id for e in entities if e.area_id and e.area_id in home.areas})
    areas = [home.areas[a] for a in area_ids]
    floor_ids = sorted({a.floor_id for a in areas if a.floor_id and a.floor_id in home.floors})
    floors = [home.floors[f] for f in floor_ids]
    lines: list[str] = []
    if floors:
        lines.append("floors:")
        lines += [_line(f.floor_id, f.name, [], f.aliases) for f in floors]
    if areas:
        lines.append("areas:")
        lines += [_line(a.area_id, a.name, [("floor", a.floor_id)], a.aliases) for a in areas]
    lines.append("entities:")
    lines += [_line(e.entity_id, e.name, [("area", e.area_id)], e.aliases) for e in entities]
    return "\n".join(lines) + "\n"


def _line(
    key: str, name: str, fields: list[tuple[str, str | None]], aliases: tuple[str, ...]
) -> str:
    parts = [f"{label}: {value}" for label, value in fields if value]
    if aliases:
        parts.append("aliases: " + ", ".join(aliases))
    details = f" ({'; '.join(parts)})" if parts else ""
    return f"{key}: {_one_line(name)}{details}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def listing_fingerprint(
    entities: Mapping[str, Entity], areas: Mapping[str, Area], floors: Mapping[str, Floor]
) -> str:
    """A short hash of everything registry-derived (no states): equal across processes for
    the same home, different when any entity, area or floor detail differs."""
    canonical = {
        "entities": [
            [
                e.entity_id,
                e.name,
                e.area_id,
                e.floor_id,
                e.device_id,
                sorted(e.labels),
                e.device_class,
                list(e.aliases),
                e.supported_features,
                e.exposed,
                e.is_service,
            ]
            for e in sorted(entities.values(), key=lambda e: e.entity_id)
        ],
        "areas": [
            [a.area_id, a.name, a.floor_id, list(a.aliases)]
            for a in sorted(areas.values(), key=lambda a: a.area_id)
        ],
        "floors": [
            [f.floor_id, f.name, f.level, list(f.aliases)]
            for f in sorted(floors.values(), key=lambda f: f.floor_id)
        ],
    }
    text = json.dumps(canonical, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
