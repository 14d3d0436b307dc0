"""The policy file's shape, validated field by field (pydantic, extra keys forbidden).

```yaml
version: 1
confirm: [locks, alarm_panels, entrance_covers, messages_outside_household, calendar_deletes]
household: ["notify.mobile_app_*"]        # message recipients inside the household
groups:
  admin: {ignore_exposure: true, rules: [{allow: [read, control]}]}
  users: {rules: [{allow: [read, control]}]}
users:
  - id: 0d4c…                              # HA user id
    name: Sam                              # for people reading the file
    inherit: false                         # default true: the user's group rules apply too
    rules:
      - allow: [read, control]
        areas: [kids_room]
      - deny: control
        domains: [lock]
      - limit: {temperature: {min: 18, max: 24}}
      - deny: control
        domains: [media_player]
        when: {after: "21:00", before: "07:00"}
mqtt:
  kitchen-panel: {rules: [{allow: control, areas: [kitchen]}]}
anonymous: {rules: []}                     # unauthenticated MQTT: nothing unless granted here
```
"""

from __future__ import annotations

from datetime import time
from enum import StrEnum
import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tool_schemas.catalog import TOOLS


class ConfirmClass(StrEnum):
    """Kinds of action that need the requesting person's explicit "yes"."""

    LOCKS = "locks"
    ALARM_PANELS = "alarm_panels"
    ENTRANCE_COVERS = "entrance_covers"  # covers of class door, garage, gate
    MESSAGES_OUTSIDE_HOUSEHOLD = "messages_outside_household"
    CALENDAR_DELETES = "calendar_deletes"


DEFAULT_CONFIRM = tuple(ConfirmClass)


class Bound(StrEnum):
    """Parameters a `limit` rule can bound, in the units people use."""

    TEMPERATURE = "temperature"  # °C
    BRIGHTNESS_PCT = "brightness_pct"
    COLOR_TEMP_KELVIN = "color_temp_kelvin"
    VOLUME_PCT = "volume_pct"
    PERCENTAGE = "percentage"  # fan speed
    POSITION = "position"  # cover
    HUMIDITY = "humidity"


AccessName = Literal["read", "control"]
GLOB = re.compile(r"^(\*|[a-z0-9_*?]+\.[a-z0-9_*?]+)$")
MQTT_PRINCIPAL = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Range(Strict):
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.min is None and self.max is None:
            raise ValueError("give min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min:g} is greater than max {self.max:g}")
        return self


class TimeWindow(Strict):
    """Active from `after` until `before` (local time; may wrap past midnight), on `days`."""

    after: time | None = None
    before: time | None = None
    days: list[Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]] | None = None

    @field_validator("after", "before", mode="before")
    @classmethod
    def _hh_mm(cls, value: object) -> object:
        if isinstance(value, int):  # YAML 1.1 reads 21:00 unquoted as a sexagesimal number
            return time(value // 60 % 24, value % 60)
        if isinstance(value, str) and not re.fullmatch(r"\d{1,2}:\d{2}", value):
            raise ValueError(f"{value!r} is not a time like 21:00")
        return value

    @model_validator(mode="after")
    def _something(self) -> TimeWindow:
        if self.after is None and self.before is None and not self.days:
            raise ValueError("give after, before or days")
        return self


SELECTORS = (
    "entities",
    "areas",
    "floors",
    "domains",
    "devices",
    "labels",
    "device_classes",
    "tools",
)
"""A rule's selector fields: each one given must match (none given: everything)."""


class RuleSpec(Strict):
    """One rule: exactly one effect, optional selectors (all must match), optional window."""

    id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    allow: list[AccessName] | None = None
    deny: list[AccessName] | None = None
    confirm: list[AccessName] | None = None
    limit: dict[Bound, Range] | None = None

    entities: list[str] | None = None
    areas: list[str] | None = None
    floors: list[str] | None = None
    domains: list[str] | None = None
    devices: list[str] | None = None
    labels: list[str] | None = None
    device_classes: list[str] | None = None
    tools: list[str] | None = None
    when: TimeWindow | None = None
    own_area: bool | None = None
    """`true`: only entities in the requester's own area (a voice satellite's, which Home
    Assistant signs); for a requester without one the rule selects nothing."""

    @field_validator("allow", "deny", "confirm", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @field_validator(*SELECTORS, mode="before")
    @classmethod
    def _not_blank(cls, value: object) -> object:
        # `areas:` with nothing after it (a slip, or a file cut short) would otherwise read
        # as no selector at all: a rule meant for a few areas would cover the whole home.
        if value is None:
            raise ValueError("has no value: list what it selects, or leave the key out")
        return value

    @field_validator("entities")
    @classmethod
    def _globs(cls, globs: list[str]) -> list[str]:
        for glob in globs:
            if not GLOB.match(glob):
                raise ValueError(
                    f"{glob!r} is not an entity glob (like light.* or sensor.kitchen_?)"
                )
        return globs

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, tools: list[str]) -> list[str]:
        unknown = sorted(set(tools) - TOOLS.keys())
        if unknown:
            raise ValueError(f"unknown tool {', '.join(unknown)}")
        return tools

    @field_validator("limit")
    @classmethod
    def _non_empty_limit(cls, limit: dict[Bound, Range]) -> dict[Bound, Range]:
        if not limit:
            raise ValueError("a limit names at least one parameter")
        return limit

    @model_validator(mode="after")
    def _one_effect(self) -> RuleSpec:
        effects = [e for e in ("allow", "deny", "confirm", "limit") if getattr(self, e) is not None]
        if len(effects) != 1:
            found = ", ".join(effects) if effects else "none"
            raise ValueError(
                f"a rule has exactly one of allow, deny, confirm, limit (found {found})"
            )
        return self


class PrincipalSpec(Strict):
    rules: list[RuleSpec] = Field(default_factory=list)


class GroupSpec(PrincipalSpec):
    ignore_exposure: bool = False
    """Admins only: may use entities that are not exposed to Assist."""


class UserSpec(PrincipalSpec):
    id: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]
    name: str | None = None
    inherit: bool = True


class PolicyFile(Strict):
    version: Literal[1]
    confirm: list[ConfirmClass] = Field(default_factory=lambda: list(DEFAULT_CONFIRM))
    household: list[str] = Field(default_factory=list)
    groups: dict[Literal["admin", "users"], GroupSpec] = Field(default_factory=dict)
    users: list[UserSpec] = Field(default_factory=list)
    mqtt: dict[str, PrincipalSpec] = Field(default_factory=dict)
    anonymous: PrincipalSpec = Field(default_factory=PrincipalSpec)

    @field_validator("household")
    @classmethod
    def _household_globs(cls, globs: list[str]) -> list[str]:
        for glob in globs:
            if not GLOB.match(glob) or not glob.startswith("notify."):
                raise ValueError(f"{glob!r} is not a notify target glob (like notify.mobile_app_*)")
        return globs

    @field_validator("mqtt")
    @classmethod
    def _principal_names(cls, principals: dict[str, PrincipalSpec]) -> dict[str, PrincipalSpec]:
        for name in principals:
            if not MQTT_PRINCIPAL.match(name):
                raise ValueError(
                    f"{name!r} is not an MQTT principal name (letters, digits, - and _)"
                )
        return principals

    @field_validator("users")
    @classmethod
    def _unique_users(cls, users: list[UserSpec]) -> list[UserSpec]:
        seen: set[str] = set()
        for user in users:
            if user.id in seen:
                raise ValueError(f"user {user.id} is listed twice")
            seen.add(user.id)
        return users

    @field_validator("groups")
    @classmethod
    def _exposure_for_admins_only(
        cls, groups: dict[Literal["admin", "users"], GroupSpec]
    ) -> dict[Literal["admin", "users"], GroupSpec]:
        if "users" in groups and groups["users"].ignore_exposure:
            raise ValueError("only the admin group may set ignore_exposure")
        return groups
