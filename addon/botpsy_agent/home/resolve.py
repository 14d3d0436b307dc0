"""Turn a typed tool call's target (entities, areas, floors, devices, labels) into entities.

Every target form becomes concrete entity ids *before* authorisation, and the HA actions are
computed here from those entities, so the policy sees exactly what would run.

Names people say ("the kitchen lights") are matched to ids by the entity index; this module
works on ids only.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, replace

from botpsy_agent.home.model import Entity, Home
from botpsy_agent.home.wrappers import Controlled, controlled_by
from tool_schemas.actions import HaAction, TargetState, ToolMappingError
from tool_schemas.base import MappingContext, TargetSpec, Tool
from tool_schemas.catalog import to_ha_actions
from tool_schemas.devices import ENTRANCE_COVER_CLASSES

type EntityFilter = Callable[[Entity], bool]


class ResolutionError(ValueError):
    """The target names nothing usable; `code` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ResolvedCall:
    """A validated tool call with its concrete targets and the HA actions it means."""

    call: Tool
    targets: tuple[Entity, ...]
    actions: tuple[HaAction, ...]
    temperature_unit: str = "°C"
    """The home's unit for the temperatures in `actions` (policy limits are in °C)."""
    controls: tuple[Controlled, ...] = ()
    """What targeted scenes, groups and scripts act on: the policy judges that too."""

    @property
    def entity_ids(self) -> tuple[str, ...]:
        return tuple(e.entity_id for e in self.targets)


def resolve_call(
    home: Home, call: Tool, context: MappingContext, usable: EntityFilter | None = None
) -> ResolvedCall:
    """Resolve the call's targets and compute its HA actions.

    `usable` narrows what areas, floors, devices, labels and bare domains expand to (the
    principal's scope, so "the lights upstairs" means the ones this person may use).
    Entities named explicitly are kept as named, so the policy can refuse them by name.
    """
    targets = resolve_targets(home, call, usable)
    context = replace(context, temperature_unit=home.temperature_unit)
    states = [
        TargetState(
            e.entity_id,
            home.state_of(e.entity_id).state,
            home.state_of(e.entity_id).attributes,
            e.is_service,
        )
        for e in targets
    ]
    try:
        actions = to_ha_actions(call, states, context)
    except ToolMappingError as err:
        raise ResolutionError(err.code, err.message) from None
    controls = tuple(c for e in targets if (c := controlled_by(home, e)) is not None)
    return ResolvedCall(call, targets, actions, home.temperature_unit, controls)


def resolve_targets(
    home: Home, call: Tool, usable: EntityFilter | None = None
) -> tuple[Entity, ...]:
    spec = call.target_fields()
    if spec is None:
        return ()
    found: dict[str, Entity] = {}

    for entity_id in spec.entity_id or ():
        entity = home.entities.get(entity_id)
        if entity is None:
            raise ResolutionError("unknown_entity", f"there is no {entity_id}")
        if not call.acts_on(entity.domain):
            raise ResolutionError(
                "wrong_domain", f"{call.name} cannot act on {entity_id} (a {entity.domain})"
            )
        found[entity_id] = entity

    # Each kind of group given is a constraint (HA's intent semantics): "the kitchen lights
    # upstairs" is the kitchen *and* upstairs, "the reading lamp in the living room" is that
    # lamp, there. Several ids of one kind are a union ("the kitchen and the hall").
    groups = [
        _expand(spec.area_id, home.by_area, home.areas, "area"),
        _expand(spec.floor_id, home.by_floor, home.floors, "floor"),
        _expand(spec.device_id, home.by_device, (), "device"),
        _expand(spec.label_id, home.by_label, (), "label"),
    ]
    given = [members for members, ids in zip(groups, _group_ids(spec), strict=True) if ids]
    if found and given:
        outside = sorted(e for e in found if not all(e in members for members in given))
        if outside:
            raise ResolutionError(
                "not_in_place", f"{', '.join(outside)} is not in the area, floor or group named"
            )
        return tuple(found[eid] for eid in sorted(found))
    expanded: set[str] = set.intersection(*given) if given else set()
    if not given and not spec.entity_id and spec.domain:
        expanded = {eid for d in spec.domain for eid in home.by_domain.get(d, ())}

    classes = frozenset(spec.device_class or ())
    for entity_id in sorted(expanded - found.keys()):
        entity = home.entities[entity_id]
        if _fits(entity, call, spec.domain, classes) and (usable is None or usable(entity)):
            found[entity_id] = entity

    if not found:
        raise ResolutionError(
            "no_matching_entities", f"{call.name}: nothing suitable matches that target"
        )
    return tuple(found[eid] for eid in sorted(found))


def _group_ids(spec: TargetSpec) -> tuple[list[str] | None, ...]:
    return (spec.area_id, spec.floor_id, spec.device_id, spec.label_id)


def _fits(entity: Entity, call: Tool, domains: list[str] | None, classes: frozenset[str]) -> bool:
    """Does an entity found through an area, floor, device or label suit this call?"""
    if not call.acts_on(entity.domain):
        return False
    if domains and entity.domain not in domains:
        return False
    if classes and entity.device_class not in classes:
        return False
    # Doors, garage doors and gates never move as part of "the covers in the hall":
    # only when their class is asked for by name.
    return not (
        entity.domain == "cover"
        and entity.device_class in ENTRANCE_COVER_CLASSES
        and entity.device_class not in classes
    )


def _expand(
    ids: list[str] | None,
    members_of: Mapping[str, tuple[str, ...]],
    known: Container[str],
    kind: str,
) -> set[str]:
    """Entities of the named areas/floors/devices/labels; an unknown name is an error."""
    result: set[str] = set()
    for key in ids or ():
        if key not in members_of and key not in known:
            raise ResolutionError(f"unknown_{kind}", f"there is no {kind} {key!r}")
        result.update(members_of.get(key, ()))
    return result
