"""A snapshot of the home as the agent sees it: entities, areas, floors and their states.

Built by the HA bridge from HA's registries and states (and by tests directly); read by
target resolution, the policy and the prompt. Immutable: a change produces a new snapshot,
so a decision is always made against one consistent view.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
import hashlib
from typing import Any


@dataclass(frozen=True, slots=True)
class Area:
    """An HA area."""

    area_id: str
    name: str
    floor_id: str | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Floor:
    """An HA floor."""

    floor_id: str
    name: str
    level: int | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Entity:
    """One thing the agent can read or act on.

    Legacy notify services (`notify.mobile_app_…`) have no entity in HA; they appear here
    with `is_service=True` so that messages to them are targeted, listed and authorised
    exactly like entities.
    """

    entity_id: str
    name: str
    area_id: str | None = None
    """The entity's area, or its device's area when the entity has none (as in HA)."""
    floor_id: str | None = None
    """The floor of that area."""
    device_id: str | None = None
    labels: frozenset[str] = frozenset()
    device_class: str | None = None
    aliases: tuple[str, ...] = ()
    supported_features: int = 0
    exposed: bool = True
    """Exposed to Assist in HA (an upper bound on what non-admin principals may use)."""
    is_service: bool = False

    @property
    def domain(self) -> str:
        return self.entity_id.split(".", 1)[0]


@dataclass(frozen=True, slots=True)
class EntityState:
    """The current state of an entity as HA reported it."""

    entity_id: str
    state: str
    attributes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def domain(self) -> str:
        return self.entity_id.split(".", 1)[0]


@dataclass(frozen=True)
class Home:
    """Everything the agent knows about the home at one moment."""

    entities: Mapping[str, Entity]
    areas: Mapping[str, Area] = field(default_factory=dict)
    floors: Mapping[str, Floor] = field(default_factory=dict)
    states: Mapping[str, EntityState] = field(default_factory=dict)
    temperature_unit: str = "°C"
    """HA's unit system for temperatures ("°C" or "°F"): what a spoken "21" or "70" means."""

    @classmethod
    def of(
        cls,
        entities: Iterable[Entity],
        areas: Iterable[Area] = (),
        floors: Iterable[Floor] = (),
        states: Iterable[EntityState] = (),
        *,
        temperature_unit: str = "°C",
    ) -> Home:
        return cls(
            entities={e.entity_id: e for e in entities},
            areas={a.area_id: a for a in areas},
            floors={f.floor_id: f for f in floors},
            states={s.entity_id: s for s in states},
            temperature_unit=temperature_unit,
        )

    def with_states(self, states: Mapping[str, EntityState], temperature_unit: str) -> Home:
        """The same listing with other states. What is derived from names alone
        (`LISTING_CACHES`) is worked out once per listing, not once per state change: the
        fast path reads `names_key` in every request (0.18 ms for 240 entities)."""
        home = replace(self, states=states, temperature_unit=temperature_unit)
        for name in LISTING_CACHES:
            home.__dict__[name] = getattr(self, name)  # where cached_property keeps it
        return home

    @cached_property
    def names_key(self) -> str:
        """Changes when names, aliases, areas, floors or the set of entities change; not with
        states. Keys caches of everything derived from names (offers, fast-path slot lists)."""
        parts = [
            (
                e.entity_id,
                e.name,
                e.aliases,
                e.area_id,
                e.floor_id,
                e.device_id,
                tuple(sorted(e.labels)),
                e.device_class,
                e.exposed,
                e.is_service,
            )
            for e in self.entities.values()
        ]
        parts.sort()
        places = sorted((a.area_id, a.name, a.aliases, a.floor_id) for a in self.areas.values())
        floors = sorted((f.floor_id, f.name, f.aliases) for f in self.floors.values())
        text = repr((parts, places, floors))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def state_of(self, entity_id: str) -> EntityState:
        """The entity's state, or `unknown` when HA has not reported one."""
        return self.states.get(entity_id) or EntityState(entity_id, "unknown")

    @cached_property
    def by_area(self) -> Mapping[str, tuple[str, ...]]:
        return _group(self.entities.values(), lambda e: (e.area_id,) if e.area_id else ())

    @cached_property
    def by_floor(self) -> Mapping[str, tuple[str, ...]]:
        return _group(self.entities.values(), lambda e: (e.floor_id,) if e.floor_id else ())

    @cached_property
    def by_device(self) -> Mapping[str, tuple[str, ...]]:
        return _group(self.entities.values(), lambda e: (e.device_id,) if e.device_id else ())

    @cached_property
    def by_label(self) -> Mapping[str, tuple[str, ...]]:
        return _group(self.entities.values(), lambda e: tuple(sorted(e.labels)))

    @cached_property
    def by_domain(self) -> Mapping[str, tuple[str, ...]]:
        return _group(self.entities.values(), lambda e: (e.domain,))


LISTING_CACHES = ("names_key", "by_area", "by_floor", "by_device", "by_label", "by_domain")
"""`Home`'s cached properties: each reads entities, areas and floors, never states."""


def _group(entities: Iterable[Entity], keys_of: Any) -> Mapping[str, tuple[str, ...]]:
    groups: dict[str, list[str]] = {}
    for entity in entities:
        for key in keys_of(entity):
            groups.setdefault(key, []).append(entity.entity_id)
    return {key: tuple(sorted(ids)) for key, ids in groups.items()}
