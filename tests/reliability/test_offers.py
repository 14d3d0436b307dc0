"""Every principal's offer (tools narrowed to its world) makes a grammar in both tool formats.

Found by the soak: a principal whose rooms have covers, none with a device class, got an
offer without `device_class`, while control_cover's shapes still named it as optional; the
grammar builder refused, and every model request of that principal failed `internal`.
"""

from __future__ import annotations

from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.grammar import Mode, build_grammar
from botpsy_agent.llm.model_info import ToolFormat
from botpsy_agent.policy import Principal, parse_policy, scope
from tests.agent.support import admin, user
from tests.ha_bridge import HaBridge

ROOMS = ["kitchen", "living_room", "hall", "garage", "bedroom", "office", "kids_room"]
POLICY = (
    "version: 1\ngroups:\n  admin:\n    ignore_exposure: true\n    rules:\n"
    + ("      - allow: [read, control]\n  users:\n    rules:\n      - allow: [read, control]\n")
    + "mqtt:\n"
    + "".join(
        f"  {room}:\n    rules:\n      - allow: [read, control]\n        areas: [{room}]\n"
        for room in ROOMS
    )
    + "  kitchen-and-lounge:\n    rules:\n      - allow: [read, control]\n"
    + ("        areas: [kitchen, living_room]\n")
)


@pytest.mark.parametrize("tool_format", list(ToolFormat))
async def test_every_principals_offer_makes_a_grammar(
    ha_bridge: HaBridge, tool_format: ToolFormat
) -> None:
    policy = parse_policy(POLICY, "rooms.yaml")
    home, now = ha_bridge.index.home, dt_util.now()
    principals = [
        admin(ha_bridge),
        user(ha_bridge),
        *(Principal.mqtt(room) for room in [*ROOMS, "kitchen-and-lounge"]),
    ]
    for principal in principals:
        offer = build_offer(scope(policy, principal, home, now), home)
        assert offer.schemas, principal
        grammar = build_grammar(offer.schemas, tool_format, Mode.AUTO)
        assert grammar.text, principal
