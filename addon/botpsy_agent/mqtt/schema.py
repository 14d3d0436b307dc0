"""JSON Schemas of the MQTT request and response, generated from the code that reads and
writes them, and exported beside the tool schemas.

Usage: python -m botpsy_agent.mqtt.schema [--check]
A test runs the check: a stale export fails it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import TypeAdapter

from botpsy_agent.agent.protocol import AgentResponse
from botpsy_agent.contract import ErrorCode
from botpsy_agent.mqtt.settings import ApiSettings
from botpsy_agent.mqtt.wire import MAX_TS, request_fields
from tool_schemas.export import differing, export_command

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_JSON_TYPES = {str: "string", int: "integer", bool: "boolean"}


def request_schema(settings: ApiSettings | None = None) -> dict[str, Any]:
    """The request object, from the field table the parser checks against."""
    fields = request_fields(settings or ApiSettings())
    properties: dict[str, Any] = {}
    for spec in fields:
        prop: dict[str, Any] = {"type": _JSON_TYPES[spec.kind], "description": spec.description}
        if spec.kind is str:
            prop["minLength"] = 1
        if spec.max_length is not None:
            prop["maxLength"] = spec.max_length
        if spec.pattern is not None:
            prop["pattern"] = f"^(?:{spec.pattern})$"
        if spec.kind is int:
            prop |= {"minimum": 0, "maximum": MAX_TS - 1}
        properties[spec.name] = prop
    return {
        "$schema": DRAFT,
        "title": "BotPsy MQTT request",
        "description": "Published (QoS 1, never retained) on botpsy/<instance>/request or "
        "botpsy/<instance>/request/<principal>. See docs/mqtt-api.md.",
        "type": "object",
        "additionalProperties": False,
        "required": [spec.name for spec in fields if spec.required],
        "properties": properties,
        "dependentRequired": {"user_id": ["ts", "sig"], "ts": ["user_id"], "sig": ["user_id"]},
    }


def response_schema() -> dict[str, Any]:
    """The response object: the agent's `AgentResponse` as its `to_json` writes it."""
    schema = TypeAdapter(AgentResponse).json_schema(mode="serialization")
    schema["properties"]["id"] = {
        "type": ["string", "null"],
        "description": "The request's id; null when the payload had no usable id.",
    }
    schema["properties"]["sigs"] = {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": "The app's signatures: secret fingerprint to HMAC-SHA256 "
        "(docs/mqtt-api.md, Signing).",
    }
    codes = ", ".join(code.value for code in ErrorCode)
    return {
        "$schema": DRAFT,
        "title": "BotPsy MQTT response",
        "description": "Published (QoS 1, never retained) on the request's reply_to, or on "
        "botpsy/<instance>/response[/<principal>]. Error codes of the front door: "
        f"{codes}; actions may carry other codes from Home Assistant. See docs/mqtt-api.md.",
        **{key: value for key, value in schema.items() if key not in {"title", "description"}},
    }


def rendered() -> dict[str, str]:
    """File name -> content of each exported schema."""
    return {
        name: json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        for name, schema in (
            ("mqtt_request.json", request_schema()),
            ("mqtt_response.json", response_schema()),
        )
    }


def stale_files() -> list[str]:
    return differing(rendered())


if __name__ == "__main__":
    sys.exit(export_command(None, __doc__, rendered, stale_files))
