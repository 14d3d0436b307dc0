"""The conversation moves the model is offered besides acting: a question about what the
request leaves open (`ask_user`), and saying that nothing fits (`no_tool_fits`).

The real 0.5B answered a message, a booking with its time and a sum with "For when?": a
question the app would ask is offered only about what an offered action needs, what the
request asks for and does not already say, and not at all when nothing is left to ask.
The reason for "nothing fits" is never spoken, so it is one fixed phrase.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import copy
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from botpsy_agent.agent.schema_fields import ENTITY_FIELDS, GROUP_FIELDS, enum_of, properties
from botpsy_agent.home import Home
from botpsy_agent.words import SaidValues, find_spoken_times, grounding, message_body

NO_TOOL_REASON = "no function does this"
"""The one reason the model may give: it is never spoken (the app says what it can do),
and a reason in the model's own words cost the real 0.5B a dozen decode steps."""


def without_reason(schema: dict[str, Any]) -> dict[str, Any]:
    if "reason" not in properties(schema):
        return schema
    schema = copy.deepcopy(schema)
    properties(schema)["reason"] = {
        **properties(schema)["reason"],
        "enum": [NO_TOOL_REASON],
    }
    return schema


@dataclass(frozen=True)
class Asked:
    """What a question may be about: the request, read, and the actions on offer."""

    words: grounding.Request
    home: Home
    named: frozenset[str]
    now: datetime | None
    values: SaidValues
    actions: frozenset[str]
    targets: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Per offered action, the entities it may act on: a question names no other than those
    of the actions it serves (the real 1.5B asked "Which do you mean: Family, Anna phone,
    Sam phone or Movie night?" about moving an event, reworded recover-move-event)."""
    carried: frozenset[str] = frozenset()
    """What a request pointing back carries over from the last call ("value", "content"):
    "hall too please" after dimming the bedroom is dimmed by the same step, "and tell Sam
    that too" says the same words (reworded bedroom-dimmer-hall, followup-message-same: the
    real 1.5B asked "To what level?" and "What should it say?")."""


def asking_only(schema: dict[str, Any], asked: Asked) -> dict[str, Any] | None:
    """`ask_user` with only what the request may be asked about; None when nothing is left
    to ask, so the model chooses between acting and saying that nothing fits."""
    missing = [
        m
        for m in enum_of(properties(schema).get("missing")) or []
        if _serves(m, asked.actions)
        and grounding.asks_for(asked.words, asked.home, m)
        and not _says_already(m, asked)
    ]
    candidates = enum_of(properties(schema).get("candidates"))
    chosen = [c for c in candidates or () if c in asked.named]
    if not chosen and candidates is not None and (served := _served_targets(missing, asked)):
        # Nothing named: those the actions it serves may act on.
        chosen = [c for c in candidates if c in served]
    if len(chosen) == 1:
        # One target named or possible: "Which do you mean: Family?" is no question (the real 0.5B
        # asked it of a child's "put a sleepover on the family calendar", which no tool
        # of hers fits; dev calendar-child-writes).
        missing = [m for m in missing if m != "target"]
    return _question(schema, missing, chosen or None)


def _served_targets(missing: list[str], asked: Asked) -> set[str]:
    """The entities of the offered actions a question about `missing` serves: a message's
    recipients for "whom", every offered action's for "which" or "how much"."""
    tools: set[str] = set()
    for m in missing:
        served = grounding.QUESTION_TOOLS.get(m)
        tools |= set(asked.targets) if served is None else set(served)
    return {e for tool in tools for e in asked.targets.get(tool, ())}


def not_asking_of(schema: dict[str, Any], acted: frozenset[str]) -> dict[str, Any] | None:
    """`ask_user` without the targets this turn acted on as candidates; "which one?" needs
    two left. The real 1.5B opened the bedroom blinds, messaged Sam, then asked "Which do
    you mean: Bedroom blinds, Bedroom blinds or Bedroom blinds?" (dev
    multi-blinds-and-message). None: nothing is left to ask."""
    candidates = enum_of(properties(schema).get("candidates"))
    if candidates is None or not acted & set(candidates):
        return schema
    left = [c for c in candidates if c not in acted]
    missing = enum_of(properties(schema).get("missing")) or []
    if len(left) < 2:
        missing = [m for m in missing if m != "target"]
    return _question(schema, missing, left)


def _question(
    schema: dict[str, Any], missing: list[str], candidates: list[str] | None
) -> dict[str, Any] | None:
    """`ask_user` about `missing` only, naming only `candidates` (None: as offered; empty:
    none); None when nothing is left to ask."""
    if not missing:
        return None
    schema = copy.deepcopy(schema)
    properties(schema)["missing"]["enum"] = missing
    if candidates:
        properties(schema)["candidates"]["items"]["enum"] = candidates
    elif candidates is not None:
        del properties(schema)["candidates"]
        required = schema["parameters"].get("required", [])
        schema["parameters"]["required"] = [r for r in required if r != "candidates"]
    return schema


def _serves(missing: str, actions: frozenset[str]) -> bool:
    """Is there an offered action this question would help? Reads need no question."""
    tools = grounding.QUESTION_TOOLS.get(missing)
    if tools is not None:
        return bool(actions & set(tools))
    if missing == "value":  # how much, which colour: only what sets a value asks it
        return bool(actions & VALUE_TOOLS)
    return bool(actions - grounding.NOT_DEVICE_TOOLS)  # which device


VALUE_TOOLS = frozenset(
    {"set_light", "set_climate", "set_humidifier", "set_fan", "set_media", "set_number"}
)


def recipient_names(home: Home, entity_ids: Iterable[str]) -> tuple[str, ...]:
    """The names (and aliases) of the message recipients among `entity_ids`."""
    entities = home.entities
    return tuple(
        name
        for e in entity_ids
        if e.startswith("notify.") and e in entities
        for name in (entities[e].name, *entities[e].aliases)
    )


def _says_already(missing: str, asked: Asked) -> bool:
    words, named = asked.words, asked.named
    match missing:
        case "time":
            return asked.now is not None and any(
                spoken.times or spoken.days or spoken.moment is not None
                for spoken in find_spoken_times(words.text, asked.now, words.language)
            )
        case "recipient":
            return any(e.startswith("notify.") for e in named)
        case "list":
            return any(e.startswith("todo.") for e in named)
        case "content":
            return (
                "content" in asked.carried
                or message_body(words.text, recipient_names(asked.home, named)) is not None
            )
        case "value":
            values = asked.values
            return (
                "value" in asked.carried
                or bool(values.levels or values.steps or values.directions or values.whites)
                or bool(values.colours)
            )
    return False


def carried_over(repeated: Mapping[str, Mapping[str, Any]]) -> frozenset[str]:
    """What the last calls' settings that a request repeats settle (`Asked.carried`), from
    each offered tool's repeated arguments."""
    carried = set()
    for tool, arguments in repeated.items():
        if tool in VALUE_TOOLS and set(arguments) - {*ENTITY_FIELDS, *GROUP_FIELDS}:
            carried.add("value")
        if "message" in arguments:
            carried.add("content")
    return frozenset(carried)
