"""A person's rules as the permissions form shows them, and back as policy rules.

The form edits only the rules it made (ids starting `ui-`); the app keeps every other rule
of the person in its policy file as it is. A section's selectors are alternatives: each
kind chosen becomes one rule (`ui-allow-areas`, `ui-allow-entities`, …), so "these areas
and these lights" means either, as people read it. An access chosen with no selector at
all covers everything (`ui-allow`). Confirmation rules ask before any control; bounds limit
the values a request may set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

UI_PREFIX: Final = "ui-"
EFFECTS: Final = ("allow", "deny", "confirm")
SELECTORS: Final = ("areas", "floors", "labels", "entities", "domains")
OWN_AREA: Final = "own_area"
"""A selector of Home Assistant's own rules only: the area of the satellite that heard the
request (the app reads it from HA's signed request)."""
ACCESS: Final = ("read", "control")
CONFIRM_CLASSES: Final = (
    "locks",
    "alarm_panels",
    "entrance_covers",
    "messages_outside_household",
    "calendar_deletes",
)
BOUNDS: Final = {
    # form field: (policy bound, side)
    "temperature_min": ("temperature", "min"),
    "temperature_max": ("temperature", "max"),
    "brightness_max": ("brightness_pct", "max"),
    "volume_max": ("volume_pct", "max"),
}
VOICE_DEFAULTS: Final[dict[str, tuple[dict[str, Any], ...]]] = {
    # Home Assistant's own rules as chosen at setup (the options flow edits them later).
    "nothing": (),
    "read": ({"id": f"{UI_PREFIX}allow", "allow": ["read"]},),
    # Read and control what is in the satellite's own area (one rule: the form shows it).
    OWN_AREA: (
        {"id": f"{UI_PREFIX}allow-{OWN_AREA}", "allow": ["read", "control"], OWN_AREA: True},
    ),
}
INHERIT: Final = "inherit"
SECTION_BOUNDS: Final = "bounds"
FIELD_ACCESS: Final = "access"


class BoundsError(ValueError):
    """A minimum above its maximum."""


def rules_from_form(form: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The `ui-` rules for what the form says. Raises `BoundsError` for min > max."""
    rules: list[dict[str, Any]] = []
    for effect in EFFECTS:
        section = form.get(effect) or {}
        access = ["control"] if effect == "confirm" else list(section.get(FIELD_ACCESS) or [])
        chosen: dict[str, Any] = {
            kind: list(section[kind]) for kind in SELECTORS if section.get(kind)
        }
        if section.get(OWN_AREA):
            chosen[OWN_AREA] = True
        if effect == "confirm" and not chosen:
            continue
        if not access:
            continue
        if not chosen:
            rules.append({"id": f"{UI_PREFIX}{effect}", effect: access})
        for kind, values in chosen.items():
            rules.append({"id": f"{UI_PREFIX}{effect}-{kind}", effect: access, kind: values})
    limit: dict[str, dict[str, float]] = {}
    for field, (bound, side) in BOUNDS.items():
        value = (form.get(SECTION_BOUNDS) or {}).get(field)
        if value is not None:
            limit.setdefault(bound, {})[side] = float(value)
    for bound, sides in limit.items():
        if "min" in sides and "max" in sides and sides["min"] > sides["max"]:
            raise BoundsError(bound)
    if limit:
        rules.append({"id": f"{UI_PREFIX}limit", "limit": limit})
    return rules


def form_from_rules(rules: Iterable[Mapping[str, Any]], inherit: bool) -> dict[str, Any]:
    """The form's values for a person's current rules (only the `ui-` ones show)."""
    form: dict[str, Any] = {INHERIT: inherit}
    for effect in EFFECTS:
        form[effect] = {FIELD_ACCESS: []} if effect != "confirm" else {}
    form[SECTION_BOUNDS] = {}
    for rule in rules:
        rule_id = str(rule.get("id", ""))
        if not rule_id.startswith(UI_PREFIX):
            continue
        if rule_id == f"{UI_PREFIX}limit":
            limit = rule.get("limit") or {}
            for field, (bound, side) in BOUNDS.items():
                value = (limit.get(bound) or {}).get(side)
                if value is not None:
                    form[SECTION_BOUNDS][field] = value
            continue
        effect, _, kind = rule_id.removeprefix(UI_PREFIX).partition("-")
        if effect not in EFFECTS:
            continue
        section = form[effect]
        if effect != "confirm":
            section[FIELD_ACCESS] = sorted(set(section[FIELD_ACCESS]) | set(rule.get(effect) or []))
        if kind in SELECTORS:
            section[kind] = list(rule.get(kind) or [])
        elif kind == OWN_AREA:
            section[OWN_AREA] = rule.get(OWN_AREA) is True
    return form


def other_rules(rules: Iterable[Mapping[str, Any]]) -> int:
    """How many of a person's rules the form does not show (written in the policy file)."""
    return sum(1 for rule in rules if not str(rule.get("id", "")).startswith(UI_PREFIX))
