"""The demo home's devices (demo/config/custom_components/demo_home) inside a test's `hass`:
the same entities, started the same way, as the evaluation's Home Assistant has them, for
tests that need the home's real starting states without the whole demo stack.
"""

from __future__ import annotations

from collections.abc import Sequence
import json
from typing import Any

from homeassistant import loader
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
)
from homeassistant.setup import async_setup_component
from homeassistant.util.yaml import parse_yaml
import pytest

import custom_components
from demo.paths import CONFIG, load_devices
from tests.eval.cases import Case, ServiceSetup

DEMO_COMPONENTS = str(CONFIG / "custom_components")


async def set_up_demo_home(
    hass: HomeAssistant, monkeypatch: pytest.MonkeyPatch, extra_yaml: str = ""
) -> None:
    """Load `demo_home` into `hass`, with the integrations `extra_yaml` configures (a
    layout's own entities, tests/eval/layouts.py), and place its devices on the demo's
    floors and in its rooms as demo/home_setup.py does. HA finds custom integrations on
    `custom_components`' path, which holds only ours in the repo; the demo's folder is added
    for this test."""
    path = [*custom_components.__path__, DEMO_COMPONENTS]
    monkeypatch.setattr(custom_components, "__path__", path)
    hass.data.pop(loader.DATA_CUSTOM_COMPONENTS, None)
    assert await async_setup_component(hass, "demo_home", {"demo_home": {}})
    extra = (parse_yaml(extra_yaml) or {}) if extra_yaml else {}
    assert isinstance(extra, dict)
    for domain in sorted({str(key).split(" ")[0] for key in extra}):
        assert await async_setup_component(hass, domain, extra), domain
    await hass.async_block_till_done()
    devices = load_devices()
    floors = fr.async_get(hass)
    for floor_id, (name, level, aliases) in devices.FLOORS.items():
        assert floors.async_create(name, level=level, aliases=set(aliases)).floor_id == floor_id
    areas = ar.async_get(hass)
    for area_id, (name, floor_id, aliases) in devices.AREAS.items():
        made = areas.async_get_area(area_id) or areas.async_create(name)
        areas.async_update(made.id, name=name, floor_id=floor_id, aliases=set(aliases))
    entities = er.async_get(hass)
    for entity_id, (_name, area_id) in devices.placed_devices().items():
        entities.async_update_entity(entity_id, area_id=area_id)
    await hass.async_block_till_done()


async def start_case(
    hass: HomeAssistant, case: Case, restore: Sequence[tuple[str, str, list[str]]] = ()
) -> None:
    """The home as the evaluation starts `case`: reset (and a layout's own entities put back,
    `restore`), then the setup's service calls (the other setup steps change the calendar,
    the list or a name, not a state)."""
    await hass.services.async_call("demo_home", "reset", {}, blocking=True)
    for domain, service, entity_ids in restore:
        await hass.services.async_call(domain, service, {"entity_id": entity_ids}, blocking=True)
    for step in case.setup:
        if isinstance(step, ServiceSetup):
            domain, service = step.service.split(".")
            await hass.services.async_call(
                domain, service, {**step.data, "entity_id": step.entity_id}, blocking=True
            )
    await hass.async_block_till_done()


def states(hass: HomeAssistant) -> dict[str, dict[str, Any]]:
    """HA's states, shaped as its WebSocket `get_states` gives them (JSON)."""
    return {
        s.entity_id: json.loads(
            json.dumps(
                {"entity_id": s.entity_id, "state": s.state, "attributes": dict(s.attributes)},
                default=str,
            )
        )
        for s in hass.states.async_all()
    }
