"""Warmth asked of a room that has no thermostat: its heater, switched on.

"it's cold in the office, warm it up" asks for a temperature that only a thermostat sets,
and the office has none, only a switch called "Office heater": both real models set the
thermostat of another room, which grounding then asked about (dev recover-heater-office).
Where the request wants a room warmer and the room holds no thermostat, switching on the
heaters in it is what was asked: the narrowed offer holds them, and grounding lets their
switching on run. A heater is known by its name; no other device is guessed at.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from botpsy_agent.home import Home
from botpsy_agent.words.checks import UP, Quantity, said_directions

HEATER_WORDS: Mapping[str, tuple[str, ...]] = {
    "en": ("heater", "heating", "radiator"),
    "ko": ("히터", "난로", "온풍기", "난방"),
    "id": ("pemanas",),
}
"""Words of a device's name that say it heats, in any of the languages (a home's names
need not be in the request's language)."""
HEATER_DOMAINS = frozenset({"switch"})


def heaters_asked(home: Home, area_ids: Iterable[str], text: str, language: str) -> frozenset[str]:
    """The heaters to switch on when `text` wants the rooms `area_ids` (those it says)
    warmer and none of them holds a thermostat; empty otherwise."""
    if said_directions(text, language).get(Quantity.TEMPERATURE) != UP:
        return frozenset()
    rooms = frozenset(area_ids)
    in_rooms = [e for e in home.entities.values() if e.area_id in rooms]
    if not rooms or any(e.domain == "climate" for e in in_rooms):
        return frozenset()
    return frozenset(e.entity_id for e in in_rooms if e.domain in HEATER_DOMAINS and _heats(e.name))


def _heats(name: str) -> bool:
    folded = name.casefold()
    return any(word in folded for words in HEATER_WORDS.values() for word in words)
