"""The tool catalogue: fresh exports, strict validation with codes, a mapping per tool."""

from __future__ import annotations

from datetime import UTC, datetime
import json
from typing import Any

import pytest

from tool_schemas.actions import CalendarCommand, ReadStates, ServiceCall, TargetState
from tool_schemas.base import Access, MappingContext
from tool_schemas.catalog import (
    ALWAYS_AVAILABLE,
    TOOLS,
    ToolCallError,
    catalog_version,
    parse_tool_call,
    to_ha_actions,
    tool_json_schema,
)
from tool_schemas.export import JSON_DIR, stale_files

NOW = MappingContext(datetime(2026, 11, 30, 9, 30, tzinfo=UTC))


def test_every_tool_export_is_fresh() -> None:
    assert stale_files() == [], "run: script/run python -m tool_schemas.export"
    index = json.loads((JSON_DIR / "_catalog.json").read_text())
    assert index["version"] == catalog_version()
    assert set(index["tools"]) == set(TOOLS)


def test_schemas_are_flat_and_closed() -> None:
    for name, tool in TOOLS.items():
        schema = tool_json_schema(tool)
        text = json.dumps(schema)
        assert "$ref" not in text and "anyOf" not in text, name
        assert schema["parameters"]["additionalProperties"] is False, name
        assert schema["description"], name
        for field, spec in schema["parameters"]["properties"].items():
            assert spec.get("description"), f"{name}.{field} has no description"


def test_conversation_moves_are_always_in_the_catalogue() -> None:
    assert {"ask_user", "no_tool_fits"} == ALWAYS_AVAILABLE
    assert all(TOOLS[name].access is Access.NONE for name in ALWAYS_AVAILABLE)


@pytest.mark.parametrize(
    ("name", "arguments", "code", "fragment"),
    [
        ("fly", {}, "unknown_tool", "no tool named 'fly'"),
        ("turn_on", {}, "invalid_arguments", "name at least one target"),
        ("turn_on", {"entity_id": ["Light.Kitchen"]}, "invalid_arguments", "entity_id.0"),
        (
            "turn_on",
            {"entity_id": ["light.kitchen"], "colour": "red"},
            "invalid_arguments",
            "colour",
        ),
        ("set_light", {"entity_id": ["light.a"]}, "invalid_arguments", "at least one setting"),
        (
            "set_light",
            {"entity_id": ["light.a"], "brightness_pct": 101},
            "invalid_arguments",
            "brightness_pct",
        ),
        (
            "set_light",
            {"entity_id": ["light.a"], "rgb_color": [1, 2]},
            "invalid_arguments",
            "rgb_color",
        ),
        (
            "set_light",
            {"entity_id": ["light.a"], "color_name": "red", "color_temp_kelvin": 3000},
            "invalid_arguments",
            "one of",
        ),
        (
            "set_climate",
            {"entity_id": ["climate.a"], "temperature": 1e9},
            "invalid_arguments",
            "temperature",
        ),
        (
            "control_cover",
            {"entity_id": ["cover.a"], "action": "set_position"},
            "invalid_arguments",
            "position",
        ),
        (
            "control_lock",
            {"entity_id": ["lock.a"], "action": "smash"},
            "invalid_arguments",
            "action",
        ),
        (
            "create_event",
            {"calendar_id": "calendar.a", "summary": "x", "start": "2026-12-01T10:00"},
            "invalid_arguments",
            "start and minutes",
        ),
        (
            "create_event",
            {
                "calendar_id": "calendar.a",
                "summary": "x",
                "start": "2026-12-01T10:00",
                "minutes": 2,
            },
            "invalid_arguments",
            "minutes",
        ),
        (
            "send_message",
            {"recipient": "light.kitchen", "message": "hi"},
            "invalid_arguments",
            "recipient",
        ),
        (
            "send_message",
            {"recipient": "notify.a", "message": "x" * 1001},
            "invalid_arguments",
            "message",
        ),
        ("list_events", {}, "invalid_arguments", "period"),
        (
            "control_timer",
            {"entity_id": ["timer.a"], "action": "pause", "duration": "00:05:00"},
            "invalid_arguments",
            "duration",
        ),
    ],
)
def test_invalid_calls_are_refused_with_a_code(
    name: str, arguments: dict[str, Any], code: str, fragment: str
) -> None:
    with pytest.raises(ToolCallError) as err:
        parse_tool_call(name, arguments)
    assert err.value.code == code
    assert fragment in err.value.message


def test_relative_changes_are_computed_per_entity_and_clamped() -> None:
    call = parse_tool_call(
        "set_light", {"entity_id": ["light.a", "light.b"], "brightness_step_pct": -30}
    )
    targets = [
        TargetState("light.a", "on", {"brightness": 255}),
        TargetState("light.b", "on", {"brightness": 51}),
    ]
    actions = to_ha_actions(call, targets, NOW)
    assert [a.data["brightness_pct"] for a in actions if isinstance(a, ServiceCall)] == [70, 0]

    # A light that is off goes down from full and up from nothing: dimmer means on, dimmed.
    off = [TargetState("light.a", "off", {}), TargetState("light.b", "off", {"brightness": None})]
    assert [a.data["brightness_pct"] for a in to_ha_actions(call, off, NOW)] == [70, 70]  # type: ignore[union-attr]
    brighter = parse_tool_call("set_light", {"entity_id": ["light.a"], "brightness_step_pct": 20})
    assert [a.data["brightness_pct"] for a in to_ha_actions(brighter, off[:1], NOW)] == [20]  # type: ignore[union-attr]

    warmer = parse_tool_call("set_climate", {"entity_id": ["climate.a"], "temperature_step": 1})
    (action,) = to_ha_actions(
        warmer, [TargetState("climate.a", "heat", {"temperature": 34.5})], NOW
    )
    assert isinstance(action, ServiceCall)
    assert action.data == {"temperature": 35}


def test_louder_on_a_muted_player_unmutes_it_too() -> None:
    # "I can't hear the kids speaker": a louder player that stays muted is still silent.
    louder = parse_tool_call("set_media", {"entity_id": ["media_player.a"], "volume_step_pct": 10})
    targets = [
        TargetState("media_player.a", "playing", {"volume_level": 0.3, "is_volume_muted": True})
    ]
    calls = [
        (a.service, a.data)
        for a in to_ha_actions(louder, targets, NOW)
        if isinstance(a, ServiceCall)
    ]
    assert ("volume_set", {"volume_level": 0.4}) in calls
    assert ("volume_mute", {"is_volume_muted": False}) in calls
    unmuted = [TargetState("media_player.a", "playing", {"volume_level": 0.3})]
    assert [a.service for a in to_ha_actions(louder, unmuted, NOW)] == ["volume_set"]  # type: ignore[union-attr]
    quieter = parse_tool_call(
        "set_media", {"entity_id": ["media_player.a"], "volume_step_pct": -10}
    )
    assert [a.service for a in to_ha_actions(quieter, targets, NOW)] == ["volume_set"]  # type: ignore[union-attr]


def test_legacy_notify_services_and_notify_entities_map_differently() -> None:
    call = parse_tool_call(
        "send_message", {"recipient": "notify.mobile_app_anna", "message": "Dinner"}
    )
    (legacy,) = to_ha_actions(call, [TargetState("notify.mobile_app_anna", is_service=True)], NOW)
    assert isinstance(legacy, ServiceCall)
    assert (legacy.domain, legacy.service, legacy.entity_ids) == ("notify", "mobile_app_anna", ())
    assert legacy.idempotent is False
    (entity,) = to_ha_actions(call, [TargetState("notify.mobile_app_anna")], NOW)
    assert isinstance(entity, ServiceCall)
    assert (entity.service, entity.entity_ids) == ("send_message", ("notify.mobile_app_anna",))


def test_calendar_periods_use_the_home_clock() -> None:
    call = parse_tool_call("list_events", {"period": "tomorrow"})
    (action,) = to_ha_actions(call, [TargetState("calendar.family")], NOW)
    assert isinstance(action, ServiceCall) and action.return_response
    assert action.data == {
        "start_date_time": "2026-12-01T00:00:00+00:00",
        "end_date_time": "2026-12-02T00:00:00+00:00",
    }
    delete = parse_tool_call("delete_event", {"calendar_id": "calendar.family", "uid": "u1"})
    (command,) = to_ha_actions(delete, [TargetState("calendar.family")], NOW)
    assert isinstance(command, CalendarCommand)
    assert command.as_message() == {
        "type": "calendar/event/delete",
        "entity_id": "calendar.family",
        "uid": "u1",
    }


def test_queries_read_and_never_write() -> None:
    call = parse_tool_call("get_state", {"area_id": ["kitchen"], "domain": ["light"]})
    (action,) = to_ha_actions(call, [TargetState("light.b"), TargetState("light.a")], NOW)
    assert action == ReadStates(("light.a", "light.b"))


def test_targets_outside_the_tool_domains_are_a_bug_not_silently_dropped() -> None:
    call = parse_tool_call("turn_on", {"entity_id": ["lock.front_door"]})
    with pytest.raises(ValueError, match=r"cannot act on lock\.front_door"):
        to_ha_actions(call, [TargetState("lock.front_door")], NOW)
