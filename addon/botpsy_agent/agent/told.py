"""What the model is told of a call that ran: the data its next step may need, nothing more.

The executor's record of a call (`Execution.to_json`) is for the audit log and the answer:
the HA service it sent, every state with every attribute, its request id. Quoted whole into
the tool response it cost the model hundreds of tokens a step (a calendar read of four
events was about 450), each evaluated before the next call and again as history in the next
turn, while the model wrote the call itself and needs only what came back: the states as
they are now, what HA answered (events, list items), what failed.
"""

from __future__ import annotations

import re
from typing import Any

from botpsy_agent.llm.planning import RawCall

_WHOLE_MINUTE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d):00$")
"""A time of a call's arguments with its seconds at zero, as a typed call writes it."""

CAPABILITY_ATTRIBUTES = frozenset(
    {
        # What a device can do or how HA shows it, not how it is now: the same on every
        # read, and the grammar already holds the values a call may use.
        "friendly_name",
        "icon",
        "entity_picture",
        "attribution",
        "supported_features",
        "supported_color_modes",
        "effect_list",
        "min_mireds",
        "max_mireds",
        "min_color_temp_kelvin",
        "max_color_temp_kelvin",
        "hvac_modes",
        "fan_modes",
        "preset_modes",
        "swing_modes",
        "min_temp",
        "max_temp",
        "target_temp_step",
        "min_humidity",
        "max_humidity",
        "available_modes",
        "source_list",
        "sound_mode_list",
        "fan_speed_list",
        "options",
        "state_class",
        # The colour again in other colour spaces: `rgb_color` says it once.
        "hs_color",
        "xy_color",
    }
)


def told_result(result: Any) -> Any:
    """An execution's JSON as the model reads it: per HA action, what HA answered when it
    answered (a calendar's events: the entity's state repeats the next one), else the
    states read; the states the call changed that were not read; and the error. Anything not shaped
    like an execution is passed on as it is."""
    if not isinstance(result, dict) or not isinstance(result.get("actions"), list):
        return result
    told = [_told_action(a) for a in result["actions"] if isinstance(a, dict)]
    told = [a for a in told if a]
    return told[0] if len(told) == 1 else told


def _told_action(action: dict[str, Any]) -> dict[str, Any]:
    told: dict[str, Any] = {}
    if action.get("response") is not None:
        told["response"] = _without_empty(_without_item_uids(action["response"]))
    elif action.get("states"):
        told["states"] = [_told_state(s) for s in action["states"]]
    # A target's new state is also among the changes HA reported: told once, it is ~60
    # tokens fewer for every step after a change.
    changed = [
        c for c in map(_told_state, action.get("changed") or ()) if c not in told.get("states", ())
    ]
    if changed:
        told["changed"] = changed
    if action.get("error") is not None:
        told["error"] = action["error"]
    return told


def _told_state(state: Any) -> Any:
    if not isinstance(state, dict):
        return state
    told = {k: v for k, v in state.items() if k != "attributes"}
    attributes = state.get("attributes")
    if isinstance(attributes, dict):
        kept = {
            k: v
            for k, v in attributes.items()
            if k not in CAPABILITY_ATTRIBUTES and v not in (None, "")
        }
        if kept:
            told["attributes"] = kept
    return told


def _without_item_uids(response: Any) -> Any:
    """A list's items without their uids: a tick-off or a removal names the item by its
    words, and a uid (36 characters of hex) was about 25 tokens an item. An event keeps
    its uid, which a change to it takes."""
    if not isinstance(response, dict):
        return response
    return {key: _list_without_uids(value) for key, value in response.items()}


def _list_without_uids(answer: Any) -> Any:
    items = answer.get("items") if isinstance(answer, dict) else None
    if not isinstance(items, list):
        return answer
    bare = [{k: v for k, v in i.items() if k != "uid"} if isinstance(i, dict) else i for i in items]
    return {**answer, "items": bare}


def _without_empty(value: Any) -> Any:
    """HA's answer without its empty fields (an event's blank description and location)."""
    if isinstance(value, dict):
        # An empty list stays: "no events" is an answer.
        return {k: _without_empty(v) for k, v in value.items() if v not in (None, "")}
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    return value


def told_arguments(call: RawCall) -> dict[str, Any]:
    """A call's arguments as the model reads them again (its step, the app's own listing,
    the history): a time without its ":00" seconds, as the request's clock line and the
    grammar write it; a digit is a token each (three a time, in every later turn)."""
    return {
        key: _WHOLE_MINUTE.sub(r"\1", value) if isinstance(value, str) else value
        for key, value in call.arguments.items()
    }
