"""What a setting call set, said back from the executed call: "Set Kids room light:
brightness down 20 %." (the demo at 9534ef0 said only "Set Kids room light.", and the user
could not tell a dim from a brighten).

Only the call's own validated values are said, each through the phrasebook; a value the
phrasebook has no words for (an RGB triple) is left unsaid, never read out raw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from botpsy_agent.agent.speech import Phrasebook

STEPS = {
    "brightness_step_pct": "brightness",
    "temperature_step": "temperature",
    "percentage_step": "speed",
    "volume_step_pct": "volume",
}
"""Relative settings: said as up or down by their size."""
VALUES = (
    "brightness_pct",
    "color_name",
    "color_temp_kelvin",
    "temperature",
    "percentage",
    "preset_mode",
    "direction",
    "volume_pct",
    "source",
    "humidity",
    "mode",
)
"""Absolute settings, said in this order with their value."""
SWITCHES = ("oscillating", "mute")
"""Yes-or-no settings: each has a word for true and one for false."""


def said_settings(
    phrases: Phrasebook,
    language: str,
    args: Mapping[str, Any],
    state_word: Callable[[str], str],
    temperature_unit: str,
) -> str:
    """The settings' clause for `done.<tool>`'s `{settings}` ("" when none can be said);
    `state_word` says a thermostat's mode as its state is said, and a target temperature is
    in the home's unit."""
    parts = []
    for key in VALUES:
        if (value := args.get(key)) is not None:
            if key == "color_name" and phrases.has(language, f"settings.colors.{value}"):
                value = phrases.say(language, f"settings.colors.{value}")
            parts.append(
                phrases.say(
                    language, f"settings.{key}", value=_number(value), unit=temperature_unit
                )
            )
    for key, what in STEPS.items():
        step = args.get(key)
        if isinstance(step, int | float) and step:
            way = "up" if step > 0 else "down"
            parts.append(phrases.say(language, f"settings.{what}_{way}", value=_number(abs(step))))
    if (mode := args.get("hvac_mode")) is not None:
        parts.append(state_word(str(mode)))
    flags = {key: args[key] for key in SWITCHES if isinstance(args.get(key), bool)}
    parts += [
        phrases.say(language, f"settings.{k}_{'on' if v else 'off'}") for k, v in flags.items()
    ]
    if not parts:
        return ""
    # A list of settings, not a sentence: "21°, heat" reads the same in every language.
    return phrases.say(language, "settings.said", values=", ".join(parts))


def _number(value: Any) -> Any:
    """21.0 is said "21"; other values as they are."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
