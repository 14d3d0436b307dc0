"""The named scenarios, as tables: who asks, what, and what the policy answers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from botpsy_agent.home.resolve import ResolutionError, resolve_call
from botpsy_agent.policy import (
    Allow,
    Confirm,
    Deny,
    DenyReason,
    Principal,
    authorize,
    usable_filter,
)
from devkit.homes import family_home
from tests.policy.policies import (
    admin,
    anonymous,
    child,
    family_policy,
    guest,
    kitchen_panel,
    parent,
    teen,
)
from tool_schemas.base import MappingContext
from tool_schemas.catalog import parse_tool_call

NOON = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
NIGHT = datetime(2026, 11, 30, 22, 30, tzinfo=UTC)
HOME = family_home()
POLICY = family_policy()


def decide(principal: Principal, tool: str, args: dict[str, Any], now: datetime = NOON) -> object:
    call = parse_tool_call(tool, args)
    usable = usable_filter(POLICY, principal, call, now)
    resolved = resolve_call(HOME, call, MappingContext(now), usable)
    return authorize(POLICY, principal, resolved, now)


ALLOWED = [
    (child, "turn_on", {"entity_id": ["light.kids_room"]}),
    (child, "set_climate", {"entity_id": ["climate.kids_room"], "temperature": 22}),
    (child, "set_climate", {"entity_id": ["climate.kids_room"], "temperature": 24}),
    (child, "set_climate", {"entity_id": ["climate.kids_room"], "temperature_step": 2}),
    (child, "set_media", {"entity_id": ["media_player.kids_room"], "volume_pct": 60}),
    (child, "get_state", {"entity_id": ["lock.front_door"]}),
    (guest, "turn_on", {"area_id": ["guest_room"]}),
    (guest, "set_climate", {"entity_id": ["climate.guest_room"], "temperature": 25}),
    (teen, "turn_on", {"area_id": ["office", "kids_room"]}),  # office light dropped, rest stays
    (admin, "turn_off", {"floor_id": ["upstairs"]}),
    (admin, "get_state", {"entity_id": ["sensor.office_secret"]}),  # admins ignore exposure
    (parent, "send_message", {"recipient": "notify.mobile_app_anna", "message": "Dinner!"}),
    (kitchen_panel, "turn_on", {"entity_id": ["switch.coffee_machine"]}),
    (parent, "ask_user", {"missing": "target"}),
    (anonymous, "no_tool_fits", {"reason": "no weather tool"}),
]


@pytest.mark.parametrize(("principal", "tool", "args"), ALLOWED)
def test_allowed(principal: Principal, tool: str, args: dict[str, Any]) -> None:
    assert isinstance(decide(principal, tool, args), Allow)


DENIED = [
    # A child cannot unlock the door or set 30 °C.
    (
        child,
        "control_lock",
        {"entity_id": ["lock.front_door"], "action": "unlock"},
        DenyReason.DENIED_BY_RULE,
        "no-locks",
    ),
    (
        child,
        "set_climate",
        {"entity_id": ["climate.kids_room"], "temperature": 30},
        DenyReason.OUT_OF_BOUNDS,
        "kid-limits",
    ),
    (
        child,
        "set_climate",
        {"entity_id": ["climate.kids_room"], "temperature": 17.5},
        DenyReason.OUT_OF_BOUNDS,
        "kid-limits",
    ),
    (
        child,
        "set_climate",
        {"entity_id": ["climate.kids_room"], "temperature_step": 5},
        DenyReason.OUT_OF_BOUNDS,
        "kid-limits",
    ),
    (
        child,
        "set_media",
        {"entity_id": ["media_player.kids_room"], "volume_pct": 61},
        DenyReason.OUT_OF_BOUNDS,
        "kid-limits",
    ),
    (child, "turn_on", {"entity_id": ["light.office"]}, DenyReason.NOT_ALLOWED, None),
    # A guest can only control the guest room.
    (guest, "turn_on", {"entity_id": ["light.kitchen"]}, DenyReason.NOT_ALLOWED, None),
    (guest, "get_state", {"entity_id": ["light.guest_room"]}, DenyReason.NOT_ALLOWED, None),
    # A deny on a label beats an allow on its area.
    (
        teen,
        "turn_on",
        {"entity_id": ["light.office"]},
        DenyReason.DENIED_BY_RULE,
        "not-grown-up-things",
    ),
    (
        teen,
        "get_state",
        {"entity_id": ["light.office"]},
        DenyReason.DENIED_BY_RULE,
        "not-grown-up-things",
    ),
    # Exposure to Assist is an upper bound for everyone but admins.
    (parent, "get_state", {"entity_id": ["sensor.office_secret"]}, DenyReason.NOT_EXPOSED, None),
    # MQTT principals get what their entry grants, anonymous gets nothing.
    (kitchen_panel, "turn_on", {"entity_id": ["light.hall"]}, DenyReason.NOT_ALLOWED, None),
    (anonymous, "get_state", {"entity_id": ["light.kitchen"]}, DenyReason.NOT_ALLOWED, None),
    (anonymous, "create_notification", {"message": "hi"}, DenyReason.NOT_ALLOWED, None),
    (guest, "create_notification", {"message": "hi"}, DenyReason.NOT_ALLOWED, None),
]


@pytest.mark.parametrize(("principal", "tool", "args", "reason", "rule"), DENIED)
def test_denied(
    principal: Principal, tool: str, args: dict[str, Any], reason: DenyReason, rule: str | None
) -> None:
    decision = decide(principal, tool, args)
    assert isinstance(decision, Deny), decision
    assert decision.reason is reason
    assert decision.rule == rule


def test_no_media_for_the_child_after_21() -> None:
    args = {"entity_id": ["media_player.kids_room"], "action": "play"}
    assert isinstance(decide(child, "control_media", args, NOON), Allow)
    decision = decide(child, "control_media", args, NIGHT)
    assert isinstance(decision, Deny)
    assert decision.rule == "no-media-at-night"


CONFIRMED = [
    # An admin's unlock asks for confirmation.
    (admin, "control_lock", {"entity_id": ["lock.front_door"], "action": "unlock"}, "confirm_lock"),
    (admin, "control_lock", {"entity_id": ["lock.front_door"], "action": "lock"}, "confirm_lock"),
    (
        admin,
        "control_cover",
        {"entity_id": ["cover.garage_door"], "action": "open"},
        "confirm_entrance_cover",
    ),
    (
        admin,
        "control_cover",
        {"area_id": ["hall"], "action": "open", "device_class": ["gate"]},
        "confirm_entrance_cover",
    ),
    (
        parent,
        "send_message",
        {"recipient": "notify.plumber", "message": "Come at 3"},
        "confirm_message_outside_household",
    ),
    (
        admin,
        "delete_event",
        {"calendar_id": "calendar.family", "uid": "abc"},
        "confirm_calendar_delete",
    ),
]


@pytest.mark.parametrize(("principal", "tool", "args", "question"), CONFIRMED)
def test_confirmation_required(
    principal: Principal, tool: str, args: dict[str, Any], question: str
) -> None:
    decision = decide(principal, tool, args)
    assert isinstance(decision, Confirm), decision
    assert decision.question == question


def test_area_expansion_keeps_garage_doors_and_gates_out() -> None:
    call = parse_tool_call("control_cover", {"floor_id": ["ground"], "action": "open"})
    resolved = resolve_call(HOME, call, MappingContext(NOON))
    assert resolved.entity_ids == ("cover.living_room_blinds",)
    assert isinstance(authorize(POLICY, admin, resolved, NOON), Allow)


def test_area_expansion_only_reaches_what_the_principal_may_use() -> None:
    call = parse_tool_call("turn_on", {"area_id": ["office", "kids_room"]})
    resolved = resolve_call(
        HOME, call, MappingContext(NOON), usable_filter(POLICY, teen, call, NOON)
    )
    assert "light.office" not in resolved.entity_ids  # labelled grown_ups: denied to the teen
    assert "light.kids_room" in resolved.entity_ids
    with pytest.raises(ResolutionError) as err:
        resolve_call(HOME, call, MappingContext(NOON), usable_filter(POLICY, guest, call, NOON))
    assert err.value.code == "no_matching_entities"


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("turn_on", {"entity_id": ["light.nowhere"]}, "unknown_entity"),
        ("turn_on", {"area_id": ["attic"]}, "unknown_area"),
        ("turn_on", {"floor_id": ["cellar"]}, "unknown_floor"),
        ("turn_on", {"label_id": ["nope"]}, "unknown_label"),
        ("set_light", {"entity_id": ["switch.tv_plug"], "brightness_pct": 5}, "wrong_domain"),
        (
            "set_climate",
            {"entity_id": ["climate.guest_room"], "temperature_step": 1},
            "no_current_value",
        ),
    ],
)
def test_resolution_errors_have_codes(tool: str, args: dict[str, Any], code: str) -> None:
    with pytest.raises(ResolutionError) as err:
        resolve_call(HOME, parse_tool_call(tool, args), MappingContext(NOON))
    assert err.value.code == code
