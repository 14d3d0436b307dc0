"""The settings an action may write, cut to the values the request says (words/values.py).

A small model chooses well and writes values badly: the real 0.5B set 10 °C with the heating
off for "turn it down a degree", full volume for "a bit louder", a colour for "warm white"
and a colour nobody asked for with "slightly dimmer". Here an action's optional settings
keep only what the words say (a level only as said, a step only the way and size said, a
colour, white or mode only when said, a setting such as mute only when spoken of), its
required choices only the values said when any is, and its shapes only what is left; the
model then chooses among those. A request pointing back ("the same in the kids room") may
repeat what the tool last ran with.
"""

from __future__ import annotations

from collections.abc import Mapping
import copy
from typing import Any

from botpsy_agent.agent.schema_fields import ENTITY_FIELDS, GROUP_FIELDS, properties, required
from botpsy_agent.llm.planning import WORDS_KEY
from botpsy_agent.words import (
    DEFAULT_STEP,
    LEVEL_FIELDS,
    SETTING_WORDS,
    STEP_QUANTITY,
    Quantity,
    Request,
    SaidValues,
    says_setting,
    says_value,
)

CALENDAR_STARTS = frozenset({"start", "start_date"})


def values_only(
    schema: dict[str, Any], words: Request, values: SaidValues, repeated: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The schema with its settings cut to what the words say; None when nothing of the
    tool is left to set."""
    specs = properties(schema)
    needed = required(schema)
    allowed: dict[str, list[Any] | None] = {}
    """field -> its values (None: the field stays as it is); a field left out is cut."""
    for key, spec in specs.items():
        if key in ENTITY_FIELDS or key in GROUP_FIELDS:
            allowed[key] = None
        elif key in needed:
            # A choice the words make among its values ("close" of open/close/stop) is
            # the only one; words that say none repeat what ran last when they point back
            # ("send Sam the same"), or leave all to the model.
            said = [v for v in spec.get("enum", ()) if says_value(words, str(v))]
            again = [repeated[key]] if key in repeated and key != "recipient" else None
            allowed[key] = said or again
        elif (options := said_options(key, spec, words, values)) != [] or key in repeated:
            if options is not None and key in repeated and repeated[key] not in options:
                options = [*options, repeated[key]]  # "the same": what ran last time
            allowed[key] = options
    if len(allowed) == len(specs) and all(v is None for v in allowed.values()):
        return schema
    shapes = shapes_left(schema.get("x-shapes"), allowed)
    if shapes == []:
        return None
    if shapes and _one_target(specs):
        # a number said as a size too ("down 20%") leaves the level or the step to choose
        carried = CARRIED - (LEVEL_FIELDS if values.steps else frozenset())
        shapes = _carrying(shapes, {k for k, v in allowed.items() if v and k in carried})
    schema = copy.deepcopy(schema)
    for key in list(properties(schema)):
        if key not in allowed:
            del properties(schema)[key]
        elif (options := allowed[key]) is not None:
            spec = {**properties(schema)[key], "enum": options}
            spec.pop(WORDS_KEY, None)  # the values are given: no words to make them of
            spec.pop("pattern", None)  # nor a shape: a start's enum is the times said
            properties(schema)[key] = spec
    if shapes is not None:
        schema["x-shapes"] = shapes
    return schema


CARRIED = LEVEL_FIELDS | {"color_name", "color_temp_kelvin"}
"""Settings the words say that a call on the one device named must carry: "make the bedroom
light blue and dim it down to twenty percent" set the 20 % and left the colour out (dev,
reworded multi-bedroom-blue-dim: the 0.5B)."""


def _one_target(specs: Mapping[str, Any]) -> bool:
    entities = specs.get("entity_id", {})
    return len(entities.get("items", entities).get("enum", ())) == 1


def _carrying(shapes: list[str], said: set[str]) -> list[str]:
    """The shapes that hold every setting said, each made required; all of them when none
    holds them all."""
    if not said:
        return shapes
    carrying = []
    for shape in shapes:
        parts = [p.strip() for p in shape.split(",")]
        fields = {p.removesuffix("?").partition("=")[0] for p in parts}
        if said <= fields:
            made = [p.removesuffix("?") if p.removesuffix("?") in said else p for p in parts]
            carrying.append(", ".join(made))
    return carrying or shapes


def said_options(  # noqa: PLR0911 - one rule per kind of setting
    key: str, spec: dict[str, Any], words: Request, values: SaidValues
) -> list[Any] | None:
    """The values the words allow an optional setting; None: any (not ours to judge);
    []: none (the setting is cut)."""
    if key in STEP_QUANTITY:
        return _steps(key, spec, values)
    if key in LEVEL_FIELDS:
        said = [v for v in values.levels if key == "temperature" or v not in values.degrees]
        levels = [*said, *([100.0] if values.full and spec.get("maximum") == 100 else [])]
        return _within(levels, spec)
    if key in {"minutes", "days"}:
        lengths = values.minutes if key == "minutes" else values.days
        if key == "days" and values.clock and not values.all_day:
            return []  # a time of day said: not an all-day event
        return _within(list(lengths), spec) or None
    if key in CALENDAR_STARTS:
        # The start the words say, where they say its day (dev, reworded calendar-create-*:
        # the 0.5B wrote the present moment, or today for "on Friday").
        if key == "start":
            return [] if values.all_day else list(values.starts) or None
        if values.clock and not values.all_day:
            return []  # a time of day said: no all-day event
        return list(values.dates) or None
    if key == "color_temp_kelvin":
        return _within([*values.whites, *values.levels], spec)
    if key == "color_name":
        colours = [c for c in values.colours if c in spec.get("enum", ())]
        if values.whites:  # "warm white" is a white temperature, not the colour
            colours = [c for c in colours if c not in {"white", "warmwhite"}]
        return colours
    if "enum" in spec and spec.get("type") == "string":
        return [v for v in spec["enum"] if says_value(words, str(v))]
    if key in SETTING_WORDS["en"]:
        return None if says_setting(words, key) else []
    return None


def _steps(key: str, spec: dict[str, Any], values: SaidValues) -> list[Any]:
    quantity = STEP_QUANTITY[key]
    way = values.directions.get(quantity, values.directions.get(Quantity.ANY))
    sizes = list(values.steps)
    if not sizes and not values.toward_level and (way is not None or values.small):
        sizes = [DEFAULT_STEP[quantity]]
    signs = [way] if way is not None else [1, -1]
    return _within([sign * size for size in sizes for sign in signs], spec)


def _within(numbers: list[float], spec: dict[str, Any]) -> list[Any]:
    """The numbers the field's type and bounds admit, in its own type."""
    low, high = spec.get("minimum"), spec.get("maximum")
    whole = spec.get("type") == "integer"
    out: list[Any] = []
    for number in numbers:
        if (low is not None and number < low) or (high is not None and number > high):
            continue
        if whole and number != int(number):
            continue
        value = int(number) if whole or number == int(number) else number
        if value not in out:
            out.append(value)
    return out


def shapes_left(shapes: list[str] | None, kept: Mapping[str, list[Any] | None]) -> list[str] | None:
    """The tool's shapes with cut fields and values taken out; a shape that needs a cut
    field or value goes. None for a tool without shapes."""
    if shapes is None:
        return None
    left = []
    for shape in shapes:
        parts = []
        for raw in (p.strip() for p in shape.split(",") if p.strip()):
            optional = raw.endswith("?")
            item = raw.removesuffix("?")
            field, _, fixed = item.partition("=")
            if fixed:
                options = kept.get(field)
                values = [v for v in fixed.split("|") if options is None or v in options]
                if values:
                    parts.append(f"{field}={'|'.join(values)}" + ("?" if optional else ""))
                    continue
                if optional:
                    continue
                break
            choices = [f for f in field.split("|") if f in kept]
            if choices:
                parts.append("|".join(choices) + ("?" if optional else ""))
            elif not optional:
                break
        else:
            if parts:
                left.append(", ".join(parts))
    return left
