"""Device-setting tools: switch things, set lights, climate, covers, locks, fans, media."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, ClassVar, Literal

from pydantic import Field, StringConstraints, model_validator

from tool_schemas.actions import HaAction, ServiceCall, TargetState, ToolMappingError
from tool_schemas.base import Access, MappingContext, ShortText, Targeted, TargetSpec, given


def per_domain(
    targets: Sequence[TargetState], service: str, data: dict[str, object] | None = None
) -> tuple[ServiceCall, ...]:
    """One `<domain>.<service>` call per domain among the targets, in a stable order."""
    by_domain: dict[str, list[str]] = {}
    for target in targets:
        by_domain.setdefault(target.domain, []).append(target.entity_id)
    return tuple(
        ServiceCall(domain, service, tuple(sorted(ids)), dict(data or {}))
        for domain, ids in sorted(by_domain.items())
    )


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def _current_number(target: TargetState, attribute: str, what: str) -> float:
    value = target.attributes.get(attribute)
    if not isinstance(value, int | float):
        raise ToolMappingError(
            "no_current_value", f"{target.entity_id} reports no current {what} to change from"
        )
    return float(value)


# --- on / off / toggle ---------------------------------------------------------------------

SWITCHABLE = frozenset(
    {
        "light",
        "switch",
        "fan",
        "media_player",
        "input_boolean",
        "climate",
        "humidifier",
        "siren",
        "remote",
        "automation",
        "water_heater",
    }
)


class _OneService(Targeted):
    """A tool that is one service without data, called per domain on every target."""

    access: ClassVar[Access] = Access.CONTROL
    service: ClassVar[str]

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return per_domain(targets, self.service)


class TurnOn(_OneService):
    """Switch things on: lights, switches, fans, media players, climate, humidifiers."""

    name: ClassVar[str] = "turn_on"
    domains: ClassVar[frozenset[str]] = SWITCHABLE
    service: ClassVar[str] = "turn_on"


class TurnOff(_OneService):
    """Switch things off: lights, switches, fans, media players, climate, humidifiers."""

    name: ClassVar[str] = "turn_off"
    domains: ClassVar[frozenset[str]] = SWITCHABLE
    service: ClassVar[str] = "turn_off"


class Toggle(_OneService):
    """Flip things between on and off."""

    name: ClassVar[str] = "toggle"
    domains: ClassVar[frozenset[str]] = SWITCHABLE - {"water_heater", "siren"} | {"cover"}
    service: ClassVar[str] = "toggle"


# --- lights --------------------------------------------------------------------------------


class ColorName(StrEnum):
    """Colour names HA's lights understand (a CSS subset people say)."""

    WHITE = "white"
    WARM_WHITE = "warmwhite"
    RED = "red"
    ORANGE = "orange"
    YELLOW = "yellow"
    GREEN = "green"
    LIME = "lime"
    TEAL = "teal"
    CYAN = "cyan"
    BLUE = "blue"
    NAVY = "navy"
    PURPLE = "purple"
    VIOLET = "violet"
    MAGENTA = "magenta"
    PINK = "pink"
    GOLD = "gold"
    LAVENDER = "lavender"
    CORAL = "coral"
    TURQUOISE = "turquoise"


RgbChannel = Annotated[int, Field(ge=0, le=255)]


class SetLight(Targeted):
    """Set light brightness, colour or white temperature (turns the light on)."""

    name: ClassVar[str] = "set_light"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"light"})
    shapes: ClassVar[tuple[str, ...]] = (
        "brightness_pct|brightness_step_pct, color_name|rgb_color|color_temp_kelvin?",
        "color_name|rgb_color|color_temp_kelvin",
    )

    brightness_pct: int | None = Field(default=None, ge=0, le=100, description="Brightness in %.")
    brightness_step_pct: int | None = Field(
        default=None, ge=-100, le=100, description="Change brightness by this many %, e.g. -20."
    )
    color_name: ColorName | None = Field(default=None, description="A colour name.")
    rgb_color: list[RgbChannel] | None = Field(
        default=None, min_length=3, max_length=3, description="Colour as [red, green, blue]."
    )
    color_temp_kelvin: int | None = Field(
        default=None, ge=1500, le=9000, description="White temperature: 2700 warm, 6500 cold."
    )

    @model_validator(mode="after")
    def _one_setting(self) -> SetLight:
        settings = [
            self.brightness_pct,
            self.brightness_step_pct,
            self.color_name,
            self.rgb_color,
            self.color_temp_kelvin,
        ]
        if all(s is None for s in settings):
            raise ValueError("give at least one setting: brightness, colour or temperature")
        if self.brightness_pct is not None and self.brightness_step_pct is not None:
            raise ValueError("give brightness_pct or brightness_step_pct, not both")
        colours = [self.color_name, self.rgb_color, self.color_temp_kelvin]
        if sum(c is not None for c in colours) > 1:
            raise ValueError("give one of color_name, rgb_color, color_temp_kelvin")
        return self

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        data: dict[str, object] = {}
        if self.brightness_pct is not None:
            data["brightness_pct"] = self.brightness_pct
        if self.color_name is not None:
            data["color_name"] = self.color_name.value
        if self.rgb_color is not None:
            data["rgb_color"] = list(self.rgb_color)
        if self.color_temp_kelvin is not None:
            data["color_temp_kelvin"] = self.color_temp_kelvin
        if self.brightness_step_pct is None:
            return per_domain(targets, "turn_on", data)
        # Relative: each light from its own brightness, so the result is known (and bounded).
        # A light that is off goes up from nothing and down from full: "and in the hall too"
        # after "a bit dimmer" means the hall's light on, dimmed (dev bedroom-dimmer-hall:
        # both real models stepped the hall's off light down, which left it off).
        step = self.brightness_step_pct
        actions = []
        for target in sorted(targets, key=lambda t: t.entity_id):
            current = target.attributes.get("brightness")
            if target.state != "on" or current is None:
                current_pct = 100.0 if step < 0 else 0.0
            else:
                current_pct = float(current) / 2.55
            level = round(_clamp(current_pct + step, 0, 100))
            actions.append(
                ServiceCall(
                    "light", "turn_on", (target.entity_id,), {**data, "brightness_pct": level}
                )
            )
        return tuple(actions)


# --- climate -------------------------------------------------------------------------------


class HvacMode(StrEnum):
    OFF = "off"
    HEAT = "heat"
    COOL = "cool"
    HEAT_COOL = "heat_cool"
    AUTO = "auto"
    DRY = "dry"
    FAN_ONLY = "fan_only"


TEMPERATURE_RANGES = {"°C": (7.0, 35.0), "°F": (45.0, 95.0)}
"""HA's own defaults for a thermostat that reports no min_temp/max_temp, per unit system."""


def temperature_range(target: TargetState, unit: str) -> tuple[float, float]:
    """The target temperatures a thermostat accepts: its own min/max, else HA's defaults."""
    low, high = TEMPERATURE_RANGES.get(unit, TEMPERATURE_RANGES["°C"])
    own_low, own_high = target.attributes.get("min_temp"), target.attributes.get("max_temp")
    if isinstance(own_low, int | float) and not isinstance(own_low, bool):
        low = float(own_low)
    if isinstance(own_high, int | float) and not isinstance(own_high, bool):
        high = float(own_high)
    return low, high


class SetClimate(Targeted):
    """Set a thermostat's target temperature (in the home's unit) or mode; "a bit warmer" is +1."""

    name: ClassVar[str] = "set_climate"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"climate"})
    shapes: ClassVar[tuple[str, ...]] = ("temperature|temperature_step, hvac_mode?", "hvac_mode")

    # Wide enough for °C and °F homes; each thermostat's own range is checked when mapping.
    temperature: float | None = Field(
        default=None, ge=5, le=95, description="Target, in the home's unit (°C or °F)."
    )
    temperature_step: float | None = Field(
        default=None, ge=-10, le=10, description="Change the target by this many degrees."
    )
    hvac_mode: HvacMode | None = Field(default=None, description="Operating mode.")

    @model_validator(mode="after")
    def _one_setting(self) -> SetClimate:
        if self.temperature is None and self.temperature_step is None and self.hvac_mode is None:
            raise ValueError("give temperature, temperature_step or hvac_mode")
        if self.temperature is not None and self.temperature_step is not None:
            raise ValueError("give temperature or temperature_step, not both")
        return self

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        ordered = sorted(targets, key=lambda t: t.entity_id)
        if self.temperature is None and self.temperature_step is None:
            assert self.hvac_mode is not None
            return per_domain(ordered, "set_hvac_mode", {"hvac_mode": self.hvac_mode.value})
        actions = []
        for target in ordered:
            low, high = temperature_range(target, context.temperature_unit)
            if self.temperature is not None:
                value = self.temperature
                if not low <= value <= high:
                    raise ToolMappingError(
                        "temperature_out_of_range",
                        f"{target.entity_id} takes {low:g} to {high:g} "
                        f"{context.temperature_unit}, not {value:g}",
                    )
            else:
                assert self.temperature_step is not None
                value = _current_number(target, "temperature", "target temperature")
                value = _clamp(value + self.temperature_step, low, high)
            data: dict[str, object] = {"temperature": round(value, 1)}
            if self.hvac_mode is not None:
                data["hvac_mode"] = self.hvac_mode.value
            actions.append(ServiceCall("climate", "set_temperature", (target.entity_id,), data))
        return tuple(actions)


class SetHumidifier(Targeted):
    """Set a humidifier's target humidity (%) or mode."""

    name: ClassVar[str] = "set_humidifier"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"humidifier"})
    shapes: ClassVar[tuple[str, ...]] = ("humidity, mode?", "mode")

    humidity: int | None = Field(default=None, ge=0, le=100, description="Target humidity in %.")
    mode: ShortText | None = Field(default=None, description="A mode the humidifier offers.")

    @model_validator(mode="after")
    def _one_setting(self) -> SetHumidifier:
        if self.humidity is None and self.mode is None:
            raise ValueError("give humidity or mode")
        return self

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        actions: list[HaAction] = []
        if self.humidity is not None:
            actions += per_domain(targets, "set_humidity", {"humidity": self.humidity})
        if self.mode is not None:
            actions += per_domain(targets, "set_mode", {"mode": self.mode})
        return tuple(actions)


# --- covers and locks ----------------------------------------------------------------------


class CoverClass(StrEnum):
    """Kinds of cover. Doors, garage doors and gates are never opened as a side effect."""

    BLIND = "blind"
    CURTAIN = "curtain"
    SHADE = "shade"
    SHUTTER = "shutter"
    AWNING = "awning"
    WINDOW = "window"
    DOOR = "door"
    GARAGE = "garage"
    GATE = "gate"
    DAMPER = "damper"


ENTRANCE_COVER_CLASSES = frozenset({CoverClass.DOOR, CoverClass.GARAGE, CoverClass.GATE})


class ControlCover(Targeted):
    """Open, close or stop covers (blinds, curtains, garage doors, gates) or set a position."""

    name: ClassVar[str] = "control_cover"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"cover"})
    shapes: ClassVar[tuple[str, ...]] = (
        "action=open|close|stop, device_class?",
        "action=set_position, position, device_class?",
    )

    action: Literal["open", "close", "stop", "set_position"] = Field(description="What to do.")
    position: int | None = Field(
        default=None, ge=0, le=100, description="For set_position: 0 closed, 100 open."
    )
    device_class: list[CoverClass] | None = Field(
        default=None, description="Only covers of these kinds, e.g. [blind]."
    )

    @model_validator(mode="after")
    def _position_with_set_position(self) -> ControlCover:
        if (self.action == "set_position") != (self.position is not None):
            raise ValueError("position goes with action set_position, and only with it")
        return self

    def target_fields(self) -> TargetSpec:
        spec = super().target_fields()
        classes = [c.value for c in self.device_class] if self.device_class else None
        return spec.model_copy(update={"device_class": classes})

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        if self.action == "set_position":
            return per_domain(targets, "set_cover_position", {"position": self.position})
        return per_domain(targets, f"{self.action}_cover")


class ControlLock(Targeted):
    """Lock, unlock or open (unlatch) locks."""

    name: ClassVar[str] = "control_lock"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"lock"})

    action: Literal["lock", "unlock", "open"] = Field(description="What to do.")
    code: Annotated[str, StringConstraints(pattern=r"^[0-9A-Za-z]{1,16}$")] | None = Field(
        default=None, description="Lock code, only if the person said one."
    )

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return per_domain(targets, self.action, given(code=self.code))


# --- fans ----------------------------------------------------------------------------------


class SetFan(Targeted):
    """Set fan speed (%), direction, oscillation or preset."""

    name: ClassVar[str] = "set_fan"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"fan"})
    shapes: ClassVar[tuple[str, ...]] = (
        "percentage|percentage_step|direction|oscillating|preset_mode",
    )

    percentage: int | None = Field(default=None, ge=0, le=100, description="Speed in %.")
    percentage_step: int | None = Field(
        default=None, ge=-100, le=100, description="Change speed by this many %."
    )
    direction: Literal["forward", "reverse"] | None = Field(default=None, description="Direction.")
    oscillating: bool | None = Field(default=None, description="Swing from side to side.")
    preset_mode: ShortText | None = Field(default=None, description="A preset the fan offers.")

    @model_validator(mode="after")
    def _one_setting(self) -> SetFan:
        settings = [
            self.percentage,
            self.percentage_step,
            self.direction,
            self.oscillating,
            self.preset_mode,
        ]
        if all(s is None for s in settings):
            raise ValueError("give a speed, direction, oscillating or preset_mode")
        if self.percentage is not None and self.percentage_step is not None:
            raise ValueError("give percentage or percentage_step, not both")
        return self

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        actions: list[HaAction] = []
        if self.percentage is not None:
            actions += per_domain(targets, "set_percentage", {"percentage": self.percentage})
        if self.percentage_step is not None:
            for target in sorted(targets, key=lambda t: t.entity_id):
                current = target.attributes.get("percentage")
                base = float(current) if isinstance(current, int | float) else 0.0
                level = round(_clamp(base + self.percentage_step, 0, 100))
                actions.append(
                    ServiceCall("fan", "set_percentage", (target.entity_id,), {"percentage": level})
                )
        if self.direction is not None:
            actions += per_domain(targets, "set_direction", {"direction": self.direction})
        if self.oscillating is not None:
            actions += per_domain(targets, "oscillate", {"oscillating": self.oscillating})
        if self.preset_mode is not None:
            actions += per_domain(targets, "set_preset_mode", {"preset_mode": self.preset_mode})
        return tuple(actions)


# --- media ---------------------------------------------------------------------------------

MEDIA_SERVICES = {
    "play": "media_play",
    "pause": "media_pause",
    "stop": "media_stop",
    "next": "media_next_track",
    "previous": "media_previous_track",
}


class ControlMedia(Targeted):
    """Play, pause, stop, next or previous on media players."""

    name: ClassVar[str] = "control_media"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"media_player"})

    action: Literal["play", "pause", "stop", "next", "previous"] = Field(description="What to do.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return per_domain(targets, MEDIA_SERVICES[self.action])


class SetMedia(Targeted):
    """Set media player volume (%), mute, or input source."""

    name: ClassVar[str] = "set_media"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"media_player"})
    shapes: ClassVar[tuple[str, ...]] = ("volume_pct|volume_step_pct|mute|source",)

    volume_pct: int | None = Field(default=None, ge=0, le=100, description="Volume in %.")
    volume_step_pct: int | None = Field(
        default=None, ge=-100, le=100, description="Change volume by this many %."
    )
    mute: bool | None = Field(default=None, description="true to mute, false to unmute.")
    source: ShortText | None = Field(default=None, description="An input source the player lists.")

    @model_validator(mode="after")
    def _one_setting(self) -> SetMedia:
        if all(s is None for s in (self.volume_pct, self.volume_step_pct, self.mute, self.source)):
            raise ValueError("give volume_pct, volume_step_pct, mute or source")
        if self.volume_pct is not None and self.volume_step_pct is not None:
            raise ValueError("give volume_pct or volume_step_pct, not both")
        return self

    def _raises_volume(self) -> bool:
        return (self.volume_step_pct or 0) > 0 or (self.volume_pct or 0) > 0

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        actions: list[HaAction] = []
        if self.volume_pct is not None:
            actions += per_domain(targets, "volume_set", {"volume_level": self.volume_pct / 100})
        if self.volume_step_pct is not None:
            for target in sorted(targets, key=lambda t: t.entity_id):
                current = _current_number(target, "volume_level", "volume")
                level = round(_clamp(current + self.volume_step_pct / 100, 0, 1), 2)
                actions.append(
                    ServiceCall(
                        "media_player", "volume_set", (target.entity_id,), {"volume_level": level}
                    )
                )
        if self.mute is not None:
            actions += per_domain(targets, "volume_mute", {"is_volume_muted": self.mute})
        elif self._raises_volume():
            # Louder on a muted player stays silent: "I can't hear it" unmutes it too.
            muted = [t for t in targets if t.attributes.get("is_volume_muted") is True]
            actions += per_domain(muted, "volume_mute", {"is_volume_muted": False})
        if self.source is not None:
            actions += per_domain(targets, "select_source", {"source": self.source})
        return tuple(actions)


# --- vacuum, scenes, scripts, helpers ------------------------------------------------------


class ControlVacuum(Targeted):
    """Start, pause, stop a vacuum, or send it back to its dock."""

    name: ClassVar[str] = "control_vacuum"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"vacuum"})

    action: Literal["start", "pause", "stop", "return_to_base"] = Field(description="What to do.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return per_domain(targets, self.action)


class ActivateScene(_OneService):
    """Activate a scene."""

    name: ClassVar[str] = "activate_scene"
    domains: ClassVar[frozenset[str]] = frozenset({"scene"})
    service: ClassVar[str] = "turn_on"


class RunScript(_OneService):
    """Run a script."""

    name: ClassVar[str] = "run_script"
    domains: ClassVar[frozenset[str]] = frozenset({"script"})
    service: ClassVar[str] = "turn_on"


class SetNumber(Targeted):
    """Set a number helper or number entity to a value."""

    name: ClassVar[str] = "set_number"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"number", "input_number"})

    value: float = Field(ge=-1_000_000, le=1_000_000, description="The new value.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        for target in targets:
            low, high = target.attributes.get("min"), target.attributes.get("max")
            if (
                isinstance(low, int | float)
                and isinstance(high, int | float)
                and not low <= self.value <= high
            ):
                raise ToolMappingError(
                    "out_of_range",
                    f"{target.entity_id} takes values from {low} to {high}, not {self.value}",
                )
        return per_domain(targets, "set_value", {"value": self.value})


class SelectOption(Targeted):
    """Choose an option of a select or dropdown helper."""

    name: ClassVar[str] = "select_option"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"select", "input_select"})

    option: ShortText = Field(description="One of the options the entity lists.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        for target in targets:
            options = target.attributes.get("options")
            if isinstance(options, list) and self.option not in options:
                raise ToolMappingError(
                    "unknown_option",
                    f"{target.entity_id} has no option {self.option!r}; it offers {options}",
                )
        return per_domain(targets, "select_option", {"option": self.option})


Duration = Annotated[str, StringConstraints(pattern=r"^\d{1,2}:[0-5]\d:[0-5]\d$")]


class ControlTimer(Targeted):
    """Start (optionally with a duration), pause, cancel or finish a timer."""

    name: ClassVar[str] = "control_timer"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"timer"})
    shapes: ClassVar[tuple[str, ...]] = ("action=start, duration?", "action=pause|cancel|finish")

    action: Literal["start", "pause", "cancel", "finish"] = Field(description="What to do.")
    duration: Duration | None = Field(default=None, description="For start: HH:MM:SS.")

    @model_validator(mode="after")
    def _duration_only_on_start(self) -> ControlTimer:
        if self.duration is not None and self.action != "start":
            raise ValueError("duration goes with action start only")
        return self

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return per_domain(targets, self.action, given(duration=self.duration))


DEVICE_TOOLS: tuple[type[Targeted], ...] = (
    TurnOn,
    TurnOff,
    Toggle,
    SetLight,
    SetClimate,
    SetHumidifier,
    ControlCover,
    ControlLock,
    SetFan,
    ControlMedia,
    SetMedia,
    ControlVacuum,
    ActivateScene,
    RunScript,
    SetNumber,
    SelectOption,
    ControlTimer,
)
