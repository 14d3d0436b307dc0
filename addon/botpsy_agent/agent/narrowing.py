"""The grammar for one request: the offer, narrowed to what the user's words name.

Grounding rejects an action whose kind or targets the user did not name; a small model
proposes such actions often ("put butter on the shopping list" → close the blinds; "tell
Anna…" → a message to Sam). Narrowing the grammar to the named kinds and targets spends
that check before generation instead of after it, so the model's one choice is among the
calls that could run. It only ever removes choices, never adds any:

* action tools whose kind no word names are left out, when some action kind is named
  (tools that change nothing stay: reads, questions, "no tool fits");
* a question ("is the TV on?", "did someone leave the blinds shut?") keeps no action tool
  at all: grounding runs none for a question, and the real 1.5B proposed one for both;
* "am I free at 3?" keeps the free/busy check and leaves out the event list, whose answer
  says what is on, not whether the time is free;
* an action tool's entity enums keep only the entities the request names, when it names
  any of that tool's (otherwise the tool keeps its scope, and grounding asks or refuses);
* what an action writes for people (a message, a list item, an event's title, details and
  place) is made of the request's own words, never a `<` or `>`: a model cannot put
  "bread" on the list for "butter and cheese", nor words planted in a calendar entry into
  a message.

Per step, an event's uid can only be one a listing in this turn returned
(`with_listed_uids`): before any listing, moving or deleting an event is not offered, so the
model looks the event up first instead of guessing a uid that HA refuses after the user's
"yes".

The prompt still shows the whole offer, so the cached prompt prefix is the same for every
request.
"""

from __future__ import annotations

import copy
from typing import Any

from botpsy_agent.agent.offer import SINGLE_ENTITY_FIELDS
from botpsy_agent.home import Home
from botpsy_agent.llm.planning import WORDS_KEY, Offer
from botpsy_agent.words import grounding
from tool_schemas.base import Access

ENTITY_FIELDS = ("entity_id", *SINGLE_ENTITY_FIELDS)
CONTENT_FIELDS: dict[str, tuple[str, ...]] = {
    "send_message": ("message",),
    "create_notification": ("message",),
    "add_todo_item": ("item", "description"),
    "create_event": ("summary", "description", "location"),
    "update_event": ("description", "location"),
}
"""Text an action writes for people, which only the user's words may fill. Not an update's
title (a rename keeps the event's own, which the user need not repeat) nor a list item to
tick off ("I bought everything" names none); an update's new details are new text, though
(issue 25, finding 13)."""
_EDGE_PUNCTUATION = '.,!?;:"()[]{}…“”\u2018\u2019'  # and curly single quotes
_TAG_MARKS = str.maketrans("", "", "<>")
"""Taken out of every offered word: a word holding `</tool_call><tool_call>…` would let the
grammar write a second call inside the first one's text (issue 25, finding 13)."""


def narrowed_schemas(
    offer: Offer, words: grounding.Request, home: Home
) -> tuple[dict[str, Any], ...] | None:
    """The schemas the grammar allows for this request; None when nothing narrows."""
    actions = [s["name"] for s in offer.schemas if s.get("access") == Access.CONTROL.value]
    kinds = grounding.asked_kinds(words, actions)
    named = grounding.named_entities(words, home)
    said = request_words(words.text)
    left_out = _reads_left_out(words)
    narrowed: list[dict[str, Any]] = []
    for schema in offer.schemas:
        name = schema["name"]
        if name not in actions:
            if name not in left_out:
                narrowed.append(schema)
        elif not words.is_question and (kinds is None or name in kinds):
            narrowed.append(_said_only(_named_only(schema, named), said))
    result = tuple(narrowed)
    return None if result == offer.schemas else result


def _reads_left_out(words: grounding.Request) -> frozenset[str]:
    return frozenset({"list_events"}) if grounding.asks_free_busy(words) else frozenset()


def _named_only(schema: dict[str, Any], named: frozenset[str]) -> dict[str, Any]:
    properties = schema["parameters"]["properties"]
    keep: dict[str, list[str]] = {}
    for field in ENTITY_FIELDS:
        enum = _enum(properties.get(field))
        chosen = [e for e in enum or () if e in named]
        if chosen and chosen != enum:
            keep[field] = chosen
    if not keep:
        return schema
    schema = copy.deepcopy(schema)
    for field, chosen in keep.items():
        spec = schema["parameters"]["properties"][field]
        (spec["items"] if spec.get("type") == "array" else spec)["enum"] = chosen
    return schema


def _enum(spec: dict[str, Any] | None) -> list[str] | None:
    if spec is None:
        return None
    target = spec["items"] if spec.get("type") == "array" else spec
    enum = target.get("enum")
    return enum if isinstance(enum, list) else None


def request_words(text: str) -> tuple[str, ...]:
    """The request's words as said, and each with a capital first letter (a title)."""
    words = [w.translate(_TAG_MARKS).strip(_EDGE_PUNCTUATION) for w in text.split()]
    forms = [form for w in words if w for form in (w, w[:1].upper() + w[1:])]
    return tuple(dict.fromkeys(forms))


def _said_only(schema: dict[str, Any], said: tuple[str, ...]) -> dict[str, Any]:
    fields = [f for f in CONTENT_FIELDS.get(schema["name"], ()) if f in _properties(schema)]
    if not fields or not said:
        return schema
    schema = copy.deepcopy(schema)
    for field in fields:
        _properties(schema)[field][WORDS_KEY] = list(said)
    return schema


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = schema["parameters"]["properties"]
    return properties


UID_TOOLS = ("update_event", "delete_event")


def with_listed_uids(
    schemas: tuple[dict[str, Any], ...], uids: frozenset[str]
) -> tuple[dict[str, Any], ...]:
    """The step's schemas with an event's uid limited to those listed this turn; the tools
    that need one are left out until a listing has returned any."""
    out: list[dict[str, Any]] = []
    for schema in schemas:
        if schema["name"] not in UID_TOOLS or "uid" not in _properties(schema):
            out.append(schema)
        elif uids:
            limited = copy.deepcopy(schema)
            _properties(limited)["uid"]["enum"] = sorted(uids)
            out.append(limited)
    return tuple(out)


def listed_uids(feedback: Any) -> frozenset[str]:
    """The uids of the events in a step's result (a listing's `events`)."""
    found: set[str] = set()
    stack = [feedback]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            events = item.get("events")
            if isinstance(events, list):
                found.update(
                    e["uid"]
                    for e in events
                    if isinstance(e, dict) and isinstance(e.get("uid"), str)
                )
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return frozenset(found)
