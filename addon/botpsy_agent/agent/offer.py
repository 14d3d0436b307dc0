"""What the model is offered for one principal: tool schemas narrowed to its scope.

The grammar is built from these, so a tool or an id outside the principal's scope cannot be
generated at all (the second wall; `authorize` is the first and decides every call anyway).
"""

from __future__ import annotations

import copy
from typing import Any

from botpsy_agent.home import Home, render_listing
from botpsy_agent.llm.planning import Offer
from botpsy_agent.policy import Scope
from tool_schemas.base import Access
from tool_schemas.catalog import TOOLS, tool_json_schema

# Fields that hold ids of a single domain's entities (not through the generic target), and
# a question's candidates (any entity the principal is offered).
SINGLE_ENTITY_FIELDS = ("calendar_id", "list_id", "recipient", "candidates")


def build_offer(scope: Scope, home: Home) -> Offer:
    """The principal's tools, narrowed to its entities that are exposed to Assist.

    Exposure bounds the prompt for everyone, admins included: the prompt grows with every
    entity listed (about 20 tokens each), and HA's own Assist exposes only what the user
    chose. An admin may still reach a hidden entity by name through the fast path.
    """

    def listed(ids: frozenset[str]) -> list[str]:
        return sorted(e for e in ids if e in home.entities and home.entities[e].exposed)

    schemas = []
    for name, tool in TOOLS.items():
        if name not in scope.tools:
            continue
        schema = copy.deepcopy(tool_json_schema(tool))
        # A conversation move touches nothing; its candidates may be anything offered.
        ids = scope.all_entities if tool.access is Access.NONE else scope.entities_for(name)
        if _narrow(schema, listed(ids), home):
            schemas.append(schema)
    entity_ids = frozenset(listed(scope.all_entities))
    return Offer(tuple(schemas), render_listing(home, entity_ids), entity_ids)


def exposed_ids(home: Home) -> frozenset[str]:
    """Every entity exposed to Assist: the most any principal's listing can hold."""
    return frozenset(e for e, entity in home.entities.items() if entity.exposed)


def whole_listing(home: Home) -> str:
    """The listing of a principal offered everything exposed: no principal's is longer, so
    the model's context is sized for it (D79)."""
    return render_listing(home, exposed_ids(home))


def _narrow(schema: dict[str, Any], allowed: list[str], home: Home) -> bool:
    """Put the allowed ids into the schema as enums; False if the tool is left with none."""
    properties: dict[str, Any] = schema["parameters"]["properties"]
    required = set(schema["parameters"].get("required", ()))
    if not allowed and "domains" in schema and schema["domains"]:
        return not any(k in properties for k in ("entity_id", *SINGLE_ENTITY_FIELDS))
    entities = [home.entities[e] for e in allowed if e in home.entities]
    groups = {
        "entity_id": allowed,
        "area_id": sorted({e.area_id for e in entities if e.area_id}),
        "floor_id": sorted({e.floor_id for e in entities if e.floor_id}),
        "device_id": sorted({e.device_id for e in entities if e.device_id}),
        "label_id": sorted({label for e in entities for label in e.labels}),
        "domain": sorted({e.domain for e in entities}),
        "device_class": sorted({e.device_class for e in entities if e.device_class}),
    }
    for key, values in groups.items():
        if key not in properties:
            continue
        spec = properties[key]
        if not values:
            del properties[key]
        elif "enum" in spec.get("items", {}):  # a fixed vocabulary (cover classes): narrow it
            spec["items"]["enum"] = [v for v in spec["items"]["enum"] if v in values] or values
        else:
            spec["items"]["enum"] = values
    for key in SINGLE_ENTITY_FIELDS:
        if key not in properties:
            continue
        spec = properties[key]
        target = spec["items"] if spec.get("type") == "array" else spec
        if not allowed:
            if key in required:
                return False
            del properties[key]
            continue
        target["enum"] = allowed
        target.pop("pattern", None)
    return True
