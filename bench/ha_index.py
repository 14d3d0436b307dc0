"""Entity index build time and memory for a generated 2,000-entity home.

The payloads are shaped as HA's WebSocket API sends them (registries, states, exposure,
services, users) and go through the same functions the live index uses
(`HaData.from_payloads`, `build_home`, `Home.names_key`); no HA is needed.
"""

from __future__ import annotations

import json
import random
import statistics
import time
import tracemalloc
from typing import Any

from botpsy_agent.ha.registries import HaData, build_entity, build_home
from botpsy_agent.home.listing import render_listing

ENTITIES = 2000
AREAS = 25
FLOORS = 3
RUNS = 5
DOMAINS = ("light", "switch", "fan", "climate", "cover", "lock", "media_player", "sensor")


def payloads(n_entities: int = ENTITIES, seed: int = 0) -> dict[str, Any]:
    """A generated home as HA would send it: about three entities per device."""
    rng = random.Random(seed)
    floors = [
        {"floor_id": f"floor_{i}", "name": f"Floor {i}", "level": i, "aliases": [f"level {i}"]}
        for i in range(FLOORS)
    ]
    areas = [
        {
            "area_id": f"area_{i}",
            "name": f"Room {i}",
            "floor_id": f"floor_{i % FLOORS}",
            "aliases": [f"space {i}"] if i % 3 == 0 else [],
            "labels": [],
        }
        for i in range(AREAS)
    ]
    labels = [{"label_id": f"label_{i}", "name": f"Label {i}"} for i in range(8)]
    devices = [
        {
            "id": f"device_{i}",
            "name": f"Device {i}",
            "name_by_user": None,
            "area_id": f"area_{rng.randrange(AREAS)}",
            "labels": [],
        }
        for i in range(n_entities // 3 + 1)
    ]
    entries: dict[str, Any] = {}
    states = []
    for i in range(n_entities):
        domain = DOMAINS[i % len(DOMAINS)]
        entity_id = f"{domain}.thing_{i}"
        entries[entity_id] = {
            "entity_id": entity_id,
            "device_id": f"device_{i // 3}",
            "area_id": f"area_{rng.randrange(AREAS)}" if i % 4 == 0 else None,
            "aliases": [None, f"gadget {i}"] if i % 5 == 0 else [None],
            "labels": rng.sample([f"label_{j}" for j in range(8)], rng.randint(0, 2)),
            "name": None,
            "original_name": f"Thing {i}",
            "has_entity_name": False,
            "device_class": "temperature" if domain == "sensor" else None,
            "original_device_class": None,
            "entity_category": None,
            "hidden_by": None,
            "disabled_by": None,
            "options": {"conversation": {"should_expose": i % 10 != 0}},
        }
        states.append(
            {
                "entity_id": entity_id,
                "state": rng.choice(("on", "off", "21.5", "unavailable")),
                "attributes": {"friendly_name": f"Thing {i}", "supported_features": i % 64},
                "last_changed": "2026-11-30T08:00:00+00:00",
                "last_updated": "2026-11-30T08:00:00+00:00",
                "context": {"id": f"ctx{i}", "parent_id": None, "user_id": None},
            }
        )
    services = {"notify": {f"mobile_app_phone_{i}": {} for i in range(5)}, "light": {}}
    users = [
        {
            "id": f"user_{i}",
            "name": f"Person {i}",
            "is_owner": i == 0,
            "is_active": True,
            "group_ids": ["system-admin" if i < 2 else "system-users"],
        }
        for i in range(6)
    ]
    return {
        "entries": entries,
        "devices": devices,
        "areas": areas,
        "floors": floors,
        "labels": labels,
        "states": states,
        "exposed": {"exposed_entities": {}},
        "expose_new": {"expose_new": True},
        "services": services,
        "users": users,
    }


def build(data: dict[str, Any]) -> Any:
    ha = HaData.from_payloads(**data)
    home = build_home(ha)
    _ = home.names_key  # what the index computes on every registry change
    return ha, home


def run() -> dict[str, Any]:
    data = payloads()
    payload_bytes = len(json.dumps(data).encode())
    build(data)  # warm up imports and caches

    timings = []
    for _ in range(RUNS):
        started = time.perf_counter()
        build(data)
        timings.append(time.perf_counter() - started)

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    ha, home = build(data)
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    started = time.perf_counter()
    for i in range(100):
        ha.states[f"light.thing_{i * 8}"] = ha.states[f"light.thing_{i * 8}"]
        build_entity(ha, f"light.thing_{i * 8}")
    state_change_us = (time.perf_counter() - started) / 100 * 1e6

    started = time.perf_counter()
    listing = render_listing(home, home.entities)
    listing_ms = (time.perf_counter() - started) * 1e3

    return {
        "entities": len(home.entities),
        "areas": len(home.areas),
        "payload_mib": round(payload_bytes / 2**20, 2),
        "build_ms_median": round(statistics.median(timings) * 1e3, 1),
        "build_ms_min": round(min(timings) * 1e3, 1),
        "retained_mib": round((retained - before) / 2**20, 2),
        "peak_mib": round((peak - before) / 2**20, 2),
        "state_change_entity_rebuild_us": round(state_change_us, 1),
        "render_listing_ms": round(listing_ms, 1),
        "listing_kib": round(len(listing.encode()) / 1024, 1),
    }
