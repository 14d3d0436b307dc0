"""The live entity index: HA's registries and states, kept current, as a `Home` snapshot.

Used by the agent, the policy, the MQTT layer and the executor::

    index = EntityIndex(client)
    await index.start()                       # subscribes; loads as soon as connected
    await index.wait_synced(timeout_s=30)    # loaded, even while HA is still starting
    index.ready                               # loaded, and HA has finished starting
    index.home                                # botpsy_agent.home.model.Home (immutable)
    index.listing_version                     # str: Home.names_key, changes only with
                                              # what the prompt's listing is made from
    remove = index.add_listing_listener(lambda version: ...)
    index.users                               # tuple[HaUser, ...] (config/auth/list)
    index.labels                              # {label_id: name}
    remove = index.add_state_listener(lambda change: ...)  # every state_changed, applied
    await index.stop()

Kept current from `state_changed` and the `*_registry_updated` events (plus notify service
and user events). Every (re)connection reloads everything, so changes made while the
connection was down are caught up. HA accepts connections before its integrations have
set up their entities; until `get_config` reports `RUNNING` (asked every second; then
everything is reloaded) the index is not `ready`, so nobody acts on a home half there.
Loads run one at a time in one worker; a state event that arrives while `get_states` is in
flight is newer than the snapshot and is kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
import logging
from typing import Any

from botpsy_agent.ha.client import ConnectionState, HaClient, Subscription
from botpsy_agent.ha.errors import HaCallError, HaError
from botpsy_agent.ha.registries import (
    ASSISTANT,
    NOT_RECIPIENTS,
    HaData,
    HaUser,
    build_areas,
    build_entities,
    build_entity,
    build_floors,
    by_key,
    exposed_from_payload,
    notify_services_from_payload,
    state_from_payload,
    users_from_payload,
)
from botpsy_agent.home import Area, Entity, EntityState, Floor, Home

_LOGGER = logging.getLogger(__name__)

FULL = "full"
REGISTRY_EVENTS = {
    "device_registry_updated": "devices",
    "area_registry_updated": "areas",
    "floor_registry_updated": "floors",
    "label_registry_updated": "labels",
    "user_added": "users",
    "user_updated": "users",
    "user_removed": "users",
}
SERVICE_EVENTS = ("service_registered", "service_removed")
RUNNING = "RUNNING"
START_POLL_S = 1.0
"""How often a starting HA is asked whether it has finished (its started event is for
admins only, and the app's token need not be one)."""


@dataclass(frozen=True, slots=True)
class StateChange:
    """One `state_changed` event, after the index applied it."""

    entity_id: str
    new_state: EntityState | None
    """None when the entity was removed."""
    context_id: str | None


type ListingListener = Callable[[str], None]
type StateChangeListener = Callable[[StateChange], None]


class EntityIndex:
    """What HA knows about the home, as one consistent `Home` at a time."""

    def __init__(self, client: HaClient) -> None:
        self._client = client
        self._data = HaData()
        self._entities: dict[str, Entity] = {}
        self._areas: dict[str, Area] = {}
        self._floors: dict[str, Floor] = {}
        self._listing: Home | None = None
        """The entities, areas and floors without states, while they stay as they are."""
        self._home: Home | None = None
        self._temperature_unit = "°C"
        self._version = Home({}).names_key
        self._listing_listeners: list[ListingListener] = []
        self._state_listeners: list[StateChangeListener] = []
        self._subscriptions: list[Subscription] = []
        self._remove_client_listener: Callable[[], None] | None = None
        self._dirty: set[str] = set()
        self._dirty_entries: set[str] = set()
        self._worker: asyncio.Task[None] | None = None
        self._synced = asyncio.Event()
        self._ready = asyncio.Event()
        self._ha_running = False
        self._start_watch: asyncio.Task[None] | None = None
        """What HA's `get_config` said at the last full load, or its started event since."""
        self._touched: set[str] | None = None
        """During a full load: entities whose state an event changed meanwhile."""
        self._service_events: list[tuple[str, bool]] | None = None
        """During a full load: notify services registered (True) or removed meanwhile."""

    # --- what the rest of the app reads -------------------------------------------------------

    @property
    def home(self) -> Home:
        if self._home is None:
            states = dict(self._data.states)
            self._home = self._listing_home().with_states(states, self._temperature_unit)
        return self._home

    def _listing_home(self) -> Home:
        if self._listing is None:
            self._listing = Home(dict(self._entities), dict(self._areas), dict(self._floors))
        return self._listing

    @property
    def listing_version(self) -> str:
        return self._version

    @property
    def users(self) -> tuple[HaUser, ...]:
        return self._data.users

    @property
    def labels(self) -> Mapping[str, str]:
        return {lid: str(label.get("name") or lid) for lid, label in self._data.labels.items()}

    @property
    def synced(self) -> bool:
        """True once a full load finished on the current connection."""
        return self._synced.is_set()

    @property
    def ready(self) -> bool:
        """Synced, and HA had finished starting: what the index says is what HA has."""
        return self._ready.is_set()

    @property
    def ha_starting(self) -> bool:
        """Connected and loaded, but HA has not finished setting up its integrations."""
        return self.synced and not self._ha_running

    def add_listing_listener(self, listener: ListingListener) -> Callable[[], None]:
        """Call `listener(listing_version)` whenever the listing changes."""
        self._listing_listeners.append(listener)
        return lambda: self._listing_listeners.remove(listener)

    def add_state_listener(self, listener: StateChangeListener) -> Callable[[], None]:
        self._state_listeners.append(listener)
        return lambda: self._state_listeners.remove(listener)

    async def wait_synced(self, timeout_s: float) -> None:
        async with asyncio.timeout(timeout_s):
            await self._synced.wait()

    async def wait_ready(self, timeout_s: float) -> None:
        async with asyncio.timeout(timeout_s):
            await self._ready.wait()

    # --- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        client = self._client
        self._remove_client_listener = client.add_state_listener(self._on_connection)
        self._subscriptions = [
            await client.subscribe_events("state_changed", self._on_state_changed),
            await client.subscribe_events("entity_registry_updated", self._on_entity_entry),
            *[
                await client.subscribe_events(event, self._on_registry_event(kind))
                for event, kind in REGISTRY_EVENTS.items()
            ],
            *[
                await client.subscribe_events(event, self._on_service_event)
                for event in SERVICE_EVENTS
            ],
        ]
        if client.connected:
            self._request(FULL)

    async def stop(self) -> None:
        if self._remove_client_listener is not None:
            self._remove_client_listener()
            self._remove_client_listener = None
        for subscription in self._subscriptions:
            await subscription.unsubscribe()
        self._subscriptions = []
        if self._start_watch is not None:
            self._start_watch.cancel()
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.cancel()
            with suppress(asyncio.CancelledError):
                await worker

    # --- events -------------------------------------------------------------------------------

    def _on_connection(self, state: ConnectionState) -> None:
        if state is ConnectionState.CONNECTED:
            self._request(FULL)
        else:
            self._synced.clear()
            self._ready.clear()

    def _on_state_changed(self, event: Mapping[str, Any]) -> None:
        data = event.get("data") or {}
        entity_id = data.get("entity_id")
        if not isinstance(entity_id, str):
            return
        payload = data.get("new_state")
        new_state = state_from_payload(payload) if payload else None
        if new_state is None:
            self._data.states.pop(entity_id, None)
        else:
            self._data.states[entity_id] = new_state
        if self._touched is not None:
            self._touched.add(entity_id)
        self._home = None
        self._refresh_entity(entity_id)
        change = StateChange(entity_id, new_state, (event.get("context") or {}).get("id"))
        for listener in list(self._state_listeners):
            listener(change)

    def _on_entity_entry(self, event: Mapping[str, Any]) -> None:
        data = event.get("data") or {}
        entity_id, action = data.get("entity_id"), data.get("action")
        if not isinstance(entity_id, str):
            return
        if old := data.get("old_entity_id"):
            self._data.entries.pop(old, None)
            self._refresh_entity(old)
        if action == "remove":
            self._data.entries.pop(entity_id, None)
            self._refresh_entity(entity_id)
        else:
            self._dirty_entries.add(entity_id)
            self._request()

    def _on_registry_event(self, kind: str) -> Callable[[Mapping[str, Any]], None]:
        def handle(_event: Mapping[str, Any]) -> None:
            self._request(kind)

        return handle

    def _on_service_event(self, event: Mapping[str, Any]) -> None:
        """Legacy notify services come and go without a registry: follow them here."""
        data = event.get("data") or {}
        service = data.get("service")
        if data.get("domain") != "notify" or not isinstance(service, str):
            return
        added = event.get("event_type") != "service_removed"
        if self._service_events is not None:
            self._service_events.append((service, added))
        if _apply_service_event(self._data, service, added):
            self._rebuild()

    # --- loading ------------------------------------------------------------------------------

    def _request(self, *kinds: str) -> None:
        self._dirty.update(kinds)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._drain(), name="botpsy-entity-index")

    async def _drain(self) -> None:
        while self._dirty or self._dirty_entries:
            kinds, self._dirty = self._dirty, set()
            entries, self._dirty_entries = self._dirty_entries, set()
            try:
                if FULL in kinds:
                    await self._load_all()
                else:
                    await self._load_some(kinds, entries)
            except HaCallError as err:
                _LOGGER.warning("Home Assistant refused an index update (%s)", err.message)
            except HaError as err:
                # The connection went; reconnecting reloads everything.
                _LOGGER.debug("Index update interrupted: %s", err.message)
                return

    async def _load_all(self) -> None:
        self._synced.clear()
        self._ready.clear()
        call = self._client.call
        self._touched, self._service_events = set(), []
        try:
            (
                listed,
                devices,
                areas,
                floors,
                labels,
                states,
                exposed,
                expose_new,
                users,
                config,
            ) = await asyncio.gather(
                call({"type": "config/entity_registry/list"}),
                call({"type": "config/device_registry/list"}),
                call({"type": "config/area_registry/list"}),
                call({"type": "config/floor_registry/list"}),
                call({"type": "config/label_registry/list"}),
                call({"type": "get_states"}),
                self._admin_only({"type": "homeassistant/expose_entity/list"}, {}),
                self._admin_only(
                    {"type": "homeassistant/expose_new_entities/get", "assistant": ASSISTANT}, {}
                ),
                self._admin_only({"type": "config/auth/list"}, []),
                call({"type": "get_config"}),
            )
            services = await self._fetch_notify_services()
            entries = await self._fetch_entries([entry["entity_id"] for entry in listed])
            touched, service_events = self._touched, self._service_events
        finally:
            self._touched = self._service_events = None
        fresh = HaData.from_payloads(
            entries=entries,
            devices=devices,
            areas=areas,
            floors=floors,
            labels=labels,
            states=states,
            exposed=exposed,
            expose_new=expose_new,
            users=users,
        )
        fresh.notify_services = services
        for service, added in service_events:
            _apply_service_event(fresh, service, added)
        # States changed by events during the load are newer than the snapshot.
        for entity_id in touched:
            if entity_id in self._data.states:
                fresh.states[entity_id] = self._data.states[entity_id]
            else:
                fresh.states.pop(entity_id, None)
        self._data = fresh
        self._temperature_unit = _temperature_unit(config)
        self._ha_running = _state_of_core(config) == RUNNING
        if not self._ha_running and (self._start_watch is None or self._start_watch.done()):
            _LOGGER.info("Home Assistant is still starting; requests wait until it has started")
            self._start_watch = asyncio.create_task(
                self._watch_start(), name="botpsy-ha-start-watch"
            )
        self._rebuild()
        if not self._dirty:
            self._synced.set()
            if self._ha_running:
                self._ready.set()
        _LOGGER.info(
            "Entity index loaded: %d entities in %d areas", len(self._entities), len(self._areas)
        )

    async def _watch_start(self) -> None:
        """Until HA says it is running; then reload what its integrations have set up."""
        while True:
            await asyncio.sleep(START_POLL_S)
            try:
                config = await self._client.call({"type": "get_config"})
            except HaError:
                return  # reconnecting reloads everything, and watches again if need be
            if _state_of_core(config) == RUNNING:
                _LOGGER.info("Home Assistant has started")
                self._request(FULL)
                return

    async def _load_some(self, kinds: set[str], entries: set[str]) -> None:
        call, data = self._client.call, self._data
        if "devices" in kinds:
            data.devices = by_key(await call({"type": "config/device_registry/list"}), "id")
        if "areas" in kinds:
            data.areas = by_key(await call({"type": "config/area_registry/list"}), "area_id")
        if "floors" in kinds:
            data.floors = by_key(await call({"type": "config/floor_registry/list"}), "floor_id")
        if "labels" in kinds:
            data.labels = by_key(await call({"type": "config/label_registry/list"}), "label_id")
        if "users" in kinds:
            data.users = users_from_payload(
                await self._admin_only({"type": "config/auth/list"}, [])
            )
        if entries:
            for entity_id, entry in (await self._fetch_entries(sorted(entries))).items():
                if entry is None:
                    data.entries.pop(entity_id, None)
                else:
                    data.entries[entity_id] = entry
            # Entries without a unique id keep their Assist setting in HA's own store.
            data.exposed = exposed_from_payload(
                await self._admin_only({"type": "homeassistant/expose_entity/list"}, {})
            )
        if kinds - {"users"} or entries:
            self._rebuild()

    async def _admin_only(self, message: Mapping[str, Any], default: Any) -> Any:
        """Users and Assist exposure need an admin token (the app's Supervisor token is);
        with a lesser token the index works without them."""
        try:
            return await self._client.call(message)
        except HaCallError as err:
            if err.code != "unauthorized":
                raise
            _LOGGER.warning(
                "The Home Assistant token is not an admin's: %s is not available", message["type"]
            )
            return default

    async def _fetch_notify_services(self) -> tuple[str, ...]:
        """The legacy notify services HA has now; if HA cannot list its services (it fails
        when an integration's service descriptions cannot load), the ones already known."""
        try:
            return notify_services_from_payload(await self._client.call({"type": "get_services"}))
        except HaCallError as err:
            _LOGGER.warning(
                "Home Assistant could not list its services (%s); keeping the %d known "
                "notify recipients",
                err.message,
                len(self._data.notify_services),
            )
            return self._data.notify_services

    async def _fetch_entries(self, entity_ids: list[str]) -> dict[str, Any]:
        if not entity_ids:
            return {}
        entries = await self._client.call(
            {"type": "config/entity_registry/get_entries", "entity_ids": entity_ids}
        )
        return dict(entries)

    # --- applying -----------------------------------------------------------------------------

    def _rebuild(self) -> None:
        self._entities = build_entities(self._data)
        self._areas = build_areas(self._data)
        self._floors = build_floors(self._data)
        self._listing = self._home = None
        self._update_version()

    def _refresh_entity(self, entity_id: str) -> None:
        """Re-derive one entity after its state or entry changed; a state change alone
        (on/off, brightness) leaves the entity, and so the listing, as it was."""
        entity, old = build_entity(self._data, entity_id), self._entities.get(entity_id)
        if entity == old or (entity is None and old is not None and old.is_service):
            return
        if entity is None:
            del self._entities[entity_id]
        else:
            self._entities[entity_id] = entity
        self._listing = self._home = None
        self._update_version()

    def _update_version(self) -> None:
        version = self._listing_home().names_key
        if version == self._version:
            return
        self._version = version
        for listener in list(self._listing_listeners):
            listener(version)


def _apply_service_event(data: HaData, service: str, added: bool) -> bool:
    """Add or remove a legacy notify recipient; True when the set changed."""
    known = set(data.notify_services)
    if not added:
        known.discard(service)
    elif service not in NOT_RECIPIENTS:
        known.add(service)
    if known == set(data.notify_services):
        return False
    data.notify_services = tuple(sorted(known))
    return True


def _state_of_core(config: object) -> str:
    """HA's core state from `get_config` (`RUNNING` once started); RUNNING when an HA too old
    to say is asked."""
    state = config.get("state") if isinstance(config, dict) else None
    return state if isinstance(state, str) else RUNNING


def _temperature_unit(config: object) -> str:
    """HA's temperature unit from `get_config` (°C when HA does not say)."""
    units = config.get("unit_system") if isinstance(config, dict) else None
    unit = units.get("temperature") if isinstance(units, dict) else None
    return unit if unit in {"°C", "°F"} else "°C"
