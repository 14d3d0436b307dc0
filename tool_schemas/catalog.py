"""The tool catalogue: every tool by name, validation of raw calls, JSON Schema export.

Nothing else in the system invents tool shapes: the model's grammar, the fast path, the MQTT
`tools` topic and the policy all read them from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
import hashlib
import json
from typing import Any

from pydantic import ValidationError

from tool_schemas.actions import HaAction, TargetState
from tool_schemas.base import Access, MappingContext, Tool
from tool_schemas.calendar import CALENDAR_TOOLS
from tool_schemas.conversation import CONVERSATION_TOOLS
from tool_schemas.devices import DEVICE_TOOLS
from tool_schemas.messaging import MESSAGING_TOOLS
from tool_schemas.queries import QUERY_TOOLS

TOOLS: Mapping[str, type[Tool]] = {
    tool.name: tool
    for tool in (
        *DEVICE_TOOLS,
        *QUERY_TOOLS,
        *CALENDAR_TOOLS,
        *MESSAGING_TOOLS,
        *CONVERSATION_TOOLS,
    )
}
ALWAYS_AVAILABLE = frozenset(tool.name for tool in CONVERSATION_TOOLS)
"""The model must always be able to ask a question or say that no tool fits."""


class ToolCallError(ValueError):
    """A raw call (from the model, the fast path or MQTT) that is not a valid tool call."""

    def __init__(
        self, code: str, message: str, details: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []


def parse_tool_call(name: str, arguments: Mapping[str, Any]) -> Tool:
    """Validate a raw call into its typed tool, or raise `ToolCallError` with a code."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ToolCallError("unknown_tool", f"there is no tool named {name!r}")
    try:
        return tool.model_validate(dict(arguments))
    except ValidationError as err:
        details = [
            {"field": ".".join(str(p) for p in e["loc"]) or None, "problem": e["msg"]}
            for e in err.errors(include_url=False, include_input=False)
        ]
        summary = "; ".join(
            f"{d['field']}: {d['problem']}" if d["field"] else str(d["problem"]) for d in details
        )
        raise ToolCallError("invalid_arguments", f"{name}: {summary}", details) from None


def to_ha_actions(
    call: Tool, targets: Sequence[TargetState], context: MappingContext
) -> tuple[HaAction, ...]:
    """The HA actions that carry out `call` on its resolved targets.

    Targets outside the tool's domains are a resolution bug, never silently dropped.
    """
    if call.domains and "*" not in call.domains:
        stray = sorted(t.entity_id for t in targets if t.domain not in call.domains)
        if stray:
            raise ValueError(f"{call.name} cannot act on {', '.join(stray)}")
    if call.target_fields() is not None and not targets and call.access is not Access.NONE:
        raise ValueError(f"{call.name} resolved to no targets")
    return call.to_actions(targets, context)


def tool_json_schema(tool: type[Tool]) -> dict[str, Any]:
    """The tool as the model and MQTT clients see it: name, description, parameters.

    Optional fields are listed without their `null` branch: leaving a field out means None.
    """
    schema = tool.model_json_schema()
    parameters = _simplify(_inline_refs(schema, schema.pop("$defs", {})))
    parameters.pop("title", None)
    parameters.pop("description", None)
    exported: dict[str, Any] = {
        "name": tool.name,
        "description": tool.purpose(),
        "access": tool.access.value,
        "domains": sorted(tool.domains),
        "parameters": parameters,
    }
    if tool.shapes:
        exported["x-shapes"] = list(tool.shapes)
    return exported


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    """Replace `$ref`s by their definitions: small models and grammars read flat schemas."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = _inline_refs(defs[ref.removeprefix("#/$defs/")], defs)
            extra = {k: v for k, v in node.items() if k != "$ref"}
            target = {k: v for k, v in target.items() if k != "description"} if extra else target
            return {**target, **_inline_refs(extra, defs)}
        return {k: _inline_refs(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    return node


def _simplify(node: Any) -> Any:
    if isinstance(node, dict):
        any_of = node.get("anyOf")
        if isinstance(any_of, list) and {"type": "null"} in any_of and len(any_of) == 2:
            (kept,) = [branch for branch in any_of if branch != {"type": "null"}]
            merged = {k: v for k, v in node.items() if k not in {"anyOf", "default"}}
            return _simplify({**kept, **merged})
        return {k: _simplify(v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_simplify(item) for item in node]
    return node


def catalog() -> list[dict[str, Any]]:
    return [tool_json_schema(tool) for tool in TOOLS.values()]


@cache  # the catalogue is fixed for the life of the process
def catalog_version() -> str:
    """A short hash of the whole catalogue: changes whenever any tool's contract changes."""
    text = json.dumps(catalog(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]
