"""Fuzzing the model-output parser, the way the agent uses it: any text, real calls cut off
anywhere, calls with broken JSON or XML and huge numbers, in both tool formats. Output is
split into calls and text without raising; every call then validates or is refused with a
code, exactly as the agent does before anything can run."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, strategies as st

from botpsy_agent.llm.model_info import ToolFormat
from botpsy_agent.llm.parse import ModelOutput, parse_output
from tests.fuzz.strategies import BOUNDED, HUGE_NUMBERS, confusable, json_values, truncations
from tool_schemas.catalog import TOOLS, ToolCallError, parse_tool_call, tool_json_schema

SCHEMAS = {name: tool_json_schema(tool) for name, tool in TOOLS.items()}
FORMATS = st.sampled_from(list(ToolFormat))
XML_CALL = (
    '<tool_call>\n<function=set_light>\n<parameter=entity_id>\n["light.kitchen_lights"]\n'
    "</parameter>\n<parameter=brightness_pct>\n30\n</parameter>\n</function>\n</tool_call>"
)
JSON_CALL = (
    '<tool_call>\n{"name": "set_light", "arguments": {"entity_id": ["light.kitchen_lights"], '
    '"brightness_pct": 30}}\n</tool_call>'
)


def read(text: str, tool_format: ToolFormat) -> ModelOutput:
    output = parse_output(text, tool_format, SCHEMAS)
    assert all(isinstance(problem, str) and problem for problem in output.problems)
    assert "<tool_call>" not in output.text
    for call in output.calls:
        try:
            parse_tool_call(call.name, call.arguments)
        except ToolCallError as err:
            assert err.code in {"unknown_tool", "invalid_arguments"}
    return output


def test_the_real_calls_read_back() -> None:
    for text, tool_format in ((XML_CALL, ToolFormat.QWEN_XML), (JSON_CALL, ToolFormat.HERMES_JSON)):
        (call,) = read(text, tool_format).calls
        assert parse_tool_call(call.name, call.arguments).name == "set_light"


@BOUNDED
@given(st.text(max_size=400), FORMATS)
def test_any_text(text: str, tool_format: ToolFormat) -> None:
    read(text, tool_format)


@BOUNDED
@given(st.one_of(truncations(XML_CALL), truncations(JSON_CALL)), FORMATS)
def test_a_call_cut_off_anywhere(text: str, tool_format: ToolFormat) -> None:
    output = read(text, tool_format)
    if text not in {XML_CALL, JSON_CALL}:
        assert output.calls == ()  # half a call is never a call


@BOUNDED
@given(st.sampled_from(sorted(SCHEMAS)), json_values(10), FORMATS)
def test_any_arguments_in_either_format(name: str, arguments: Any, tool_format: ToolFormat) -> None:
    if tool_format is ToolFormat.QWEN_XML and isinstance(arguments, dict):
        body = "".join(
            f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v)}\n</parameter>\n"
            for k, v in arguments.items()
            if k.isidentifier()
        )
        text = f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"
    else:
        text = f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"
    read(text, tool_format)


@BOUNDED
@given(HUGE_NUMBERS, confusable("light.kitchen_lights"))
def test_huge_numbers_and_look_alike_ids(number: float, entity_id: str) -> None:
    xml = XML_CALL.replace("30", json.dumps(number)).replace("light.kitchen_lights", entity_id)
    hermes = JSON_CALL.replace("30", json.dumps(number)).replace("light.kitchen_lights", entity_id)
    for text, tool_format in ((xml, ToolFormat.QWEN_XML), (hermes, ToolFormat.HERMES_JSON)):
        for call in read(text, tool_format).calls:
            if entity_id != "light.kitchen_lights":
                try:
                    parse_tool_call(call.name, call.arguments)
                except ToolCallError:
                    continue
                raise AssertionError(f"a look-alike id validated: {entity_id!r}")


@BOUNDED
@given(st.lists(st.sampled_from([XML_CALL, JSON_CALL, "<think>", "</think>", "<tool_call>", "hi"])))
def test_tags_in_any_order(parts: list[str]) -> None:
    for tool_format in ToolFormat:
        read("".join(parts), tool_format)
