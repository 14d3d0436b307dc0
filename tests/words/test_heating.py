"""Warmth asked of a room without a thermostat switches on its heater (words/heating.py):
"it's cold in the office, warm it up" set another room's thermostat with both real models,
and grounding asked about it (dev recover-heater-office). Pure, on a small home."""

from __future__ import annotations

from datetime import UTC, datetime

from botpsy_agent.agent.narrowing import narrowed_schemas
from botpsy_agent.agent.offer import build_offer
from botpsy_agent.home import Area, Entity, Home
from botpsy_agent.home.resolve import resolve_call
from botpsy_agent.policy import scope
from botpsy_agent.words import grounding
from tests.policy.policies import admin, family_policy
from tool_schemas.base import MappingContext
from tool_schemas.catalog import parse_tool_call

NOON = datetime(2026, 12, 1, 12, tzinfo=UTC)
HOME = Home.of(
    [
        Entity("switch.office_heater", "Office heater", area_id="office"),
        Entity("light.office", "Office light", area_id="office"),
        Entity("climate.kids_room", "Kids room thermostat", area_id="kids_room"),
        Entity("switch.kids_room_heater", "Kids room heater", area_id="kids_room"),
        Entity("climate.living_room", "Living room thermostat", area_id="living_room"),
        Entity("switch.coffee_machine", "Coffee machine", area_id="kitchen"),
    ],
    [
        Area("office", "Office", aliases=("study",)),
        Area("kids_room", "Kids room"),
        Area("living_room", "Living room"),
        Area("kitchen", "Kitchen"),
    ],
)


def heaters(text: str) -> frozenset[str]:
    return grounding.heaters_asked(grounding.Request(text, "en"), HOME)


def test_warmth_for_a_room_without_a_thermostat_asks_for_its_heater() -> None:
    assert heaters("it's cold in the office, warm it up") == {"switch.office_heater"}
    assert heaters("the study is freezing") == {"switch.office_heater"}
    # A room with a thermostat is the thermostat's; no warmth, no place, or a question: none.
    assert heaters("it's cold in the kids room, warm it up") == frozenset()
    assert heaters("it's too hot in the office") == frozenset()
    assert heaters("it's cold, warm it up") == frozenset()
    assert heaters("is it cold in the office?") == frozenset()
    assert heaters("it's cold in the office, but don't turn the heater on") == frozenset()


def _verdict(text: str, entity_id: str) -> grounding.Verdict:
    call = parse_tool_call("turn_on", {"entity_id": [entity_id]})
    resolved = resolve_call(HOME, call, MappingContext(NOON))
    return grounding.check(resolved, grounding.Request(text, "en"), HOME)


def test_switching_the_heater_on_is_asked_for_and_nothing_else_is() -> None:
    said = "it's cold in the office, warm it up"
    assert _verdict(said, "switch.office_heater") is grounding.Verdict.GROUNDED
    assert _verdict(said, "light.office") is not grounding.Verdict.GROUNDED
    assert _verdict(said, "switch.coffee_machine") is not grounding.Verdict.GROUNDED


def test_the_offer_holds_the_heater_alone_and_no_other_rooms_thermostat() -> None:
    offer = build_offer(scope(family_policy(), admin, HOME, NOON), HOME)
    words = grounding.Request("it's cold in the office, warm it up", "en")
    narrowed = narrowed_schemas(offer, words, HOME, NOON)
    assert narrowed is not None
    tools = {s["name"]: s for s in narrowed}
    assert "set_climate" not in tools
    targets = tools["turn_on"]["parameters"]["properties"]
    assert set(targets) == {"entity_id"}
    assert targets["entity_id"]["items"]["enum"] == ["switch.office_heater"]
