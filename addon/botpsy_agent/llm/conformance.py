"""Whether a parsed call is one the grammar could have produced, checked in the app.

llama.cpp in-process enforces the grammar token by token; a model server is only *asked* to
(issue 25, finding 2: a fake server wrote a planted message into `send_message`, with a
`title` no grammar offers, and the parser read it). So every call the parser reads is held
against the schemas its grammar was built from, whatever backend produced it:

* an offered tool, only offered fields, in one of the tool's shapes (and their fixed values);
* exactly one target, as the grammar gives it (entity ids, or one group a domain may narrow);
* enum values as narrowed (the principal's entities, the ones the request names, listed uids);
* text the grammar makes of the request's words (`WORDS_KEY`) made of those words only, and
  no more of them than the grammar allows;
* free text as the grammar writes it: no `<`, no control characters.

Semantics (ranges, patterns, times) stay pydantic's; this only says "not generated here".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import re
from typing import Any

from botpsy_agent.llm.grammar import (
    MAX_ARRAY_ITEMS,
    TARGET_FIELDS,
    WORDS_KEY,
    default_shape,
    expand_shape,
    most_words,
)
from botpsy_agent.llm.parse import RawCall

_UNWRITABLE = re.compile(r"[<\x00-\x1f]")
"""No string the grammar writes holds these (a `<` could open a tag the parser reads)."""


def outside_grammar(call: RawCall, schemas: Sequence[Mapping[str, Any]]) -> str | None:
    """Why `call` is not one the grammar built from `schemas` allows; None when it is."""
    schema = next((s for s in schemas if s.get("name") == call.name), None)
    if schema is None:
        return f"the tool {call.name!r} was not offered"
    properties: Mapping[str, Any] = schema["parameters"].get("properties", {})
    unknown = [key for key in call.arguments if key not in properties]
    if unknown:
        return f"{call.name}: {', '.join(map(repr, unknown))} not offered"
    problem = _target_problem(schema, call.arguments) or _shape_problem(schema, call.arguments)
    if problem:
        return f"{call.name}: {problem}"
    for key, value in call.arguments.items():
        if problem := _value_problem(value, properties[key]):
            return f"{call.name}.{key}: {problem}"
    return None


def _target_fields(schema: Mapping[str, Any]) -> list[str]:
    parameters = schema["parameters"]
    required = set(parameters.get("required", ()))
    return [k for k in parameters.get("properties", {}) if k in TARGET_FIELDS and k not in required]


def _target_problem(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """The grammar's one target: entity ids; or one group, which a domain may narrow; or,
    for a read (or a tool with no other target), a bare domain."""
    targets = _target_fields(schema)
    if not targets:
        return None
    named = [k for k in targets if k in arguments and k != "domain"]
    if len(named) > 1:
        return "more than one target"
    narrowed = "domain" in arguments
    if named == ["entity_id"] and narrowed:
        return "entity ids narrowed by a domain"
    if not named:
        others = [k for k in targets if k != "domain"]
        if not narrowed:
            return "no target"
        if others and schema.get("access") != "read":
            return "a bare domain"
    return None


def _shape_problem(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """The non-target fields must fit one of the tool's shapes, as the grammar expands them."""
    parameters = schema["parameters"]
    properties = parameters.get("properties", {})
    required = list(parameters.get("required", ()))
    targets = _target_fields(schema)
    given = {k: v for k, v in arguments.items() if k not in targets}
    shapes = schema.get("x-shapes") or [default_shape(properties, required, targets)]
    for shape in shapes:
        for chosen in expand_shape(shape, properties):
            fields = dict.fromkeys(required, (True, None)) | chosen
            if _fits(given, {k: v for k, v in fields.items() if k not in targets}):
                return None
    return "these fields together are no shape of the tool"


def _fits(given: Mapping[str, Any], fields: Mapping[str, tuple[bool, list[str] | None]]) -> bool:
    if any(key not in fields for key in given):
        return False
    for key, (needed, values) in fields.items():
        if key not in given:
            if needed:
                return False
        elif values is not None and str(given[key]) not in values:
            return False
    return True


def _value_problem(value: Any, spec: Mapping[str, Any]) -> str | None:
    if "enum" in spec:
        return None if value in spec["enum"] else "a value that was not offered"
    kind = spec.get("type")
    if kind == "array":
        return _array_problem(value, spec)
    if kind != "string" or not isinstance(value, str):
        return None  # numbers and booleans: pydantic checks their range and type
    if _UNWRITABLE.search(value):
        return "text the grammar cannot write ('<' or a control character)"
    words = spec.get(WORDS_KEY)
    if words:
        return _words_problem(value, [str(w) for w in words])
    # Free text's length is left to pydantic's limit: llama.cpp counts what it generates in
    # code points of possibly partial UTF-8, so the text read back may be longer.
    return None


def _array_problem(value: Any, spec: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list):
        return None  # pydantic says what is wrong with it
    most = min(int(spec.get("maxItems", MAX_ARRAY_ITEMS)), MAX_ARRAY_ITEMS)
    if len(value) > most:
        return f"more than the grammar's {most} items"
    items = spec.get("items", {})
    return next((p for item in value if (p := _value_problem(item, items))), None)


def _words_problem(value: str, words: list[str]) -> str | None:
    """Text the grammar made of the request's words, one space between."""
    said = value.strip().split(" ")
    allowed = set(words)
    if any(word not in allowed for word in said):
        return "words the request did not say"
    if len(said) > most_words(words):
        return "more words than the grammar allows"
    return None
