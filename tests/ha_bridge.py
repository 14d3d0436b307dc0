"""The app's HA bridge (client, entity index, executor) connected to a test's real HA.

`start_bridge(hass, ha_api)` connects first and then builds the test home (tests/ha_home.py)
while connected, as when HA starts up with the app running, and returns once the index
reflects everything HA's own registries say (`index_matches_ha`). Building after connecting
also means the legacy notify recipients arrive by `service_registered` events: in this test
environment HA's `get_services` fails (its camera component needs PyTurboJPEG).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, device_registry as dr, entity_registry as er
from homeassistant.setup import async_setup_component

from botpsy_agent.ha.client import Backoff, HaClient, HaEndpoint
from botpsy_agent.ha.executor import Executor
from botpsy_agent.ha.index import EntityIndex
from tests.ha_home import HaHome, setup_test_home
from tests.ha_server import HomeAssistantApiServer

TEST_BACKOFF = Backoff(initial_s=0.02, maximum_s=0.2)


@dataclass
class HaBridge:
    client: HaClient
    index: EntityIndex
    executor: Executor
    home: HaHome

    async def stop(self) -> None:
        await self.executor.close()
        await self.index.stop()
        await self.client.stop()


async def connect(ha_api: HomeAssistantApiServer) -> tuple[HaClient, EntityIndex]:
    """A started client and index on this HA (not waiting for anything)."""
    client = HaClient(HaEndpoint.from_base_url(ha_api.url, ha_api.token), backoff=TEST_BACKOFF)
    index = EntityIndex(client)
    await index.start()
    await client.start()
    return client, index


async def start_bridge(hass: HomeAssistant, ha_api: HomeAssistantApiServer) -> HaBridge:
    for component in ("homeassistant", "config"):  # always loaded in a real HA
        assert await async_setup_component(hass, component, {})
    client, index = await connect(ha_api)
    await client.wait_connected(5)
    await index.wait_synced(5)
    home = await setup_test_home(hass)
    await wait_until(lambda: index_matches_ha(hass, index, home), timeout_s=5)
    return HaBridge(client, index, Executor(client, index, settle_s=0.3), home)


async def wait_until(condition: Callable[[], bool], timeout_s: float = 1.0) -> None:
    """Poll `condition` until true; TimeoutError after `timeout_s`."""
    async with asyncio.timeout(timeout_s):
        while not condition():  # noqa: ASYNC110 - conditions over HA and the index, no event
            await asyncio.sleep(0.005)


def expected_entities(hass: HomeAssistant) -> dict[str, tuple[object, ...]]:
    """What the index must say of each HA entity, read from HA's own registries:
    (name, area, floor, aliases, labels)."""
    entities, devices, areas = er.async_get(hass), dr.async_get(hass), ar.async_get(hass)
    expected: dict[str, tuple[object, ...]] = {}
    for state in hass.states.async_all():
        entry = entities.async_get(state.entity_id)
        device = devices.async_get(entry.device_id) if entry and entry.device_id else None
        area_id = (entry.area_id if entry else None) or (device.area_id if device else None)
        area = areas.async_get_area(area_id) if area_id else None
        aliases = tuple(a for a in entry.aliases if isinstance(a, str)) if entry else ()
        labels = frozenset(entry.labels if entry else ()) | frozenset(
            device.labels if device else ()
        )
        expected[state.entity_id] = (
            state.name,
            area_id,
            area.floor_id if area else None,
            aliases,
            labels,
        )
    return expected


def index_matches_ha(hass: HomeAssistant, index: EntityIndex, home: HaHome) -> bool:
    have = index.home
    actual = {
        entity_id: (e.name, e.area_id, e.floor_id, e.aliases, e.labels)
        for entity_id, e in have.entities.items()
        if not e.is_service
    }
    states_match = all(
        entity_id in have.states and have.states[entity_id].state == state.state
        for entity_id, state in ((s.entity_id, s) for s in hass.states.async_all())
    )
    phones = all(p.recipient in have.entities for p in home.phones.values())
    return (
        actual == expected_entities(hass)
        and states_match
        and phones
        and set(have.areas) == set(home.areas)
        and set(have.floors) == set(home.floors)
        and {u.name for u in index.users} >= set(home.users)
    )
