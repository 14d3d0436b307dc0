"""Reading and editing the parts of a tool's JSON schema that narrowing works on."""

from __future__ import annotations

from typing import Any

from botpsy_agent.agent.offer import SINGLE_ENTITY_FIELDS

ENTITY_FIELDS = ("entity_id", *SINGLE_ENTITY_FIELDS)
GROUP_FIELDS = ("area_id", "floor_id", "device_id", "label_id", "domain")
"""Target fields that name groups (and `domain`), never narrowed to named entities."""


def properties(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema's argument specs (the same dict: changes show in the schema)."""
    found: dict[str, Any] = schema["parameters"]["properties"]
    return found


def enum_of(spec: dict[str, Any] | None) -> list[Any] | None:
    """A field's allowed values (an array's: its items'), None when any value goes."""
    if spec is None:
        return None
    target = spec["items"] if spec.get("type") == "array" else spec
    enum = target.get("enum")
    return enum if isinstance(enum, list) else None


def required(schema: dict[str, Any]) -> frozenset[str]:
    return frozenset(schema["parameters"].get("required", ()))
