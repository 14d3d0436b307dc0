"""HA's registries, states and users as its WebSocket API sends them, and how they become a
`Home`. Pure: no I/O.

The entity index keeps a `HaData` current and calls `build_home` / `build_entity`; the
benchmark feeds generated payloads through the same functions. Where each payload comes from:

==============  ====================================================================
entries         ``config/entity_registry/get_entries`` → {entity_id: extended entry}
devices         ``config/device_registry/list``
areas           ``config/area_registry/list``
floors          ``config/floor_registry/list``
labels          ``config/label_registry/list``
states          ``get_states``
exposed         ``homeassistant/expose_entity/list`` → {"exposed_entities": {id: {...}}}
expose_new      ``homeassistant/expose_new_entities/get`` (assistant ``conversation``)
services        ``get_services`` → {domain: {service: description}}
users           ``config/auth/list``
==============  ====================================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
import re
from typing import Any

from botpsy_agent.home import Area, Entity, EntityState, Floor, Home

ASSISTANT = "conversation"
"""Exposure to Assist is HA's `conversation` assistant setting."""

# HA exposes new entities of these domains and device classes to Assist by default
# (homeassistant/components/homeassistant/exposed_entities.py). An entity whose registry entry
# has no explicit setting yet gets this default when HA first asks, so we apply it too.
DEFAULT_EXPOSED_DOMAINS = frozenset(
    {
        "climate",
        "cover",
        "fan",
        "humidifier",
        "light",
        "media_player",
        "scene",
        "switch",
        "todo",
        "vacuum",
        "water_heater",
    }
)
DEFAULT_EXPOSED_DEVICE_CLASSES = {
    "binary_sensor": frozenset(
        {"door", "garage_door", "lock", "motion", "opening", "presence", "window"}
    ),
    "sensor": frozenset(
        {
            "aqi",
            "carbon_dioxide",
            "carbon_monoxide",
            "humidity",
            "pm10",
            "pm25",
            "temperature",
            "volatile_organic_compounds",
        }
    ),
}

NOT_RECIPIENTS = frozenset({"send_message", "persistent_notification"})
"""notify services that are not a legacy notify target: the entity action, and the sidebar
notification (that is `create_notification`)."""

ADMIN_GROUP = "system-admin"

type Payload = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class HaUser:
    """A Home Assistant user (`config/auth/list`), for the policy and the MQTT layer."""

    user_id: str
    name: str
    is_admin: bool
    is_owner: bool = False
    is_active: bool = True
    system_generated: bool = False


@dataclass
class HaData:
    """Everything the index reads from HA, keyed by id, as HA sent it."""

    entries: dict[str, Payload] = field(default_factory=dict)
    devices: dict[str, Payload] = field(default_factory=dict)
    areas: dict[str, Payload] = field(default_factory=dict)
    floors: dict[str, Payload] = field(default_factory=dict)
    labels: dict[str, Payload] = field(default_factory=dict)
    states: dict[str, EntityState] = field(default_factory=dict)
    exposed: frozenset[str] = frozenset()
    """Entities HA lists as exposed to Assist."""
    expose_new: bool = True
    notify_services: tuple[str, ...] = ()
    """Legacy notify services that are message recipients (`mobile_app_…`)."""
    users: tuple[HaUser, ...] = ()

    @classmethod
    def from_payloads(
        cls,
        *,
        entries: Mapping[str, Payload | None],
        devices: Iterable[Payload] = (),
        areas: Iterable[Payload] = (),
        floors: Iterable[Payload] = (),
        labels: Iterable[Payload] = (),
        states: Iterable[Payload] = (),
        exposed: Payload | None = None,
        expose_new: Payload | None = None,
        services: Payload | None = None,
        users: Iterable[Payload] = (),
    ) -> HaData:
        return cls(
            entries={k: v for k, v in entries.items() if v is not None},
            devices=by_key(devices, "id"),
            areas=by_key(areas, "area_id"),
            floors=by_key(floors, "floor_id"),
            labels=by_key(labels, "label_id"),
            states={s.entity_id: s for s in map(state_from_payload, states)},
            exposed=exposed_from_payload(exposed),
            expose_new=bool((expose_new or {}).get("expose_new", True)),
            notify_services=notify_services_from_payload(services),
            users=users_from_payload(users),
        )


def by_key(items: Iterable[Payload], key: str) -> dict[str, Payload]:
    return {str(item[key]): item for item in items}


def state_from_payload(payload: Payload) -> EntityState:
    return EntityState(
        str(payload["entity_id"]),
        str(payload.get("state", "unknown")),
        dict(payload.get("attributes") or {}),
    )


def exposed_from_payload(payload: Payload | None) -> frozenset[str]:
    listed = (payload or {}).get("exposed_entities") or {}
    return frozenset(
        eid for eid, to in listed.items() if isinstance(to, dict) and to.get(ASSISTANT)
    )


def notify_services_from_payload(payload: Payload | None) -> tuple[str, ...]:
    notify = (payload or {}).get("notify") or {}
    return tuple(sorted(name for name in notify if name not in NOT_RECIPIENTS))


def users_from_payload(payload: Iterable[Payload]) -> tuple[HaUser, ...]:
    users = []
    for user in payload:
        is_owner = bool(user.get("is_owner"))
        is_active = bool(user.get("is_active", True))
        users.append(
            HaUser(
                user_id=str(user["id"]),
                name=str(user.get("name") or user.get("username") or user["id"]),
                # As in HA: the owner is an admin; others by the admin group, while active.
                is_admin=is_owner or (is_active and ADMIN_GROUP in (user.get("group_ids") or ())),
                is_owner=is_owner,
                is_active=is_active,
                system_generated=bool(user.get("system_generated")),
            )
        )
    return tuple(sorted(users, key=lambda u: u.user_id))


# --- building the Home -----------------------------------------------------------------------


def build_home(data: HaData) -> Home:
    """The whole snapshot: every enabled entity, the legacy notify recipients, areas, floors."""
    entities = build_entities(data)
    return Home(entities, build_areas(data), build_floors(data), dict(data.states))


def build_entities(data: HaData) -> dict[str, Entity]:
    enabled = {eid for eid, entry in data.entries.items() if not entry.get("disabled_by")}
    entities: dict[str, Entity] = {}
    for entity_id in sorted(enabled | data.states.keys()):
        entity = build_entity(data, entity_id)
        if entity is not None:
            entities[entity_id] = entity
    for entity in build_notify_recipients(data):
        entities.setdefault(entity.entity_id, entity)  # a real entity of that id wins
    return entities


def build_areas(data: HaData) -> dict[str, Area]:
    return {
        area_id: Area(
            area_id,
            str(area.get("name") or area_id),
            area.get("floor_id") or None,
            _aliases(area.get("aliases"), ordered=False),
        )
        for area_id, area in sorted(data.areas.items())
    }


def build_floors(data: HaData) -> dict[str, Floor]:
    return {
        floor_id: Floor(
            floor_id,
            str(floor.get("name") or floor_id),
            floor.get("level"),
            _aliases(floor.get("aliases"), ordered=False),
        )
        for floor_id, floor in sorted(data.floors.items())
    }


def build_entity(data: HaData, entity_id: str) -> Entity | None:
    """One entity from its registry entry, its device, its area and its state; None when it
    is disabled or HA knows nothing of it."""
    entry = data.entries.get(entity_id)
    if entry is not None and entry.get("disabled_by"):
        return None
    state = data.states.get(entity_id)
    if entry is None and state is None:
        return None
    entry = entry or {}
    device = data.devices.get(str(entry.get("device_id"))) if entry.get("device_id") else None
    attributes = state.attributes if state is not None else {}
    area_id = entry.get("area_id") or (device or {}).get("area_id")
    area = data.areas.get(area_id) if area_id else None
    device_class = (
        entry.get("device_class")
        or entry.get("original_device_class")
        or attributes.get("device_class")
    )
    features = attributes.get("supported_features")
    return Entity(
        entity_id=entity_id,
        name=_entity_name(entity_id, entry, device, attributes),
        area_id=area_id if area is not None else None,
        floor_id=(area or {}).get("floor_id") or None,
        device_id=entry.get("device_id") or None,
        labels=frozenset(entry.get("labels") or ()) | frozenset((device or {}).get("labels") or ()),
        device_class=str(device_class) if device_class else None,
        aliases=_aliases(entry.get("aliases"), ordered=True),
        supported_features=features if isinstance(features, int) else 0,
        exposed=_is_exposed(data, entity_id, entry or None, device_class),
    )


def build_notify_recipients(data: HaData) -> list[Entity]:
    """Legacy notify services as entities with `is_service=True`. A mobile_app service is
    named after its phone's device (`mobile_app_<slug of the device name>`), so it takes
    that device's name when the device is known."""
    device_names: dict[str, str] = {}
    for device in data.devices.values():
        name = device.get("name_by_user") or device.get("name")
        if name:
            device_names.setdefault(slug(str(name)), str(name))
    recipients = []
    for service in data.notify_services:
        bare = service.removeprefix("mobile_app_")
        name = device_names.get(bare) or humanize(bare)
        recipients.append(Entity(f"notify.{service}", name, is_service=True))
    return recipients


def _entity_name(
    entity_id: str, entry: Payload, device: Payload | None, attributes: Mapping[str, Any]
) -> str:
    """HA's full name: the state's `friendly_name`, else what the registry says."""
    friendly = attributes.get("friendly_name")
    if isinstance(friendly, str) and friendly.strip():
        return friendly.strip()
    own = entry.get("name") or entry.get("original_name")
    device_name = (device or {}).get("name_by_user") or (device or {}).get("name")
    if entry.get("has_entity_name") and device_name:
        return f"{device_name} {own}" if own else str(device_name)
    return str(own) if own else humanize(entity_id.split(".", 1)[1])


def _aliases(raw: Any, *, ordered: bool) -> tuple[str, ...]:
    """Text aliases; HA's `null` alias stands for the entity's own name, already its name.
    Area and floor aliases are sets in HA, so their order is made stable here."""
    aliases = [a.strip() for a in raw or () if isinstance(a, str) and a.strip()]
    return tuple(aliases if ordered else sorted(aliases))


def _is_exposed(data: HaData, entity_id: str, entry: Payload | None, device_class: Any) -> bool:
    if entry is None:
        # Settings of entities without a registry entry live in HA's own store; HA lists
        # every exposed one.
        return entity_id in data.exposed
    setting = ((entry.get("options") or {}).get(ASSISTANT) or {}).get("should_expose")
    if setting is not None:
        return bool(setting)
    if not data.expose_new or entry.get("entity_category") or entry.get("hidden_by"):
        return False
    domain = entity_id.split(".", 1)[0]
    return domain in DEFAULT_EXPOSED_DOMAINS or device_class in DEFAULT_EXPOSED_DEVICE_CLASSES.get(
        domain, ()
    )


def slug(text: str) -> str:
    """HA's slug of an ASCII name: lower case, runs of other characters become `_`."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def humanize(object_id: str) -> str:
    """`min_ji_s_phone` → `Min ji s phone`."""
    words = object_id.replace("_", " ").split()
    return " ".join(words).capitalize() if words else object_id
