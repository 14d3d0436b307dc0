"""Reading the model's output: calls written without their tags are still calls."""

from __future__ import annotations

import pytest

from botpsy_agent.llm.model_info import ToolFormat
from botpsy_agent.llm.parse import RawCall, parse_output

TURN_OFF = RawCall("turn_off", {"entity_id": ["light.kitchen"]})


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "turn_off", "arguments": {"entity_id": ["light.kitchen"]}}'
        "\n</tool_call>",
        # What the real Qwen2.5-Coder models wrote when text was allowed (issue 13):
        '{"name": "turn_off", "arguments": {"entity_id": ["light.kitchen"]}}',
        '{{"name": "turn_off", "arguments": {"entity_id": ["light.kitchen"]}}}',
        '```json\n{"name": "turn_off", "arguments": {"entity_id": ["light.kitchen"]}}\n```',
        'Sure! {"name": "turn_off", "arguments": "{\\"entity_id\\": [\\"light.kitchen\\"]}"}',
    ],
)
def test_a_hermes_call_is_read_with_or_without_its_tags(text: str) -> None:
    output = parse_output(text, ToolFormat.HERMES_JSON)
    assert output.calls == (TURN_OFF,)
    assert output.text == ""


def test_a_bare_qwen_xml_call_is_read() -> None:
    text = (
        '<function=turn_off>\n<parameter=entity_id>\n["light.kitchen"]\n</parameter>\n</function>'
    )
    schemas = {"turn_off": {"parameters": {"properties": {"entity_id": {"type": "array"}}}}}
    output = parse_output(text, ToolFormat.QWEN_XML, schemas)
    assert output.calls == (TURN_OFF,)


def test_plain_text_stays_text() -> None:
    output = parse_output("The kitchen light is on.", ToolFormat.HERMES_JSON)
    assert output.calls == ()
    assert output.text == "The kitchen light is on."
