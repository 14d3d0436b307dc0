"""Rules of the requester's own area (issue 30, item 4): a voice satellite's request, which
Home Assistant signs with the satellite's area, may act on that area's devices and nowhere
else; a request from no area (an automation) gets nothing from such a rule, and the rights
of one room never leak into another's through a cache keyed by the principal."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from botpsy_agent.home.model import Entity, Home
from botpsy_agent.home.resolve import ResolvedCall, resolve_call
from botpsy_agent.policy import Allow, Deny, PolicyError, Principal, authorize, parse_policy, scope
from tool_schemas.base import MappingContext
from tool_schemas.catalog import parse_tool_call

NOW = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
HOME = Home.of(
    [
        Entity("light.kitchen", "Kitchen light", area_id="kitchen"),
        Entity("light.bedroom", "Bedroom light", area_id="bedroom"),
        Entity("sensor.bedroom_temperature", "Bedroom temperature", area_id="bedroom"),
    ]
)
POLICY = parse_policy(
    """\
version: 1
mqtt:
  homeassistant:
    rules:
      - {id: ui-allow, allow: [read]}
      - {id: ui-allow-own_area, allow: [control], own_area: true}
      - {id: not-the-nursery, deny: [control], own_area: true, areas: [nursery]}
""",
    "policy.yaml",
)


def resolved(home: Home, entity_id: str) -> ResolvedCall:
    call = parse_tool_call("turn_on", {"entity_id": [entity_id]})
    return resolve_call(home, call, MappingContext(NOW))


def ha(area: str | None) -> Principal:
    return Principal.mqtt("homeassistant", area_id=area)


@pytest.mark.parametrize(
    ("area", "entity", "allowed"),
    [
        ("kitchen", "light.kitchen", True),
        ("kitchen", "light.bedroom", False),
        ("bedroom", "light.bedroom", True),
        (None, "light.kitchen", False),  # an automation: no area, no own-area rights
    ],
)
def test_a_satellite_controls_its_own_area_only(
    area: str | None, entity: str, allowed: bool
) -> None:
    decision = authorize(POLICY, ha(area), resolved(HOME, entity), NOW)
    if allowed:
        assert decision == Allow("ui-allow-own_area")
    else:
        assert isinstance(decision, Deny) and decision.reason.value == "not_allowed"


def test_reading_is_not_bound_to_the_area() -> None:
    readable = scope(POLICY, ha("kitchen"), HOME, NOW).entities_for("get_state")
    assert "sensor.bedroom_temperature" in readable


def test_the_scope_of_each_room_is_its_own_and_so_is_its_key() -> None:
    kitchen = scope(POLICY, ha("kitchen"), HOME, NOW).entities_for("turn_on")
    bedroom = scope(POLICY, ha("bedroom"), HOME, NOW).entities_for("turn_on")
    nowhere = scope(POLICY, ha(None), HOME, NOW).entities_for("turn_on")
    assert (kitchen, bedroom, nowhere) == ({"light.kitchen"}, {"light.bedroom"}, set())
    # Offers, conversations and rate limits are keyed by the principal's key.
    assert ha("kitchen").key == "mqtt:homeassistant@kitchen"
    assert ha(None).key == "mqtt:homeassistant"
    assert POLICY.names(ha("kitchen"))


def test_own_area_with_areas_is_both() -> None:
    nursery = Entity("light.nursery", "Nursery light", area_id="nursery")
    home = Home.of([*HOME.entities.values(), nursery])
    decision = authorize(POLICY, ha("nursery"), resolved(home, "light.nursery"), NOW)
    assert isinstance(decision, Deny)
    assert (decision.rule, decision.entity_id) == ("not-the-nursery", "light.nursery")
    # The same rule from the kitchen: own area kitchen and area nursery select nothing.
    assert authorize(POLICY, ha("kitchen"), resolved(home, "light.kitchen"), NOW) == Allow(
        "ui-allow-own_area"
    )


def test_own_area_must_be_a_boolean() -> None:
    with pytest.raises(PolicyError, match="own_area"):
        parse_policy(
            "version: 1\nanonymous: {rules: [{allow: [control], own_area: kitchen}]}\n", "p.yaml"
        )
