"""Read the model's output: tool calls in its own format, or a plain-text answer.

The output is untrusted text. Parsing only recovers names and argument values; validation
(pydantic), resolution and `authorize` decide whether anything happens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
import json
import re
from typing import Any

from botpsy_agent.llm.model_info import ToolFormat

CALL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
XML_FUNCTION = re.compile(r"^<function=([A-Za-z0-9_\-]+)>\n?(.*?)</function>$", re.DOTALL)
XML_PARAMETER = re.compile(r"<parameter=([A-Za-z0-9_\-]+)>\n?(.*?)\n?</parameter>", re.DOTALL)
THINK_BLOCK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)
BARE_JSON_CALL = re.compile(r'\{\s*"name"\s*:')
BARE_XML_FUNCTION = re.compile(r"(<function=[A-Za-z0-9_\-]+>.*?</function>)", re.DOTALL)


@dataclass(frozen=True)
class RawCall:
    """A tool call as the model wrote it: not yet validated."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ModelOutput:
    calls: tuple[RawCall, ...] = ()
    text: str = ""
    problems: tuple[str, ...] = field(default_factory=tuple)
    """Blocks that looked like calls but could not be read (reported, never guessed)."""


def parse_output(
    text: str, tool_format: ToolFormat, schemas: Mapping[str, Mapping[str, Any]] | None = None
) -> ModelOutput:
    """Split output into calls and answer text. `schemas` (name -> JSON schema) tells which
    XML parameter values are strings and which are JSON."""
    text = THINK_BLOCK.sub("", text)
    calls: list[RawCall] = []
    problems: list[str] = []
    for block in CALL_BLOCK.findall(text):
        try:
            if tool_format is ToolFormat.QWEN_XML:
                calls.append(_xml_call(block, schemas or {}))
            else:
                calls.append(_json_call(block))
        except (ValueError, TypeError) as err:
            problems.append(str(err))
    answer = CALL_BLOCK.sub("", text).strip()
    if "<tool_call>" in answer:
        problems.append("an unfinished <tool_call> block")
        answer = answer.split("<tool_call>", 1)[0].strip()
    if not calls and not problems and (bare := _bare_calls(answer, tool_format, schemas)):
        # Small models often write the call without its tags (or inside a ```json fence,
        # or with doubled braces): it is still a call, never an answer to speak.
        return ModelOutput(bare, "", ())
    return ModelOutput(tuple(calls), answer, tuple(problems))


def _bare_calls(
    text: str, tool_format: ToolFormat, schemas: Mapping[str, Mapping[str, Any]] | None
) -> tuple[RawCall, ...]:
    """Calls written without `<tool_call>` tags: JSON objects with a name, or XML functions."""
    calls: list[RawCall] = []
    for block in BARE_XML_FUNCTION.findall(text):
        try:
            calls.append(_xml_call(block, schemas or {}))
        except ValueError, TypeError:
            continue
    decoder = json.JSONDecoder()
    for match in BARE_JSON_CALL.finditer(text):
        try:
            data, _end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        try:
            calls.append(_json_object_call(data))
        except ValueError, TypeError:
            continue
    return tuple(calls)


def _xml_call(block: str, schemas: Mapping[str, Mapping[str, Any]]) -> RawCall:
    match = XML_FUNCTION.match(block.strip())
    if match is None:
        raise ValueError(f"not a function block: {block[:80]!r}")
    name, body = match.group(1), match.group(2)
    properties = schemas.get(name, {}).get("parameters", {}).get("properties", {})
    arguments: dict[str, Any] = {}
    for key, raw in XML_PARAMETER.findall(body):
        if key in arguments:
            raise ValueError(f"{name}: parameter {key} given twice")
        arguments[key] = _xml_value(raw, properties.get(key, {}))
    return RawCall(name, arguments)


def _xml_value(raw: str, spec: Mapping[str, Any]) -> Any:
    """Strings stay raw text; everything else is JSON (Python-style booleans accepted)."""
    if spec.get("type") == "string":
        return raw
    text = raw.strip()
    if text in {"True", "False"}:
        return text == "True"
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return raw  # validation will say what is wrong with it


def _json_call(block: str) -> RawCall:
    try:
        data = json.loads(block)
    except json.JSONDecodeError as err:
        raise ValueError(f"tool call is not JSON: {err.msg}") from None
    return _json_object_call(data)


def _json_object_call(data: Any) -> RawCall:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise TypeError("tool call JSON has no name")
    arguments = data.get("arguments", {})
    if isinstance(arguments, str):  # some models double-encode
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            raise ValueError("tool call arguments are not JSON") from None
    if not isinstance(arguments, dict):
        raise TypeError("tool call arguments are not an object")
    return RawCall(data["name"], arguments)
