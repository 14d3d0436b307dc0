"""A tool call's arguments as a record may keep them: every free-text value replaced by its
length. Which fields are free text is read from the tool schemas, so the audit log and the
events topic (both below nothing but these schemas) redact the same way."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from tool_schemas.catalog import TOOLS, tool_json_schema


def redact(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments with every free-text value replaced by its length. Ids, enums, times and
    numbers stay (they say what was done, not what was written)."""
    structured = _structured_fields(tool)
    return {
        key: value if key in structured else _length_of(value) for key, value in arguments.items()
    }


def _length_of(value: Any) -> Any:
    if isinstance(value, str):
        return f"<{len(value)} chars>"
    if isinstance(value, list | tuple):
        return [_length_of(v) for v in value]
    if isinstance(value, dict):
        return f"<{len(value)} fields>"
    return value  # numbers, booleans, null: no text in them


@cache
def _structured_fields(tool: str) -> frozenset[str]:
    """Fields of `tool` whose values are constrained (pattern, enum, format) or not text."""
    if tool not in TOOLS:
        return frozenset()  # an unknown tool's arguments are all treated as text
    properties = tool_json_schema(TOOLS[tool])["parameters"].get("properties", {})
    return frozenset(key for key, spec in properties.items() if not _is_free_text(spec))


def _is_free_text(spec: Mapping[str, Any]) -> bool:
    if "anyOf" in spec:
        return any(_is_free_text(option) for option in spec["anyOf"])
    if spec.get("type") == "array":
        items = spec.get("items")
        return isinstance(items, Mapping) and _is_free_text(items)
    if spec.get("type") != "string":
        return spec.get("type") is None  # untyped: treat as text
    return not any(key in spec for key in ("pattern", "enum", "const", "format"))
