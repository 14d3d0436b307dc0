"""The home as the model reads it: a compact, stable listing of ids and names.

Stable means sorted and free of states, so the prompt prefix (and its snapshot) changes only
when names, aliases, areas or the set of entities change, never when a light turns on.
Names and aliases come from the home's own registries: they are quoted data to the model.
"""

from __future__ import annotations

from collections.abc import Iterable

from botpsy_agent.home.model import Home


def _clean(text: str) -> str:
    # One line per entry: names cannot break the layout or fake another entry.
    return " ".join(text.replace("\\", " ").split())[:80]


def render_listing(home: Home, entity_ids: Iterable[str]) -> str:
    """Floors, areas and entities (only those given), one per line, in a stable order."""
    ids = sorted(set(entity_ids) & home.entities.keys())
    used_areas = sorted(
        {a for eid in ids if (a := home.entities[eid].area_id) is not None and a in home.areas}
    )
    used_floors = sorted(
        {f for a in used_areas if (f := home.areas[a].floor_id) is not None and f in home.floors}
    )
    lines = []
    if used_floors:
        lines.append(
            "floors: " + ", ".join(f"{f} = {_clean(home.floors[f].name)}" for f in used_floors)
        )
    if used_areas:
        lines.append("areas:")
        for area_id in used_areas:
            area = home.areas[area_id]
            aliases = f" [{', '.join(_clean(a) for a in area.aliases)}]" if area.aliases else ""
            floor = f" (floor {area.floor_id})" if area.floor_id else ""
            lines.append(f"- {area_id} = {_clean(area.name)}{floor}{aliases}")
    lines.append("entities:")
    for entity_id in ids:
        entity = home.entities[entity_id]
        where = f" (in {entity.area_id})" if entity.area_id else ""
        kind = f" {{{entity.device_class}}}" if entity.device_class else ""
        aliases = f" [{', '.join(_clean(a) for a in entity.aliases)}]" if entity.aliases else ""
        lines.append(f"- {entity_id} = {_clean(entity.name)}{kind}{where}{aliases}")
    return "\n".join(lines)
