"""Targets that combine kinds narrow, never widen (issue 14): an entity with its area is that
entity, an area with a floor is the part of both; and temperature limits hold in °F homes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from botpsy_agent.home.resolve import ResolutionError, resolve_call
from botpsy_agent.policy import Allow, Deny, DenyReason, authorize, usable_filter
from devkit.homes import family_home
from tests.policy.policies import admin, child, family_policy
from tool_schemas.base import MappingContext
from tool_schemas.catalog import parse_tool_call

NOON = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
HOME = family_home()


def resolved_ids(args: dict[str, Any], tool: str = "turn_off") -> tuple[str, ...]:
    return resolve_call(HOME, parse_tool_call(tool, args), MappingContext(NOON)).entity_ids


def test_an_entity_with_its_area_is_that_entity_alone() -> None:
    # The union took the living room thermostat, light, TV plug and reading lamp.
    args = {"entity_id": ["light.reading_lamp"], "area_id": ["living_room"]}
    assert resolved_ids(args) == ("light.reading_lamp",)
    assert resolved_ids({**args, "floor_id": ["ground"]}) == ("light.reading_lamp",)


def test_an_entity_outside_the_area_named_is_an_error_not_a_wider_target() -> None:
    call = parse_tool_call("turn_off", {"entity_id": ["light.hall"], "area_id": ["kitchen"]})
    with pytest.raises(ResolutionError) as err:
        resolve_call(HOME, call, MappingContext(NOON))
    assert err.value.code == "not_in_place"


def test_an_area_with_a_floor_is_what_lies_in_both() -> None:
    both = resolved_ids({"area_id": ["kitchen"], "floor_id": ["ground"], "domain": ["light"]})
    assert both == ("light.kitchen", "light.kitchen_counter")
    with pytest.raises(ResolutionError) as err:
        resolved_ids({"area_id": ["kitchen"], "floor_id": ["upstairs"]})
    assert err.value.code == "no_matching_entities"
    # Several areas are still all of them.
    assert resolved_ids({"area_id": ["kitchen", "hall"], "domain": ["light"]}) == (
        "light.hall",
        "light.kitchen",
        "light.kitchen_counter",
    )


def test_an_area_with_a_label_is_what_carries_the_label_there() -> None:
    assert resolved_ids({"floor_id": ["upstairs"], "label_id": ["grown_ups"]}) == ("light.office",)


def _child_sets(temperature: float, home: Any) -> object:
    policy = family_policy()
    call = parse_tool_call(
        "set_climate", {"entity_id": ["climate.kids_room"], "temperature": temperature}
    )
    usable = usable_filter(policy, child, call, NOON)
    return authorize(policy, child, resolve_call(home, call, MappingContext(NOON), usable), NOON)


def test_temperature_limits_in_celsius_hold_in_a_fahrenheit_home() -> None:
    fahrenheit = replace(HOME, temperature_unit="°F")
    assert isinstance(_child_sets(70, fahrenheit), Allow)  # 21.1 °C, inside 18 to 24
    too_warm = _child_sets(80, fahrenheit)  # 26.7 °C
    assert isinstance(too_warm, Deny) and too_warm.reason is DenyReason.OUT_OF_BOUNDS
    assert isinstance(_child_sets(22, HOME), Allow)


def test_a_thermostat_takes_only_its_own_range() -> None:
    states = dict(HOME.states)
    states["climate.guest_room"] = replace(
        HOME.state_of("climate.guest_room"), attributes={"min_temp": 16, "max_temp": 26}
    )
    home = replace(HOME, states=states)
    call = parse_tool_call("set_climate", {"entity_id": ["climate.guest_room"], "temperature": 28})
    with pytest.raises(ResolutionError) as err:
        resolve_call(home, call, MappingContext(NOON))
    assert err.value.code == "temperature_out_of_range"
    admin_call = parse_tool_call(
        "set_climate", {"entity_id": ["climate.guest_room"], "temperature": 26}
    )
    resolved = resolve_call(home, admin_call, MappingContext(NOON))
    assert isinstance(authorize(family_policy(), admin, resolved, NOON), Allow)
