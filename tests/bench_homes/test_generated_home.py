"""The homes bench's generated home (bench/homes.py, devkit/homes.realistic_home): the size
asked, the same every time, ids as HA derives them from the names, and a configuration a
real HA turns into exactly those entities."""

from __future__ import annotations

from collections import Counter
import logging

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from homeassistant.util import slugify
from homeassistant.util.yaml import parse_yaml
import pytest

from bench.homes import (
    HEATER,
    NOT_THE_OFFICE,
    TARGET_SENSOR,
    StartLines,
    bench_policy,
    ha_yaml,
)
from demo.paths import POLICY_TEMPLATE
from devkit.homes import realistic_home
from tests.eval.layouts import DEMO_AREAS


@pytest.mark.parametrize("size", [40, 250, 1000])
def test_a_generated_home_has_the_size_asked_and_is_the_same_every_time(size: int) -> None:
    home = realistic_home(size, taken=DEMO_AREAS)
    assert len(home.entities) == size
    assert home == realistic_home(size, taken=DEMO_AREAS)
    assert not set(home.areas) & set(DEMO_AREAS)  # beside the demo home, not in its rooms
    for entity_id, entity in home.entities.items():
        object_id = entity_id.split(".", 1)[1]
        assert object_id == slugify(entity.name), entity  # as HA makes ids from names
        assert entity.area_id is None or entity.area_id in home.areas
        assert entity.exposed
    assert {a.floor_id for a in home.areas.values() if a.floor_id} <= set(home.floors)
    domains = Counter(e.domain for e in home.entities.values())
    assert len(domains) >= 8 and max(domains.values()) < size / 3, domains  # a mix, not one


async def test_ha_makes_exactly_the_generated_entities(hass: HomeAssistant) -> None:
    home = realistic_home(250, taken=DEMO_AREAS)
    config = parse_yaml(ha_yaml(home))
    assert isinstance(config, dict)
    for component in ("homeassistant", "template", "climate", "media_player", "scene", "script"):
        keys = {k: v for k, v in config.items() if k.split(" ")[0] == component}
        assert await async_setup_component(hass, component, keys), component
    await hass.async_block_till_done()
    made = set(hass.states.async_entity_ids()) - {HEATER, TARGET_SENSOR}
    assert made == set(home.entities)


def test_the_bench_policy_keeps_the_child_out_of_the_office_only() -> None:
    policy = bench_policy()
    assert NOT_THE_OFFICE in policy
    assert policy.replace(NOT_THE_OFFICE, "") == POLICY_TEMPLATE.read_text()


def test_the_start_lines_keep_the_context_lines_and_each_prefix_build() -> None:
    lines = StartLines()
    for text in (
        "Context: 8,192 tokens (automatic: …)",
        "Prefix of 3901 tokens built in 28.4 s",
        "Model ready: x.gguf",
    ):
        lines.emit(logging.LogRecord("botpsy_agent", logging.INFO, "", 0, text, None, None))
    assert lines.lines == ["Context: 8,192 tokens (automatic: …)"]
    assert lines.builds == [(3901, 28.4)]
