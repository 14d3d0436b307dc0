"""Fuzzing the tool argument validators: every tool with arguments of any shape, values far
out of range, look-alike entity ids, and names of tools that do not exist. Each call becomes
a typed tool or a `ToolCallError` with its code; a typed tool maps to HA actions."""

from __future__ import annotations

from datetime import UTC, datetime
import re
from typing import Any

from hypothesis import given, strategies as st

from tests.fuzz.strategies import BOUNDED, HUGE_NUMBERS, confusable, json_values
from tool_schemas.base import ENTITY_ID_PATTERN, MappingContext
from tool_schemas.catalog import TOOLS, ToolCallError, parse_tool_call, tool_json_schema

CODES = {"unknown_tool", "invalid_arguments"}
NAMES = sorted(TOOLS)
PROPERTIES = {name: tool_json_schema(TOOLS[name])["parameters"]["properties"] for name in NAMES}


def check(name: str, arguments: Any) -> bool:
    """True when the call validated."""
    try:
        call = parse_tool_call(name, arguments)
    except ToolCallError as err:
        assert err.code in CODES
        assert err.message.strip()
        return False
    dumped = call.model_dump(exclude_none=True, mode="json")
    assert parse_tool_call(name, dumped) == call  # what validated validates again
    for ids in (v for k, v in dumped.items() if k == "entity_id"):
        assert all(re.fullmatch(ENTITY_ID_PATTERN, i) for i in ids)
    return True


@st.composite
def near_valid(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A real tool, its own argument names, values of any kind."""
    name = draw(st.sampled_from(NAMES))
    keys = list(PROPERTIES[name]) or ["x"]
    arguments = draw(
        st.dictionaries(
            st.sampled_from(keys),
            st.one_of(json_values(4), HUGE_NUMBERS, st.lists(json_values(2), max_size=3)),
            max_size=len(keys),
        )
    )
    return name, arguments


@BOUNDED
@given(near_valid())
def test_real_tools_with_any_values(call: tuple[str, dict[str, Any]]) -> None:
    check(*call)


@BOUNDED
@given(st.one_of(st.text(max_size=30), st.sampled_from(NAMES)), json_values())
def test_any_name_any_arguments(name: str, arguments: Any) -> None:
    if not isinstance(arguments, dict):
        arguments = {"value": arguments}
    check(name, arguments)


@BOUNDED
@given(
    st.sampled_from(["turn_on", "turn_off", "control_lock", "get_state"]),
    st.lists(confusable("light.kitchen_lights"), min_size=1, max_size=3),
)
def test_look_alike_entity_ids_are_refused(name: str, ids: list[str]) -> None:
    arguments: dict[str, Any] = {"entity_id": ids}
    if name == "control_lock":
        arguments["action"] = "unlock"
    assert not check(name, arguments)


@BOUNDED
@given(HUGE_NUMBERS, st.sampled_from(["brightness_pct", "temperature", "position", "volume_level"]))
def test_numbers_beyond_any_range(number: float, field: str) -> None:
    tool = {"brightness_pct": "set_light", "temperature": "set_climate"}.get(field, "set_light")
    accepted = check(tool, {"entity_id": ["light.kitchen_lights"], field: number})
    if accepted:
        call = parse_tool_call(tool, {"entity_id": ["light.kitchen_lights"], field: number})
        call.to_actions((), MappingContext(datetime(2026, 11, 30, tzinfo=UTC)))
